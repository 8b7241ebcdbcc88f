/* Which processes and which neighbour servers hold request slots at a
 * server, and the bytes that takes. One layout serves two uses: making a
 * server (srv_create allocates exactly what it counts), and counting what a
 * server would hold without making one (arm_server_layout: the simulator's
 * memory study at a million processes, where FCG would need 64 GB).
 *
 * Clients and incoming edges are made at start, or, with lazy_clients, at
 * their first message: a simulated job of 131,072 processes cannot hold
 * every record of every server, and only those used are then counted. */
#define _POSIX_C_SOURCE 200809L
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

static int slots_of(const arm_server_params_t *p)
{
    return p->slots > 0 ? p->slots : 1;
}

static int edge_slots_of(const arm_server_params_t *p)
{
    return p->edge_slots > 0 ? p->edge_slots : slots_of(p);
}

size_t srv_edge_cap(const arm_server_params_t *p)
{
    return p->slot_size + sizeof(arm_srv_fwd_ent_t);
}

/* Bytes of one client's (or edge's) slots: payload and records. */
static size_t client_bytes(int nslots, size_t slot_size)
{
    return (size_t)nslots * slot_size + ((size_t)nslots + 1) * sizeof(srv_slot_t);
}

/* The layout; with_clients 0 leaves the clients uncounted (a lazy server
 * makes them as they come, and a million-process job need not be walked
 * once per node). */
static arm_status_t layout(const arm_server_params_t *p, arm_server_layout_t *l,
                           int with_clients)
{
    memset(l, 0, sizeof *l);
    if (p->nproc < 1 || (p->topo && !p->node_of))
        return ARM_ERR_INVALID_ARG;
    for (int r = 0; with_clients && r < p->nproc; r++)
        l->clients += (uint64_t)is_client(p, r);
    if (p->topo) {
        l->edges_in = (uint64_t)arm_topo_fwd_in_degree(p->topo, p->node);
        int deg = arm_topo_degree(p->topo, p->node);
        for (int i = 0; i < deg; i++)
            l->edges_out += (uint64_t)arm_topo_is_fwd_in(p->topo,
                                                         arm_topo_neighbour(p->topo, p->node, i),
                                                         p->node);
        l->pool_bytes = SRV_POOL_RECS * sizeof(srv_prec_t);
    }
    l->client_bytes = l->clients * client_bytes(slots_of(p), p->slot_size);
    l->edge_bytes = l->edges_in * client_bytes(edge_slots_of(p), srv_edge_cap(p));
    l->obuf_bytes = l->edges_out * SRV_OBUFS * srv_edge_cap(p);
    l->buffer_bytes = l->client_bytes + l->edge_bytes + l->obuf_bytes + l->pool_bytes;
    return ARM_OK;
}

arm_status_t arm_server_layout(const arm_server_params_t *p, arm_server_layout_t *l)
{
    return layout(p, l, 1);
}

/* Payload memory for one record made lazily: from chunks that grow, never
 * touched here, so what a simulated job never uses is never resident. */
static char *lazy_slab(struct arm_server *s, size_t bytes)
{
    if (bytes == 0)
        return NULL;
    if (s->arena_left < bytes) {
        size_t n = bytes * (s->nchunks < 6 ? (size_t)4 << s->nchunks : 256);
        srv_chunk_t *c = malloc(sizeof *c + n);
        if (!c)
            return NULL;
        c->next = s->chunks;
        s->chunks = c;
        s->nchunks++;
        s->arena = (char *)(c + 1);
        s->arena_left = n;
    }
    char *out = s->arena;
    s->arena += bytes;
    s->arena_left -= bytes;
    return out;
}

/* A client record with nslots slots of slot_size bytes at slab (NULL: made
 * lazily), then a sync slot without data. */
