/* The simulator's transport table (srv_xport.h) and the servers' turns.
 * A server's sends become messages that arrive after the wire's time; the
 * server takes a processor when messages wait for it and serves everything
 * that has arrived in one pass of its own progress, as its thread does, so
 * requests that meet at a forwarder leave in one message exactly when the
 * real server would send them together. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "server/srv_int.h"
#include "sim_int.h"

/* Messages one pass takes, as srv_progress takes transport events. */
#define SIM_PASS_MAX 64

double sim_wire(const sim_world_t *w, size_t bytes)
{
    return w->m.lat_us + (double)bytes * w->m.byte_ns * 1e-3;
}

static sim_msg_t *msg_new(unsigned am, int from_node, const void *hdr, size_t hdr_len,
                          const arm_net_iov_t *iov, size_t iovcnt, const void *data,
                          size_t len)
{
    sim_msg_t *m = calloc(1, sizeof *m);
    if (!m || hdr_len > sizeof m->hdr) {
        fprintf(stderr, "armada-sim: out of memory or header of %zu bytes\n", hdr_len);
        exit(3);
    }
    m->am = am;
    m->from_node = from_node;
    m->hdr_len = hdr_len;
    memcpy(m->hdr, hdr, hdr_len);
    for (size_t i = 0; i < iovcnt; i++)
        m->len += iov[i].len;
    m->len += data ? len : 0;
    if (m->len) {
        m->data = malloc(m->len);
        if (!m->data) {
            fprintf(stderr, "armada-sim: out of memory for a message\n");
            exit(3);
        }
        size_t off = 0;
        for (size_t i = 0; i < iovcnt; i++) {
            memcpy(m->data + off, iov[i].buf, iov[i].len);
            off += iov[i].len;
        }
        if (data)
            memcpy(m->data + off, data, len);
    }
    return m;
}

void sim_send_to_server(sim_world_t *w, double t, int from_node, int to, unsigned am,
                        const void *hdr, size_t hdr_len, const void *data, size_t len)
{
    sim_msg_t *m = msg_new(am, from_node, hdr, hdr_len, NULL, 0, data, len);
    m->arrive = t + (from_node == to ? 0.0 : sim_wire(w, hdr_len + len));
    sim_push(w, m->arrive, EV_SRV_MSG, to, m);
}

/* ---- the transport table ---------------------------------------------------------- */
static arm_status_t x_listen(void *ctx, unsigned am_id, arm_net_am_cb_t cb, void *arg)
{
    sim_node_t *n = ctx;
    if (am_id >= 8)
        return ARM_ERR_INVALID_ARG;
    n->cbs[am_id] = cb;
    n->cb_args[am_id] = arg;
    return ARM_OK;
}

/* A send by the server now running: its processor time, then the wire. */
static double send_cost(sim_world_t *w, size_t bytes)
{
    w->cursor += sim_cpu(w, (w->m.send_us + (double)bytes * w->m.copy_ns * 1e-3) *
                            w->srv_stretch);
    return w->cursor;
}

static arm_status_t x_send_reply(void *ctx, int rank, const void *hdr, size_t hdr_len,
                                 const arm_net_iov_t *iov, size_t iovcnt, unsigned flags,
                                 arm_net_comp_t *comp)
{
    sim_node_t *n = ctx;
    sim_world_t *w = n->w;
    (void)flags, (void)comp;
    if (rank < 0 || rank >= w->prm.nproc)
        return ARM_ERR_INVALID_ARG;
    sim_conn_use(w, SIM_CONN_S2C, n->node, rank);
    sim_msg_t *m = msg_new(ARM_SRV_AM_REP, n->node, hdr, hdr_len, iov, iovcnt, NULL, 0);
    double t = send_cost(w, m->len);
    m->arrive = t + (w->node_of[rank] == n->node ? 0.0 : sim_wire(w, hdr_len + m->len));
    sim_push(w, m->arrive, EV_CLI_MSG, rank, m);
    return ARM_OK;
}

/* Forwarded messages in flight on the edge from -> to: they hold one of
 * to's edge slots from their send until to gives the credit back. */
static int *inflight(sim_world_t *w, int from, int to)
{
    sim_node_t *n = &w->nodes[from];
    int i = arm_topo_neighbour_index(&w->topo, from, to);
    if (i < 0)
        return NULL;
    if (!n->fwd_inflight) {
        n->fwd_inflight = calloc((size_t)arm_topo_degree(&w->topo, from), sizeof(int));
        if (!n->fwd_inflight) {
            fprintf(stderr, "armada-sim: out of memory\n");
            exit(3);
        }
    }
    return &n->fwd_inflight[i];
}

