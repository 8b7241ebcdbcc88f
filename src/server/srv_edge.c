/* Forwarding, the receiving side: a message from a neighbour server takes
 * one slot of that server's incoming edge; its entries are served in order,
 * each either here (its target is on this node: the reply goes straight to
 * its origin, from the reply pool) or sent on toward its target. A lock
 * request that must wait is parked, so that it never holds up the edge
 * (other origins' unlocks travel on it); the slot is given back once every
 * entry is done and every reply that reads its data is sent. A combined
 * fetch-and-add is answered either origin by origin from here, or, with
 * split replies (decision 047), by one message to the server that sent it,
 * which answers its origins (srv_on_split). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "server/srv_int.h"
#include "util/arm_acc.h"
#include "util/arm_log.h"

/* ---- the reply pool -------------------------------------------------------------- */
static srv_prec_t *pool_get(struct arm_server *s)
{
    srv_prec_t *p = s->pfree;
    if (p) {
        s->pfree = p->next;
        s->npfree--;
    }
    return p;
}

static void pool_put(struct arm_server *s, srv_prec_t *p)
{
    srv_slot_t *agg = p->agg;
    p->agg = NULL;
    p->rec.busy = 0;
    free(p->rec.owned);
    p->rec.owned = NULL;
    p->next = s->pfree;
    s->pfree = p;
    s->npfree++;
    if (agg && --agg->pending == 0 && agg->state == SLOT_REPLYING)
        srv_slot_free(agg);
}

static void prec_sent(arm_net_comp_t *c)
{
    srv_prec_t *p = c->arg;
    pool_put(p->srv, p);
}

/* Sends a reply to rank dest from pool record p, as from node `as` (this
 * server's, or the target's for a split answer); agg (may be NULL) is the
 * edge slot whose data the reply's iov reads. */
static void prec_post_as(struct arm_server *s, srv_prec_t *p, int as, int dest,
                         uint64_t req_id, int64_t value, arm_status_t status,
                         const arm_net_iov_t *iov, size_t iovcnt, size_t bytes,
                         srv_slot_t *agg)
{
    srv_rec_t *rec = &p->rec;
    memset(&rec->rep, 0, sizeof rec->rep);
    rec->rep.req_id = req_id;
    rec->rep.value = value;
    rec->rep.status = status;
    rec->rep.len = (uint32_t)bytes;
    rec->rep.node = as;
    /* The origin's forwarded writes served here ride along (decision 078);
     * an answer on another node's behalf carries none of this node's. */
    rec->rep.credits = as == s->p.node ? srv_fack_take(s, dest) : 0;
    rec->busy = 1;
    p->dest = dest;
    p->agg = agg;
    if (agg)
        agg->pending++;
    if (iovcnt == 1) {
        rec->iov1 = iov[0];
        iov = &rec->iov1;
    }
    unsigned flags = bytes && bytes <= s->p.reply_eager_max ? ARM_NET_AM_EAGER : 0;
    arm_net_comp_init(&rec->comp, prec_sent, p);
    arm_status_t st = srv_reply(s, dest, &rec->rep, sizeof rec->rep, iov, iovcnt,
                                       flags, &rec->comp);
    if (st == ARM_INPROGRESS)
        return;
    if (st != ARM_OK)
        arm_log(ARM_LOG_ERROR, "server", "reply to rank %d failed: %s", dest,
                arm_status_str(st));
    pool_put(s, p);
}

static void prec_post(struct arm_server *s, srv_prec_t *p, int dest, uint64_t req_id,
                      int64_t value, arm_status_t status, const arm_net_iov_t *iov,
                      size_t iovcnt, size_t bytes, srv_slot_t *agg)
{
    prec_post_as(s, p, s->p.node, dest, req_id, value, status, iov, iovcnt, bytes, agg);
}

static void prec_refuse(struct arm_server *s, srv_prec_t *p, int dest, uint64_t req_id,
                        arm_status_t st, const char *why)
{
    snprintf(p->rec.why, sizeof p->rec.why, "%s", why);
    arm_net_iov_t iov = { p->rec.why, strlen(p->rec.why) };
    s->stats.refused++;
    prec_post(s, p, dest, req_id, 0, st, &iov, 1, iov.len, NULL);
}

