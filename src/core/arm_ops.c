#include "core/arm_ops.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "core/arm_remote.h"
#include "util/arm_acc.h"
#include "util/arm_log.h"
#include "util/arm_strided.h"

#define COUNT(op, path, n) ARM_COUNT(op, path, n)

static inline char *local_addr(const arm_slice_t *s, uintptr_t addr)
{
    return s->local + (addr - s->base);
}

void arm_op_put(const char *call, const void *src, void *dst, size_t n, int proc)
{
    if (n == 0)
        return;
    arm_slice_t *s = arm_reg_translate(call, "dst", proc, dst, n);
    if (s->local) {
        memcpy(local_addr(s, (uintptr_t)dst), src, n);
        COUNT(ARMADA_OP_PUT, ARMADA_PATH_SHM, n);
    } else {
        arm_remote_put(call, src, s, (uintptr_t)dst, n, proc);
    }
}

void arm_op_get(const char *call, const void *src, void *dst, size_t n, int proc)
{
    if (n == 0)
        return;
    arm_slice_t *s = arm_reg_translate(call, "src", proc, src, n);
    if (s->local) {
        memcpy(dst, local_addr(s, (uintptr_t)src), n);
        COUNT(ARMADA_OP_GET, ARMADA_PATH_SHM, n);
    } else {
        arm_remote_get(call, s, (uintptr_t)src, dst, n, proc);
    }
}

void arm_op_get_quiet(const char *call, const void *src, void *dst, size_t n, int proc)
{
    arm_opstats_t *st = &arm_core.opstats[ARM_STAT_SHARD()];
    uint64_t ops[ARMADA_PATH_COUNT], bytes[ARMADA_PATH_COUNT];
    for (int p = 0; p < ARMADA_PATH_COUNT; p++) {
        ops[p] = atomic_load_explicit(&st->ops[ARMADA_OP_GET][p], memory_order_relaxed);
        bytes[p] = atomic_load_explicit(&st->bytes[ARMADA_OP_GET][p], memory_order_relaxed);
    }
    arm_op_get(call, src, dst, n, proc);
    for (int p = 0; p < ARMADA_PATH_COUNT; p++) {
        atomic_store_explicit(&st->ops[ARMADA_OP_GET][p], ops[p], memory_order_relaxed);
        atomic_store_explicit(&st->bytes[ARMADA_OP_GET][p], bytes[p], memory_order_relaxed);
    }
}

/* An integer accumulate to an allocation marked for transport atomics
 * (decision 061) goes by them from every process, this node's included. */
static inline int acc_by_amo(const arm_slice_t *s, int type)
{
    return s->alloc->amo && (type == ARM_ACC_INT || type == ARM_ACC_LNG);
}

void arm_op_acc(const char *call, int type, const void *scale, const void *src, void *dst,
                size_t n, int proc)
{
    if (n == 0)
        return;
    arm_slice_t *s = arm_reg_translate(call, "dst", proc, dst, n);
    if (acc_by_amo(s, type)) {
        arm_remote_amo_acc(call, ARMADA_OP_ACC, type, scale, src, s, (uintptr_t)dst, n, proc);
    } else if (s->local) {
        arm_acc_apply_locked(ARM_CTL_ACC(arm_core.ctl[proc]), ARM_CTL_ACC_STRIDE, type, scale,
                             local_addr(s, (uintptr_t)dst), src, n);
        COUNT(ARMADA_OP_ACC, ARMADA_PATH_SHM, n);
    } else {
        arm_remote_acc(call, type, scale, src, s, (uintptr_t)dst, n, proc);
    }
}

/* ---- strided ------------------------------------------------------------- */
typedef struct strided_ctx {
    char *src, *dst;
    int type;
    const void *scale;
    const char *call;      /* piece_amo: the call, the target's slice, rank */
    const arm_slice_t *s;
    int proc;
    unsigned mask;         /* piece_mask: the accumulate lock's stripes */
} strided_ctx_t;

static void piece_copy(void *ctx, size_t soff, size_t doff, size_t len)
{
    strided_ctx_t *x = ctx;
    memcpy(x->dst + doff, x->src + soff, len);
}

