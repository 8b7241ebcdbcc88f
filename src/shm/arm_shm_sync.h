/* Synchronisation on memory shared by the processes of a node: a mutex that
 * sleeps in the kernel (futex) after a short spin, and CPU atomics. */
#ifndef ARM_SHM_SYNC_H
#define ARM_SHM_SYNC_H

#include <stdatomic.h>
#include <stdint.h>

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
