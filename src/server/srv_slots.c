/* Slots, credits, replies and in-order service per client.
 *
 * Each client owns nslots credited slots and one sync slot (index nslots).
 * A request sits in its slot, queued in arrival order, until it reaches the
 * head and its handler serves it. A credited slot is freed when its reply
 * (if any) is sent, and goes back to its client as a credit inside a later
 * reply. The sync slot is free again as soon as its reply is posted
 * (decision 027). Every reply travels from a record (srv_rec_t) that holds
 * its header and completion until the transport reports it sent. A client
 * whose head must wait (a held lock) is on the server's FIFO list of
 * waiting clients, which the progress loop retries (decision 028). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "server/srv_int.h"
#include "util/arm_log.h"
#include "util/arm_timer.h"

static void rec_done(srv_rec_t *rec, int async);

static void rec_sent(arm_net_comp_t *c)
{
    rec_done(c->arg, 1);
}

/* Sends rec's header (req_id, value and status filled) with iov; the
 * client's unreturned credits ride along. */
static void rec_post(srv_client_t *cl, srv_rec_t *rec, const arm_net_iov_t *iov, size_t iovcnt,
                     size_t bytes)
{
    struct arm_server *s = cl->srv;
    unsigned flags = bytes && bytes <= s->p.reply_eager_max ? ARM_NET_AM_EAGER : 0;
    rec->rep.len = (uint32_t)bytes;
    rec->rep.node = s->p.node;
    rec->rep.credits = cl->unreturned;
    cl->unreturned = 0;
    rec->busy = 1;
    arm_net_comp_init(&rec->comp, rec_sent, rec);
    arm_status_t st = srv_reply(s, cl->rank, &rec->rep, sizeof rec->rep, iov,
                                       iovcnt, flags, &rec->comp);
    if (st == ARM_INPROGRESS)
        return;
    if (st != ARM_OK) {
        arm_log(ARM_LOG_ERROR, "server", "reply to rank %d failed: %s", cl->rank,
                arm_status_str(st));
        cl->unreturned += rec->rep.credits;
    }
    rec_done(rec, 0);
}

/* ---- credits -------------------------------------------------------------------- */
void srv_send_credits(srv_client_t *cl)
{
    if (cl->edge) {
        srv_fwd_send_credits(cl);
        return;
    }
    srv_rec_t *rec = &cl->credit_rec;
    if (rec->busy || cl->unreturned == 0)
        return;
    memset(&rec->rep, 0, sizeof rec->rep);
    rec_post(cl, rec, NULL, 0, 0);
}

static int half_back(const srv_client_t *cl)
{
    return cl->unreturned >= (uint32_t)(cl->nslots + 1) / 2;
}

/* Acknowledgements (fence_ack): every request of the client is served,
 * and a credit is owed. (A forwarded request frees its slot here once sent
 * on, not served: its target tells the origin when it has served it,
 * srv_fack.c, decision 078.) */
static int ack_owed(const srv_client_t *cl)
{
    return cl->srv->p.fence_ack && !cl->edge && cl->qcount == 0 && cl->unreturned > 0;
}

/* Notes that cl may owe an acknowledgement: decided once the server has
 * been idle ack_us (srv_ack_idle). A request with a reply arriving
 * meanwhile (a fence, a get) takes the credits along instead, so a client
 * that writes and fences at once costs no extra message. */
static void ack_note(srv_client_t *cl)
{
    struct arm_server *s = cl->srv;
    if (!s->p.fence_ack || cl->edge || cl->ack_due)
        return;
    if (!s->acks && !s->fack_ndue)
        s->ack_since = arm_time_now();
    cl->ack_due = 1;
    cl->anext = s->acks;
    s->acks = cl;
}

int srv_ack_idle(struct arm_server *s)
{
    if (arm_time_now() - s->ack_since < 1e-6 * s->p.ack_us)
        return 0;
    srv_client_t *cl = s->acks;
    int clients = cl != NULL;
    s->acks = NULL;
    while (cl) {
        srv_client_t *next = cl->anext;
        cl->ack_due = 0;
        cl->anext = NULL;
        /* Still queued: the slots freed later note the client again. Its
         * credit record still sending: its completion sends the rest. */
        if (ack_owed(cl) && !cl->credit_rec.busy)
            srv_send_credits(cl);
        cl = next;
    }
    /* Origins of forwarded writes (decision 078). 0 when only they are
     * owed and no reply record was free to tell them: the thread then
     * sleeps its millisecond instead of asking again at once. */
    if (s->fack_ndue && !srv_fack_idle(s) && !clients)
        return 0;
    return 1;
}

