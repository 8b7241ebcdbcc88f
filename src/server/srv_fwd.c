/* Forwarding and aggregation, the sending side (hicoo 3.1): a request for
 * a node that is not this one is packed into an outgoing buffer of the
 * edge to the next node of its route. Everything packed for one next node
 * during one pass of progress leaves as one ARM_SRV_AM_FWD message, when
 * the edge has a credit; while it has none, the buffer keeps filling, so
 * the messages grow exactly when the next server is the bottleneck. No
 * timer holds a request back. Fetch-and-adds to one address that meet in a
 * buffer are combined into one entry (beyond the paper; the target splits
 * the reply, srv_edge.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "server/srv_int.h"
#include "util/arm_acc.h"
#include "util/arm_log.h"

static size_t pad8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

static srv_oedge_t *oedge_make(struct arm_server *s, int i);


int srv_target_node(const struct arm_server *s, const arm_srv_req_t *r)
{
    if (!s->p.node_of)
        return s->p.node;
    if (r->target < 0 || r->target >= s->p.nproc)
        return -1;
    return s->p.node_of[r->target];
}

arm_status_t srv_pool_make(struct arm_server *s)
{
    if (s->precs)
        return ARM_OK;
    s->precs = calloc(SRV_POOL_RECS, sizeof *s->precs);
    if (!s->precs)
        return ARM_ERR_NO_MEMORY;
    for (int i = SRV_POOL_RECS - 1; i >= 0; i--) {
        s->precs[i].srv = s;
        s->precs[i].next = s->pfree;
        s->pfree = &s->precs[i];
    }
    s->npfree = SRV_POOL_RECS;
    s->stats.buffer_bytes += SRV_POOL_RECS * sizeof *s->precs;
    return ARM_OK;
}

arm_status_t srv_fwd_init(struct arm_server *s)
{
    if (!s->p.topo)
        return ARM_OK;
    s->noedges = arm_topo_degree(s->p.topo, s->p.node);
    s->oedges = calloc((size_t)s->noedges + 1, sizeof *s->oedges);
    if (!s->oedges)
        return ARM_ERR_NO_MEMORY;
    if (s->p.lazy_clients)
        return ARM_OK;
    /* Buffers, made now, toward every neighbour this server forwards to
     * (it is that neighbour's incoming edge): the memory is known at start. */
    for (int i = 0; i < s->noedges; i++)
        if (arm_topo_is_fwd_in(s->p.topo, arm_topo_neighbour(s->p.topo, s->p.node, i),
                               s->p.node) && !oedge_make(s, i))
            return ARM_ERR_NO_MEMORY;
    return srv_pool_make(s);
}

void srv_fwd_fini(struct arm_server *s)
{
    for (int i = 0; s->oedges && i < s->noedges; i++) {
        if (!s->oedges[i])
            continue;
        for (int b = 0; b < SRV_OBUFS; b++)
            free(s->oedges[i]->buf[b].data);
        free(s->oedges[i]);
    }
    free(s->oedges);
    free(s->precs);
    while (s->parked) {
        srv_park_t *p = s->parked;
        s->parked = p->next;
        free(p);
    }
    while (s->splits) {
        srv_split_t *w = s->splits;
        s->splits = w->link;
        free(w);
    }
    s->oedges = NULL;
    s->precs = NULL;
}

/* The edge slots a neighbour holds for this server: its credits at start,
 * and the most it can ever hold. */
static int edge_credits(const struct arm_server *s)
{
    return s->p.edge_slots > 0 ? s->p.edge_slots : (s->p.slots > 0 ? s->p.slots : 1);
}

/* The edge to the i-th neighbour and its buffers. */
static srv_oedge_t *oedge_make(struct arm_server *s, int i)
{
    srv_oedge_t *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->node = arm_topo_neighbour(s->p.topo, s->p.node, i);
    e->srv = s;
    for (int b = 0; b < SRV_OBUFS; b++) {
        e->buf[b].data = malloc(s->edge_cap);
        e->buf[b].e = e;
        if (!e->buf[b].data) {
            for (int k = 0; k <= b; k++)
                free(e->buf[k].data);
            free(e);
            return NULL;
        }
        /* Resident, as the slots are (made lazily: left untouched). */
        if (!s->p.lazy_clients)
            memset(e->buf[b].data, 0, s->edge_cap);
    }
    e->credits = edge_credits(s);
    s->stats.buffer_bytes += SRV_OBUFS * s->edge_cap;
    s->stats.edges_out++;
    s->oedges[i] = e;
    return e;
}

/* The edge toward dst (its buffers made now if no route was known to
 * need them). */
