/* Armada: armci_domain_* and ARMCI_Same_node, the node map as ARMCI shows it.
 *
 * Domain ARMCI_DOMAIN_SMP is the node (a host, or a virtual node under
 * ARMADA_PPN). Nodes are numbered in the order of their lowest rank. The
 * map is the core's (arm_procmap.c), built once at ARMCI_Init: no query
 * communicates. As in ARMCI, a node id below 0 means the caller's own node
 * (Global Arrays passes -1 through). */
#include "api/api_check.h"
#include "api_internal.h"

static void check_domain(const char *call, armci_domain_t domain)
{
    api_init(call);
    if (domain != ARMCI_DOMAIN_SMP)
        arm_api_fatal(call, "argument 'domain' (%d) is not ARMCI_DOMAIN_SMP", (int)domain);
}

/* The node `id` names: itself, or the caller's node when it is below 0. */
static int check_node(const char *call, const char *name, int id)
{
    if (id < 0)
        return arm_core.my_node;
    if (id >= arm_core.nnodes)
        arm_api_fatal(call, "argument '%s' (%d) is not a node in [0, %d) nor below 0 (the "
                      "caller's node)", name, id, arm_core.nnodes);
    return id;
}

static void check_proc(const char *call, const char *name, int proc)
{
    if (proc < 0 || proc >= arm_core.nproc)
        arm_api_fatal(call, "argument '%s' (%d) is not a rank in [0, %d)", name, proc,
                      arm_core.nproc);
}

int armci_domain_count(armci_domain_t domain)
{
    check_domain("armci_domain_count", domain);
    return arm_core.nnodes;
}

int armci_domain_id(armci_domain_t domain, int glob_proc_id)
{
    const char *call = "armci_domain_id";
    check_domain(call, domain);
    check_proc(call, "glob_proc_id", glob_proc_id);
    return arm_core.node_of[glob_proc_id];
}

int armci_domain_nprocs(armci_domain_t domain, int id)
{
    const char *call = "armci_domain_nprocs";
    check_domain(call, domain);
    id = check_node(call, "id", id);
    return arm_core.node_size[id];
}

int armci_domain_glob_proc_id(armci_domain_t domain, int id, int loc_proc_id)
{
    const char *call = "armci_domain_glob_proc_id";
    check_domain(call, domain);
    id = check_node(call, "id", id);
    if (loc_proc_id < 0 || loc_proc_id >= arm_core.node_size[id])
        arm_api_fatal(call, "argument 'loc_proc_id' (%d) is not in [0, %d) for node %d",
                      loc_proc_id, arm_core.node_size[id], id);
    return arm_core.node_members[arm_core.node_first[id] + loc_proc_id];
}

int armci_domain_my_id(armci_domain_t domain)
{
    check_domain("armci_domain_my_id", domain);
    return arm_core.my_node;
}

int armci_domain_same_id(armci_domain_t domain, int proc)
{
    check_domain("armci_domain_same_id", domain);
    check_proc("armci_domain_same_id", "proc", proc);
    return arm_same_node(proc);
}

int ARMCI_Same_node(int proc)
{
    api_init("ARMCI_Same_node");
    check_proc("ARMCI_Same_node", "proc", proc);
    return arm_same_node(proc);
}
