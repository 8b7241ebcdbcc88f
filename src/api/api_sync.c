/* Completion, ordering, mutexes, read-modify-write, and Armada's own
 * extensions (armada.h). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "api/api_check.h"
#include "arm_build_config.h"
#include "armada.h"
#include "armci.h"
#include "armcix.h"
#include "core/arm_ops.h"

/* ---- non-blocking handles ----------------------------------------------------
 * Same-node operations complete before they return. Between nodes, a call
 * stays outstanding until waited on when something of it is left: a get's
 * reply, or a transfer the progress agent carries (decision 056); smaller
 * puts and accumulates complete locally before they return (remote
 * completion is the job of Fence). The handle's target holds -token of the
 * call's outstanding work (arm_op_nb_*), or the target rank + 1 once nothing
 * is outstanding. An aggregate handle gathers several calls: waiting on it
 * completes every outstanding call. A NULL handle is the implicit one,
 * completed by WaitProc and WaitAll. */
void ARMCI_INIT_HANDLE(armci_hdl_t *hdl)
{
    if (hdl) {
        hdl->target = 0;
        hdl->aggregate = 0;
    }
}
void ARMCI_SET_AGGREGATE_HANDLE(armci_hdl_t *handle)
{
    if (handle)
        handle->aggregate = 1;
}
void ARMCI_UNSET_AGGREGATE_HANDLE(armci_hdl_t *handle)
{
    if (handle)
        handle->aggregate = 0;
}

/* A call to a process of this node completes before it returns: it takes
 * no entry of the non-blocking table, nor the lock that guards it when the
 * job spans nodes (decision 066). Returns whether the call is tracked. */
static inline int nb_begin(int proc)
{
    if (arm_core.initialized && (unsigned)proc < (unsigned)arm_core.nproc &&
        arm_same_node(proc))
        return 0;
    arm_op_nb_begin();
    return 1;
}

/* A handle the caller never initialised still works in a non-blocking
 * call: anything but an aggregate handle (aggregate == 1) is taken as a
 * plain one and set whole, so that Wait and Test can tell a handle that no
 * call set from one that a call did. */
static inline void note_nb(armci_hdl_t *hdl, int proc, int tracked)
{
    int token = tracked ? arm_op_nb_end() : 0;
    if (hdl && hdl->aggregate != 1) {
        hdl->aggregate = 0;
        hdl->target = token ? -token : proc + 1;
    }
}

/* Wait and Test on a handle that neither ARMCI_INIT_HANDLE nor a
 * non-blocking call set (an uninitialised variable, freed memory) stop the
 * program: its fields would otherwise read as some other call's token, or
 * as a completed call, and the caller's error would go unseen. A set handle
 * holds aggregate 0 or 1 and a target in [INT_MIN + 1, nproc]. */
static void check_hdl(const char *call, const armci_hdl_t *hdl)
{
    if (!ARM_API_CHECKS)
        return;
    if (!hdl)
        arm_fatal(call, "argument 'hdl' is NULL");
    if ((hdl->aggregate != 0 && hdl->aggregate != 1) || hdl->target == INT_MIN ||
        hdl->target > arm_core.nproc)
        arm_fatal(call, "argument 'hdl' = %p holds { target %d, aggregate %d }: it was not "
                  "set by ARMCI_INIT_HANDLE or by a non-blocking call",
                  (const void *)hdl, hdl->target, hdl->aggregate);
}