static void piece_acc(void *ctx, size_t soff, size_t doff, size_t len)
{
    strided_ctx_t *x = ctx;
    arm_acc_apply(x->type, x->scale, x->dst + doff, x->src + soff, len);
}

static void piece_mask(void *ctx, size_t soff, size_t doff, size_t len)
{
    strided_ctx_t *x = ctx;
    (void)soff;
    x->mask |= arm_acc_mask(x->dst + doff, len);
}

static void piece_amo(void *ctx, size_t soff, size_t doff, size_t len)
{
    strided_ctx_t *x = ctx;
    arm_remote_amo_acc(x->call, -1, x->type, x->scale, x->src + soff, x->s,
                       (uintptr_t)(x->dst + doff), len, x->proc);
}

void arm_op_strided(const char *call, int op, int type, const void *scale, void *src,
                    const int *src_stride, void *dst, const int *dst_stride, const int *count,
                    int levels, int proc)
{
    int remote_is_src = op == ARMADA_OP_GETS;
    void *raddr = remote_is_src ? src : dst;
    size_t extent = arm_strided_extent(levels, count, remote_is_src ? src_stride : dst_stride);
    size_t bytes = arm_strided_bytes(levels, count);
    if (bytes == 0)
        return;
    arm_slice_t *s = arm_reg_translate(call, remote_is_src ? "src_ptr" : "dst_ptr", proc,
                                       raddr, extent);
    if (op == ARMADA_OP_ACCS && acc_by_amo(s, type)) {
        strided_ctx_t x = { src, dst, type, scale, call, s, proc, 0 };
        arm_strided_for_each(levels, count, src_stride, dst_stride, piece_amo, &x);
        COUNT(op, ARMADA_PATH_RMA, bytes);
        return;
    }
    if (!s->local) {
        arm_remote_strided(call, op, type, scale, src, src_stride, dst, dst_stride, count,
                           levels, proc);
        return;
    }
    strided_ctx_t x = { src, dst, type, scale, call, s, proc, 0 };
    if (remote_is_src)
        x.src = local_addr(s, (uintptr_t)src);
    else
        x.dst = local_addr(s, (uintptr_t)dst);
    if (op == ARMADA_OP_ACCS) {
        /* The stripes of every piece, taken at once: atomic as one. */
        arm_shm_mutex_t *lock = ARM_CTL_ACC(arm_core.ctl[proc]);
        arm_strided_for_each(levels, count, src_stride, dst_stride, piece_mask, &x);
        arm_acc_lock(lock, ARM_CTL_ACC_STRIDE, x.mask);
        arm_strided_for_each(levels, count, src_stride, dst_stride, piece_acc, &x);
        arm_acc_unlock(lock, ARM_CTL_ACC_STRIDE, x.mask);
    } else {
        arm_strided_for_each(levels, count, src_stride, dst_stride, piece_copy, &x);
    }
    COUNT(op, ARMADA_PATH_SHM, bytes);
}

/* ---- vector -------------------------------------------------------------- */
/* An integer vector accumulate where allocations are marked for transport
 * atomics: segment by segment, each marked one by them, any other as a
 * contiguous accumulate. */
static void vector_acc_amo(const char *call, int type, const void *scale,
                           const armci_giov_t *iov, int iov_len, int proc)
{
    size_t total = 0;
    for (int d = 0; d < iov_len; d++) {
        size_t n = (size_t)iov[d].bytes;
        for (int i = 0; i < iov[d].ptr_array_len && n; i++) {
            void *rp = iov[d].dst_ptr_array[i];
            arm_slice_t *s = arm_reg_translate(call, "iov.dst_ptr_array", proc, rp, n);
            if (acc_by_amo(s, type)) {
                arm_remote_amo_acc(call, -1, type, scale, iov[d].src_ptr_array[i], s,
                                   (uintptr_t)rp, n, proc);
                total += n;
            } else {
                arm_op_acc(call, type, scale, iov[d].src_ptr_array[i], rp, n, proc);
            }
        }
    }
    if (total)
        COUNT(ARMADA_OP_ACCV, ARMADA_PATH_RMA, total);
}