int srv_fwd_ack(struct arm_server *s, int rank)
{
    srv_prec_t *p = pool_get(s);
    if (!p)
        return 0;
    p->rec.cl = NULL;
    s->stats.fwd_acks++;
    prec_post(s, p, rank, 0, 0, ARM_OK, NULL, 0, 0, NULL);
    return 1;
}

arm_status_t srv_fwd_refuse_to(struct arm_server *s, int rank, uint64_t req_id, arm_status_t st,
                               const char *why)
{
    srv_prec_t *p = s->p.topo && srv_pool_make(s) == ARM_OK ? pool_get(s) : NULL;
    if (!p)
        return ARM_ERR_NO_MEMORY;
    p->rec.cl = NULL;
    prec_refuse(s, p, rank, req_id, st, why);
    return ARM_OK;
}

/* ---- receiving a forwarded message ---------------------------------------------- */
/* Queues, in number order, the held messages that are next now. */
static void unhold(srv_client_t *cl)
{
    for (int i = 0; cl->nheld > 0 && i < cl->nslots;) {
        srv_slot_t *sl = &cl->slots[i];
        if (!sl->held || sl->seq != cl->seq_next) {
            i++;
            continue;
        }
        sl->held = 0;
        cl->nheld--;
        srv_enqueue(cl, sl);
        cl->seq_next++;
        i = 0;
    }
}

arm_status_t srv_on_fwd(void *arg, const arm_net_am_msg_t *msg)
{
    struct arm_server *s = arg;
    arm_srv_fwd_hdr_t h;
    if (msg->hdr_len != sizeof h) {
        arm_log(ARM_LOG_ERROR, "server", "forwarded message with a %zu-byte header dropped",
                msg->hdr_len);
        s->stats.refusals_lost++;
        return ARM_OK;
    }
    memcpy(&h, msg->hdr, sizeof h);
    if (srv_pool_make(s) != ARM_OK) {
        arm_log(ARM_LOG_ERROR, "server", "no memory for the reply pool: %u forwarded "
                "requests from node %d dropped", h.nreq, h.from_node);
        s->stats.refusals_lost += h.nreq;
        return ARM_OK;
    }
    int i = arm_topo_fwd_in_index(s->p.topo, s->p.node, h.from_node);
    srv_client_t *cl = srv_edge_of(s, i);
    const char *why = !cl ? "its server is not an incoming edge here"
        : msg->data_len > s->edge_cap ? "it is larger than an edge slot"
        : (uint32_t)cl->nfree <= cl->unreturned ? "it came without a credit"
        : h.seq - cl->seq_next >= (uint32_t)cl->nslots ? "its number is out of sequence"
        : NULL;
    if (why) {
        /* A broken peer server: its origins learn of it by their deadline. */
        arm_log(ARM_LOG_ERROR, "server", "forwarded message of %u requests from node %d "
                "dropped: %s", h.nreq, h.from_node, why);
        s->stats.refusals_lost += h.nreq;
        return ARM_OK;
    }
    srv_slot_t *sl = &cl->slots[cl->free_stack[--cl->nfree]];
    memset(&sl->req, 0, sizeof sl->req);
    sl->req.src = -1;
    sl->nent = h.nreq;
    sl->cursor = 0;
    sl->pending = 0;
    sl->dlen = (uint32_t)msg->data_len;
    sl->dptr = sl->data;
    sl->rx_status = ARM_OK;
    sl->state = SLOT_READY;
    sl->seq = h.seq;
    if (h.seq == cl->seq_next) {
        srv_enqueue(cl, sl);
        cl->seq_next++;
        unhold(cl);
    } else {
        sl->held = 1;          /* an earlier message is still on its way */
        cl->nheld++;
        s->stats.fwd_in_early++;
    }
    s->stats.fwd_in_messages++;
    s->stats.fwd_in_requests += h.nreq;
    if (msg->data_len && msg->rndv) {
        srv_slot_receive(s, sl, msg);
    } else if (msg->data_len) {
        memcpy(sl->data, msg->data, msg->data_len);
    }
    srv_drain(s, cl);
    return ARM_OK;
}