static srv_client_t *client_make(struct arm_server *s, int nslots, size_t slot_size, char *slab)
{
    if (!slab && !(slab = lazy_slab(s, (size_t)nslots * slot_size)))
        return NULL;
    srv_client_t *cl = calloc(1, sizeof *cl);
    if (!cl)
        return NULL;
    cl->nslots = nslots;
    cl->srv = s;
    cl->slots = calloc((size_t)nslots + 1, sizeof *cl->slots);
    cl->free_stack = malloc((size_t)nslots * sizeof(int));
    cl->order = malloc(((size_t)nslots + 1) * sizeof(int));
    if (!cl->slots || !cl->free_stack || !cl->order) {
        srv_client_free(cl);
        return NULL;
    }
    for (int i = 0; i <= nslots; i++) {
        srv_slot_t *sl = &cl->slots[i];
        sl->idx = i;
        sl->cl = cl;
        sl->rec.cl = cl;
        sl->data = i == nslots ? NULL : slab + (size_t)i * slot_size;
        if (i < nslots)
            cl->free_stack[i] = nslots - 1 - i;
    }
    for (int i = 0; i < SRV_SYNC_RECS; i++)
        cl->sync_rec[i].cl = cl;
    cl->credit_rec.cl = cl;
    cl->refuse_rec.cl = cl;
    cl->nfree = nslots;
    return cl;
}

void srv_client_free(srv_client_t *cl)
{
    if (!cl)
        return;
    free(cl->slots);
    free(cl->free_stack);
    free(cl->order);
    free(cl);
}

/* The client record of rank, made now (lazy) from its own slab. */
static srv_client_t *client_new(struct arm_server *s, int rank, char *slab)
{
    const arm_server_params_t *p = &s->p;
    srv_client_t *cl = client_make(s, slots_of(p), p->slot_size, slab);
    if (!cl)
        return NULL;
    cl->rank = rank;
    cl->node = p->node_of ? p->node_of[rank] : -1;
    return cl;
}

/* The incoming edge of index e (its server forwards here). */
static srv_client_t *edge_new(struct arm_server *s, int e, char *slab)
{
    srv_client_t *cl = client_make(s, edge_slots_of(&s->p), s->edge_cap, slab);
    if (!cl)
        return NULL;
    cl->rank = -1;
    cl->edge = 1;
    cl->node = arm_topo_fwd_in(s->p.topo, s->p.node, e);
    return cl;
}

/* Lazy records of clients: an open-addressed table by rank. */
static size_t hash_rank(int rank, size_t cap)
{
    return (((uint64_t)(uint32_t)rank * UINT64_C(0x9E3779B97F4A7C15)) >> 20) & (cap - 1);
}

static int lazy_grow(struct arm_server *s)
{
    size_t cap = s->lcap ? 2 * s->lcap : 64;
    srv_client_t **t = calloc(cap, sizeof *t);
    if (!t)
        return -1;
    for (size_t i = 0; i < s->lcap; i++) {
        srv_client_t *cl = s->ltab[i];
        if (!cl)
            continue;
        size_t h = hash_rank(cl->rank, cap);
        while (t[h])
            h = (h + 1) & (cap - 1);
        t[h] = cl;
    }
    free(s->ltab);
    s->ltab = t;
    s->lcap = cap;
    return 0;
}

static srv_client_t *lazy_client_of(struct arm_server *s, int rank)
{
    if (s->lcap) {
        for (size_t h = hash_rank(rank, s->lcap); s->ltab[h]; h = (h + 1) & (s->lcap - 1))
            if (s->ltab[h]->rank == rank)
                return s->ltab[h];
    }
    if (!is_client(&s->p, rank) || ((s->lcount + 1) * 2 > s->lcap && lazy_grow(s) != 0))
        return NULL;
    srv_client_t *cl = client_new(s, rank, NULL);
    if (!cl)
        return NULL;
    size_t h = hash_rank(rank, s->lcap);
    while (s->ltab[h])
        h = (h + 1) & (s->lcap - 1);
    s->ltab[h] = cl;
    s->lcount++;
    s->stats.clients++;
    s->stats.buffer_bytes += client_bytes(slots_of(&s->p), s->p.slot_size);
    return cl;
}