void srv_slot_free(srv_slot_t *sl)
{
    srv_client_t *cl = sl->cl;
    sl->state = SLOT_FREE;
    if (sl->idx == cl->nslots)
        return;   /* the sync slot: no credit to give back */
    cl->free_stack[cl->nfree++] = sl->idx;
    cl->unreturned++;
    /* Half the slots back at a time: the client never waits on fewer
     * outstanding credits than it could still use. */
    if (half_back(cl))
        srv_send_credits(cl);
    else
        ack_note(cl);
}

static srv_rec_t *sync_rec_free(srv_client_t *cl)
{
    for (int i = 0; i < SRV_SYNC_RECS; i++)
        if (!cl->sync_rec[i].busy)
            return &cl->sync_rec[i];
    return NULL;
}

static int is_sync(const srv_slot_t *sl)
{
    return sl->idx == sl->cl->nslots;
}

static void rec_done(srv_rec_t *rec, int async)
{
    srv_client_t *cl = rec->cl;
    srv_slot_t *sl = rec->slot;
    rec->busy = 0;
    free(rec->owned);
    rec->owned = NULL;
    if (sl) {
        rec->slot = NULL;
        srv_slot_free(sl);
    } else if (rec == &cl->credit_rec) {
        /* Only from a completion: a send that failed at once is not retried
         * in a loop. */
        if (async && (half_back(cl) || ack_owed(cl)))
            srv_send_credits(cl);
    } else if (async && cl->qcount > 0) {
        /* A sync request may wait at the head for a free record. */
        srv_drain(cl->srv, cl);
    }
}

/* The reply of the slot at the head; the slot is freed once the reply is
 * sent, except the sync slot, which is free as soon as its reply is posted:
 * its client may then send the next one (decision 027). */
static void slot_reply(srv_slot_t *sl, int64_t value, arm_status_t status,
                       const arm_net_iov_t *iov, size_t iovcnt, size_t bytes, void *owned)
{
    srv_client_t *cl = sl->cl;
    srv_rec_t *rec = is_sync(sl) ? sync_rec_free(cl) : &sl->rec;
    rec->owned = owned;
    rec->rep.req_id = sl->req.req_id;
    rec->rep.value = value;
    rec->rep.status = status;
    rec->slot = is_sync(sl) ? NULL : sl;
    sl->state = is_sync(sl) ? SLOT_FREE : SLOT_REPLYING;
    if (iovcnt == 1) {
        rec->iov1 = iov[0];
        iov = &rec->iov1;
    }
    rec_post(cl, rec, iov, iovcnt, bytes);
}

/* A refusal from a slot: the reason, kept in the record, is the payload. */
static void slot_refuse(srv_slot_t *sl, arm_status_t st, const char *why)
{
    struct arm_server *s = sl->cl->srv;
    srv_rec_t *rec = is_sync(sl) ? sync_rec_free(sl->cl) : &sl->rec;
    snprintf(rec->why, sizeof rec->why, "%s", why);
    arm_log(ARM_LOG_ERROR, "server", "refused %s from rank %d (req %#llx): %s",
            srv_handler_of(sl->req.op)->name, sl->req.src,
            (unsigned long long)sl->req.req_id, rec->why);
    s->stats.refused++;
    arm_net_iov_t iov = { rec->why, strlen(rec->why) };
    slot_reply(sl, 0, st, &iov, 1, iov.len, NULL);
}

void srv_post_refusal(srv_client_t *cl, srv_rec_t *rec)
{
    rec->iov1.buf = rec->why;
    rec->iov1.len = strlen(rec->why);
    rec_post(cl, rec, &rec->iov1, 1, rec->iov1.len);
}

/* ---- in-order service ---------------------------------------------------------- */
/* Serves the slot at the head of its client's queue. Returns 0 when it must
 * wait (a held lock), 1 when served or refused. */