/* ---- serving its entries ------------------------------------------------------- */
/* The sum of a combined accumulate of one int or long, added once under
 * the target's accumulate lock (scale 1: each origin's operand is already
 * scale x element). */
static arm_status_t acc_sum(struct arm_server *s, const arm_srv_req_t *r, char *why)
{
    size_t n = arm_acc_elem_size(r->sub);
    char *p = srv_addr(s, r->raddr, n, why);
    if (!p)
        return ARM_ERR_INVALID_ARG;
    if (r->target < 0 || r->target >= s->p.nproc || !s->p.acc_lock[r->target]) {
        snprintf(why, SRV_WHY_MAX, "rank %d has no accumulate lock on node %d", r->target,
                 s->p.node);
        return ARM_ERR_INVALID_ARG;
    }
    int i32 = (int)r->operand, one32 = 1;
    long i64 = (long)r->operand, one64 = 1;
    int is_int = r->sub == ARM_ACC_INT;
    arm_acc_apply_locked(s->p.acc_lock[r->target], s->p.acc_stride,
                         is_int ? ARM_ACC_INT : ARM_ACC_LNG,
                         is_int ? (const void *)&one32 : (const void *)&one64, p,
                         is_int ? (const void *)&i32 : (const void *)&i64, n);
    return ARM_OK;
}

/* The value origin i of a combined fetch-and-add receives: the old value
 * plus the operands of the origins before it. */
static int64_t comb_value(const arm_srv_req_t *r, int64_t old, int64_t prefix)
{
    int64_t v = srv_wrap_add(old, prefix);
    return r->sub == ARM_SRV_FADD32 ? (int64_t)(int32_t)v : v;
}

/* One message to the sender of agg with every origin's value written over
 * its operand in the slot's data (the slot is held until it is sent). */
static void split_send(struct arm_server *s, srv_slot_t *agg, const arm_srv_fwd_ent_t *ent,
                       char *data, int64_t old)
{
    int64_t prefix = 0;
    for (uint32_t i = 0; i < ent->ncomb; i++) {
        arm_srv_comb_t c;
        memcpy(&c, data + (size_t)i * sizeof c, sizeof c);
        int64_t v = comb_value(&ent->req, old, prefix);
        prefix = srv_wrap_add(prefix, c.operand);
        c.operand = v;
        memcpy(data + (size_t)i * sizeof c, &c, sizeof c);
        s->stats.requests++;
    }
    srv_prec_t *p = pool_get(s);
    p->rec.cl = agg->cl;
    p->dest = -1;
    p->agg = agg;
    agg->pending++;
    p->rec.busy = 1;
    p->split = (arm_srv_split_hdr_t){ s->p.node, ent->ncomb, ARM_OK, 0 };
    p->rec.iov1 = (arm_net_iov_t){ data, (size_t)ent->ncomb * sizeof(arm_srv_comb_t) };
    arm_net_comp_init(&p->rec.comp, prec_sent, p);
    s->stats.split_sent++;
    arm_status_t st = s->x->send_server(s->xctx, agg->cl->node, ARM_SRV_AM_SPLIT, &p->split,
                                        sizeof p->split, &p->rec.iov1, 1, 0, &p->rec.comp);
    if (st == ARM_INPROGRESS)
        return;
    if (st != ARM_OK) {
        /* The origins learn of it by their deadline, as of a lost reply. */
        arm_log(ARM_LOG_ERROR, "server", "split answer of %u origins to node %d failed: %s",
                ent->ncomb, agg->cl->node, arm_status_str(st));
        s->stats.refusals_lost += ent->ncomb;
    }
    pool_put(s, p);
}

/* Answers the origins of w from its cursor while reply records last; 1
 * when all are answered. */
