/* Admission: every request the transport delivers is either given a slot
 * and queued behind its client's earlier requests, or refused with a reply
 * that says why (status, the request's req_id, the reason as payload). */
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "server/srv_int.h"
#include "util/arm_log.h"

/* Refuses a request that got no slot. credited: it spent a credit the
 * client really held, which goes back with the refusal. */
static arm_status_t refuse(struct arm_server *s, const arm_srv_req_t *req, int credited,
                           arm_status_t st, const char *fmt, ...)
{
    char why[SRV_WHY_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    s->stats.refused++;
    if (req->src < 0 || req->src >= s->p.nproc) {
        arm_log(ARM_LOG_ERROR, "server", "request from rank %d dropped, no one to answer: %s",
                req->src, why);
        s->stats.refusals_lost++;
        return ARM_OK;
    }
    srv_client_t *cl = srv_client_of(s, req->src);
    if (!cl) {
        /* Not a client here (not a neighbour's process): answered from the
         * reply pool, which has no credits to return. */
        arm_log(ARM_LOG_ERROR, "server", "refused a request from rank %d (req %#llx): %s",
                req->src, (unsigned long long)req->req_id, why);
        if (srv_fwd_refuse_to(s, req->src, req->req_id, st, why) != ARM_OK)
            s->stats.refusals_lost++;
        return ARM_OK;
    }
    if (credited)
        cl->unreturned++;
    srv_rec_t *rec = &cl->refuse_rec;
    arm_log(ARM_LOG_ERROR, "server", "refused a request from rank %d (req %#llx): %s",
            req->src, (unsigned long long)req->req_id, why);
    if (rec->busy) {
        /* The client already has a refusal on its way and stops on it. */
        s->stats.refusals_lost++;
        return ARM_OK;
    }
    memcpy(rec->why, why, sizeof why);
    memset(&rec->rep, 0, sizeof rec->rep);
    rec->rep.req_id = req->req_id;
    rec->rep.status = st;
    rec->slot = NULL;
    /* Through the slots' reply path, so credits and completion are shared. */
    srv_post_refusal(cl, rec);
    return ARM_OK;
}

/* Reads what can be read of a header shorter or longer than a request. */
static void read_header(const arm_net_am_msg_t *msg, arm_srv_req_t *req)
{
    size_t n = msg->hdr_len < sizeof *req ? msg->hdr_len : sizeof *req;
    memset(req, 0, sizeof *req);
    memcpy(req, msg->hdr, n);
    if (n < offsetof(arm_srv_req_t, src) + sizeof req->src)
        req->src = -1;
    if (n < offsetof(arm_srv_req_t, req_id) + sizeof req->req_id)
        req->req_id = 0;
}

/* A client may hold at most the free slots not waiting to go back as
 * credits; a credited request beyond them had no credit. */
static int has_credit(const srv_client_t *cl)
{
    return (uint32_t)cl->nfree > cl->unreturned;
}

/* Puts the payload where the slot will read it: kept in the transport's
 * buffer (big puts and accumulates), received by rendezvous, or copied. */
static arm_status_t take_payload(struct arm_server *s, srv_client_t *cl, srv_slot_t *sl,
                                 const arm_net_am_msg_t *msg, int big_put, int big_acc,
                                 int was_idle);

void srv_enqueue(srv_client_t *cl, srv_slot_t *sl)
{
    int tail = cl->qhead + cl->qcount;
    cl->order[tail > cl->nslots ? tail - cl->nslots - 1 : tail] = sl->idx;
    cl->qcount++;
}

/* A request for another node travels on in one forwarded message: it must
 * fit one, and only requests served by the target's server go. */
static const char *unforwardable(const struct arm_server *s, const arm_srv_req_t *req,
                                 unsigned op, size_t data_len)
{
    if (!s->p.topo)
        return NULL;
    int dst = srv_target_node(s, req);
    if (dst < 0)
        return "its target rank is not in the job";
    if (dst == s->p.node)
        return NULL;
    if (op == ARM_SRV_REG || op == ARM_SRV_UNREG)
        return "segments are registered with one's own node's server only";
    if (data_len > s->p.slot_size)
        return "it is larger than a slot and must be sent in slot-size pieces";
    return NULL;
}

arm_status_t srv_on_request(void *arg, const arm_net_am_msg_t *msg)
{
    struct arm_server *s = arg;
    arm_srv_req_t req;
    read_header(msg, &req);
    int sync = (req.op & ARM_SRV_SYNC) != 0;
    unsigned op = req.op & (unsigned)~ARM_SRV_SYNC;
    srv_client_t *cl = srv_client_of(s, req.src);
    int credited = cl && !sync && has_credit(cl);
    if (msg->hdr_len != sizeof req)
        return refuse(s, &req, credited && msg->hdr_len > 0, ARM_ERR_INVALID_ARG,
                      "malformed header (%zu bytes, want %zu)", msg->hdr_len, sizeof req);
    if (!cl)
        return refuse(s, &req, 0, ARM_ERR_INVALID_ARG, "rank %d is not a client of node %d's "
                      "server (not of a neighbour node)", req.src, s->p.node);
    if (!srv_handler_of(op))
        return refuse(s, &req, credited, ARM_ERR_UNSUPPORTED, "unknown operation %u", op);
    const char *nofwd = unforwardable(s, &req, op, msg->data_len);
    if (nofwd)
        return refuse(s, &req, credited, ARM_ERR_INVALID_ARG,
                      "%s for rank %d cannot be forwarded: %s", srv_handler_of(op)->name,
                      req.target, nofwd);
    /* A put or accumulate bigger than a slot is one request (decision 013);
     * so is an eager segmented write or batch over a stream (decisions 072,
     * 073), served like the accumulate from the transport's buffer. */
    int big_put = op == ARM_SRV_PUT && (msg->rndv || msg->data_len > s->p.slot_size);
    int big_acc = (op == ARM_SRV_ACC || op == ARM_SRV_PUTSEG || op == ARM_SRV_ACCSEG ||
                   op == ARM_SRV_BATCH) &&
                  !msg->rndv && msg->data_len > s->p.slot_size;
    if (msg->data_len > s->p.slot_size && !big_put && !big_acc)
        return refuse(s, &req, credited, ARM_ERR_INVALID_ARG,
                      "request of %zu bytes exceeds the %zu-byte slot", msg->data_len,
                      s->p.slot_size);
    srv_slot_t *sl;
    if (sync) {
        sl = &cl->slots[cl->nslots];
        if (sl->state != SLOT_FREE)
            return refuse(s, &req, 0, ARM_ERR_INVALID_ARG, "sync slot in use");
        if (msg->data_len)
            return refuse(s, &req, 0, ARM_ERR_INVALID_ARG,
                          "sync request with %zu bytes of data", msg->data_len);
    } else if (!credited) {
        return refuse(s, &req, 0, ARM_ERR_INVALID_ARG,
                      "request without a credit (%d slots, all in use)", cl->nslots);
    } else {
        sl = &cl->slots[cl->free_stack[--cl->nfree]];
    }
    req.op = (uint8_t)op;
    int was_idle = cl->qcount == 0;
    srv_enqueue(cl, sl);
    sl->req = req;
    sl->dlen = (uint32_t)msg->data_len;
    sl->dptr = sl->data;
    sl->rx_status = ARM_OK;
    sl->state = SLOT_READY;
    return take_payload(s, cl, sl, msg, big_put, big_acc, was_idle);
}

static arm_status_t take_payload(struct arm_server *s, srv_client_t *cl, srv_slot_t *sl,
                                 const arm_net_am_msg_t *msg, int big_put, int big_acc,
                                 int was_idle)
{
    if (big_put) {
        /* Keep the transport's descriptor; the data goes straight to its
         * destination when this request reaches the head (in order). */
        sl->rmsg = *msg;
        sl->state = SLOT_DEFERRED;
        srv_drain(s, cl);
        /* An eager put waits its turn in the transport's buffer. Every
         * transport here lets it be kept; one that did not would lose the
         * data, so it stops the job instead. */
        if (sl->state == SLOT_DEFERRED && !msg->keepable)
            arm_fatal("server", "a %zu-byte put from rank %d must wait its turn but the "
                      "transport does not let its buffer be kept", msg->data_len, sl->req.src);
        return sl->state == SLOT_DEFERRED ? ARM_INPROGRESS : ARM_OK;
    }
    if (big_acc) {
        /* Combined straight from the transport's buffer, kept while it waits. */
        sl->dptr = msg->data;
        sl->rmsg = *msg;
        srv_drain(s, cl);
        if (sl->state != SLOT_READY)
            return ARM_OK;                  /* served */
        if (!msg->keepable)
            arm_fatal("server", "a %zu-byte accumulate from rank %d must wait its turn but "
                      "the transport does not let its buffer be kept", msg->data_len,
                      sl->req.src);
        sl->kept = 1;
        return ARM_INPROGRESS;
    }
    if (msg->data_len && msg->rndv) {
        srv_slot_receive(s, sl, msg);
    } else if (msg->data_len) {
        if (was_idle && !srv_wants_reply(&sl->req))
            sl->dptr = msg->data;   /* served right now, nothing outlives it: no copy */
        else
            memcpy(sl->data, msg->data, msg->data_len);
    }
    srv_drain(s, cl);
    if (sl->state == SLOT_READY && sl->dptr == msg->data && msg->data_len) {
        /* Still queued behind a waiting lock: keep its own copy. */
        memcpy(sl->data, msg->data, msg->data_len);
        sl->dptr = sl->data;
    }
    return ARM_OK;
}
