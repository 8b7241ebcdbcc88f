/* net: connections. The start-up exchange of worker addresses, the address
 * book, the making of every endpoint, and each endpoint's state:
 *
 *   IDLE --make--> CONNECTING --hello sent--> CONNECTED
 *                      |                           |
 *                      +--ep or hello failed--> FAILED <--+
 *
 * An endpoint is made by ucp_ep_create, which returns at once; UCX wires
 * it up in the background and keeps what is sent meanwhile in the
 * endpoint's own queue. So the first request to a node goes out behind the
 * hello without any wait for a handshake (odcm, overlapped set-up), and
 * nothing here blocks. Across that wire-up UCX does not keep the order of
 * one endpoint's messages: one it queued can arrive after one sent once the
 * endpoint was up. Forwarded messages carry their number on the edge for
 * that reason (decision 054); a client's requests were never seen out of
 * order, and carry none.
 *
 * Every endpoint opens with one hello on the net's own active message. A
 * client's hello to a server is sent with UCP_AM_SEND_FLAG_REPLY: the
 * server adopts UCX's endpoint back to the client (the other end of the
 * client's own connection) and answers on it. Under lazy addresses no
 * server ever connects to a client: clients are known to a server only by
 * their hellos. */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>

#include "net/arm_net_int.h"
#include "util/arm_timer.h"

enum { HELLO_PLAIN = 1, HELLO_CLIENT = 2 };

/* The message's data. */
typedef struct conn_msg {
    uint32_t kind;
    int32_t  rank;         /* the sender                                      */
    uint32_t pad[2];
} conn_msg_t;

/* One hello in flight: freed at its completion. */
typedef struct conn_out {
    arm_net_comp_t comp;
    arm_net_ep_t  *ep;       /* whose state the hello settles               */
    conn_msg_t     msg;
} conn_out_t;

/* ---- the address book -------------------------------------------------------------- */

static const ucp_address_t *server_address(const arm_net_t *net, int node)
{
    uint32_t l32[2];
    if (net->lazy_addrs) {
        const unsigned char *b = net->addrs + (size_t)node * net->addr_stride;
        memcpy(l32, b, sizeof l32);
        return l32[0] ? (const ucp_address_t *)(b + 8) : NULL;
    }
    const unsigned char *b = net->addrs + (size_t)net->leader_of_node[node] * net->addr_stride;
    memcpy(l32, b, sizeof l32);
    return l32[1] ? (const ucp_address_t *)(b + 8 + l32[0]) : NULL;
}

static const ucp_address_t *client_address(const arm_net_t *net, int rank)
{
    if (net->lazy_addrs)
        return NULL;                 /* servers never connect to clients */
    return (const ucp_address_t *)(net->addrs + (size_t)rank * net->addr_stride + 8);
}

/* Eager: every rank's client and (leaders) server address, nproc blocks. */
static arm_status_t exchange_all(arm_net_t *net, const ucp_address_t *ca, size_t clen,
                                 const ucp_address_t *sa, size_t slen)
{
    uint64_t mine[2] = { clen, slen };
    uint64_t *all = malloc(sizeof(uint64_t) * 2 * (size_t)net->nproc);
    unsigned char *blob = NULL;
    arm_status_t ret = ARM_ERR_NO_MEMORY;
    if (!all)
        return ret;
    if (net->allgather(net->cb_ctx, mine, all, sizeof mine) != 0) {
        ret = ARM_ERR_TRANSPORT;
        goto out;
    }
    size_t maxlen = 0;
    for (int r = 0; r < net->nproc; r++)
        if ((size_t)(all[2 * r] + all[2 * r + 1]) > maxlen)
            maxlen = (size_t)(all[2 * r] + all[2 * r + 1]);
    size_t stride = (8 + maxlen + 7) & ~(size_t)7;
    blob = calloc(1, stride);
    net->addrs = malloc(stride * (size_t)net->nproc);
    if (!blob || !net->addrs)
        goto out;
    uint32_t l32[2] = { (uint32_t)clen, (uint32_t)slen };
    memcpy(blob, l32, sizeof l32);
    memcpy(blob + 8, ca, clen);
    if (slen)
        memcpy(blob + 8 + clen, sa, slen);
    if (net->allgather(net->cb_ctx, blob, net->addrs, stride) != 0) {
        ret = ARM_ERR_TRANSPORT;
        goto out;
    }
    net->addr_stride = stride;
    ret = ARM_OK;
out:
    free(blob);
    free(all);
    return ret;
}

/* Lazy: only the leaders contribute, their server address; each process
 * receives nnodes blocks. The block length is agreed by a maximum. */
