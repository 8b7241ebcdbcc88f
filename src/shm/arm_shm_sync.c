#define _GNU_SOURCE
#include "shm/arm_shm_sync.h"

#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Shared (not process-private) futexes: the word lives in memory that
 * several processes map. */
static void futex_wait(_Atomic uint32_t *addr, uint32_t val)
{
    syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAIT, val, NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *addr, int n)
{
    syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAKE, n, NULL, NULL, 0);
}

void arm_shm_mutex_lock_slow(arm_shm_mutex_t *m)
{
    /* A short spin catches the common case of a holder that is about to
     * release; after that, sleep in the kernel so oversubscribed nodes keep
     * their cores for the holder. */
    for (int i = 0; i < 64; i++) {
        if (atomic_load_explicit(&m->state, memory_order_relaxed) == 0 &&
            arm_shm_mutex_trylock(m))
            return;
        if (i >= 16)
            sched_yield();
    }
    while (atomic_exchange_explicit(&m->state, 2, memory_order_acquire) != 0)
        futex_wait(&m->state, 2);
}

void arm_shm_mutex_wake(arm_shm_mutex_t *m)
{
    futex_wake(&m->state, 1);
}