void arm_op_vector(const char *call, int op, int type, const void *scale,
                   const armci_giov_t *iov, int iov_len, int proc)
{
    if (op == ARMADA_OP_ACCV && (type == ARM_ACC_INT || type == ARM_ACC_LNG) &&
        arm_remote_amo_alloc()) {
        vector_acc_amo(call, type, scale, iov, iov_len, proc);
        return;
    }
    int remote_is_src = op == ARMADA_OP_GETV;
    const char *arg = remote_is_src ? "iov.src_ptr_array" : "iov.dst_ptr_array";
    int shm = arm_same_node(proc);
    size_t total = 0;
    arm_shm_mutex_t *lock = NULL;
    if (shm && op == ARMADA_OP_ACCV) {
        lock = ARM_CTL_ACC(arm_core.ctl[proc]);   /* every stripe */
        arm_acc_lock(lock, ARM_CTL_ACC_STRIDE, ARM_ACC_ALL);
    }
    for (int d = 0; d < iov_len; d++) {
        size_t n = (size_t)iov[d].bytes;
        int segs = iov[d].ptr_array_len;
        if (n == 0 || segs <= 0)
            continue;   /* nothing moves: its pointers are not looked at */
        if (!shm) {
            arm_remote_vector(call, op, type, scale, (const void *const *)iov[d].src_ptr_array,
                              iov[d].dst_ptr_array, segs, n, proc);
            continue;
        }
        for (int i = 0; i < segs; i++) {
            void *rp = remote_is_src ? iov[d].src_ptr_array[i] : iov[d].dst_ptr_array[i];
            arm_slice_t *s = arm_reg_translate(call, arg, proc, rp, n);
            char *lp = local_addr(s, (uintptr_t)rp);
            if (op == ARMADA_OP_GETV)
                memcpy(iov[d].dst_ptr_array[i], lp, n);
            else if (op == ARMADA_OP_PUTV)
                memcpy(lp, iov[d].src_ptr_array[i], n);
            else
                arm_acc_apply(type, scale, lp, iov[d].src_ptr_array[i], n);
        }
        total += n * (size_t)segs;
    }
    if (lock)
        arm_acc_unlock(lock, ARM_CTL_ACC_STRIDE, ARM_ACC_ALL);
    if (shm)
        COUNT(op, ARMADA_PATH_SHM, total);
}

/* ---- read-modify-write ----------------------------------------------------- */
long arm_op_rmw(const char *call, int op, void *prem, long value, long compare, int proc)
{
    int is_long = op == ARMCI_FETCH_AND_ADD_LONG || op == ARMCI_SWAP_LONG ||
                  op == ARM_RMW_CAS_LONG;
    size_t n = is_long ? sizeof(long) : sizeof(int);
    arm_slice_t *s = arm_reg_translate(call, "prem", proc, prem, n);
    /* Every path makes it an atomic on prem, and the server, the transport
     * and the CPU all want that aligned: the server refused a misaligned one
     * already (decision 093), the process's own node took it (095). */
    if ((uintptr_t)prem & (n - 1))
        arm_fatal(call, "argument 'prem' = %p is not aligned to %zu bytes", prem, n);
    if (!s->local || s->alloc->amo)
        return arm_remote_rmw(call, op, s, (uintptr_t)prem, value, compare, proc);
    char *p = local_addr(s, (uintptr_t)prem);
    long old = 0;
    switch (op) {
    case ARMCI_FETCH_AND_ADD:      old = arm_shm_fadd_int((int *)p, (int)value); break;
    case ARMCI_FETCH_AND_ADD_LONG: old = arm_shm_fadd_long((long *)p, value); break;
    case ARMCI_SWAP:               old = arm_shm_swap_int((int *)p, (int)value); break;
    case ARMCI_SWAP_LONG:          old = arm_shm_swap_long((long *)p, value); break;
    case ARM_RMW_CAS:              old = arm_shm_cas_int((int *)p, (int)compare, (int)value); break;
    case ARM_RMW_CAS_LONG:         old = arm_shm_cas_long((long *)p, compare, value); break;
    default: arm_fatal(call, "argument 'op' = %d is not a read-modify-write operation", op);
    }
    COUNT(ARMADA_OP_RMW, ARMADA_PATH_SHM, n);
    return old;
}

