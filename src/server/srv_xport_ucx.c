#define _POSIX_C_SOURCE 200809L
/* The server's transport table over the net layer (UCX). */
#include "server/srv_xport.h"

#include <stdlib.h>
#include <string.h>
#include "server/arm_srv_proto.h"
#include "util/arm_timer.h"

/* A reply whose completion the server hears of late (test only). */
struct srv_xport_late {
    arm_net_comp_t inner;         /* what the net layer completes             */
    arm_net_comp_t *outer;        /* the server's                             */
    srv_xport_ucx_t *u;
    double at;                    /* when the server hears of it              */
};

/* An answer waiting for its client's address. Its header and data are the
 * server's, kept until comp completes; comp counts it as pending. */
typedef struct srv_parked {
    struct srv_parked *next;
    int rank;
    const void *hdr;
    size_t hdr_len, iovcnt;
    unsigned flags;
    arm_net_comp_t *comp;
    arm_net_iov_t iov[];
} srv_parked_t;

/* At the end, answers still parked (their clients never spoke) go. */
static void parked_free(srv_xport_ucx_t *u)
{
    while (u->parked) {
        srv_parked_t *p = u->parked;
        u->parked = p->next;
        free(p);
    }
}

arm_status_t srv_xport_ucx_init(srv_xport_ucx_t *u, arm_net_t *net, int delay_us, int ncap)
{
    u->net = net;
    u->w = arm_net_server_worker(net);
    if (!u->w)
        return ARM_ERR_INVALID_ARG;
    if (delay_us <= 0)
        return ARM_OK;
    u->delay_s = 1e-6 * delay_us;
    u->ncap = ncap;
    u->late = calloc((size_t)ncap, sizeof *u->late);
    u->free_idx = malloc((size_t)ncap * sizeof(int));
    u->due = malloc((size_t)ncap * sizeof(int));
    if (!u->late || !u->free_idx || !u->due) {
        srv_xport_ucx_fini(u);
        return ARM_ERR_NO_MEMORY;
    }
    for (int i = 0; i < ncap; i++)
        u->free_idx[u->nfree++] = i;
    return ARM_OK;
}

void srv_xport_ucx_fini(srv_xport_ucx_t *u)
{
    parked_free(u);
    free(u->late);
    free(u->free_idx);
    free(u->due);
    u->late = NULL;
    u->free_idx = u->due = NULL;
    u->delay_s = 0;
}

static void late_done(arm_net_comp_t *c)
{
    srv_xport_late_t *l = c->arg;
    srv_xport_ucx_t *u = l->u;
    int tail = u->due_head + u->ndue;
    l->at = arm_time_now() + u->delay_s;
    u->due[tail >= u->ncap ? tail - u->ncap : tail] = (int)(l - u->late);
    u->ndue++;
}

/* Hands the server the completions that are due; non-zero if any. */
static int late_deliver(srv_xport_ucx_t *u)
{
    int did = 0;
    double now = u->ndue ? arm_time_now() : 0.0;
    while (u->ndue && u->late[u->due[u->due_head]].at <= now) {
        srv_xport_late_t *l = &u->late[u->due[u->due_head]];
        u->free_idx[u->nfree++] = u->due[u->due_head];
        if (++u->due_head == u->ncap)
            u->due_head = 0;
        u->ndue--;
        arm_net_comp_t *c = l->outer;
        if (l->inner.status != ARM_OK && c->status == ARM_OK)
            c->status = l->inner.status;
        if (--c->pending == 0 && c->cb)
            c->cb(c);
        did = 1;
    }
    return did;
}

static arm_status_t ucx_listen(void *ctx, unsigned am_id, arm_net_am_cb_t cb, void *arg)
{
    srv_xport_ucx_t *u = ctx;
    return arm_net_am_set_handler(u->w, am_id, cb, arg);
}

static arm_status_t ucx_send(arm_net_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                             const arm_net_iov_t *iov, size_t iovcnt, unsigned flags,
                             arm_net_comp_t *comp)
{
    if (!ep)
        return ARM_ERR_TRANSPORT;
    /* One buffer goes contiguous (UCX's short and copy protocols); only
     * several need the gather of an iov. */
    if (iovcnt > 1)
        return arm_net_am_sendv(ep, id, hdr, hdr_len, iov, iovcnt, flags, comp);
    return arm_net_am_send(ep, id, hdr, hdr_len, iovcnt ? iov[0].buf : NULL,
                           iovcnt ? iov[0].len : 0, flags, comp);
}

static arm_status_t park(srv_xport_ucx_t *u, int rank, const void *hdr, size_t hdr_len,
                         const arm_net_iov_t *iov, size_t iovcnt, unsigned flags,
                         arm_net_comp_t *comp)
{
    srv_parked_t *p = malloc(sizeof *p + iovcnt * sizeof *iov);
    if (!p)
        return ARM_ERR_NO_MEMORY;
    *p = (srv_parked_t){ NULL, rank, hdr, hdr_len, iovcnt, flags, comp };
    if (iovcnt)
        memcpy(p->iov, iov, iovcnt * sizeof *iov);
    srv_parked_t **tail = &u->parked;
    while (*tail)
        tail = &(*tail)->next;
    *tail = p;                    /* in order, per client and overall */
    comp->pending++;
    return ARM_INPROGRESS;
}