static int split_answer(struct arm_server *s, srv_split_t *w)
{
    while (w->next < w->hdr.nent) {
        srv_prec_t *p = pool_get(s);
        if (!p)
            return 0;
        const arm_srv_comb_t *c = &w->ent[w->next++];
        p->rec.cl = NULL;
        /* As the target would have answered, its node included (decision 047). */
        prec_post_as(s, p, w->hdr.from_node, c->src, c->req_id, c->operand, ARM_OK, NULL, 0,
                     0, NULL);
        s->stats.split_replies++;
    }
    return 1;
}

arm_status_t srv_on_split(void *arg, const arm_net_am_msg_t *msg)
{
    struct arm_server *s = arg;
    arm_srv_split_hdr_t h;
    if (msg->hdr_len != sizeof h || srv_pool_make(s) != ARM_OK) {
        arm_log(ARM_LOG_ERROR, "server", "split answer dropped (%zu-byte header, or no memory "
                "for the reply pool)", msg->hdr_len);
        s->stats.refusals_lost++;
        return ARM_OK;
    }
    memcpy(&h, msg->hdr, sizeof h);
    if (!s->p.topo || h.from_node < 0 || h.from_node >= s->p.topo->nnodes) {
        arm_log(ARM_LOG_ERROR, "server", "split answer from node %d, not in the job: dropped",
                h.from_node);
        s->stats.refusals_lost += h.nent;
        return ARM_OK;
    }
    if ((size_t)h.nent * sizeof(arm_srv_comb_t) != msg->data_len) {
        arm_log(ARM_LOG_ERROR, "server", "split answer from node %d of %u origins carries %zu "
                "bytes: dropped", h.from_node, h.nent, msg->data_len);
        s->stats.refusals_lost += h.nent;
        return ARM_OK;
    }
    /* Kept in a record of its own (the transport's buffer is not), answered
     * now as far as records last, the rest by srv_split_retry. */
    srv_split_t *w = malloc(sizeof *w + msg->data_len);
    if (!w)
        arm_fatal("server", "no memory for a split answer of %u origins", h.nent);
    w->hdr = h;
    w->next = 0;
    w->link = NULL;
    if (msg->data_len)   /* no data: no buffer either */
        memcpy(w->ent, msg->data, msg->data_len);
    if (!s->splits && split_answer(s, w)) {
        free(w);
        return ARM_OK;
    }
    if (s->splits_tail)
        s->splits_tail->link = w;
    else
        s->splits = w;
    s->splits_tail = w;
    s->nsplits++;
    return ARM_OK;
}

int srv_split_retry(struct arm_server *s)
{
    int did = 0;
    while (s->splits) {
        srv_split_t *w = s->splits;
        uint32_t before = w->next;
        int done = split_answer(s, w);
        did |= w->next != before;
        if (!done)
            break;
        s->splits = w->link;
        if (!s->splits)
            s->splits_tail = NULL;
        s->nsplits--;
        free(w);
    }
    return did;
}

/* A combined entry: the sum is applied once. A fetch-and-add answers
 * origin i with the old value plus the operands of the origins before it;
 * an accumulate answers only if it failed. */
static int serve_combined(struct arm_server *s, srv_slot_t *agg, const arm_srv_fwd_ent_t *ent,
                          char *data)
{
    int is_fadd = ent->req.op == ARM_SRV_RMW;
    int split = s->p.split && is_fadd && ent->ncomb > 1;
    if (s->npfree < (split ? 1 : (int)ent->ncomb))
        return 0;
    char why[SRV_WHY_MAX];
    srv_out_t out = { .why = why };
    int is_acc = ent->req.op == ARM_SRV_ACC;
    if (is_acc && srv_acc_waits(s, &ent->req, data, ent->dlen))
        return 0;   /* an origin holds the target's accumulate lock */
    /* srv_fwd_serve let only well-formed combined entries through
     * (srv_fwd_comb_ok): the kind, the type and the records' bytes hold. */
    arm_status_t st;
    if (is_acc) {
        st = acc_sum(s, &ent->req, why);
    } else {
        srv_slot_t v;
        memset(&v, 0, sizeof v);
        v.req = ent->req;
        v.cl = agg->cl;
        st = srv_handler_of(ARM_SRV_RMW)->fn(s, &v, &out);
    }
    if (split && st == ARM_OK) {
        split_send(s, agg, ent, data, out.value);
        return 1;
    }
    int64_t prefix = 0;
    for (uint32_t i = 0; i < ent->ncomb; i++) {
        arm_srv_comb_t c;
        memcpy(&c, data + (size_t)i * sizeof c, sizeof c);
        s->stats.requests++;
        if (st == ARM_OK && is_acc) {
            if (c.req_id & ARM_SRV_REQ_NOREPLY)
                srv_fack_note(s, c.src, 1);
            continue;
        }
        srv_prec_t *p = pool_get(s);
        p->rec.cl = agg->cl;
        int64_t val = comb_value(&ent->req, out.value, prefix);
        if (st == ARM_OK)
            prec_post(s, p, c.src, c.req_id, val, ARM_OK, NULL, 0, 0, NULL);
        else
            prec_refuse(s, p, c.src, c.req_id, st, why);
        prefix = srv_wrap_add(prefix, c.operand);
    }
    return 1;
}

