/* Answers to clients. Straight to the client, unless the server cannot
 * reach it (a forwarded origin that never connected here: connections are
 * made by clients only, and under lazy a client says hello to the node of
 * every forwarded request it sends, so this lasts until that hello
 * arrives, decision 070) or keeps to the topology's edges (bound_replies)
 * and the client's node is not its neighbour: the answer then goes back,
 * server to server, along the route the client's requests take to this
 * node, and the client's first hop, which the client talks to anyway,
 * delivers it. A relayed answer holds no
 * slot anywhere (it is copied, sent on and freed), so relays add no wait to
 * the request buffers' dependency graph. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "server/srv_int.h"
#include "util/arm_log.h"

/* Relays at most this many times: a route has at most as many hops as the
 * topology has dimensions. */
#define RELAY_HOPS_MAX 16

typedef struct srv_relay {
    arm_net_comp_t comp;
    struct arm_server *s;
    arm_srv_relay_hdr_t h;        /* the header sent on (kept until sent)   */
    arm_net_iov_t iov;
    size_t len;                   /* reply header and data bytes           */
    unsigned char data[];         /* the reply header, then its data       */
} srv_relay_t;

/* The node the answer for a client of node `from` goes to from here: the
 * one before this node on the route from `from`; `from` itself when this
 * node is that route's first hop (the client is then a neighbour's). */
static int back_hop(const struct arm_server *s, int from)
{
    int x = from, me = s->p.node;
    for (int i = 0; i < RELAY_HOPS_MAX; i++) {
        int y = arm_topo_next_hop(s->p.topo, x, me);
        if (y == me || y < 0)
            return x;
        x = y;
    }
    return from;
}

static srv_relay_t *relay_new(struct arm_server *s, size_t len)
{
    srv_relay_t *r = malloc(sizeof *r + (len ? len : 1));
    if (!r)
        return NULL;
    r->s = s;
    r->len = len;
    return r;
}

static void relay_free(arm_net_comp_t *c)
{
    free(c->arg);
}

/* Sends r's answer on toward rank (its reply header at r->data, rep_len
 * bytes, then the data); r is freed once sent. */
static arm_status_t relay_send(srv_relay_t *r, int rank, uint32_t rep_len, uint32_t hops)
{
    struct arm_server *s = r->s;
    int from = s->p.node_of[rank];
    int to = back_hop(s, from);
    arm_net_comp_init(&r->comp, relay_free, r);
    arm_status_t st;
    if (to == from || hops >= RELAY_HOPS_MAX) {
        r->iov = (arm_net_iov_t){ r->data + rep_len, r->len - rep_len };
        st = s->x->send_reply(s->xctx, rank, r->data, rep_len, &r->iov, r->iov.len ? 1 : 0,
                              0, &r->comp);
    } else {
        r->h = (arm_srv_relay_hdr_t){ s->p.node, rank, rep_len, hops + 1 };
        r->iov = (arm_net_iov_t){ r->data, r->len };
        s->stats.relayed++;
        st = s->x->send_server(s->xctx, to, ARM_SRV_AM_RELAY, &r->h, sizeof r->h, &r->iov, 1,
                               0, &r->comp);
    }
    if (st != ARM_INPROGRESS)
        free(r);
    return st == ARM_INPROGRESS ? ARM_OK : st;
}

/* A reply packed into one buffer: UCX sends a gather list of many small
 * pieces as many small sends (zero-copy takes a few entries per fragment),
 * so a segmented get of small pieces is copied once here and goes as one
 * piece (decision 073). The caller's record (its header, its completion)
 * stays busy until the packed reply is sent. */
typedef struct srv_pack {
    arm_net_comp_t comp;
    arm_net_comp_t *orig;
    arm_net_iov_t iov;
    char data[];
} srv_pack_t;

static void pack_sent(arm_net_comp_t *c)
{
    srv_pack_t *pk = c->arg;
    arm_net_comp_t *orig = pk->orig;
    orig->status = c->status;
    free(pk);
    if (orig->cb)
        orig->cb(orig);
}

static int pack_wanted(const struct arm_server *s, const arm_net_iov_t *iov, size_t iovcnt,
                       size_t *bytes)
{
    if (iovcnt < 2 || !s->p.reply_pack_below)
        return 0;
    size_t n = 0;
    for (size_t i = 0; i < iovcnt; i++)
        n += iov[i].len;
    *bytes = n;
    return n < iovcnt * s->p.reply_pack_below;
}