/* Sends the parked answers whose clients are now known; non-zero if any. */
static int unpark(srv_xport_ucx_t *u)
{
    int did = 0;
    for (srv_parked_t **pp = &u->parked; *pp;) {
        srv_parked_t *p = *pp;
        if (!arm_net_client_connected(u->net, p->rank)) {
            pp = &p->next;
            continue;
        }
        *pp = p->next;
        arm_net_comp_t *c = p->comp;
        arm_status_t st = ucx_send(arm_net_client_ep(u->net, p->rank), ARM_SRV_AM_REP, p->hdr,
                                   p->hdr_len, p->iov, p->iovcnt, p->flags, c);
        if (st != ARM_OK && st != ARM_INPROGRESS && c->status == ARM_OK)
            c->status = st;
        free(p);
        if (--c->pending == 0 && c->cb)
            c->cb(c);
        did = 1;
    }
    return did;
}

static int rank_parked(const srv_xport_ucx_t *u, int rank)
{
    for (const srv_parked_t *p = u->parked; p; p = p->next)
        if (p->rank == rank)
            return 1;
    return 0;
}

static arm_status_t ucx_send_reply(void *ctx, int rank, const void *hdr, size_t hdr_len,
                                   const arm_net_iov_t *iov, size_t iovcnt, unsigned flags,
                                   arm_net_comp_t *comp)
{
    srv_xport_ucx_t *u = ctx;
    /* A server never connects to a client (UCX's TCP transport broke when
     * servers made endpoints back while the clients connected to them): an
     * answer to a client whose hello is still on its way waits for it. */
    if (!arm_net_client_connected(u->net, rank) || rank_parked(u, rank))
        return park(u, rank, hdr, hdr_len, iov, iovcnt, flags, comp);
    arm_net_ep_t *ep = arm_net_client_ep(u->net, rank);
    if (!u->delay_s || !u->nfree)
        return ucx_send(ep, ARM_SRV_AM_REP, hdr, hdr_len, iov, iovcnt, flags, comp);
    srv_xport_late_t *l = &u->late[u->free_idx[--u->nfree]];
    l->outer = comp;
    l->u = u;
    arm_net_comp_init(&l->inner, late_done, l);
    arm_status_t st = ucx_send(ep, ARM_SRV_AM_REP, hdr, hdr_len, iov, iovcnt, flags, &l->inner);
    if (st != ARM_OK && st != ARM_INPROGRESS) {
        u->free_idx[u->nfree++] = (int)(l - u->late);
        return st;
    }
    comp->pending++;
    if (st == ARM_OK)
        late_done(&l->inner);
    return ARM_INPROGRESS;
}

/* To a neighbour server: its endpoint is made at the first message. */
static arm_status_t ucx_send_server(void *ctx, int node, unsigned am_id, const void *hdr,
                                    size_t hdr_len, const arm_net_iov_t *iov, size_t iovcnt,
                                    unsigned flags, arm_net_comp_t *comp)
{
    srv_xport_ucx_t *u = ctx;
    return ucx_send(arm_net_peer_server_ep(u->net, node), am_id, hdr, hdr_len, iov, iovcnt,
                    flags, comp);
}

static arm_status_t ucx_recv_data(void *ctx, const arm_net_am_msg_t *msg, void *buf,
                                  size_t len, arm_net_comp_t *comp)
{
    (void)ctx;
    return arm_net_am_recv_data(msg, buf, len, comp);
}

static void ucx_release(void *ctx, const arm_net_am_msg_t *msg)
{
    (void)ctx;
    arm_net_am_release(msg);
}

static int ucx_reachable(void *ctx, int rank)
{
    return arm_net_client_connected(((srv_xport_ucx_t *)ctx)->net, rank);
}

static int ucx_progress(void *ctx)
{
    srv_xport_ucx_t *u = ctx;
    int did = arm_net_progress(u->w);
    if (u->parked)
        did |= unpark(u);
    if (u->ndue)
        did |= late_deliver(u);
    return did;
}

static arm_status_t ucx_wait(void *ctx, int timeout_ms)
{
    srv_xport_ucx_t *u = ctx;
    /* Late completions to hand over, or answers waiting for an address:
     * wake up for them. */
    return arm_net_wait(u->w, (u->ndue || u->parked) && timeout_ms != 0 ? 1 : timeout_ms);
}

static void ucx_wakeup(void *ctx)
{
    arm_net_wakeup(((srv_xport_ucx_t *)ctx)->w);
}

static arm_status_t ucx_mem_reg(void *ctx, void *addr, size_t len, void **reg)
{
    arm_net_reg_t *r = NULL;
    arm_status_t st = arm_net_mem_reg(((srv_xport_ucx_t *)ctx)->net, addr, len, &r);
    *reg = r;
    return st;
}

static void ucx_mem_dereg(void *ctx, void *reg)
{
    (void)ctx;
    arm_net_mem_dereg(reg);
}

static arm_status_t ucx_rkey_pack(void *ctx, void *reg, void *buf, size_t *len)
{
    (void)ctx;
    return arm_net_rkey_pack(reg, buf, len);
}

const srv_xport_ops_t srv_xport_ucx = {
    .name = "ucx",
    .listen = ucx_listen,
    .send_reply = ucx_send_reply,
    .send_server = ucx_send_server,
    .recv_data = ucx_recv_data,
    .release = ucx_release,
    .progress = ucx_progress,
    .wait = ucx_wait,
    .wakeup = ucx_wakeup,
    .reachable = ucx_reachable,
    .mem_reg = ucx_mem_reg,
    .mem_dereg = ucx_mem_dereg,
    .rkey_pack = ucx_rkey_pack,
};