static void park(struct arm_server *s, const arm_srv_req_t *r)
{
    srv_park_t *p = malloc(sizeof *p);
    if (!p)
        arm_fatal("server", "no memory to park a lock request of rank %d", r->src);
    p->req = *r;
    p->next = NULL;
    if (s->parked_tail)
        s->parked_tail->next = p;
    else
        s->parked = p;
    s->parked_tail = p;
    s->nparked++;
    s->stats.lock_waits++;
}

/* One entry for this node. 1: done; 0: wait for a reply record. */
static int serve_here(struct arm_server *s, srv_slot_t *agg, const arm_srv_fwd_ent_t *ent,
                      char *data)
{
    if (ent->ncomb)
        return serve_combined(s, agg, ent, data);
    /* Parking keeps no payload: an accumulate waits in its message. */
    if (srv_acc_waits(s, &ent->req, data, ent->dlen))
        return 0;
    srv_prec_t *p = pool_get(s);
    if (!p)
        return 0;
    p->rec.cl = agg->cl;
    char why[SRV_WHY_MAX];
    srv_out_t out = { .why = why };
    const srv_handler_t *h = srv_handler_of(ent->req.op);
    arm_status_t st = ARM_ERR_INVALID_ARG;
    if (!h || ent->req.op == ARM_SRV_REG || ent->req.op == ARM_SRV_UNREG) {
        snprintf(why, sizeof why, "operation %u cannot arrive forwarded", ent->req.op);
    } else {
        srv_slot_t v;
        memset(&v, 0, sizeof v);
        v.req = ent->req;
        v.dptr = data;
        v.dlen = ent->dlen;
        v.cl = agg->cl;
        out.reply = h->replies;
        st = h->fn(s, &v, &out);
    }
    s->stats.requests += st != ARM_INPROGRESS;
    if (st == ARM_OK && (ent->req.req_id & ARM_SRV_REQ_NOREPLY))
        srv_fack_note(s, ent->req.src, 1);
    if (st == ARM_INPROGRESS) {
        park(s, &ent->req);
        pool_put(s, p);
    } else if (st != ARM_OK) {
        prec_refuse(s, p, ent->req.src, ent->req.req_id, st, why);
    } else if (out.reply) {
        p->rec.owned = out.owned;
        prec_post(s, p, ent->req.src, ent->req.req_id, out.value, ARM_OK, out.iov, out.iovcnt,
                  out.bytes, agg);
        out.owned = NULL;
    } else {
        pool_put(s, p);
    }
    free(out.owned);
    return 1;
}

/* The entry at sl's cursor, checked against the slot's bounds. */
static int entry_at(const srv_slot_t *sl, arm_srv_fwd_ent_t *ent, char **data)
{
    if ((size_t)sl->cursor + sizeof *ent > sl->dlen)
        return 0;
    memcpy(ent, sl->data + sl->cursor, sizeof *ent);
    if ((size_t)sl->cursor + sizeof *ent + ent->dlen > sl->dlen)
        return 0;
    *data = sl->data + sl->cursor + sizeof *ent;
    return 1;
}