srv_client_t *srv_client_of(struct arm_server *s, int rank)
{
    if (rank < 0 || rank >= s->p.nproc)
        return NULL;
    if (s->p.lazy_clients)
        return lazy_client_of(s, rank);
    if (s->all_ranks)
        return rank < s->nclients ? s->clients[rank] : NULL;
    int lo = 0, hi = s->nclients - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        int r = s->clients[mid]->rank;
        if (r == rank)
            return s->clients[mid];
        if (r < rank)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

srv_client_t *srv_edge_of(struct arm_server *s, int e)
{
    if (e < 0 || e >= s->nedges)
        return NULL;
    if (!s->edges[e] && s->p.lazy_clients) {
        s->edges[e] = edge_new(s, e, NULL);
        if (s->edges[e]) {
            s->stats.edges_in++;
            s->stats.buffer_bytes += client_bytes(edge_slots_of(&s->p), s->edge_cap);
        }
    }
    return s->edges[e];
}

/* Eager: every record now, from one slab, touched so that the bytes counted
 * are resident and a node short of memory fails at start. */
static arm_status_t eager_init(struct arm_server *s, const arm_server_layout_t *l)
{
    const arm_server_params_t *p = &s->p;
    int slots = slots_of(p), eslots = edge_slots_of(p);
    s->slab_bytes = (size_t)l->clients * (size_t)slots * p->slot_size +
                    (size_t)l->edges_in * (size_t)eslots * s->edge_cap;
    s->slab = s->slab_bytes ? malloc(s->slab_bytes) : NULL;
    if (s->slab_bytes && !s->slab)
        return ARM_ERR_NO_MEMORY;
    if (s->slab_bytes)
        memset(s->slab, 0, s->slab_bytes);
    char *slab = s->slab;
    for (int r = 0, i = 0; r < p->nproc; r++) {
        if (!is_client(p, r))
            continue;
        if (!(s->clients[i++] = client_new(s, r, slab)))
            return ARM_ERR_NO_MEMORY;
        slab += (size_t)slots * p->slot_size;
    }
    for (int e = 0; e < s->nedges; e++) {
        if (!(s->edges[e] = edge_new(s, e, slab)))
            return ARM_ERR_NO_MEMORY;
        slab += (size_t)eslots * s->edge_cap;
    }
    s->stats.clients = l->clients;
    s->stats.edges_in = l->edges_in;
    s->stats.buffer_bytes = l->client_bytes + l->edge_bytes;
    return ARM_OK;
}

arm_status_t srv_clients_init(struct arm_server *s)
{
    arm_server_layout_t l;
    arm_status_t st = layout(&s->p, &l, !s->p.lazy_clients);
    if (st != ARM_OK)
        return st;
    s->all_ranks = !s->p.topo;
    s->edge_cap = srv_edge_cap(&s->p);
    s->nedges = (int)l.edges_in;
    s->edges = calloc((size_t)s->nedges + 1, sizeof *s->edges);
    if (!s->edges)
        return ARM_ERR_NO_MEMORY;
    if (s->p.lazy_clients)
        return ARM_OK;
    s->nclients = (int)l.clients;
    s->clients = calloc((size_t)s->nclients + 1, sizeof *s->clients);
    if (!s->clients)
        return ARM_ERR_NO_MEMORY;
    return eager_init(s, &l);
}

/* A request still waiting at the end (behind a lock never released) may
 * hold the transport's buffer or an unreceived rendezvous: given back. */
static void client_release(srv_client_t *cl)
{
    for (int i = 0; cl && cl->slots && i <= cl->nslots; i++) {
        srv_slot_t *sl = &cl->slots[i];
        if (sl->kept || sl->state == SLOT_DEFERRED) {
            cl->srv->x->release(cl->srv->xctx, &sl->rmsg);
            sl->kept = 0;
            sl->state = SLOT_FREE;
        }
    }
}

void srv_clients_release(struct arm_server *s)
{
    for (int r = 0; s->clients && r < s->nclients; r++)
        client_release(s->clients[r]);
    for (size_t i = 0; s->ltab && i < s->lcap; i++)
        client_release(s->ltab[i]);
    for (int e = 0; s->edges && e < s->nedges; e++)
        client_release(s->edges[e]);
}

void srv_clients_fini(struct arm_server *s)
{
    srv_clients_release(s);
    for (int r = 0; s->clients && r < s->nclients; r++)
        srv_client_free(s->clients[r]);
    for (size_t i = 0; i < s->lcap; i++)
        srv_client_free(s->ltab[i]);
    for (int e = 0; s->edges && e < s->nedges; e++)
        srv_client_free(s->edges[e]);
    while (s->chunks) {
        srv_chunk_t *c = s->chunks;
        s->chunks = c->next;
        free(c);
    }
    free(s->clients);
    free(s->ltab);
    free(s->edges);
    free(s->slab);
    s->clients = NULL;
    s->ltab = NULL;
    s->edges = NULL;
    s->slab = NULL;
}