static arm_status_t send_straight(struct arm_server *s, int rank, const void *hdr,
                                  size_t hdr_len, const arm_net_iov_t *iov, size_t iovcnt,
                                  unsigned flags, arm_net_comp_t *comp)
{
    size_t bytes;
    srv_pack_t *pk = pack_wanted(s, iov, iovcnt, &bytes) ? malloc(sizeof *pk + bytes) : NULL;
    if (!pk)   /* not wanted, or no memory: the gather list serves */
        return s->x->send_reply(s->xctx, rank, hdr, hdr_len, iov, iovcnt, flags, comp);
    for (size_t i = 0, at = 0; i < iovcnt; at += iov[i].len, i++)
        memcpy(pk->data + at, iov[i].buf, iov[i].len);
    pk->orig = comp;
    pk->iov = (arm_net_iov_t){ pk->data, bytes };
    s->stats.packed_replies++;
    arm_net_comp_init(&pk->comp, pack_sent, pk);
    arm_status_t st = s->x->send_reply(s->xctx, rank, hdr, hdr_len, &pk->iov, 1, flags,
                                       &pk->comp);
    if (st != ARM_INPROGRESS)
        free(pk);
    return st;
}

arm_status_t srv_reply(struct arm_server *s, int rank, const void *hdr, size_t hdr_len,
                       const arm_net_iov_t *iov, size_t iovcnt, unsigned flags,
                       arm_net_comp_t *comp)
{
    /* No such client (the origin named by a malformed forwarded request):
     * nothing is sent, and the caller logs it. */
    if (rank < 0 || rank >= s->p.nproc)
        return ARM_ERR_INVALID_ARG;
    /* Straight when there is no topology, when this node is the client's
     * first hop (the client talks to it), or when the transport reaches the
     * client anyway (eager, or it connected here too) and edges do not
     * bind. */
    if (!s->p.topo ||
        back_hop(s, s->p.node_of[rank]) == s->p.node_of[rank] ||
        (!s->p.bound_replies && (!s->x->reachable || s->x->reachable(s->xctx, rank))))
        return send_straight(s, rank, hdr, hdr_len, iov, iovcnt, flags, comp);
    /* The answer is copied: the caller's record is free again at once. */
    size_t len = hdr_len;
    for (size_t i = 0; i < iovcnt; i++)
        len += iov[i].len;
    srv_relay_t *r = relay_new(s, len);
    if (!r)
        return ARM_ERR_NO_MEMORY;
    memcpy(r->data, hdr, hdr_len);
    for (size_t i = 0, at = hdr_len; i < iovcnt; at += iov[i].len, i++)
        memcpy(r->data + at, iov[i].buf, iov[i].len);
    return relay_send(r, rank, (uint32_t)hdr_len, 0);
}

static void relay_arrived(arm_net_comp_t *c)
{
    srv_relay_t *r = c->arg;
    if (c->status != ARM_OK) {
        arm_log(ARM_LOG_ERROR, "server", "an answer for rank %d relayed by node %d was lost: %s",
                r->h.rank, r->h.from_node, arm_status_str(c->status));
        free(r);
        return;
    }
    arm_status_t st = relay_send(r, r->h.rank, r->h.rep_len, r->h.hops);
    if (st != ARM_OK)
        arm_log(ARM_LOG_ERROR, "server", "relaying an answer for rank %d failed: %s",
                r->h.rank, arm_status_str(st));
}

arm_status_t srv_on_relay(void *arg, const arm_net_am_msg_t *msg)
{
    struct arm_server *s = arg;
    arm_srv_relay_hdr_t h;
    if (msg->hdr_len < sizeof h) {
        s->x->release(s->xctx, msg);
        return ARM_OK;
    }
    memcpy(&h, msg->hdr, sizeof h);
    if (h.rank < 0 || h.rank >= s->p.nproc || h.rep_len != sizeof(arm_srv_rep_t) ||
        h.rep_len > msg->data_len) {
        arm_log(ARM_LOG_ERROR, "server", "relayed answer from node %d malformed", h.from_node);
        s->x->release(s->xctx, msg);
        return ARM_OK;
    }
    srv_relay_t *r = relay_new(s, msg->data_len);
    if (!r) {
        s->x->release(s->xctx, msg);
        return ARM_OK;
    }
    r->h = h;
    arm_net_comp_init(&r->comp, relay_arrived, r);
    if (!msg->rndv) {
        /* Eager data is the transport's until the handler returns. */
        if (msg->data_len)
            memcpy(r->data, msg->data, msg->data_len);
        relay_arrived(&r->comp);
        return ARM_OK;
    }
    arm_status_t st = s->x->recv_data(s->xctx, msg, r->data, msg->data_len, &r->comp);
    if (st != ARM_INPROGRESS) {
        r->comp.status = st;
        relay_arrived(&r->comp);
    }
    return ARM_OK;
}