void arm_op_amo_mark(arm_alloc_t *a) { a->amo = arm_remote_amo_alloc(); }

void arm_op_put_flag(const char *call, int *flag, int value, int proc)
{
    arm_slice_t *s = arm_reg_translate(call, "flag", proc, flag, sizeof(int));
    if (!s->local) {
        arm_remote_fence(proc);
        arm_remote_put(call, &value, s, (uintptr_t)flag, sizeof(int), proc);
        arm_remote_flush();   /* the target is waiting for the flag */
        return;
    }
    /* The data stores before it are visible first (release). */
    atomic_store_explicit((_Atomic int *)local_addr(s, (uintptr_t)flag), value,
                          memory_order_release);
}

/* ---- mutexes ---------------------------------------------------------------
 * Which ARMCI mutexes this process holds: one byte per mutex of the job,
 * rank r's first at held_first[r]. Lock sets it, Unlock checks and clears
 * it; no system call and no message (decision 032). The flags live in the
 * block of c->mutex_count, so whoever frees that (Destroy_mutexes or
 * Finalize) frees them too. */
static struct {
    unsigned char *held;
    size_t *held_first;
} mutex_own;

/* Replaces *counts (nproc ints) by one block holding the counts, then the
 * first flag of each rank, then the flags. */
static arm_status_t owner_init(int **counts, int nproc)
{
    size_t total = 0;
    for (int r = 0; r < nproc; r++)
        total += (size_t)(*counts)[r];
    size_t counts_len = ((size_t)nproc * sizeof(int) + sizeof(size_t) - 1) / sizeof(size_t) *
                        sizeof(size_t);
    char *block = calloc(1, counts_len + (size_t)nproc * sizeof(size_t) + total + 1);
    if (!block)
        return ARM_ERR_NO_MEMORY;
    memcpy(block, *counts, (size_t)nproc * sizeof(int));
    free(*counts);
    *counts = (int *)(void *)block;
    mutex_own.held_first = (size_t *)(void *)(block + counts_len);
    mutex_own.held = (unsigned char *)(mutex_own.held_first + nproc);
    total = 0;
    for (int r = 0; r < nproc; r++) {
        mutex_own.held_first[r] = total;
        total += (size_t)(*counts)[r];
    }
    return ARM_OK;
}

void arm_op_mutex_owned(const char *call, unsigned char *held, int mutex, int proc, int unlock)
{
    if (unlock && !*held)
        arm_fatal(call, "argument 'mutex' = %d of rank %d is not held by the caller, rank %d "
                  "(an Unlock without the Lock, or of another rank's lock)", mutex, proc,
                  arm_core.me);
    if (!unlock && *held)
        arm_fatal(call, "argument 'mutex' = %d of rank %d is already held by the caller, rank "
                  "%d (ARMCI mutexes are not recursive: this Lock would never return)", mutex,
                  proc, arm_core.me);
}

arm_status_t arm_op_create_mutexes(const char *call, int count)
{
    arm_core_t *c = &arm_core;
    if (c->mutex_alloc)
        arm_fatal(call, "mutexes already exist on rank %d: call ARMCI_Destroy_mutexes first",
                  c->me);
    int *members = malloc((size_t)c->nproc * sizeof *members);
    c->mutex_count = malloc((size_t)c->nproc * sizeof *c->mutex_count);
    c->mutex_base = malloc((size_t)c->nproc * sizeof *c->mutex_base);
    if (!members || !c->mutex_count || !c->mutex_base) {
        free(members);
        return ARM_ERR_NO_MEMORY;
    }
    for (int r = 0; r < c->nproc; r++)
        members[r] = r;
    MPI_Allgather(&count, 1, MPI_INT, c->mutex_count, 1, MPI_INT, c->world);
    arm_status_t st = owner_init(&c->mutex_count, c->nproc);
    if (st == ARM_OK)
        st = arm_reg_malloc(c->world, c->nproc, members, (size_t)count * sizeof(arm_shm_mutex_t),
                            1, c->mutex_base, &c->mutex_alloc);
    free(members);
    return st;
}

