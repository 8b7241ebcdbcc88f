/* Making a server over a transport, its progress, and its thread. */
#define _POSIX_C_SOURCE 200809L
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "server/srv_int.h"

arm_status_t srv_create(const arm_server_params_t *p, const srv_xport_ops_t *x, void *xctx,
                        struct arm_server **out)
{
    struct arm_server *s = calloc(1, sizeof *s);
    if (!s)
        return ARM_ERR_NO_MEMORY;
    s->p = *p;
    s->x = x;
    s->xctx = xctx;
    arm_status_t st = srv_clients_init(s);
    if (st == ARM_OK)
        st = srv_fwd_init(s);
    if (st == ARM_OK)
        st = x->listen(xctx, ARM_SRV_AM_REQ, srv_on_request, s);
    if (st == ARM_OK && p->topo)
        st = x->listen(xctx, ARM_SRV_AM_FWD, srv_on_fwd, s);
    if (st == ARM_OK && p->topo)
        st = x->listen(xctx, ARM_SRV_AM_CREDIT, srv_on_credit, s);
    if (st == ARM_OK && p->topo)
        st = x->listen(xctx, ARM_SRV_AM_SPLIT, srv_on_split, s);
    if (st == ARM_OK && p->topo)
        st = x->listen(xctx, ARM_SRV_AM_RELAY, srv_on_relay, s);
    if (st != ARM_OK) {
        srv_destroy(s);
        return st;
    }
    *out = s;
    return ARM_OK;
}

#define SRV_PASS_MAX 64

int srv_progress(struct arm_server *s)
{
    /* Everything the transport has ready is taken in one pass (up to a
     * bound), so that requests for one next node that arrived together
     * leave together. */
    int did = 0;
    for (int i = 0; i < SRV_PASS_MAX && s->x->progress(s->xctx); i++)
        did = 1;
    if (s->nsplits)
        did |= srv_split_retry(s);
    if (s->nparked)
        did |= srv_fwd_retry_parked(s);
    if (s->nblocked)
        did |= srv_retry_blocked(s);
    /* What arrived in this pass for one next node goes as one message: no
     * timer holds a lone request back. */
    if (s->dirty)
        did |= srv_fwd_flush(s);
    return did;
}

void *srv_thread(void *arg)
{
    struct arm_server *s = arg;
    int idle = 0;
    while (!atomic_load_explicit(&s->stop, memory_order_acquire)) {
        if (srv_progress(s) || ((s->acks || s->fack_ndue) && srv_ack_idle(s))) {
            idle = 0;
            continue;
        }
        if (s->p.progress == ARM_SRV_PROGRESS_POLL) {
            sched_yield();
            continue;
        }
        if (s->p.progress == ARM_SRV_PROGRESS_HYBRID && ++idle < s->p.poll_spins) {
            /* Past the first polls, let other threads of the core run. */
            if (idle > s->p.yield_after)
                sched_yield();
            continue;
        }
        /* Waiting lock requests, and acknowledgements not yet due, are
         * looked at again every millisecond; otherwise
         * sleep until the transport has events (or a wakeup). */
        s->x->wait(s->xctx, s->nblocked || s->nparked || s->nsplits || s->acks || s->fack_ndue ? 1 : 1000);
        idle = 0;
    }
    /* The thread's processor time, for the statistics (read after join). */
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
        s->stats.cpu_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    return NULL;
}

void srv_destroy(struct arm_server *s)
{
    if (!s)
        return;
    srv_segs_clear(s);
    srv_fwd_fini(s);
    srv_fack_fini(s);
    srv_clients_fini(s);
    free(s->acc_owner);
    free(s);
}