static void flow_check(sim_world_t *w, int from, int to, unsigned am, const void *hdr)
{
    arm_srv_fwd_hdr_t h;
    memcpy(&h, hdr, sizeof h);
    if (am == ARM_SRV_AM_FWD) {
        int *f = inflight(w, from, to);
        if (!f)
            return;
        ++*f;
        if (*f > w->edge_inflight_max)
            w->edge_inflight_max = *f;
        if (*f > w->prm.edge_slots)
            w->edge_over++;
    } else if (am == ARM_SRV_AM_CREDIT) {
        int *f = inflight(w, to, from);
        if (f)
            *f -= (int)h.credits;
    }
}

static arm_status_t x_send_server(void *ctx, int node, unsigned am_id, const void *hdr,
                                  size_t hdr_len, const arm_net_iov_t *iov, size_t iovcnt,
                                  unsigned flags, arm_net_comp_t *comp)
{
    sim_node_t *n = ctx;
    sim_world_t *w = n->w;
    (void)flags, (void)comp;
    if (node < 0 || node >= w->nnodes || hdr_len < sizeof(arm_srv_fwd_hdr_t))
        return ARM_ERR_INVALID_ARG;
    flow_check(w, n->node, node, am_id, hdr);
    sim_conn_use(w, SIM_CONN_S2S, n->node, node);
    sim_msg_t *m = msg_new(am_id, n->node, hdr, hdr_len, iov, iovcnt, NULL, 0);
    double t = send_cost(w, m->len);
    /* A forwarded message sent by a server that had to be woken also waits
     * hop_us beyond the wire (decision 048). */
    m->arrive = t + sim_wire(w, hdr_len + m->len) +
                (am_id == ARM_SRV_AM_FWD && n->woke ? w->m.hop_us : 0.0);
    sim_push(w, m->arrive, EV_SRV_MSG, node, m);
    return ARM_OK;
}

static arm_status_t x_recv_data(void *ctx, const arm_net_am_msg_t *msg, void *buf, size_t len,
                                arm_net_comp_t *comp)
{
    (void)ctx, (void)comp;
    if (len < msg->data_len)
        return ARM_ERR_INVALID_ARG;
    memcpy(buf, msg->data, msg->data_len);
    free(msg->data);
    return ARM_OK;
}

static void x_release(void *ctx, const arm_net_am_msg_t *msg)
{
    (void)ctx;
    free(msg->data);
}

static int x_progress(void *ctx)
{
    (void)ctx;
    return 0;
}

static arm_status_t x_mem_reg(void *ctx, void *addr, size_t len, void **reg)
{
    (void)ctx, (void)len;
    *reg = addr;
    return ARM_OK;
}

static void x_mem_dereg(void *ctx, void *reg)
{
    (void)ctx, (void)reg;
}

static arm_status_t x_rkey_pack(void *ctx, void *reg, void *buf, size_t *len)
{
    (void)ctx, (void)reg;
    if (buf && *len >= 1)
        memset(buf, 0, 1);
    *len = 1;
    return ARM_OK;
}

/* The runtime's servers reach only the clients that connected to them
 * (decision 050): recorded in the connect experiment. Elsewhere every
 * client is reachable, as under eager, which the hot-spot validation ran. */
static int x_reachable(void *ctx, int rank)
{
    sim_node_t *n = ctx;
    sim_world_t *w = n->w;
    return !w->conn.on || w->node_of[rank] == n->node ||
           sim_conn_has(w, SIM_CONN_C2S, rank, n->node);
}

const srv_xport_ops_t sim_xport = {
    .name = "sim",
    .listen = x_listen,
    .send_reply = x_send_reply,
    .send_server = x_send_server,
    .recv_data = x_recv_data,
    .release = x_release,
    .progress = x_progress,
    .wait = srv_xport_wait_none,
    .wakeup = srv_xport_wakeup_none,
    .reachable = x_reachable,
    .mem_reg = x_mem_reg,
    .mem_dereg = x_mem_dereg,
    .rkey_pack = x_rkey_pack,
};

