#define _POSIX_C_SOURCE 200809L
/* Process groups: ARMCI_Group values over MPI communicators, and the
 * collective allocations made on them. */
#include <stdlib.h>
#include <string.h>
#include "api/api_check.h"
#include "api/api_internal.h"
#include "armci.h"
#include "armcix.h"
#include "core/arm_ops.h"

static struct {
    ARMCI_Group world;
    ARMCI_Group deflt;
} groups;

/* The two rank maps of a group live in one block behind a list node, so that
 * ARMCI_Finalize can release the maps of groups the program never freed
 * (Global Arrays, for one, keeps its world group to the end). */
typedef struct group_maps {
    struct group_maps *prev, *next;
} group_maps_t;

static group_maps_t *live_maps;

static void fill_maps(ARMCI_Group *g)
{
    int n = arm_core.nproc, gs = g->size > 0 ? g->size : 1;
    group_maps_t *m = malloc(sizeof *m + ((size_t)n + (size_t)gs) * sizeof(int));
    if (!m)
        arm_fatal("ARMCI_Group_create", "out of memory on rank %d", arm_core.me);
    m->prev = NULL;
    m->next = live_maps;
    if (live_maps)
        live_maps->prev = m;
    live_maps = m;
    g->abs_to_grp = (int *)(void *)(m + 1);
    g->grp_to_abs = g->abs_to_grp + n;
    for (int r = 0; r < n; r++)
        g->abs_to_grp[r] = -1;
}

static void release_maps(int *abs_to_grp)
{
    group_maps_t *m = (group_maps_t *)(void *)abs_to_grp - 1;
    if (m->prev)
        m->prev->next = m->next;
    else
        live_maps = m->next;
    if (m->next)
        m->next->prev = m->prev;
    free(m);
}

/* Group ranks of comm translated to world ranks. */
static void group_from_comm(MPI_Comm comm, ARMCI_Group *g)
{
    g->comm = comm;
    g->noncoll_pgroup_comm = MPI_COMM_NULL;
    MPI_Comm_rank(comm, &g->rank);
    MPI_Comm_size(comm, &g->size);
    fill_maps(g);
    MPI_Group cg, wg;
    MPI_Comm_group(comm, &cg);
    MPI_Comm_group(arm_core.world, &wg);
    int *ranks = malloc((size_t)g->size * sizeof(int));
    if (!ranks)
        arm_fatal("ARMCI_Group_create", "out of memory on rank %d", arm_core.me);
    for (int i = 0; i < g->size; i++)
        ranks[i] = i;
    MPI_Group_translate_ranks(cg, g->size, ranks, wg, g->grp_to_abs);
    free(ranks);
    MPI_Group_free(&cg);
    MPI_Group_free(&wg);
    for (int i = 0; i < g->size; i++)
        g->abs_to_grp[g->grp_to_abs[i]] = i;
}

void armada_api_groups_init(void)
{
    group_from_comm(arm_core.world, &groups.world);
    groups.deflt = groups.world;
}

void armada_api_groups_fini(void)
{
    while (live_maps)
        release_maps((int *)(void *)(live_maps + 1));
    memset(&groups, 0, sizeof groups);
}

static void check_group(const char *call, const ARMCI_Group *g)
{
    api_init(call);
    if (ARM_API_CHECKS && !g)
        arm_fatal(call, "argument 'group' is NULL");
}

/* A rank listed twice would make MPI_Group_incl fail or, worse, build a
 * group whose later collectives never match: refuse it by name. */
static void check_distinct(const char *call, int n, const int *pid_list, int parent_size)
{
    int *first = malloc((size_t)(parent_size > 0 ? parent_size : 1) * sizeof *first);
    if (!first)
        arm_fatal(call, "out of memory on rank %d", arm_core.me);
    for (int r = 0; r < parent_size; r++)
        first[r] = -1;
    for (int i = 0; i < n; i++) {
        if (first[pid_list[i]] >= 0) {
            int j = first[pid_list[i]];
            free(first);
            arm_fatal(call, "argument 'pid_list[%d]' = %d repeats 'pid_list[%d]': a group "
                      "lists each rank once", i, pid_list[i], j);
        }
        first[pid_list[i]] = i;
    }
    free(first);
}