static int finish(srv_slot_t *sl)
{
    if (sl->pending == 0)
        srv_slot_free(sl);
    else
        sl->state = SLOT_REPLYING;
    return 1;
}

int srv_fwd_serve(struct arm_server *s, srv_slot_t *sl)
{
    if (sl->rx_status != ARM_OK) {
        arm_log(ARM_LOG_ERROR, "server", "receiving %u forwarded requests from node %d "
                "failed: %s", sl->nent, sl->cl->node, arm_status_str(sl->rx_status));
        s->stats.refusals_lost += sl->nent;
        return finish(sl);
    }
    while (sl->nent > 0) {
        arm_srv_fwd_ent_t ent;
        char *data;
        if (!entry_at(sl, &ent, &data)) {
            arm_log(ARM_LOG_ERROR, "server", "forwarded message from node %d is malformed: "
                    "%u requests dropped", sl->cl->node, sl->nent);
            s->stats.refusals_lost += sl->nent;
            break;
        }
        int dst = srv_target_node(s, &ent.req);
        if (ent.req.src < 0 || ent.req.src >= s->p.nproc) {
            /* No origin to serve it for or to answer: a broken peer server. */
            arm_log(ARM_LOG_ERROR, "server", "forwarded request from node %d names origin "
                    "rank %d, not in the job: dropped", sl->cl->node, ent.req.src);
            s->stats.refusals_lost++;
        } else if (ent.ncomb && !srv_fwd_comb_ok(&ent.req, ent.dlen, ent.ncomb)) {
            /* Not one a server makes: its origins' records cannot be trusted. */
            arm_log(ARM_LOG_ERROR, "server", "forwarded %s entry from node %d claims %u "
                    "combined origins in %u bytes: dropped", srv_handler_of(ent.req.op)
                    ? srv_handler_of(ent.req.op)->name : "unknown", sl->cl->node, ent.ncomb,
                    ent.dlen);
            s->stats.refusals_lost += ent.ncomb;
        } else if (dst >= 0 && dst != s->p.node) {
            char why[SRV_WHY_MAX];
            arm_status_t st = srv_fwd_add_ent(s, dst, &ent.req, ent.ncomb, data, ent.dlen, why);
            if (st == ARM_INPROGRESS)
                return 0;
            if (st != ARM_OK && srv_fwd_refuse_to(s, ent.req.src, ent.req.req_id, st, why))
                return 0;
        } else if (dst < 0) {
            if (srv_fwd_refuse_to(s, ent.req.src, ent.req.req_id, ARM_ERR_INVALID_ARG,
                                  "its target rank is not in the job") != ARM_OK)
                return 0;
        } else if (!serve_here(s, sl, &ent, data)) {
            return 0;
        }
        sl->cursor += (uint32_t)(sizeof ent + ((ent.dlen + 7u) & ~7u));
        sl->nent--;
    }
    return finish(sl);
}

int srv_fwd_retry_parked(struct arm_server *s)
{
    int did = 0;
    srv_park_t **pp = &s->parked, *prev = NULL;
    while (*pp) {
        srv_park_t *k = *pp;
        srv_prec_t *p = pool_get(s);
        if (!p)
            break;
        p->rec.cl = NULL;
        char why[SRV_WHY_MAX];
        srv_out_t out = { .why = why };
        srv_slot_t v;
        memset(&v, 0, sizeof v);
        v.req = k->req;
        arm_status_t st = srv_handler_of(k->req.op)->fn(s, &v, &out);
        if (st == ARM_INPROGRESS) {
            pool_put(s, p);
            prev = k;
            pp = &k->next;
            continue;
        }
        if (st == ARM_OK)
            prec_post(s, p, k->req.src, k->req.req_id, out.value, ARM_OK, NULL, 0, 0, NULL);
        else
            prec_refuse(s, p, k->req.src, k->req.req_id, st, why);
        *pp = k->next;
        if (s->parked_tail == k)
            s->parked_tail = prev;
        s->nparked--;
        free(k);
        did = 1;
    }
    return did;
}