int PARMCI_NbPut(void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl)
{
    int tracked = nb_begin(proc);
    PARMCI_Put(src, dst, bytes, proc);
    note_nb(hdl, proc, tracked);
    return 0;
}
int PARMCI_NbGet(void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl)
{
    int tracked = nb_begin(proc);
    PARMCI_Get(src, dst, bytes, proc);
    note_nb(hdl, proc, tracked);
    return 0;
}
int PARMCI_NbAcc(int datatype, void *scale, void *src, void *dst, int bytes, int proc,
                 armci_hdl_t *hdl)
{
    int tracked = nb_begin(proc);
    PARMCI_Acc(datatype, scale, src, dst, bytes, proc);
    note_nb(hdl, proc, tracked);
    return 0;
}
int PARMCI_NbPutS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[],
                  int count[], int stride_levels, int proc, armci_hdl_t *hdl)
{
    int tracked = nb_begin(proc);
    PARMCI_PutS(src_ptr, src_stride_ar, dst_ptr, dst_stride_ar, count, stride_levels, proc);
    note_nb(hdl, proc, tracked);
    return 0;
}
int PARMCI_NbGetS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[],
                  int count[], int stride_levels, int proc, armci_hdl_t *hdl)
{
    int tracked = nb_begin(proc);
    PARMCI_GetS(src_ptr, src_stride_ar, dst_ptr, dst_stride_ar, count, stride_levels, proc);
    note_nb(hdl, proc, tracked);
    return 0;
}
int PARMCI_NbAccS(int datatype, void *scale, void *src_ptr, int src_stride_ar[],
                  void *dst_ptr, int dst_stride_ar[], int count[], int stride_levels,
                  int proc, armci_hdl_t *hdl)
{
    int tracked = nb_begin(proc);
    PARMCI_AccS(datatype, scale, src_ptr, src_stride_ar, dst_ptr, dst_stride_ar, count,
                stride_levels, proc);
    note_nb(hdl, proc, tracked);
    return 0;
}
int PARMCI_NbPutV(armci_giov_t *iov, int iov_len, int proc, armci_hdl_t *handle)
{
    int tracked = nb_begin(proc);
    PARMCI_PutV(iov, iov_len, proc);
    note_nb(handle, proc, tracked);
    return 0;
}
int PARMCI_NbGetV(armci_giov_t *iov, int iov_len, int proc, armci_hdl_t *handle)
{
    int tracked = nb_begin(proc);
    PARMCI_GetV(iov, iov_len, proc);
    note_nb(handle, proc, tracked);
    return 0;
}
int PARMCI_NbAccV(int datatype, void *scale, armci_giov_t *iov, int iov_len, int proc,
                  armci_hdl_t *handle)
{
    int tracked = nb_begin(proc);
    PARMCI_AccV(datatype, scale, iov, iov_len, proc);
    note_nb(handle, proc, tracked);
    return 0;
}

int PARMCI_Wait(armci_hdl_t *hdl)
{
    api_init("ARMCI_Wait");
    check_hdl("ARMCI_Wait", hdl);
    if (hdl->aggregate)
        arm_op_nb_wait_proc("ARMCI_Wait", -1);
    else if (hdl->target < 0)
        arm_op_nb_wait("ARMCI_Wait", -hdl->target);
    hdl->target = 0;
    return 0;
}

/* 0 when the operation is complete, 1 while it is outstanding. */
int PARMCI_Test(armci_hdl_t *hdl)
{
    api_init("ARMCI_Test");
    check_hdl("ARMCI_Test", hdl);
    int token = hdl->aggregate ? 0 : hdl->target < 0 ? -hdl->target : -1;
    return token >= 0 && !arm_op_nb_test(token);
}

int PARMCI_WaitProc(int proc)
{
    api_init("ARMCI_WaitProc");
    api_proc("ARMCI_WaitProc", proc);
    arm_op_nb_wait_proc("ARMCI_WaitProc", proc);
    return 0;
}

int PARMCI_WaitAll(void)
{
    api_init("ARMCI_WaitAll");
    arm_op_nb_wait_proc("ARMCI_WaitAll", -1);
    return 0;
}

/* ---- ordering ----------------------------------------------------------------- */
void PARMCI_Fence(int proc)
{
    api_init("ARMCI_Fence");
    api_proc("ARMCI_Fence", proc);
    arm_op_fence(proc);
}

void PARMCI_AllFence(void)
{
    api_init("ARMCI_AllFence");
    arm_op_fence_all();
}

void PARMCI_Barrier(void)
{
    api_init("ARMCI_Barrier");
    arm_op_fence_all();
    arm_core_barrier(arm_core.world);
}

void PARMCI_Access_begin(void *ptr) { (void)ptr; }
void PARMCI_Access_end(void *ptr) { (void)ptr; }

/* ---- mutexes and read-modify-write -------------------------------------------- */
int PARMCI_Create_mutexes(int count)
{
    api_init("ARMCI_Create_mutexes");
    api_count("ARMCI_Create_mutexes", "count", count);
    arm_core_coll_begin(ARM_COLL_CREATE_MUTEXES);
    arm_status_t st = arm_op_create_mutexes("ARMCI_Create_mutexes", count);
    arm_core_coll_end();
    return st == ARM_OK ? 0 : 1;
}