static arm_status_t exchange_servers(arm_net_t *net, const arm_net_params_t *p,
                                     const ucp_address_t *sa, size_t slen)
{
    uint64_t maxlen = slen;
    if (!p->allgatherv || !p->allmax) {
        arm_log(ARM_LOG_ERROR, ARM_NET_SUBSYS, "lazy addresses need allgatherv and allmax");
        return ARM_ERR_INVALID_ARG;
    }
    if (p->allmax(net->cb_ctx, &maxlen) != 0)
        return ARM_ERR_TRANSPORT;
    size_t stride = (8 + (size_t)maxlen + 7) & ~(size_t)7;
    size_t *lens = calloc((size_t)net->nproc, sizeof *lens);
    size_t *displs = calloc((size_t)net->nproc, sizeof *displs);
    unsigned char *blob = calloc(1, stride);
    net->addrs = calloc((size_t)net->nnodes, stride);
    arm_status_t ret = ARM_ERR_NO_MEMORY;
    if (!lens || !displs || !blob || !net->addrs)
        goto out;
    for (int n = 0; n < net->nnodes; n++) {
        lens[net->leader_of_node[n]] = stride;
        displs[net->leader_of_node[n]] = (size_t)n * stride;
    }
    uint32_t l32[2] = { (uint32_t)slen, 0 };
    memcpy(blob, l32, sizeof l32);
    if (slen)
        memcpy(blob + 8, sa, slen);
    ret = p->allgatherv(net->cb_ctx, blob, net->addrs, lens, displs) == 0 ? ARM_OK
                                                                         : ARM_ERR_TRANSPORT;
    net->addr_stride = stride;
out:
    free(blob);
    free(displs);
    free(lens);
    return ret;
}

arm_status_t arm_net_conn_exchange(arm_net_t *net, const arm_net_params_t *p)
{
    ucp_address_t *ca = NULL, *sa = NULL;
    size_t clen = 0, slen = 0;
    arm_status_t ret;
    ucs_status_t st = ucp_worker_get_address(net->client.h, &ca, &clen);
    if (st != UCS_OK)
        return arm_net_ucs_error("ucp_worker_get_address", st);
    if (net->server && (st = ucp_worker_get_address(net->server->h, &sa, &slen)) != UCS_OK) {
        ucp_worker_release_address(net->client.h, ca);
        return arm_net_ucs_error("ucp_worker_get_address", st);
    }
    net->lazy_addrs = p->lazy_addresses && !p->connect_eager;
    ret = net->lazy_addrs ? exchange_servers(net, p, sa, slen)
                          : exchange_all(net, ca, clen, sa, slen);
    if (ret == ARM_ERR_TRANSPORT)
        arm_log(ARM_LOG_ERROR, ARM_NET_SUBSYS, "bootstrap exchange of addresses failed");
    if (sa)
        ucp_worker_release_address(net->server->h, sa);
    ucp_worker_release_address(net->client.h, ca);
    return ret;
}

void arm_net_conn_free(arm_net_t *net)
{
    free(net->addrs);
    net->addrs = NULL;
}

/* ---- hellos ------------------------------------------------------------------------ */

static void conn_out_done(arm_net_comp_t *c)
{
    conn_out_t *o = c->arg;
    if (o->ep && o->ep->state == ARM_NET_CONN_CONNECTING) {
        o->ep->state = c->status == ARM_OK ? ARM_NET_CONN_CONNECTED : ARM_NET_CONN_FAILED;
        o->ep->fail = c->status;
        if (c->status != ARM_OK)
            arm_log(ARM_LOG_ERROR, ARM_NET_SUBSYS, "connection to %s %d failed: %s",
                    o->ep->kind == ARM_NET_EP_TO_CLIENT ? "client" : "server of node",
                    o->ep->peer, arm_status_str(c->status));
    }
    free(o);
}

static arm_status_t conn_send(arm_net_ep_t *ep, arm_net_ep_t *settles, uint32_t kind, int rank)
{
    conn_out_t *o = malloc(sizeof *o);
    if (!o)
        return ARM_ERR_NO_MEMORY;
    o->ep = settles;
    o->msg = (conn_msg_t){ kind, rank, { 0, 0 } };
    arm_net_comp_init(&o->comp, conn_out_done, o);
    /* The header travels in the data: UCX 1.13 needs a pending send's
     * header kept, and the data is kept anyway. */
    unsigned flags = ARM_NET_AM_EAGER | (kind == HELLO_CLIENT ? ARM_NET_AM_REPLY : 0u);
    arm_status_t st = arm_net_am_send(ep, ARM_NET_AM_CONN, NULL, 0, &o->msg, sizeof o->msg,
                                      flags, &o->comp);
    if (st == ARM_INPROGRESS)
        return ARM_OK;
    o->comp.status = st;
    conn_out_done(&o->comp);
    return st;
}

/* A client's hello comes with UCX's endpoint back to it (the other end of
 * the client's connection): the server answers on it, and makes no
 * connection of its own to that client (odcm's reply without a second
 * connect). */
