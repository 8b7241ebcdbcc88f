/* Synchronisation on memory shared by the processes of a node: a mutex that
 * sleeps in the kernel (futex) after a short spin, and CPU atomics. */
#ifndef ARM_SHM_SYNC_H
#define ARM_SHM_SYNC_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "util/arm_acc.h"

/* 0 free, 1 held, 2 held with sleepers. Zero-initialised memory is a free
 * mutex. */
typedef struct arm_shm_mutex {
    _Atomic uint32_t state;
} arm_shm_mutex_t;

_Static_assert(sizeof(arm_shm_mutex_t) == 4, "arm_shm_mutex_t must stay one word");

void arm_shm_mutex_lock_slow(arm_shm_mutex_t *m);
void arm_shm_mutex_wake(arm_shm_mutex_t *m);

static inline int arm_shm_mutex_trylock(arm_shm_mutex_t *m)
{
    uint32_t expected = 0;
    return atomic_compare_exchange_strong_explicit(&m->state, &expected, 1,
                                                   memory_order_acquire,
                                                   memory_order_relaxed);
}

static inline void arm_shm_mutex_lock(arm_shm_mutex_t *m)
{
    if (!arm_shm_mutex_trylock(m))
        arm_shm_mutex_lock_slow(m);
}

static inline void arm_shm_mutex_unlock(arm_shm_mutex_t *m)
{
    if (atomic_exchange_explicit(&m->state, 0, memory_order_release) == 2)
        arm_shm_mutex_wake(m);
}

/* ---- accumulate locks (decision 069) ------------------------------------------
 * Accumulates into one process's memory are atomic with respect to each
 * other through ARM_ACC_STRIPES mutexes per process instead of one: the
 * 512-byte block of an address picks its stripe by address bits 9-11. Every
 * mapping of a segment is page-aligned, so those bits are the same in every
 * process and server that maps the bytes, whatever the mapping's address. An
 * accumulate takes the stripes of the blocks it touches (all of them from
 * 4 KiB up), always in ascending order, so two accumulates into different
 * blocks go side by side and none can deadlock. The stripes of one process
 * lie stride words apart (a cache line each in the control block); a table
 * with stride 0 has one mutex, which every accumulate takes. */
#define ARM_ACC_STRIPES 8u
#define ARM_ACC_BLOCK_SHIFT 9
#define ARM_ACC_ALL ((1u << ARM_ACC_STRIPES) - 1u)

/* The stripes [p, p + n) needs: a bit mask (0 for n == 0), the blocks'
 * run of bits rotated to the first block's stripe. */
static inline unsigned arm_acc_mask(const void *p, size_t n)
{
    if (n == 0)
        return 0;
    uintptr_t b0 = (uintptr_t)p >> ARM_ACC_BLOCK_SHIFT;
    uintptr_t span = (((uintptr_t)p + n - 1) >> ARM_ACC_BLOCK_SHIFT) - b0;
    if (span >= ARM_ACC_STRIPES - 1)
        return ARM_ACC_ALL;
    unsigned m = ((2u << span) - 1u) << (b0 % ARM_ACC_STRIPES);
    return (m | (m >> ARM_ACC_STRIPES)) & ARM_ACC_ALL;
}

/* Takes the stripes of mask, lowest first; with stride 0 the one mutex
 * (the mask becomes bit 0, at offset 0). */
static inline void arm_acc_lock(arm_shm_mutex_t *base, unsigned stride, unsigned mask)
{
    for (unsigned m = stride ? mask : 1u; m; m &= m - 1)
        arm_shm_mutex_lock(base + (size_t)__builtin_ctz(m) * stride);
}

static inline void arm_acc_unlock(arm_shm_mutex_t *base, unsigned stride, unsigned mask)
{
    for (unsigned m = stride ? mask : 1u; m; m &= m - 1)
        arm_shm_mutex_unlock(base + (size_t)__builtin_ctz(m) * stride);
}

/* Takes every stripe of mask or none: 1 when taken. */
static inline int arm_acc_trylock(arm_shm_mutex_t *base, unsigned stride, unsigned mask)
{
    unsigned all = stride ? mask : 1u;
    for (unsigned m = all; m; m &= m - 1) {
        unsigned i = (unsigned)__builtin_ctz(m);
        if (!arm_shm_mutex_trylock(base + (size_t)i * stride)) {
            arm_acc_unlock(base, stride, all & ((1u << i) - 1u));
            return 0;
        }
    }
    return 1;
}

/* dst += scale * src over n bytes (arm_acc_apply) under the stripes of
 * [dst, dst + n): one contiguous accumulate, atomic with every other. */
static inline void arm_acc_apply_locked(arm_shm_mutex_t *base, unsigned stride, int type,
                                        const void *scale, void *dst, const void *src, size_t n)
{
    unsigned mask = arm_acc_mask(dst, n);
    arm_acc_lock(base, stride, mask);
    arm_acc_apply(type, scale, dst, src, n);
    arm_acc_unlock(base, stride, mask);
}

/* Atomic read-modify-write on plain int/long objects in shared memory. */
static inline int arm_shm_fadd_int(int *p, int v)
{
    return atomic_fetch_add_explicit((_Atomic int *)p, v, memory_order_acq_rel);
}
static inline long arm_shm_fadd_long(long *p, long v)
{
    return atomic_fetch_add_explicit((_Atomic long *)p, v, memory_order_acq_rel);
}
static inline int arm_shm_swap_int(int *p, int v)
{
    return atomic_exchange_explicit((_Atomic int *)p, v, memory_order_acq_rel);
}
static inline long arm_shm_swap_long(long *p, long v)
{
    return atomic_exchange_explicit((_Atomic long *)p, v, memory_order_acq_rel);
}
static inline int arm_shm_cas_int(int *p, int expected, int desired)
{
    atomic_compare_exchange_strong_explicit((_Atomic int *)p, &expected, desired,
                                            memory_order_acq_rel, memory_order_acquire);
    return expected;
}
static inline long arm_shm_cas_long(long *p, long expected, long desired)
{
    atomic_compare_exchange_strong_explicit((_Atomic long *)p, &expected, desired,
                                            memory_order_acq_rel, memory_order_acquire);
    return expected;
}

#endif