int PARMCI_Destroy_mutexes(void)
{
    api_init("ARMCI_Destroy_mutexes");
    arm_core_coll_begin(ARM_COLL_DESTROY_MUTEXES);
    arm_op_destroy_mutexes("ARMCI_Destroy_mutexes");
    arm_core_coll_end();
    return 0;
}

void PARMCI_Lock(int mutex, int proc)
{
    api_init("ARMCI_Lock");
    api_proc("ARMCI_Lock", proc);
    arm_op_lock("ARMCI_Lock", mutex, proc, 0);
}

void PARMCI_Unlock(int mutex, int proc)
{
    api_init("ARMCI_Unlock");
    api_proc("ARMCI_Unlock", proc);
    arm_op_lock("ARMCI_Unlock", mutex, proc, 1);
}

int PARMCI_Rmw(int op, void *ploc, void *prem, int value, int proc)
{
    const char *call = "ARMCI_Rmw";
    api_init(call);
    api_proc(call, proc);
    api_ptr(call, "ploc", ploc, 1);
    api_ptr(call, "prem", prem, 1);
    switch (op) {
    case ARMCI_FETCH_AND_ADD:
        *(int *)ploc = (int)arm_op_rmw(call, op, prem, value, 0, proc);
        break;
    case ARMCI_FETCH_AND_ADD_LONG:
        *(long *)ploc = arm_op_rmw(call, op, prem, value, 0, proc);
        break;
    case ARMCI_SWAP:
        *(int *)ploc = (int)arm_op_rmw(call, op, prem, *(int *)ploc, 0, proc);
        break;
    case ARMCI_SWAP_LONG:
        *(long *)ploc = arm_op_rmw(call, op, prem, *(long *)ploc, 0, proc);
        break;
    default:
        arm_fatal(call, "argument 'op' = %d is not an ARMCI_Rmw operation", op);
    }
    return 0;
}

/* ---- ARMCIX mutex batches --------------------------------------------------------- */
typedef struct mutex_batch {
    struct armcix_mutex_hdl_s pub;   /* first: the handle points here */
    arm_alloc_t *alloc;
    int *counts;                     /* group rank -> mutexes it hosts */
    size_t *first;                   /* group rank -> its first flag in held */
    unsigned char *held;             /* the mutexes this process holds */
} mutex_batch_t;

armcix_mutex_hdl_t ARMCIX_Create_mutexes_hdl(int count, ARMCI_Group *pgroup)
{
    const char *call = "ARMCIX_Create_mutexes_hdl";
    api_init(call);
    api_count(call, "count", count);
    if (!pgroup || pgroup->comm == MPI_COMM_NULL)
        arm_fatal(call, "argument 'pgroup' is NULL or does not contain rank %d", arm_core.me);
    mutex_batch_t *b = calloc(1, sizeof *b);
    if (!b || !(b->counts = malloc((size_t)pgroup->size * sizeof(int))) ||
        !(b->pub.bases = malloc((size_t)pgroup->size * sizeof(uint8_t *))))
        arm_fatal(call, "out of memory on rank %d", arm_core.me);
    b->pub.my_count = count;
    b->pub.grp = *pgroup;
    b->pub.windows = NULL;
    MPI_Allgather(&count, 1, MPI_INT, b->counts, 1, MPI_INT, pgroup->comm);
    b->pub.max_count = 0;
    size_t total = 0;
    for (int i = 0; i < pgroup->size; i++)
        total += (size_t)b->counts[i];
    if (!(b->first = malloc((size_t)pgroup->size * sizeof *b->first)) ||
        !(b->held = calloc(total + 1, 1)))
        arm_fatal(call, "out of memory on rank %d", arm_core.me);
    total = 0;
    for (int i = 0; i < pgroup->size; i++) {
        b->first[i] = total;
        total += (size_t)b->counts[i];
        if (b->counts[i] > b->pub.max_count)
            b->pub.max_count = b->counts[i];
    }
    if (arm_reg_malloc(pgroup->comm, pgroup->size, pgroup->grp_to_abs,
                       (size_t)count * sizeof(arm_shm_mutex_t), 1, (void **)b->pub.bases,
                       &b->alloc) != ARM_OK)
        arm_fatal(call, "allocating %d mutexes failed on rank %d", count, arm_core.me);
    return &b->pub;
}

