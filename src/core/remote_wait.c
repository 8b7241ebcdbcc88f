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
#include "core/remote_int.h"

/* Threads asleep on the client worker's event descriptor without the lock
 * (shared_idle): one that progresses the worker wakes them, since the
 * event one of them waits for may be among those it took. */
static atomic_int sleepers;

void arm_rem_wake_sleepers(void)
{
    if (atomic_load_explicit(&sleepers, memory_order_relaxed))
        arm_net_wakeup(arm_rc.w);
}

/* Idle step when several threads share the client (MPI_THREAD_MULTIPLE, or
 * the agent at work, and in the agent): the worker is armed under the lock,
 * then the thread sleeps on its event descriptor without it, so that the
 * other threads issue and progress meanwhile (decision 067). A thread that
 * progresses the worker while others sleep signals it (wake_sleepers), since
 * the event one of them waits for may be among those it took. Sleeps are
 * 1 ms at most where something other than an event may end the wait: in
 * the agent, and under threads (a request or credit another thread gives
 * back without progressing). Returns 1 when it slept. */
static int shared_idle(int *idle, int sleep_ms)
{
    if (++*idle < arm_rc.spins) {
        int d = arm_rem_lock_release_all();     /* the other threads' turn */
        sched_yield();
        arm_rem_lock_restore(d);
        return 0;
    }
    *idle = 0;
    if (arm_net_arm(arm_rc.w) != ARM_OK)
        return 0;                       /* events pending: progress them */
    atomic_fetch_add_explicit(&sleepers, 1, memory_order_relaxed);
    int d = arm_rem_lock_release_all();
    struct pollfd p = { arm_net_worker_efd(arm_rc.w), POLLIN, 0 };
    int cap = arm_rem_in_agent || arm_rc.mt;
    (void)poll(&p, 1, cap || sleep_ms < 1 ? 1 : sleep_ms);
    arm_rem_lock_restore(d);
    atomic_fetch_sub_explicit(&sleepers, 1, memory_order_relaxed);
    return 1;
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