static void create_child(const char *call, int grp_size, int *pid_list,
                         ARMCI_Group *group_out, ARMCI_Group *group_parent)
{
    check_group(call, group_parent);
    if (!group_out)
        arm_fatal(call, "argument 'group_out' is NULL");
    if (grp_size < 0 || grp_size > group_parent->size)
        arm_fatal(call, "argument 'grp_size' = %d is outside 0..%d", grp_size,
                  group_parent->size);
    if (grp_size > 0 && !pid_list)
        arm_fatal(call, "argument 'pid_list' is NULL");
    for (int i = 0; i < grp_size; i++)
        if (pid_list[i] < 0 || pid_list[i] >= group_parent->size)
            arm_fatal(call, "argument 'pid_list[%d]' = %d is not a rank of the parent group",
                      i, pid_list[i]);
    check_distinct(call, grp_size, pid_list, group_parent->size);
    MPI_Group pg, ng;
    MPI_Comm comm;
    MPI_Comm_group(group_parent->comm, &pg);
    MPI_Group_incl(pg, grp_size, pid_list, &ng);
    MPI_Comm_create(group_parent->comm, ng, &comm);
    MPI_Group_free(&pg);
    MPI_Group_free(&ng);
    if (comm != MPI_COMM_NULL) {
        group_from_comm(comm, group_out);
        return;
    }
    /* Not a member: the group's membership is still known. */
    group_out->comm = MPI_COMM_NULL;
    group_out->noncoll_pgroup_comm = MPI_COMM_NULL;
    group_out->rank = -1;
    group_out->size = grp_size;
    fill_maps(group_out);
    for (int i = 0; i < grp_size; i++) {
        group_out->grp_to_abs[i] = group_parent->grp_to_abs[pid_list[i]];
        group_out->abs_to_grp[group_out->grp_to_abs[i]] = i;
    }
}

void ARMCI_Group_create_child(int grp_size, int *pid_list, ARMCI_Group *group_out,
                              ARMCI_Group *group_parent)
{
    create_child("ARMCI_Group_create_child", grp_size, pid_list, group_out, group_parent);
}

void ARMCI_Group_create(int grp_size, int *pid_list, ARMCI_Group *group_out)
{
    create_child("ARMCI_Group_create", grp_size, pid_list, group_out, &groups.deflt);
}

void ARMCI_Group_free(ARMCI_Group *group)
{
    check_group("ARMCI_Group_free", group);
    if (group->comm != MPI_COMM_NULL && group->comm != arm_core.world)
        MPI_Comm_free(&group->comm);
    if (group->abs_to_grp && group->abs_to_grp != groups.world.abs_to_grp)
        release_maps(group->abs_to_grp);
    group->grp_to_abs = group->abs_to_grp = NULL;
    group->comm = MPI_COMM_NULL;
    group->rank = -1;
    group->size = 0;
}

int ARMCI_Group_rank(ARMCI_Group *group, int *rank)
{
    check_group("ARMCI_Group_rank", group);
    if (!rank)
        arm_fatal("ARMCI_Group_rank", "argument 'rank' is NULL");
    *rank = group->rank;
    return 0;
}

void ARMCI_Group_size(ARMCI_Group *group, int *size)
{
    check_group("ARMCI_Group_size", group);
    if (!size)
        arm_fatal("ARMCI_Group_size", "argument 'size' is NULL");
    *size = group->size;
}

void ARMCI_Group_set_default(ARMCI_Group *group)
{
    check_group("ARMCI_Group_set_default", group);
    groups.deflt = *group;
}

void ARMCI_Group_get_default(ARMCI_Group *group_out)
{
    check_group("ARMCI_Group_get_default", group_out);
    *group_out = groups.deflt;
}

void ARMCI_Group_get_world(ARMCI_Group *group_out)
{
    check_group("ARMCI_Group_get_world", group_out);
    *group_out = groups.world;
}

int ARMCI_Absolute_id(ARMCI_Group *group, int group_rank)
{
    check_group("ARMCI_Absolute_id", group);
    if (group_rank < 0 || group_rank >= group->size)
        arm_fatal("ARMCI_Absolute_id", "argument 'group_rank' = %d is outside 0..%d",
                  group_rank, group->size - 1);
    return group->grp_to_abs[group_rank];
}

int ARMCIX_Group_split(ARMCI_Group *parent, int color, int key, ARMCI_Group *new_group)
{
    check_group("ARMCIX_Group_split", parent);
    MPI_Comm comm;
    MPI_Comm_split(parent->comm, color, key, &comm);
    if (comm == MPI_COMM_NULL) {
        memset(new_group, 0, sizeof *new_group);
        new_group->comm = new_group->noncoll_pgroup_comm = MPI_COMM_NULL;
        new_group->rank = -1;
        return 0;
    }
    group_from_comm(comm, new_group);
    return 0;
}