static int serve(struct arm_server *s, srv_slot_t *sl)
{
    char why[SRV_WHY_MAX];
    srv_out_t out = { .why = why };
    if (sl->cl->edge)
        return srv_fwd_serve(s, sl);
    const srv_handler_t *h = srv_handler_of(sl->req.op);
    out.reply = h->replies;
    arm_status_t st = sl->rx_status;
    int dst = s->p.topo ? srv_target_node(s, &sl->req) : s->p.node;
    if (st != ARM_OK) {
        snprintf(why, sizeof why, "receiving %u bytes of data failed: %s", sl->dlen,
                 arm_status_str(st));
    } else if (dst != s->p.node) {
        /* For another node: sent on; the target answers the origin. */
        st = srv_fwd_add(s, dst, &sl->req, sl->dptr, sl->dlen, why);
        if (st == ARM_INPROGRESS)
            return 0;
        if (st == ARM_OK) {
            srv_slot_free(sl);
            return 1;
        }
    } else {
        st = h->fn(s, sl, &out);
    }
    if (st == ARM_INPROGRESS)
        return 0;
    if (sl->kept) {
        s->x->release(s->xctx, &sl->rmsg);
        sl->kept = 0;
    }
    s->stats.requests++;
    if (st != ARM_OK)
        slot_refuse(sl, st, why);
    else if (out.reply)
        slot_reply(sl, out.value, ARM_OK, out.iov, out.iovcnt, out.bytes, out.owned);
    else
        srv_slot_free(sl);
    if (st != ARM_OK || !out.reply)
        free(out.owned);
    return 1;
}

/* Waiting clients form a FIFO list: retried in the order they began to
 * wait, and found in time proportional to how many wait. */
static void block(struct arm_server *s, srv_client_t *cl)
{
    if (cl->blocked)
        return;
    cl->blocked = 1;
    cl->bnext = NULL;
    cl->bprev = s->blocked_tail;
    if (s->blocked_tail)
        s->blocked_tail->bnext = cl;
    else
        s->blocked = cl;
    s->blocked_tail = cl;
    s->nblocked++;
    s->stats.lock_waits++;
}

static void unblock(struct arm_server *s, srv_client_t *cl)
{
    if (!cl->blocked)
        return;
    cl->blocked = 0;
    if (cl->bprev)
        cl->bprev->bnext = cl->bnext;
    else
        s->blocked = cl->bnext;
    if (cl->bnext)
        cl->bnext->bprev = cl->bprev;
    else
        s->blocked_tail = cl->bprev;
    cl->bnext = cl->bprev = NULL;
    s->nblocked--;
}

void srv_slot_receive(struct arm_server *s, srv_slot_t *sl, const arm_net_am_msg_t *msg)
{
    arm_net_comp_init(&sl->comp, srv_recv_done, sl);
    sl->state = SLOT_RECEIVING;
    arm_status_t st = s->x->recv_data(s->xctx, msg, sl->data, msg->data_len, &sl->comp);
    if (st != ARM_INPROGRESS) {
        sl->rx_status = st;
        sl->state = SLOT_READY;
    }
}

void srv_recv_done(arm_net_comp_t *c)
{
    srv_slot_t *sl = c->arg;
    sl->rx_status = c->status;
    sl->state = SLOT_READY;
    srv_drain(sl->cl->srv, sl->cl);
}

/* A deferred large put at the head: receive it into its destination. */
static void start_deferred(struct arm_server *s, srv_slot_t *sl)
{
    char why[SRV_WHY_MAX];
    char *dst = srv_addr(s, sl->req.raddr, sl->rmsg.data_len, why);
    sl->state = SLOT_READY;
    if (!dst) {
        /* The handler refuses it, naming the address. */
        s->x->release(s->xctx, &sl->rmsg);
        sl->dptr = NULL;
        sl->dlen = 0;
        return;
    }
    sl->dptr = dst;
    sl->state = SLOT_RECEIVING;
    arm_net_comp_init(&sl->comp, srv_recv_done, sl);
    arm_status_t st = s->x->recv_data(s->xctx, &sl->rmsg, dst, sl->rmsg.data_len, &sl->comp);
    if (st == ARM_INPROGRESS)
        return;
    sl->rx_status = st;
    sl->state = SLOT_READY;
}

void srv_drain(struct arm_server *s, srv_client_t *cl)
{
    while (cl->qcount > 0) {
        srv_slot_t *sl = &cl->slots[cl->order[cl->qhead]];
        if (sl->state == SLOT_DEFERRED)
            start_deferred(s, sl);
        if (sl->state != SLOT_READY)
            break;
        /* Every sync record still sending: the next completion resumes. */
        if (is_sync(sl) && !sync_rec_free(cl))
            break;
        if (!serve(s, sl)) {
            block(s, cl);
            return;
        }
        if (++cl->qhead == cl->nslots + 1)
            cl->qhead = 0;
        cl->qcount--;
    }
    unblock(s, cl);
}

int srv_retry_blocked(struct arm_server *s)
{
    int before = s->nblocked;
    srv_client_t *cl = s->blocked;
    while (cl) {
        srv_client_t *next = cl->bnext;
        srv_drain(s, cl);
        cl = next;
    }
    return s->nblocked < before;
}
