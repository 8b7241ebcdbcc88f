/* Making a server over a transport, its progress, and its thread. */
#define _POSIX_C_SOURCE 200809L
#include <sched.h>
#include <stdlib.h>
#include "server/srv_int.h"

static arm_status_t clients_init(struct arm_server *s)
{
    int n = s->p.nproc, slots = s->p.slots > 0 ? s->p.slots : 1;
    size_t per_slot = s->p.slot_size;
    s->clients = calloc((size_t)n, sizeof *s->clients);
    s->slab_bytes = (size_t)n * (size_t)slots * per_slot;
    s->slab = s->slab_bytes ? malloc(s->slab_bytes) : NULL;
    if (!s->clients || (s->slab_bytes && !s->slab))
        return ARM_ERR_NO_MEMORY;
    for (int r = 0; r < n; r++) {
        srv_client_t *cl = &s->clients[r];
        cl->rank = r;
        cl->nslots = slots;
        cl->srv = s;
        /* slots data slots, then the sync slot (header only, no data). */
        cl->slots = calloc((size_t)slots + 1, sizeof *cl->slots);
        cl->free_stack = malloc((size_t)slots * sizeof(int));
        cl->order = malloc(((size_t)slots + 1) * sizeof(int));
        if (!cl->slots || !cl->free_stack || !cl->order)
            return ARM_ERR_NO_MEMORY;
        for (int i = 0; i <= slots; i++) {
            srv_slot_t *sl = &cl->slots[i];
            sl->idx = i;
            sl->cl = cl;
            sl->rec.cl = cl;
            sl->data = i == slots ? NULL
                : s->slab + ((size_t)r * (size_t)slots + (size_t)i) * per_slot;
            if (i < slots)
                cl->free_stack[i] = slots - 1 - i;
        }
        for (int i = 0; i < SRV_SYNC_RECS; i++)
            cl->sync_rec[i].cl = cl;
        cl->credit_rec.cl = cl;
        cl->refuse_rec.cl = cl;
        cl->nfree = slots;
    }
    s->stats.buffer_bytes = s->slab_bytes + (size_t)n * ((size_t)slots + 1) * sizeof(srv_slot_t);
    return ARM_OK;
}

arm_status_t srv_create(const arm_server_params_t *p, const srv_xport_ops_t *x, void *xctx,
                        struct arm_server **out)
{
    struct arm_server *s = calloc(1, sizeof *s);
    if (!s)
        return ARM_ERR_NO_MEMORY;
    s->p = *p;
    s->x = x;
    s->xctx = xctx;
    arm_status_t st = clients_init(s);
    if (st == ARM_OK)
        st = x->listen(xctx, srv_on_request, s);
    if (st != ARM_OK) {
        srv_destroy(s);
        return st;
    }
    *out = s;
    return ARM_OK;
}

int srv_progress(struct arm_server *s)
{
    int did = s->x->progress(s->xctx);
    if (s->nblocked)
        did |= srv_retry_blocked(s);
    return did;
}

void *srv_thread(void *arg)
{
    struct arm_server *s = arg;
    int idle = 0;
    while (!atomic_load_explicit(&s->stop, memory_order_acquire)) {
        if (srv_progress(s)) {
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
        /* Waiting lock requests are retried every millisecond; otherwise
         * sleep until the transport has events (or a wakeup). */
        s->x->wait(s->xctx, s->nblocked ? 1 : 1000);
        idle = 0;
    }
    return NULL;
}

void srv_destroy(struct arm_server *s)
{
    if (!s)
        return;
    srv_segs_clear(s);
    for (int r = 0; s->clients && r < s->p.nproc; r++) {
        free(s->clients[r].slots);
        free(s->clients[r].free_stack);
        free(s->clients[r].order);
    }
    free(s->clients);
    free(s->slab);
    free(s);
}