/* ---- the servers' turns ------------------------------------------------------------ */
static double svc_of(const sim_model_t *m, unsigned op)
{
    switch (op & ~(unsigned)ARM_SRV_SYNC) {
    case ARM_SRV_PUT: case ARM_SRV_BATCH: return m->svc_put_us;
    case ARM_SRV_GET: return m->svc_get_us;
    case ARM_SRV_ACC: case ARM_SRV_ACCSEG: return m->svc_acc_us;
    case ARM_SRV_PUTSEG: case ARM_SRV_GETSEG: return m->svc_seg_us;
    case ARM_SRV_RMW: return m->svc_rmw_us;
    case ARM_SRV_LOCK: case ARM_SRV_TRYLOCK: case ARM_SRV_UNLOCK: return m->svc_lock_us;
    case ARM_SRV_FENCE: return m->svc_fence_us;
    default: return 0.0;
    }
}

/* Processor time of one request at node: served here, or sent on. */
static double req_cost(const sim_world_t *w, int node, const arm_srv_req_t *r)
{
    int t = r->target >= 0 && r->target < w->prm.nproc ? w->node_of[r->target] : node;
    return t == node ? svc_of(&w->m, r->op) : w->m.fwd_us;
}

static double msg_cost(const sim_world_t *w, int node, const sim_msg_t *m)
{
    double c = w->m.recv_us + (double)m->len * w->m.copy_ns * 1e-3;
    if (m->am == ARM_SRV_AM_REQ && m->hdr_len >= sizeof(arm_srv_req_t)) {
        arm_srv_req_t r;
        memcpy(&r, m->hdr, sizeof r);
        c += req_cost(w, node, &r);
    } else if (m->am == ARM_SRV_AM_FWD) {
        size_t off = 0;
        while (off + sizeof(arm_srv_fwd_ent_t) <= m->len) {
            arm_srv_fwd_ent_t e;
            memcpy(&e, m->data + off, sizeof e);
            c += req_cost(w, node, &e.req);
            off += sizeof e + ((e.dlen + 7u) & ~7u);
        }
    }
    return c;
}

void sim_server_msg(sim_world_t *w, int node, sim_msg_t *msg)
{
    sim_node_t *n = &w->nodes[node];
    msg->next = NULL;
    if (n->inbox_tail)
        n->inbox_tail->next = msg;
    else
        n->inbox = msg;
    n->inbox_tail = msg;
    n->ninbox++;
    if (n->run_scheduled)
        return;
    n->run_scheduled = 1;
    /* A server that is not working sleeps and must be woken. */
    n->woke = n->busy_until <= w->now;
    double t = n->woke ? w->now + w->m.wake_us : n->busy_until;
    sim_push(w, t, EV_SRV_RUN, node, NULL);
}

static void deliver(sim_world_t *w, sim_node_t *n, sim_msg_t *m)
{
    w->cursor += sim_cpu(w, msg_cost(w, n->node, m) * w->srv_stretch);
    arm_net_am_msg_t am;
    memset(&am, 0, sizeof am);
    am.id = m->am;
    am.hdr = m->hdr;
    am.hdr_len = m->hdr_len;
    am.data = m->data;
    am.data_len = m->len;
    am.keepable = 1;
    arm_status_t st = ARM_ERR_INVALID_ARG;
    if (m->am < 8 && n->cbs[m->am])
        st = n->cbs[m->am](n->cb_args[m->am], &am);
    if (st != ARM_INPROGRESS)
        free(m->data);
    free(m);
}

void sim_server_run(sim_world_t *w, int node)
{
    sim_node_t *n = &w->nodes[node];
    int core;
    double start = sim_core_take(w, w->now, &core);
    if (start > w->now) {
        sim_push(w, start, EV_SRV_RUN, node, NULL);
        return;
    }
    n->run_scheduled = 0;
    w->srv_stretch = w->m.cores > 0 && n->woke
                         ? 1.0 + w->m.srv_poll_load * (double)sim_polling(w) / w->m.cores
                         : 1.0;
    w->cur = n;
    w->cursor = start;
    for (int i = 0; i < SIM_PASS_MAX && n->inbox; i++) {
        sim_msg_t *m = n->inbox;
        n->inbox = m->next;
        if (!n->inbox)
            n->inbox_tail = NULL;
        n->ninbox--;
        deliver(w, n, m);
    }
    srv_progress(n->srv);
    w->cur = NULL;
    n->cpu_us += w->cursor - start;
    n->passes++;
    n->wakes += n->woke;
    n->busy_until = w->cursor;
    sim_core_release(w, core, w->cursor);
    if (n->inbox || n->srv->nblocked || n->srv->nparked) {
        /* More arrived meanwhile (no wake-up: it is still awake), or a lock
         * request waits: the thread retries it every millisecond. */
        n->run_scheduled = 1;
        sim_push(w, n->inbox ? w->cursor : w->cursor + 1000.0, EV_SRV_RUN, node, NULL);
    }
}