int ARMCIX_Destroy_mutexes_hdl(armcix_mutex_hdl_t hdl)
{
    mutex_batch_t *b = (mutex_batch_t *)hdl;
    api_init("ARMCIX_Destroy_mutexes_hdl");
    arm_op_fence_all();
    MPI_Barrier(b->pub.grp.comm);
    arm_reg_free_internal(b->alloc);
    free(b->counts);
    free(b->first);
    free(b->held);
    free(b->pub.bases);
    free(b);
    return 0;
}

static int batch_mutex(const char *call, armcix_mutex_hdl_t hdl, int mutex, int proc,
                       int action)
{
    mutex_batch_t *b = (mutex_batch_t *)hdl;
    api_init(call);
    if (!hdl)
        arm_fatal(call, "argument 'hdl' is NULL");
    /* proc is a world rank, as in ARMCI-MPI. */
    api_proc(call, proc);
    int g = b->pub.grp.abs_to_grp[proc];
    if (g < 0)
        arm_fatal(call, "argument 'proc' = %d is not a member of the mutex group", proc);
    if (mutex < 0 || mutex >= b->counts[g])
        arm_fatal(call, "argument 'mutex' = %d is out of range: rank %d created %d mutexes",
                  mutex, proc, b->counts[g]);
    unsigned char *held = &b->held[b->first[g] + (size_t)mutex];
    if (action != ARM_MUTEX_TRYLOCK)
        arm_op_mutex_owned(call, held, mutex, proc, action == ARM_MUTEX_UNLOCK);
    else if (*held)
        return 0;   /* held by the caller: not acquired again */
    int got = arm_op_mutex_at(call, b->pub.bases[g] + (size_t)mutex * sizeof(arm_shm_mutex_t),
                              proc, action);
    if (action == ARM_MUTEX_UNLOCK)
        *held = 0;
    else if (got)
        *held = 1;
    return got;
}

void ARMCIX_Lock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc)
{
    batch_mutex("ARMCIX_Lock_hdl", hdl, mutex, proc, ARM_MUTEX_LOCK);
}
int ARMCIX_Trylock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc)
{
    /* ARMCI-MPI convention: 0 when acquired. */
    return batch_mutex("ARMCIX_Trylock_hdl", hdl, mutex, proc, ARM_MUTEX_TRYLOCK) ? 0 : 1;
}
void ARMCIX_Unlock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc)
{
    batch_mutex("ARMCIX_Unlock_hdl", hdl, mutex, proc, ARM_MUTEX_UNLOCK);
}
void ARMCIX_Progress(void) {}

/* ---- armada.h ------------------------------------------------------------------- */
const char *armada_version(int *major, int *minor, int *patch)
{
    if (major)
        *major = ARMADA_VERSION_MAJOR;
    if (minor)
        *minor = ARMADA_VERSION_MINOR;
    if (patch)
        *patch = ARMADA_VERSION_PATCH;
    return ARMADA_VERSION_STRING;
}

int armada_stats_get(armada_stats_t *out)
{
    if (!arm_core.initialized || !out)
        return -1;
    arm_core_stats(out);
    out->handles_in_use = (uint64_t)arm_op_nb_outstanding();
    return 0;
}

void armada_stats_reset(void)
{
    arm_core_stats_reset();
}

int armada_node_of(int rank)
{
    if (!arm_core.initialized || rank < 0 || rank >= arm_core.nproc)
        return -1;
    return arm_core.node_of[rank];
}

int armada_node_count(void) { return arm_core.initialized ? arm_core.nnodes : -1; }

int armada_startup_steps(const char **names, double *wall_us, double *cpu_us, int max)
{
    if (arm_core.nstart == 0)
        return -1;
    for (int i = 0; i < arm_core.nstart && i < max; i++) {
        if (names)
            names[i] = arm_core.start[i].name;
        if (wall_us)
            wall_us[i] = arm_core.start[i].wall_us;
        if (cpu_us)
            cpu_us[i] = arm_core.start[i].cpu_us;
    }
    return arm_core.nstart;
}

int armada_cas_int(int *prem, int expected, int desired, int proc)
{
    api_init("armada_cas_int");
    api_proc("armada_cas_int", proc);
    return (int)arm_op_rmw("armada_cas_int", ARM_RMW_CAS, prem, desired, expected, proc);
}

long armada_cas_long(long *prem, long expected, long desired, int proc)
{
    api_init("armada_cas_long");
    api_proc("armada_cas_long", proc);
    return arm_op_rmw("armada_cas_long", ARM_RMW_CAS_LONG, prem, desired, expected, proc);
}
