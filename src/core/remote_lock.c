/* The client's process-wide lock under MPI_THREAD_MULTIPLE (issue 26 item
 * 4): one coarse mutex over the inter-node path, re-entrant per thread (an
 * entry point may call another, e.g. a put that fences first), released
 * entirely while a wait sleeps so that other threads progress meanwhile. */
#define _POSIX_C_SOURCE 200809L
#include "arm_build_config.h"
#if ARMADA_HAVE_UCX
#include <sched.h>
#include <time.h>
#include "core/remote_int.h"

static _Thread_local int depth;
_Thread_local int arm_rem_nb_cur;
unsigned arm_rem_calls;

void arm_rem_lock_take(void)
{
    if (depth++ == 0) {
        pthread_mutex_lock(&arm_rc.lock);
        /* Written under the lock, read without it by the agent. */
        __atomic_store_n(&arm_rem_calls, arm_rem_calls + 1, __ATOMIC_RELAXED);
    }
}

void arm_rem_lock_drop(void)
{
    if (--depth == 0)
        pthread_mutex_unlock(&arm_rc.lock);
}

int arm_rem_lock_release_all(void)
{
    int d = depth;
    depth = 0;
    if (d)
        pthread_mutex_unlock(&arm_rc.lock);
    return d;
}

int arm_rem_lock_try(int d)
{
    if (pthread_mutex_trylock(&arm_rc.lock) != 0)
        return 0;
    depth = d;
    return 1;
}

void arm_rem_lock_restore(int d)
{
    if (d)
        pthread_mutex_lock(&arm_rc.lock);
    depth = d;
}
#endif /* ARMADA_HAVE_UCX */
