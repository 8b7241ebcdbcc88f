/* Armada: armci_domain_* and ARMCI_Same_node, the node map as ARMCI shows it.
 *
 * Domain ARMCI_DOMAIN_SMP is the node (a host, or a virtual node under
 * ARMADA_PPN). Nodes are numbered by the world rank of their lowest process,
 * which makes the numbering the order of the masters communicator. Whether
 * a process shares the caller's node is answered locally from the node
 * communicator; the rest needs the whole map, gathered once over the world
 * communicator. That gathering is collective: the first call that needs it
 * must be made by every process (Global Arrays does so in GA_Initialize),
 * or ARMCI_Init calls arm_api_domain_setup() so that it never happens
 * later. */
#include <stdlib.h>

#include "api_internal.h"

void arm_api_domain_setup(void);

typedef struct {
    int  ready;
    int  nprocs;       /* world size                                  */
    int  nnodes;       /* number of nodes                              */
    int  my_node;      /* caller's node                                */
    int *node_of;      /* world rank -> node                           */
    int *first;        /* node -> offset of its processes in `members` */
    int *members;      /* world ranks, node by node, in node-rank order */
} domain_map_t;

static domain_map_t dmap;

static void check_domain(const char *call, armci_domain_t domain)
{
    if (domain != ARMCI_DOMAIN_SMP)
        arm_api_fatal(call, "argument 'domain' (%d) is not ARMCI_DOMAIN_SMP", (int)domain);
}

static void *domain_alloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size);
    if (p == NULL)
        arm_api_fatal("armci_domain", "out of memory for the node map (%zu entries)", count);
    return p;
}

/* Collective over the world communicator; idempotent. */
void arm_api_domain_setup(void)
{
    if (dmap.ready)
        return;
    arm_api_require_init("armci_domain");
    MPI_Comm world = arm_api_world_comm(), node = arm_api_node_comm();
    int np, me, node_rank;
    MPI_Comm_size(world, &np);
    MPI_Comm_rank(world, &me);
    MPI_Comm_rank(node, &node_rank);

    /* Each process names its node by the world rank of the node's rank 0. */
    MPI_Group gnode, gworld;
    int zero = 0, master;
    MPI_Comm_group(node, &gnode);
    MPI_Comm_group(world, &gworld);
    MPI_Group_translate_ranks(gnode, 1, &zero, gworld, &master);
    MPI_Group_free(&gnode);
    MPI_Group_free(&gworld);

    int mine[2] = { master, node_rank };
    int *all = domain_alloc((size_t)np * 2, sizeof(int));
    MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, world);

    /* A master is its own node's name; node ids follow world rank order. */
    int *id_of_master = domain_alloc((size_t)np, sizeof(int));
    int nnodes = 0;
    for (int r = 0; r < np; r++)
        if (all[2 * r] == r)
            id_of_master[r] = nnodes++;
    int *node_of = domain_alloc((size_t)np, sizeof(int));
    int *first = domain_alloc((size_t)nnodes + 1, sizeof(int));
    for (int r = 0; r < np; r++) {
        node_of[r] = id_of_master[all[2 * r]];
        first[node_of[r] + 1]++;
    }
    for (int d = 0; d < nnodes; d++)
        first[d + 1] += first[d];
    int *members = domain_alloc((size_t)np, sizeof(int));
    for (int r = 0; r < np; r++) {
        int slot = first[node_of[r]] + all[2 * r + 1];
        if (all[2 * r + 1] >= first[node_of[r] + 1] - first[node_of[r]])
            arm_api_fatal("armci_domain", "inconsistent node map: rank %d has node rank %d",
                          r, all[2 * r + 1]);
        members[slot] = r;
    }
    free(id_of_master);
    free(all);

    dmap.nprocs = np;
    dmap.nnodes = nnodes;
    dmap.node_of = node_of;
    dmap.first = first;
    dmap.members = members;
    dmap.my_node = node_of[me];
    dmap.ready = 1;
}

static const domain_map_t *domain_map(void)
{
    if (!dmap.ready)
        arm_api_domain_setup();
    return &dmap;
}

static void check_node(const char *call, const char *name, int id, const domain_map_t *m)
{
    if (id < 0 || id >= m->nnodes)
        arm_api_fatal(call, "argument '%s' (%d) is not a node in [0, %d)", name, id, m->nnodes);
}

static void check_proc(const char *call, const char *name, int proc, const domain_map_t *m)
{
    if (proc < 0 || proc >= m->nprocs)
        arm_api_fatal(call, "argument '%s' (%d) is not a rank in [0, %d)", name, proc, m->nprocs);
}

int armci_domain_count(armci_domain_t domain)
{
    check_domain("armci_domain_count", domain);
    return domain_map()->nnodes;
}

int armci_domain_id(armci_domain_t domain, int glob_proc_id)
{
    const char *call = "armci_domain_id";
    check_domain(call, domain);
    const domain_map_t *m = domain_map();
    check_proc(call, "glob_proc_id", glob_proc_id, m);
    return m->node_of[glob_proc_id];
}

int armci_domain_nprocs(armci_domain_t domain, int id)
{
    const char *call = "armci_domain_nprocs";
    check_domain(call, domain);
    const domain_map_t *m = domain_map();
    check_node(call, "id", id, m);
    return m->first[id + 1] - m->first[id];
}

int armci_domain_glob_proc_id(armci_domain_t domain, int id, int loc_proc_id)
{
    const char *call = "armci_domain_glob_proc_id";
    check_domain(call, domain);
    const domain_map_t *m = domain_map();
    check_node(call, "id", id, m);
    int n = m->first[id + 1] - m->first[id];
    if (loc_proc_id < 0 || loc_proc_id >= n)
        arm_api_fatal(call, "argument 'loc_proc_id' (%d) is not in [0, %d) for node %d",
                      loc_proc_id, n, id);
    return m->members[m->first[id] + loc_proc_id];
}

int armci_domain_my_id(armci_domain_t domain)
{
    check_domain("armci_domain_my_id", domain);
    return domain_map()->my_node;
}

/* Answered without the map when it is not there yet, so that it never
 * causes a collective. */
static int same_node(const char *call, int proc)
{
    arm_api_require_init(call);
    if (dmap.ready) {
        check_proc(call, "proc", proc, &dmap);
        return dmap.node_of[proc] == dmap.my_node;
    }
    MPI_Comm world = arm_api_world_comm();
    int np;
    MPI_Comm_size(world, &np);
    if (proc < 0 || proc >= np)
        arm_api_fatal(call, "argument 'proc' (%d) is not a rank in [0, %d)", proc, np);
    MPI_Group gworld, gnode;
    int out;
    MPI_Comm_group(world, &gworld);
    MPI_Comm_group(arm_api_node_comm(), &gnode);
    MPI_Group_translate_ranks(gworld, 1, &proc, gnode, &out);
    MPI_Group_free(&gworld);
    MPI_Group_free(&gnode);
    return out != MPI_UNDEFINED;
}

int armci_domain_same_id(armci_domain_t domain, int proc)
{
    check_domain("armci_domain_same_id", domain);
    return same_node("armci_domain_same_id", proc);
}

int ARMCI_Same_node(int proc)
{
    return same_node("ARMCI_Same_node", proc);
}
