/* Making a server over a transport, its progress, and its thread. */
#define _POSIX_C_SOURCE 200809L
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "server/srv_int.h"

/* Is rank a client here: of this node or, under a topology, of a
 * neighbour node (every rank without one). */
static int is_client(const arm_server_params_t *p, int r)
{
    if (!p->topo)
        return 1;
    int n = p->node_of[r];
    return n == p->node || arm_topo_is_neighbour(p->topo, p->node, n);
}

/* One client record: nslots slots of slot_size bytes each from *slab, then
 * a sync slot without data. */
static arm_status_t client_init(struct arm_server *s, srv_client_t *cl, int nslots,
                                size_t slot_size, char **slab)
{
    cl->nslots = nslots;
    cl->srv = s;
    cl->slots = calloc((size_t)nslots + 1, sizeof *cl->slots);
    cl->free_stack = malloc((size_t)nslots * sizeof(int));
    cl->order = malloc(((size_t)nslots + 1) * sizeof(int));
    if (!cl->slots || !cl->free_stack || !cl->order)
        return ARM_ERR_NO_MEMORY;
    for (int i = 0; i <= nslots; i++) {
        srv_slot_t *sl = &cl->slots[i];
        sl->idx = i;
        sl->cl = cl;
        sl->rec.cl = cl;
        sl->data = i == nslots ? NULL : *slab + (size_t)i * slot_size;
        if (i < nslots)
            cl->free_stack[i] = nslots - 1 - i;
    }
    *slab += (size_t)nslots * slot_size;
    for (int i = 0; i < SRV_SYNC_RECS; i++)
        cl->sync_rec[i].cl = cl;
    cl->credit_rec.cl = cl;
    cl->refuse_rec.cl = cl;
    cl->nfree = nslots;
    return ARM_OK;
}

static arm_status_t clients_init(struct arm_server *s)
{
    const arm_server_params_t *p = &s->p;
    int n = 0, slots = p->slots > 0 ? p->slots : 1;
    int eslots = p->edge_slots > 0 ? p->edge_slots : slots;
    for (int r = 0; r < p->nproc; r++)
        n += is_client(p, r);
    s->all_ranks = !p->topo;
    s->nclients = n;
    s->nedges = p->topo ? arm_topo_fwd_in_degree(p->topo, p->node) : 0;
    s->edge_cap = p->slot_size + sizeof(arm_srv_fwd_ent_t);
    s->clients = calloc((size_t)n, sizeof *s->clients);
    s->edges = calloc((size_t)s->nedges + 1, sizeof *s->edges);
    s->slab_bytes = (size_t)n * (size_t)slots * p->slot_size +
                    (size_t)s->nedges * (size_t)eslots * s->edge_cap;
    s->slab = s->slab_bytes ? malloc(s->slab_bytes) : NULL;
    if (!s->clients || !s->edges || (s->slab_bytes && !s->slab))
        return ARM_ERR_NO_MEMORY;
    /* Touched now: the bytes counted are the bytes resident, and a node
     * short of memory fails at start rather than under load. */
    if (s->slab_bytes)
        memset(s->slab, 0, s->slab_bytes);
    char *slab = s->slab;
    for (int r = 0, i = 0; r < p->nproc; r++) {
        if (!is_client(p, r))
            continue;
        srv_client_t *cl = &s->clients[i++];
        cl->rank = r;
        cl->node = p->node_of ? p->node_of[r] : -1;
        if (client_init(s, cl, slots, p->slot_size, &slab) != ARM_OK)
            return ARM_ERR_NO_MEMORY;
    }
    for (int e = 0; e < s->nedges; e++) {
        srv_client_t *cl = &s->edges[e];
        cl->rank = -1;
        cl->edge = 1;
        cl->node = arm_topo_fwd_in(p->topo, p->node, e);
        if (client_init(s, cl, eslots, s->edge_cap, &slab) != ARM_OK)
            return ARM_ERR_NO_MEMORY;
    }
    s->stats.clients = (uint64_t)n;
    s->stats.edges_in = (uint64_t)s->nedges;
    s->stats.buffer_bytes = s->slab_bytes +
        ((size_t)n * ((size_t)slots + 1) + (size_t)s->nedges * ((size_t)eslots + 1)) *
        sizeof(srv_slot_t);
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
        st = srv_fwd_init(s);
    if (st == ARM_OK)
        st = x->listen(xctx, ARM_SRV_AM_REQ, srv_on_request, s);
    if (st == ARM_OK && p->topo)
        st = x->listen(xctx, ARM_SRV_AM_FWD, srv_on_fwd, s);
    if (st == ARM_OK && p->topo)
        st = x->listen(xctx, ARM_SRV_AM_CREDIT, srv_on_credit, s);
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
        s->x->wait(s->xctx, s->nblocked || s->nparked ? 1 : 1000);
        idle = 0;
    }
    return NULL;
}

void srv_destroy(struct arm_server *s)
{
    if (!s)
        return;
    srv_segs_clear(s);
    srv_fwd_fini(s);
    for (int r = 0; s->clients && r < s->nclients; r++) {
        free(s->clients[r].slots);
        free(s->clients[r].free_stack);
        free(s->clients[r].order);
    }
    for (int e = 0; s->edges && e < s->nedges; e++) {
        free(s->edges[e].slots);
        free(s->edges[e].free_stack);
        free(s->edges[e].order);
    }
    free(s->clients);
    free(s->edges);
    free(s->slab);
    free(s);
}
