/* Waiting on the inter-node path: every client-side wait polls the client
 * worker, yields, then sleeps on its event descriptor. */
#define _POSIX_C_SOURCE 200809L
#include "arm_build_config.h"
#if ARMADA_HAVE_UCX
#include <stdlib.h>
#include <string.h>
#include "core/remote_int.h"

/* ---- progress and waiting ---------------------------------------------------- */
/* One step of every client-side wait: progress the client worker; after
 * arm_rc.spins empty polls, yield the CPU for a while (arm_net_set_yield), then
 * sleep on its event descriptor for up to sleep_ms. Returns 1 when it
 * slept. */
int arm_rem_wait_step(int *idle, double *since, int sleep_ms)
{
    if (arm_net_progress(arm_rc.w)) {
        *idle = 0;
        return 0;
    }
    return arm_net_idle(arm_rc.w, idle, since, arm_rc.spins, sleep_ms, NULL);
}

/* Waits until *v is non-zero, or with until_zero until it is 0. */
void arm_rem_wait_on(const volatile int *v, int until_zero, const char *call, int node,
                    int bounded)
{
    int idle = 0;
    double start = 0.0, since = 0.0;
    while (until_zero ? *v != 0 : *v == 0) {
        /* A server answers within milliseconds unless its process is gone
         * (a lock may legitimately wait longer, so it is not bounded). */
        if (arm_rem_wait_step(&idle, &since, 100) && bounded) {
            double now = arm_time_now();
            if (start == 0.0)
                start = now;
            else if (now - start > (double)arm_config.peer_timeout)
                arm_fatal(call, "no answer from the server of node %d (rank %d) for %ld s: "
                          "that process is probably gone; aborting the job", node,
                          arm_core.node_leader[node], arm_config.peer_timeout);
        }
    }
}

/* Waits until op's request has left, so that its source may be reused. */
void arm_rem_wait_sent(rop_t *op)
{
    int idle = 0;
    double since = 0.0;
    while (op->send.pending)
        arm_rem_wait_step(&idle, &since, 1);
}

/* Completes a direct RMA or atomic operation issued with completion c. */
void arm_rem_rma_complete(const char *call, arm_status_t st, arm_net_comp_t *c,
                         const char *what, int proc)
{
    if (st == ARM_INPROGRESS)
        st = arm_net_comp_wait(arm_rc.w, c, arm_rc.spins, -1);
    if (st != ARM_OK)
        arm_fatal(call, "%s rank %d failed: %s", what, proc, arm_status_str(st));
}
#endif /* ARMADA_HAVE_UCX */