void arm_op_destroy_mutexes(const char *call)
{
    arm_core_t *c = &arm_core;
    if (!c->mutex_alloc)
        arm_fatal(call, "no mutexes exist on rank %d (ARMCI_Create_mutexes was not called)",
                  c->me);
    arm_op_fence_all();
    MPI_Barrier(c->world);
    arm_reg_free_internal(c->mutex_alloc);
    c->mutex_alloc = NULL;
    mutex_own.held = NULL;
    mutex_own.held_first = NULL;
    free(c->mutex_count);
    free(c->mutex_base);
    c->mutex_count = NULL;
    c->mutex_base = NULL;
}

int arm_op_mutex_at(const char *call, void *addr, int proc, int action)
{
    arm_shm_mutex_t *m = addr;
    arm_slice_t *s = arm_reg_translate(call, "mutex", proc, m, sizeof *m);
    if (!s->local) {
        if (action == ARM_MUTEX_UNLOCK)
            arm_remote_unlock(call, s, (uintptr_t)m, proc);
        else if (action == ARM_MUTEX_TRYLOCK)
            return arm_remote_trylock(call, s, (uintptr_t)m, proc);
        else
            arm_remote_lock(call, s, (uintptr_t)m, proc);
        return 1;
    }
    arm_shm_mutex_t *lm = (arm_shm_mutex_t *)local_addr(s, (uintptr_t)m);
    switch (action) {
    case ARM_MUTEX_UNLOCK:
        arm_shm_mutex_unlock(lm);
        return 1;
    case ARM_MUTEX_TRYLOCK:
        return arm_shm_mutex_trylock(lm);
    default:
        arm_shm_mutex_lock(lm);
        COUNT(ARMADA_OP_LOCK, ARMADA_PATH_SHM, 0);
        return 1;
    }
}

void arm_op_lock(const char *call, int mutex, int proc, int unlock)
{
    arm_core_t *c = &arm_core;
    if (!c->mutex_alloc)
        arm_fatal(call, "no mutexes exist (ARMCI_Create_mutexes was not called) on rank %d",
                  c->me);
    if (mutex < 0 || mutex >= c->mutex_count[proc])
        arm_fatal(call, "argument 'mutex' = %d is out of range: rank %d created %d mutexes",
                  mutex, proc, c->mutex_count[proc]);
    unsigned char *held = &mutex_own.held[mutex_own.held_first[proc] + (size_t)mutex];
    arm_op_mutex_owned(call, held, mutex, proc, unlock);
    arm_op_mutex_at(call, (arm_shm_mutex_t *)c->mutex_base[proc] + mutex, proc,
                    unlock ? ARM_MUTEX_UNLOCK : ARM_MUTEX_LOCK);
    *held = !unlock;
}

/* ---- ordering -------------------------------------------------------------- */
void arm_op_fence(int proc)
{
    if (arm_same_node(proc))
        atomic_thread_fence(memory_order_seq_cst);
    else
        arm_remote_fence(proc);
}

void arm_op_fence_all(void)
{
    atomic_thread_fence(memory_order_seq_cst);
    arm_remote_fence_all();
}

void arm_op_nb_begin(void) { arm_remote_nb_begin(); }
int arm_op_nb_end(void) { return arm_remote_nb_end(); }
int arm_op_nb_test(int token) { return arm_remote_nb_test(token); }
void arm_op_nb_wait(const char *call, int token) { arm_remote_nb_wait(call, token); }
void arm_op_nb_wait_proc(const char *call, int proc) { arm_remote_nb_wait_proc(call, proc); }
int arm_op_nb_outstanding(void) { return arm_remote_nb_outstanding(); }
