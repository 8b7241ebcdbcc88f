#define _GNU_SOURCE   /* sched_getaffinity, CPU_COUNT */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include "core/arm_core.h"
#include "core/arm_mpi.h"
#include "util/arm_log.h"

/* What each process tells the others at start-up, in the one exchange
 * whose cost grows with the job (decision 098): its host, and the cores it
 * may run on (taskset, a cpuset or container limit, mpirun's binding). */
typedef struct proc_rec {
    uint64_t host;      /* hash of the host name and the kernel's boot id */
    uint64_t cpu_hash;  /* hash of its affinity mask                      */
    int32_t cpus;       /* cores in its affinity mask                     */
    int32_t pad;
} proc_rec_t;

static uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;   /* FNV-1a */
    return h;
}

/* This host: its name and the boot id of its kernel, so that two machines
 * (or containers of two machines) of one name stay apart, as MPI's
 * shared-memory split keeps them. */
static uint64_t host_key(void)
{
    char name[256] = "", boot[64] = "";
    gethostname(name, sizeof name - 1);
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(boot, sizeof boot, f))
            boot[0] = 0;
        fclose(f);
    }
    uint64_t h = hash_bytes(0xcbf29ce484222325ULL, name, strlen(name));
    return hash_bytes(h ^ 0x2f, boot, strlen(boot));
}

static proc_rec_t my_record(void)
{
    proc_rec_t r = { host_key(), 0, 0, 0 };
    cpu_set_t mask;
    CPU_ZERO(&mask);
    if (sched_getaffinity(0, sizeof mask, &mask) == 0) {
        r.cpus = CPU_COUNT(&mask);
        r.cpu_hash = hash_bytes(0xcbf29ce484222325ULL, &mask, sizeof mask);
    }
    return r;
}

/* Cores the host's processes may run on: the cores of their affinity mask
 * where they all have the same one (no binding, a cpuset), else the sum of
 * theirs (bound to cores of their own), at most the cores online. The
 * waiting policies compare it with the processes and threads that want a
 * core. */
static int host_cores(const proc_rec_t *recs, int n, const proc_rec_t *mine)
{
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    int same = 1, sum = 0, known = 1;
    for (int r = 0; r < n; r++) {
        if (recs[r].host != mine->host)
            continue;
        same &= recs[r].cpu_hash == mine->cpu_hash;
        known &= recs[r].cpus > 0;
        sum += recs[r].cpus;
    }
    int cores = !known ? (int)online : same ? mine->cpus : sum;
    if (online > 0 && (cores <= 0 || cores > online))
        cores = (int)online;
    return cores > 0 ? cores : 1;
}

/* Ranks in order of host, then rank (qsort_r's order for host_leaders). */
static int by_host(const void *a, const void *b, void *arg)
{
    const proc_rec_t *recs = arg;
    int x = *(const int *)a, y = *(const int *)b;
    uint64_t hx = recs[x].host, hy = recs[y].host;
    return hx != hy ? (hx < hy ? -1 : 1) : (x > y) - (x < y);
}

/* leader_of[r]: the lowest rank of r's host, in O(n log n). */
static int host_leaders(const proc_rec_t *recs, int n, int *leader_of)
{
    int *order = malloc(sizeof(int) * (size_t)n);
    if (!order)
        return -1;
    for (int r = 0; r < n; r++)
        order[r] = r;
    qsort_r(order, (size_t)n, sizeof *order, by_host, (void *)recs);
    for (int i = 0; i < n; i++)
        leader_of[order[i]] = i > 0 && recs[order[i - 1]].host == recs[order[i]].host
                                  ? leader_of[order[i - 1]] : order[i];
    free(order);
    return 0;
}

/* A communicator of the members (world ranks, ascending) of a group this
 * process is in: without talking to anyone when it is this process alone,
 * a duplicate of the world when it is every process, else made by the
 * members alone (MPI_Comm_create_group), never by a collective over the
 * whole job. */
static MPI_Comm group_comm(arm_core_t *c, const int *members, int count, int tag)
{
    MPI_Comm out = MPI_COMM_NULL;
    if (count == 1) {
        MPI_Comm_dup(MPI_COMM_SELF, &out);
    } else if (count == c->nproc) {
        arm_mpi_comm_dup(c->world, &out);
    } else {
        MPI_Group world, group;
        MPI_Comm_group(c->world, &world);
        MPI_Group_incl(world, count, members, &group);
        MPI_Comm_create_group(c->world, group, tag, &out);
        MPI_Group_free(&group);
        MPI_Group_free(&world);
    }
    return out;
}

/* Nodes are either virtual (ARMADA_PPN=k: ranks r with the same r / k) or the
 * hosts. Node ids are dense and ordered by the node's lowest rank. The one
 * exchange over the job is an all-gather of 24-byte records; the node's and
 * the leaders' communicators are made by their members alone. */
arm_status_t arm_procmap_init(arm_core_t *c, long ppn)
{
    int n = c->nproc;
    c->node_of = calloc((size_t)n, sizeof(int));
    c->node_leader = calloc((size_t)n, sizeof(int));
    c->node_size = calloc((size_t)n, sizeof(int));
    c->local_index = calloc((size_t)n, sizeof(int));
    int *leader_of = calloc((size_t)n, sizeof(int));
    proc_rec_t *recs = calloc((size_t)n, sizeof *recs);
    if (!c->node_of || !c->node_leader || !c->node_size || !c->local_index || !leader_of ||
        !recs) {
        free(leader_of);
        free(recs);
        return ARM_ERR_NO_MEMORY;
    }
    proc_rec_t mine = my_record();
    arm_mpi_allgather(&mine, (int)sizeof mine, MPI_BYTE, recs, (int)sizeof mine, MPI_BYTE,
                      c->world);
    /* The host's processes, and each one's host leader (its lowest rank). */
    c->host_size = 0;
    for (int r = 0; r < n; r++)
        c->host_size += recs[r].host == mine.host;
    if (ppn > 0) {
        for (int r = 0; r < n; r++)
            leader_of[r] = (int)(r - r % ppn);
    } else if (host_leaders(recs, n, leader_of) != 0) {
        free(leader_of);
        free(recs);
        return ARM_ERR_NO_MEMORY;
    }
    c->host_cores = host_cores(recs, n, &mine);
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
    int servers = 0;
    for (int r = 0; r < n && nodes > 1; r++)
        servers += recs[r].host == mine.host && leader_of[r] == r;
    c->host_threads = c->host_size + servers;
    free(leader_of);
    free(recs);
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
    c->node_comm = group_comm(c, c->node_members + c->node_first[c->my_node],
                              c->node_size[c->my_node], 1);
    c->masters_comm = MPI_COMM_NULL;
    if (c->local_index[c->me] == 0)
        c->masters_comm = group_comm(c, c->node_leader, nodes, 2);
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