static srv_oedge_t *oedge_to(struct arm_server *s, int dst)
{
    int hop = arm_topo_next_hop(s->p.topo, s->p.node, dst);
    int i = arm_topo_neighbour_index(s->p.topo, s->p.node, hop);
    if (i < 0 || i >= s->noedges)
        return NULL;
    return s->oedges[i] ? s->oedges[i] : oedge_make(s, i);
}

static void order_drop(srv_oedge_t *e, srv_obuf_t *b)
{
    int idx = (int)(b - e->buf), j = 0;
    for (int i = 0; i < e->norder; i++)
        if (e->order[i] != idx)
            e->order[j++] = e->order[i];
    e->norder = j;
}

static void send_ready(struct arm_server *s, srv_oedge_t *e, int flush);

static void obuf_done(srv_obuf_t *b)
{
    if (b->comp.status != ARM_OK)
        arm_log(ARM_LOG_ERROR, "server", "forwarding %u requests to node %d failed: %s",
                b->hdr.nreq, b->e->node, arm_status_str(b->comp.status));
    b->state = OBUF_FREE;
    b->used = 0;
    order_drop(b->e, b);
}

static void obuf_sent(arm_net_comp_t *c)
{
    srv_obuf_t *b = c->arg;
    obuf_done(b);
    send_ready(b->e->srv, b->e, 1);
}

static void obuf_send(struct arm_server *s, srv_oedge_t *e, srv_obuf_t *b)
{
    b->hdr.from_node = s->p.node;
    b->hdr.bytes = (uint32_t)b->used;
    b->hdr.seq = e->seq++;
    b->state = OBUF_SENDING;
    e->credits--;
    e->msgs++;
    s->stats.fwd_messages++;
    arm_net_comp_init(&b->comp, obuf_sent, b);
    arm_net_iov_t iov = { b->data, b->used };
    arm_status_t st = s->x->send_server(s->xctx, e->node, ARM_SRV_AM_FWD, &b->hdr,
                                        sizeof b->hdr, &iov, 1, 0, &b->comp);
    if (st == ARM_INPROGRESS)
        return;
    if (st != ARM_OK) {
        b->comp.status = st;
        e->credits++;
        e->seq--;             /* never left: the next message takes its number */
    }
    obuf_done(b);
}

/* Sends, oldest first, the buffers that are full and (flush) the one
 * filling, while the edge has credits. */
static void send_ready(struct arm_server *s, srv_oedge_t *e, int flush)
{
    for (int i = 0; i < e->norder && e->credits > 0;) {
        srv_obuf_t *b = &e->buf[e->order[i]];
        int go = b->state == OBUF_WAITING || (flush && b->state == OBUF_FILLING && b->used);
        if (b->state == OBUF_SENDING) {
            i++;
            continue;
        }
        if (!go)
            break;
        int before = e->norder;
        obuf_send(s, e, b);
        if (e->norder == before)
            i++;              /* in flight: stays listed until sent */
    }
}

/* The buffer being filled, or a fresh one; NULL when all are in use. */
static srv_obuf_t *filling(srv_oedge_t *e, size_t need, size_t cap)
{
    if (e->norder) {
        srv_obuf_t *b = &e->buf[e->order[e->norder - 1]];
        if (b->state == OBUF_FILLING) {
            if (b->used + need <= cap)
                return b;
            b->state = OBUF_WAITING;
        }
    }
    for (int i = 0; i < SRV_OBUFS; i++)
        if (e->buf[i].state == OBUF_FREE) {
            srv_obuf_t *b = &e->buf[i];
            b->state = OBUF_FILLING;
            b->used = 0;
            b->hdr.nreq = 0;
            e->order[e->norder++] = i;
            return b;
        }
    return NULL;
}

/* What can be combined: fetch-and-adds (the reply split back), and
 * accumulates of one int or long that want no reply (integer sums are exact
 * in any order; floating-point ones would round differently). */
enum { COMB_NONE = 0, COMB_FADD, COMB_ACC };

static int comb_kind(const arm_srv_req_t *r, size_t dlen, uint32_t ncomb)
{
    if (ncomb && dlen != (size_t)ncomb * sizeof(arm_srv_comb_t))
        return COMB_NONE;
    if (r->op == ARM_SRV_RMW && (r->sub == ARM_SRV_FADD32 || r->sub == ARM_SRV_FADD64))
        return COMB_FADD;
    if (r->op == ARM_SRV_ACC && (r->sub == ARM_ACC_INT || r->sub == ARM_ACC_LNG) &&
        (r->req_id & ARM_SRV_REQ_NOREPLY) && r->len == arm_acc_elem_size(r->sub) &&
        (ncomb || dlen == r->len))
        return COMB_ACC;
    return COMB_NONE;
}