static void adopt(arm_net_t *net, int rank, ucp_ep_h reply)
{
    arm_net_ep_t *ep = &net->to_client[rank];
    if (!reply || ep->h)
        return;
    ep->h = reply;
    ep->state = ARM_NET_CONN_CONNECTED;
    ep->worker->stats.eps_to_client++;
}

static arm_status_t on_conn(void *arg, const arm_net_am_msg_t *msg)
{
    arm_net_worker_t *w = arg;
    conn_msg_t m;
    if (msg->rndv || msg->data_len < sizeof m)
        return ARM_OK;
    memcpy(&m, msg->data, sizeof m);
    if (w->kind != ARM_NET_WORKER_SERVER || m.rank < 0 || m.rank >= w->net->nproc)
        return ARM_OK;
    if (m.kind == HELLO_CLIENT)
        adopt(w->net, m.rank, (ucp_ep_h)msg->reply_ep);
    return ARM_OK;
}

arm_status_t arm_net_conn_listen(arm_net_worker_t *w)
{
    return arm_net_am_set_handler(w, ARM_NET_AM_CONN, on_conn, w);
}

/* ---- making endpoints -------------------------------------------------------------- */

int arm_net_client_connected(const arm_net_t *net, int rank)
{
    return rank >= 0 && rank < net->nproc && net->server && net->to_client[rank].h != NULL;
}

static arm_net_ep_t *slot_of(arm_net_t *net, arm_net_ep_kind_t kind, int peer,
                             const ucp_address_t **addr)
{
    if (kind == ARM_NET_EP_TO_SERVER) {
        if (peer < 0 || peer >= net->nnodes)
            return NULL;
        *addr = server_address(net, peer);
        return &net->to_server[peer];
    }
    if (kind == ARM_NET_EP_SRV_TO_SRV) {
        if (peer < 0 || peer >= net->nnodes || peer == net->my_node || net->server == NULL)
            return NULL;
        *addr = server_address(net, peer);
        return &net->srv_to_srv[peer];
    }
    if (peer < 0 || peer >= net->nproc || net->server == NULL)
        return NULL;
    *addr = client_address(net, peer);
    return &net->to_client[peer];
}

static const char *kind_name(arm_net_ep_kind_t kind)
{
    return kind == ARM_NET_EP_TO_SERVER ? "to-server"
           : kind == ARM_NET_EP_SRV_TO_SRV ? "server-to-server" : "to-client";
}

arm_status_t arm_net_ep_connect(arm_net_t *net, arm_net_ep_kind_t kind, int peer,
                                arm_net_ep_t **ep_p)
{
    const ucp_address_t *addr = NULL;
    arm_net_ep_t *ep = slot_of(net, kind, peer, &addr);
    if (ep && ep->h) {
        *ep_p = ep;
        return ep->state == ARM_NET_CONN_FAILED ? ep->fail : ARM_OK;
    }
    if (!ep || !addr) {
        arm_log(ARM_LOG_ERROR, ARM_NET_SUBSYS, "arm_net_ep_connect: no %s endpoint for peer %d%s",
                kind_name(kind), peer, ep ? " (its address is unknown here)" : "");
        return ARM_ERR_INVALID_ARG;
    }
    ucp_ep_params_t epp;
    memset(&epp, 0, sizeof epp);
    epp.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE;
    epp.address = addr;
    epp.err_mode = net->peer_errors ? UCP_ERR_HANDLING_MODE_PEER : UCP_ERR_HANDLING_MODE_NONE;
    double t0 = arm_time_now();
    ucs_status_t st = ucp_ep_create(ep->worker->h, &epp, &ep->h);
    ep->worker->stats.connect_time_s += arm_time_now() - t0;
    if (st != UCS_OK) {
        ep->h = NULL;
        ep->state = ARM_NET_CONN_FAILED;
        ep->fail = arm_net_status_from_ucs(st);
        arm_log(ARM_LOG_ERROR, ARM_NET_SUBSYS, "endpoint to %s %d: %s",
                kind == ARM_NET_EP_TO_CLIENT ? "client" : "server of node", peer,
                ucs_status_string(st));
        return ep->fail;
    }
    ep->state = ARM_NET_CONN_CONNECTING;
    if (kind == ARM_NET_EP_TO_SERVER) {
        /* The node's capability bits, known from the moment its endpoint
         * exists (UCX chose its lanes from the address). */
        unsigned caps;
        ep->worker->stats.eps_to_server++;
        arm_net_ep_caps(ep, &caps, NULL, 0);
    } else if (kind == ARM_NET_EP_SRV_TO_SRV) {
        ep->worker->stats.eps_srv_to_srv++;
    } else {
        ep->worker->stats.eps_to_client++;
    }
    arm_status_t hs = conn_send(ep, ep, kind == ARM_NET_EP_TO_SERVER ? HELLO_CLIENT : HELLO_PLAIN,
                                net->rank);
    if (hs != ARM_OK)
        return hs;
    *ep_p = ep;
    return ARM_OK;
}