int ARMCIX_Group_dup(ARMCI_Group *parent, ARMCI_Group *new_group)
{
    check_group("ARMCIX_Group_dup", parent);
    MPI_Comm comm;
    MPI_Comm_dup(parent->comm, &comm);
    group_from_comm(comm, new_group);
    return 0;
}

/* ---- collective allocation ------------------------------------------------ */
/* A call over a group of every process is a world collective call, counted
 * as such whichever API made it (decision 087). */
static int spans_world(const ARMCI_Group *g)
{
    return g->size == arm_core.nproc;
}

static int malloc_on(const char *call, void **ptr_arr, armci_size_t bytes, ARMCI_Group *g)
{
    check_group(call, g);
    if (ARM_API_CHECKS && bytes < 0)
        arm_fatal(call, "argument 'bytes' = %ld is negative", bytes);
    if (ARM_API_CHECKS && !ptr_arr)
        arm_fatal(call, "argument 'ptr_arr' is NULL");
    if (g->comm == MPI_COMM_NULL)
        arm_fatal(call, "argument 'group': rank %d is not a member", arm_core.me);
    int world = spans_world(g);
    /* The barrier that starts it meets in arm_reg_malloc, before its first
     * collective, and agrees on the allocation's id and on whether every
     * process can go ahead. */
    if (world)
        arm_core_coll_open(ARM_COLL_MALLOC);
    arm_status_t st = arm_reg_malloc(g->comm, g->size, g->grp_to_abs, (size_t)bytes, 0,
                                     ptr_arr, NULL);
    if (world)
        arm_core_coll_end();
    if (st != ARM_OK)
        arm_fatal(call, "allocating %ld bytes failed: %s", bytes,
                  arm_reg_error()[0] ? arm_reg_error() : arm_status_str(st));
    return 0;
}

int ARMCI_Malloc_group(void **ptr_arr, armci_size_t bytes, ARMCI_Group *group)
{
    return malloc_on("ARMCI_Malloc_group", ptr_arr, bytes, group);
}

static int free_on(const char *call, void *ptr, ARMCI_Group *g)
{
    arm_alloc_t *a;
    uint64_t id = arm_reg_free_id(ptr, call, &a);   /* a bad ptr is named before the call meets the others */
    int world = spans_world(g);
    /* The barrier that starts it meets in arm_reg_free, after this
     * process's accesses are complete, and agrees on which allocation goes. */
    if (world)
        arm_core_coll_open(ARM_COLL_FREE);
    arm_op_fence_all();
    arm_op_nb_wait_proc(call, -1);   /* no get may still read it */
    arm_reg_free(g->comm, ptr, id, a, call);
    if (world)
        arm_core_coll_end();
    return 0;
}

int ARMCI_Free_group(void *ptr, ARMCI_Group *group)
{
    check_group("ARMCI_Free_group", group);
    return free_on("ARMCI_Free_group", ptr, group);
}

int PARMCI_Malloc(void **base_ptrs, armci_size_t size)
{
    return malloc_on("ARMCI_Malloc", base_ptrs, size, &groups.world);
}

int PARMCI_Free(void *ptr)
{
    api_init("ARMCI_Free");
    return free_on("ARMCI_Free", ptr, &groups.world);
}

int PARMCI_Malloc_memdev(void **ptr_arr, armci_size_t bytes, const char *device)
{
    (void)device;
    return malloc_on("ARMCI_Malloc_memdev", ptr_arr, bytes, &groups.world);
}

int PARMCI_Malloc_group_memdev(void **ptr_arr, armci_size_t bytes, ARMCI_Group *group,
                               const char *device)
{
    (void)device;
    return malloc_on("ARMCI_Malloc_group_memdev", ptr_arr, bytes, group);
}

int PARMCI_Free_memdev(void *ptr) { return PARMCI_Free(ptr); }

void *PARMCI_Malloc_local(armci_size_t size)
{
    api_init("ARMCI_Malloc_local");
    if (ARM_API_CHECKS && size < 0)
        arm_fatal("ARMCI_Malloc_local", "argument 'size' = %ld is negative", size);
    void *p = NULL;
    if (posix_memalign(&p, 64, size > 0 ? (size_t)size : 1) != 0)
        return NULL;
    return p;
}

int PARMCI_Free_local(void *ptr)
{
    free(ptr);
    return 0;
}

int ARMCI_Uses_shm(void) { return 1; }
void ARMCI_Set_shm_limit(unsigned long shmemlimit) { (void)shmemlimit; }
int ARMCI_Uses_shm_grp(ARMCI_Group *group) { (void)group; return 1; }