/* The amount a plain request adds: the operand, or scale x element. */
static int64_t plain_operand(const arm_srv_req_t *r, const void *data)
{
    if (r->op != ARM_SRV_ACC)
        return r->operand;
    if (r->sub == ARM_ACC_INT) {
        int v, acc = 0;
        memcpy(&v, data, sizeof v);
        arm_acc_apply(ARM_ACC_INT, r->scale, &acc, &v, sizeof v);
        return acc;
    }
    long v, acc = 0;
    memcpy(&v, data, sizeof v);
    arm_acc_apply(ARM_ACC_LNG, r->scale, &acc, &v, sizeof v);
    return acc;
}

static int same_target(const arm_srv_req_t *a, const arm_srv_req_t *r)
{
    return a->op == r->op && a->sub == r->sub && a->raddr == r->raddr && a->target == r->target;
}

/* Folds r (ncomb origins in data, or one plain request with its data) into
 * the last entry of b when both add to one address the same way; 1 when
 * done. */
static int combine(struct arm_server *s, srv_obuf_t *b, const arm_srv_req_t *r, uint32_t ncomb,
                   const void *data, size_t dlen)
{
    if (!s->p.combine || !b || b->state != OBUF_FILLING || !b->hdr.nreq)
        return 0;
    arm_srv_fwd_ent_t last;
    memcpy(&last, b->data + b->last, sizeof last);
    int kind = comb_kind(r, dlen, ncomb);
    if (!kind || !same_target(&last.req, r) || comb_kind(&last.req, last.dlen, last.ncomb) != kind)
        return 0;
    uint32_t have = last.ncomb ? last.ncomb : 1, add = ncomb ? ncomb : 1;
    /* In the buffer the entry's data is padded to 8 bytes. */
    size_t grow = (size_t)(have + add) * sizeof(arm_srv_comb_t) - pad8(last.dlen);
    if (have + add > SRV_COMB_MAX || b->used + grow > s->edge_cap)
        return 0;
    char *d = b->data + b->last + sizeof last;
    if (!last.ncomb) {
        arm_srv_comb_t c0 = { last.req.src, 0, last.req.req_id, plain_operand(&last.req, d) };
        memcpy(d, &c0, sizeof c0);
    }
    if (ncomb) {
        memcpy(d + (size_t)have * sizeof(arm_srv_comb_t), data,
               (size_t)ncomb * sizeof(arm_srv_comb_t));
    } else {
        arm_srv_comb_t c1 = { r->src, 0, r->req_id, plain_operand(r, data) };
        memcpy(d + (size_t)have * sizeof(arm_srv_comb_t), &c1, sizeof c1);
    }
    int64_t sum = 0;
    for (uint32_t i = 0; i < have + add; i++) {
        arm_srv_comb_t c;
        memcpy(&c, d + (size_t)i * sizeof c, sizeof c);
        sum = srv_wrap_add(sum, c.operand);
    }
    last.req.operand = sum;
    last.ncomb = have + add;
    last.dlen = (uint32_t)((size_t)last.ncomb * sizeof(arm_srv_comb_t));
    memcpy(b->data + b->last, &last, sizeof last);
    b->used += grow;
    return 1;
}

static void mark_dirty(struct arm_server *s, srv_oedge_t *e)
{
    if (e->dirty)
        return;
    e->dirty = 1;
    e->dnext = s->dirty;
    s->dirty = e;
}

int srv_fwd_comb_ok(const arm_srv_req_t *r, size_t dlen, uint32_t ncomb)
{
    return comb_kind(r, dlen, ncomb) != COMB_NONE;
}

arm_status_t srv_fwd_add_ent(struct arm_server *s, int dst, const arm_srv_req_t *r,
                             uint32_t ncomb, const void *data, size_t dlen, char *why)
{
    srv_oedge_t *e = oedge_to(s, dst);
    if (!e) {
        snprintf(why, SRV_WHY_MAX, "server of node %d has no edge toward node %d", s->p.node,
                 dst);
        return ARM_ERR_NO_MEMORY;
    }
    size_t need = sizeof(arm_srv_fwd_ent_t) + pad8(dlen);
    if (need > s->edge_cap) {
        snprintf(why, SRV_WHY_MAX, "%zu bytes do not fit one forwarded message", dlen);
        return ARM_ERR_INVALID_ARG;
    }
    srv_obuf_t *cur = e->norder ? &e->buf[e->order[e->norder - 1]] : NULL;
    if (combine(s, cur, r, ncomb, data, dlen)) {
        e->combined += ncomb ? ncomb : 1;
        s->stats.fwd_combined += ncomb ? ncomb : 1;
        return ARM_OK;
    }
    srv_obuf_t *b = filling(e, need, s->edge_cap);
    if (!b) {
        s->stats.credit_waits++;
        send_ready(s, e, 0);
        return ARM_INPROGRESS;
    }
    arm_srv_fwd_ent_t ent;
    memset(&ent, 0, sizeof ent);
    ent.req = *r;
    ent.dlen = (uint32_t)dlen;
    ent.ncomb = ncomb;
    b->last = b->used;
    memcpy(b->data + b->used, &ent, sizeof ent);
    if (dlen)
        memcpy(b->data + b->used + sizeof ent, data, dlen);
    b->used += need;
    b->hdr.nreq++;
    e->reqs++;
    s->stats.fwd_requests++;
    mark_dirty(s, e);
    send_ready(s, e, 0);
    return ARM_OK;
}

