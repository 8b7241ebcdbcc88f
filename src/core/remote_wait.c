/* Waiting on the inter-node path: every client-side wait polls the client
 * worker, yields, then sleeps on its event descriptor; every wait on
 * another node (a mutex excepted, decision 022) has the deadline of
 * ARMADA_PEER_TIMEOUT. */
#define _POSIX_C_SOURCE 200809L
#include "arm_build_config.h"
#if ARMADA_HAVE_UCX
#include <poll.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>
#include "core/remote_int.h"

/* Threads that wait without the lock while several threads share the
 * client (decision 099). One of them at most sleeps on the client worker's
 * event descriptor: it armed the worker, and a second thread arming it again
 * would take the first one's wake-up (UCX drains the worker's signal when it
 * arms), so that the first slept its whole cap with its answer in. The
 * others sleep on idle_cv. A thread that takes events from the worker wakes
 * both kinds (wake_sleepers), since the answer one of them waits for may be
 * among those it took. Every field but efd_any is read and written under
 * the client lock. */
static int efd_owner;            /* a thread asleep on the descriptor        */
static atomic_int efd_any;       /* threads asleep on it: the owner, and
                                    callers without the lock (efd_sleep)    */
static int cv_sleepers;          /* threads asleep on idle_cv                */
static pthread_cond_t idle_cv = PTHREAD_COND_INITIALIZER;

/* Called after taking events from the worker; the sleepers on idle_cv
 * are woken only by a holder of the lock (they sleep in it), the others'
 * 1 ms cap stands for those. */
void arm_rem_wake_sleepers(void)
{
    if (atomic_load_explicit(&efd_any, memory_order_relaxed))
        arm_net_wakeup(arm_rc.w);
    if (arm_rem_lock_depth() && cv_sleepers)
        pthread_cond_broadcast(&idle_cv);
}

/* Arms the worker and sleeps on its descriptor for up to ms without the
 * lock. 0 when events were pending (the caller progresses them). */
static int efd_sleep(int ms)
{
    if (arm_net_arm(arm_rc.w) != ARM_OK)
        return 0;
    atomic_fetch_add_explicit(&efd_any, 1, memory_order_relaxed);
    int d = arm_rem_lock_release_all();
    struct pollfd p = { arm_net_worker_efd(arm_rc.w), POLLIN, 0 };
    (void)poll(&p, 1, ms);
    arm_rem_lock_restore(d);
    atomic_fetch_sub_explicit(&efd_any, 1, memory_order_relaxed);
    return 1;
}

/* Sleeps on idle_cv for up to ms, the lock released meanwhile (it is held
 * once, at the thread's depth). */
static void cv_sleep(int ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += (long)ms * 1000000L;
    ts.tv_sec += ts.tv_nsec / 1000000000L;
    ts.tv_nsec %= 1000000000L;
    cv_sleepers++;
    (void)pthread_cond_timedwait(&idle_cv, &arm_rc.lock, &ts);
    cv_sleepers--;
}

/* Idle step when several threads share the client (MPI_THREAD_MULTIPLE, or
 * the agent at work, and in the agent): the thread yields without the lock
 * for its first polls (decision 067), then sleeps, so that the other
 * threads issue and progress meanwhile. The first to sleep arms the worker
 * and sleeps on its event descriptor; while it does, the others sleep on
 * idle_cv, and when it wakes it hands its place on (decision 099). Sleeps
 * are 1 ms at most where something other than an event may end the wait:
 * in the agent, and under threads (a request or credit another thread
 * gives back without progressing). Returns 1 when it slept. */
static int shared_idle(int *idle, int sleep_ms)
{
    if (++*idle < arm_rc.spins) {
        int d = arm_rem_lock_release_all();     /* the other threads' turn */
        sched_yield();
        arm_rem_lock_restore(d);
        return 0;
    }
    *idle = 0;
    int cap = arm_rem_in_agent || arm_rc.mt;
    int ms = cap || sleep_ms < 1 ? 1 : sleep_ms;
    if (arm_rem_lock_depth() == 0)
        return efd_sleep(ms);               /* not inside the client: alone */
    if (efd_owner) {
        cv_sleep(ms);
        return 1;
    }
    efd_owner = 1;
    int slept = efd_sleep(ms);
    efd_owner = 0;
    /* Woken, it may leave with its own answer and never progress the
     * worker again: one of the others takes its place. */
    if (cv_sleepers)
        pthread_cond_signal(&idle_cv);
    return slept;
}

/* One step of every client-side wait: progress the client worker; after
 * arm_rc.spins empty polls, yield the CPU for a while (arm_net_set_yield),
 * then sleep on its event descriptor for up to sleep_ms. Returns 1 when it
 * slept. */
int arm_rem_wait_step(int *idle, double *since, int sleep_ms)
{
    if (arm_net_progress(arm_rc.w)) {
        *idle = 0;
        if (arm_rc.locking)
            arm_rem_wake_sleepers();
        return 0;
    }
    if (arm_rc.mt || arm_rem_in_agent || arm_rem_agent_busy())
        return shared_idle(idle, sleep_ms);
    return arm_net_idle(arm_rc.w, idle, since, arm_rc.spins, sleep_ms, NULL);
}

/* A wait step with a deadline. The clock is read only after a sleep, so a
 * wait that ends within its polls costs no system call; the deadline
 * counts from the wait's first sleep. A server answers within milliseconds
 * unless its process is stopped or gone. */
void arm_rem_deadline_step(arm_rem_deadline_t *d, const char *call, int proc, int sleep_ms)
{
    if (!arm_rem_wait_step(&d->idle, &d->since, sleep_ms))
        return;
    double now = arm_time_now();
    if (d->start == 0.0)
        d->start = now;
    else if (now - d->start > (double)arm_config.peer_timeout)
        arm_fatal(call, "no answer from rank %d (node %d) for %ld s (ARMADA_PEER_TIMEOUT): "
                  "that process is probably stopped or gone; aborting the job", proc,
                  arm_core.node_of[proc], arm_config.peer_timeout);
}

/* Waits until *v is non-zero, or with until_zero until it is 0; bounded by
 * the deadline unless bounded is 0 (a mutex may legitimately wait longer). */
void arm_rem_wait_on(const volatile int *v, int until_zero, const char *call, int proc,
                     int bounded)
{
    arm_rem_deadline_t d = { 0, 0.0, 0.0 };
    while (until_zero ? *v != 0 : *v == 0) {
        if (bounded)
            arm_rem_deadline_step(&d, call, proc, 100);
        else
            arm_rem_wait_step(&d.idle, &d.since, 100);
    }
}

/* Waits until op's request has left, so that its source may be reused. */
void arm_rem_wait_sent(rop_t *op)
{
    arm_rem_deadline_t d = { 0, 0.0, 0.0 };
    while (op->send.pending)
        arm_rem_deadline_step(&d, op->call ? op->call : "ARMCI", op->req.target, 1);
}

/* Completes a direct RMA or atomic operation issued with completion c. */
void arm_rem_rma_complete(const char *call, arm_status_t st, arm_net_comp_t *c, int proc)
{
    if (st == ARM_INPROGRESS) {
        arm_rem_deadline_t d = { 0, 0.0, 0.0 };
        while (c->pending)
            arm_rem_deadline_step(&d, call, proc, 100);
        st = c->status;
    }
    if (st != ARM_OK)
        arm_fatal(call, "the transport's operation on rank %d (node %d) failed: %s", proc,
                  arm_core.node_of[proc], arm_status_str(st));
}
#endif /* ARMADA_HAVE_UCX */
