#define _GNU_SOURCE   /* sched_getaffinity, CPU_COUNT */
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>
#include "core/arm_core.h"
#include "util/arm_log.h"

/* Cores the host's processes may run on: the union of their affinity masks
 * (taskset, a cpuset or container limit, mpirun's binding), which can be
 * fewer than the cores online. The waiting policies compare it with the
 * processes and threads that want a core. */
static int host_cores(MPI_Comm host)
{
    cpu_set_t mask;
    CPU_ZERO(&mask);
    int ok = sched_getaffinity(0, sizeof mask, &mask) == 0;
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, host);
    if (all_ok) {
        MPI_Allreduce(MPI_IN_PLACE, &mask, (int)sizeof mask, MPI_BYTE, MPI_BOR, host);
        int n = CPU_COUNT(&mask);
        if (n > 0)
            return n;
    }
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (int)online : 1;
}

/* Nodes are either virtual (ARMADA_PPN=k: ranks r with the same r / k) or the
 * hosts (MPI's shared-memory split). Node ids are dense and ordered by the
 * node's lowest rank. */
arm_status_t arm_procmap_init(arm_core_t *c, long ppn)
{
    int n = c->nproc;
    c->node_of = calloc((size_t)n, sizeof(int));
    c->node_leader = calloc((size_t)n, sizeof(int));
    c->node_size = calloc((size_t)n, sizeof(int));
    c->local_index = calloc((size_t)n, sizeof(int));
    int *leader_of = calloc((size_t)n, sizeof(int));
    if (!c->node_of || !c->node_leader || !c->node_size || !c->local_index || !leader_of) {
        free(leader_of);
        return ARM_ERR_NO_MEMORY;
    }
    MPI_Comm host;
    int host_leader = c->me;
    MPI_Comm_split_type(c->world, MPI_COMM_TYPE_SHARED, c->me, MPI_INFO_NULL, &host);
    MPI_Comm_size(host, &c->host_size);
    MPI_Allreduce(MPI_IN_PLACE, &host_leader, 1, MPI_INT, MPI_MIN, host);
    c->host_cores = host_cores(host);
    if (ppn > 0) {
        for (int r = 0; r < n; r++)
            leader_of[r] = (int)(r - r % ppn);
    } else {
        MPI_Allgather(&host_leader, 1, MPI_INT, leader_of, 1, MPI_INT, c->world);
    }
    /* Dense node ids in order of first appearance (leaders are lowest ranks). */
    int nodes = 0;
    for (int r = 0; r < n; r++) {
        if (leader_of[r] == r) {
            c->node_leader[nodes] = r;
            c->node_of[r] = nodes++;
        } else {
            c->node_of[r] = c->node_of[leader_of[r]];
        }
        c->local_index[r] = c->node_size[c->node_of[r]]++;
    }
    /* Threads that want a core: the processes, plus a server thread per node
     * on this host once there is more than one node. */
    int servers = nodes > 1 && leader_of[c->me] == c->me;
    MPI_Allreduce(MPI_IN_PLACE, &servers, 1, MPI_INT, MPI_SUM, host);
    MPI_Comm_free(&host);
    c->host_threads = c->host_size + servers;
    free(leader_of);
    c->nnodes = nodes;
    c->node_first = calloc((size_t)nodes + 1, sizeof(int));
    c->node_members = calloc((size_t)n, sizeof(int));
    if (!c->node_first || !c->node_members)
        return ARM_ERR_NO_MEMORY;
    for (int d = 0; d < nodes; d++)
        c->node_first[d + 1] = c->node_first[d] + c->node_size[d];
    for (int r = 0; r < n; r++)
        c->node_members[c->node_first[c->node_of[r]] + c->local_index[r]] = r;
    c->my_node = c->node_of[c->me];
    MPI_Comm_split(c->world, c->my_node, c->me, &c->node_comm);
    MPI_Comm_split(c->world, c->local_index[c->me] == 0 ? 0 : MPI_UNDEFINED, c->me,
                   &c->masters_comm);
    return ARM_OK;
}

void arm_procmap_fini(arm_core_t *c)
{
    if (c->node_comm != MPI_COMM_NULL)
        MPI_Comm_free(&c->node_comm);
    if (c->masters_comm != MPI_COMM_NULL)
        MPI_Comm_free(&c->masters_comm);
    free(c->node_of);
    free(c->node_leader);
    free(c->node_size);
    free(c->local_index);
    free(c->node_first);
    free(c->node_members);
    c->node_of = c->node_leader = c->node_size = c->local_index = NULL;
    c->node_first = c->node_members = NULL;
}