arm_status_t srv_fwd_add(struct arm_server *s, int dst, const arm_srv_req_t *r,
                         const void *data, size_t dlen, char *why)
{
    return srv_fwd_add_ent(s, dst, r, 0, data, dlen, why);
}

int srv_fwd_flush(struct arm_server *s)
{
    int did = 0;
    srv_oedge_t **pp = &s->dirty;
    while (*pp) {
        srv_oedge_t *e = *pp;
        uint64_t before = e->msgs;
        send_ready(s, e, 1);
        did |= e->msgs != before;
        int left = 0;
        for (int i = 0; i < e->norder; i++) {
            const srv_obuf_t *b = &e->buf[e->order[i]];
            left |= b->state == OBUF_WAITING || (b->state == OBUF_FILLING && b->used);
        }
        if (left) {
            pp = &e->dnext;
        } else {
            e->dirty = 0;
            *pp = e->dnext;
        }
    }
    return did;
}

arm_status_t srv_on_credit(void *arg, const arm_net_am_msg_t *msg)
{
    struct arm_server *s = arg;
    arm_srv_fwd_hdr_t h;
    if (msg->hdr_len != sizeof h) {
        arm_log(ARM_LOG_ERROR, "server", "credit message of %zu bytes ignored", msg->hdr_len);
        return ARM_OK;
    }
    memcpy(&h, msg->hdr, sizeof h);
    int i = s->p.topo ? arm_topo_neighbour_index(s->p.topo, s->p.node, h.from_node) : -1;
    if (i < 0 || i >= s->noedges) {
        arm_log(ARM_LOG_ERROR, "server", "credits from node %d, not a neighbour, ignored",
                h.from_node);
        return ARM_OK;
    }
    srv_oedge_t *e = s->oedges[i];
    if (!e) {
        arm_log(ARM_LOG_ERROR, "server", "credits from node %d, never sent to, ignored",
                h.from_node);
        return ARM_OK;
    }
    if (h.credits > (uint32_t)(edge_credits(s) - e->credits)) {
        /* More than it holds of ours: a broken peer. Taken, the next
         * messages would overrun its slots. */
        arm_log(ARM_LOG_ERROR, "server", "%u credits from node %d, which holds %d of this "
                "server's slots: ignored", h.credits, h.from_node, edge_credits(s) - e->credits);
        return ARM_OK;
    }
    e->credits += (int)h.credits;
    send_ready(s, e, 1);
    return ARM_OK;
}

static void credits_sent(arm_net_comp_t *c)
{
    srv_client_t *cl = c->arg;
    cl->credit_rec.busy = 0;
    if (cl->unreturned)
        srv_fwd_send_credits(cl);
}

void srv_fwd_send_credits(srv_client_t *cl)
{
    srv_rec_t *rec = &cl->credit_rec;
    if (rec->busy || cl->unreturned == 0)
        return;
    struct arm_server *s = cl->srv;
    arm_srv_fwd_hdr_t *h = &cl->credit_hdr;
    memset(h, 0, sizeof *h);
    h->from_node = s->p.node;
    h->credits = cl->unreturned;
    cl->unreturned = 0;
    rec->busy = 1;
    arm_net_comp_init(&rec->comp, credits_sent, cl);
    arm_status_t st = s->x->send_server(s->xctx, cl->node, ARM_SRV_AM_CREDIT, h, sizeof *h,
                                        NULL, 0, 0, &rec->comp);
    if (st == ARM_INPROGRESS)
        return;
    rec->busy = 0;
    if (st != ARM_OK) {
        arm_log(ARM_LOG_ERROR, "server", "credits to node %d failed: %s", cl->node,
                arm_status_str(st));
        cl->unreturned += h->credits;
    }
}
