/* Simulated clients: each issues one ARMCI-level operation at a time, as a
 * process blocked in ARMCI_Rmw or in ARMCI_PutV + ARMCI_Fence does, and
 * speaks the server protocol as the runtime's client does (src/core):
 * credited requests only with a credit for the server they go to, blocking
 * requests in the sync slot, every request to the first hop of its route,
 * credits taken back from every reply (of a server it talks to: others
 * tell of forwarded writes served, decision 078). Operations on the client's own node
 * are shared-memory work and touch no server. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "server/arm_srv_proto.h"
#include "sim_int.h"

int sim_first_hop(const sim_world_t *w, int from_node, int tnode)
{
    if (!w->use_topo || from_node == tnode)
        return tnode;
    return arm_topo_next_hop(&w->topo, from_node, tnode);
}

static sim_credit_t *credit_of(sim_world_t *w, sim_client_t *c, int node)
{
    /* Newest first: a client's latest server is the likeliest. */
    for (int i = c->ncred - 1; i >= 0; i--)
        if (c->cred[i].node == node)
            return &c->cred[i];
    if (c->ncred == c->cred_cap) {
        int cap = c->cred_cap ? 2 * c->cred_cap : 4;
        sim_credit_t *k = realloc(c->cred, (size_t)cap * sizeof *k);
        if (!k) {
            fprintf(stderr, "armada-sim: out of memory for rank %d's credits\n", c->rank);
            exit(3);
        }
        c->cred = k;
        c->cred_cap = cap;
    }
    sim_credit_t *k = &c->cred[c->ncred++];
    memset(k, 0, sizeof *k);
    k->node = node;
    k->credits = w->prm.slots;
    return k;
}

static void fadd_seen(sim_world_t *w, int64_t v)
{
    if (v < 0) {
        w->fadd_range++;
        return;
    }
    uint64_t u = (uint64_t)v;
    if (u >= w->fadd_cap) {
        uint64_t cap = w->fadd_cap ? w->fadd_cap : 1 << 16;
        while (cap <= u)
            cap *= 2;
        unsigned char *b = realloc(w->fadd_seen, cap / 8);
        if (!b) {
            fprintf(stderr, "armada-sim: out of memory\n");
            exit(3);
        }
        memset(b + w->fadd_cap / 8, 0, (cap - w->fadd_cap) / 8);
        w->fadd_seen = b;
        w->fadd_cap = cap;
    }
    if (w->fadd_seen[u / 8] & (1u << (u % 8)))
        w->fadd_dup++;
    w->fadd_seen[u / 8] |= (unsigned char)(1u << (u % 8));
}

/* Every change of a client's state: a new wait starts its polling. */
static void set_state(sim_world_t *w, sim_client_t *c, int state)
{
    if (c->polling) {
        c->polling = 0;
        w->npoll--;
    }
    c->state = state;
    /* Counted only where it matters: processors shared, pollers costing. */
    if (state == CL_IDLE || w->m.cores <= 0 || w->m.srv_poll_load <= 0.0)
        return;
    c->wait_epoch++;
    c->polling = 1;
    w->npoll++;
    sim_poll_push(w, c);
}

static void op_done(sim_world_t *w, sim_client_t *c, double t)
{
    set_state(w, c, CL_IDLE);
    c->busy_until = t;
    if (w->on_done)
        w->on_done(w, c, t);
}

void sim_client_start(sim_world_t *w, sim_client_t *c, int op, int target, double t)
{
    c->op = op;
    c->target = target;
    c->phase = 0;
    set_state(w, c, CL_IDLE);
    sim_push(w, t > c->busy_until ? t : c->busy_until, EV_CLI_RUN, c->rank, NULL);
}

static arm_srv_req_t req_new(sim_client_t *c, unsigned op, uint64_t raddr, uint32_t len,
                             int reply)
{
    arm_srv_req_t r;
    memset(&r, 0, sizeof r);
    r.op = (uint8_t)op;
    r.src = c->rank;
    r.target = c->target;
    r.raddr = raddr;
    r.len = len;
    r.req_id = ++c->seq | (reply ? 0 : ARM_SRV_REQ_NOREPLY);
    return r;
}

/* The vector put's request: 16 segments of 64 bytes, table then data. */
static double send_putv(sim_world_t *w, sim_client_t *c, int hop, double t)
{
    char buf[SIM_PUTV_SEGS * (sizeof(arm_srv_seg_t) + SIM_PUTV_SEG)];
    uint64_t base = (uint64_t)(uintptr_t)(w->mem + (size_t)c->target * SIM_WIN);
    for (int k = 0; k < SIM_PUTV_SEGS; k++) {
        arm_srv_seg_t s = { base + SIM_PUTV_OFF + (uint64_t)k * 2 * SIM_PUTV_SEG, SIM_PUTV_SEG };
        memcpy(buf + k * sizeof s, &s, sizeof s);
    }
    size_t dat = SIM_PUTV_SEGS * sizeof(arm_srv_seg_t);
    memset(buf + dat, (int)(c->rank & 0x7f), SIM_PUTV_SEGS * SIM_PUTV_SEG);
    arm_srv_req_t r = req_new(c, ARM_SRV_PUTSEG, 0, (uint32_t)sizeof buf, 0);
    r.nseg = SIM_PUTV_SEGS;
    t += sim_cli_cpu(w, w->m.client_us + w->m.cli_msg_us +
                            (double)sizeof buf * w->m.copy_ns * 1e-3);
    sim_send_to_server(w, t, c->node, hop, ARM_SRV_AM_REQ, &r, sizeof r, buf, sizeof buf);
    return t;
}

/* A blocking request in the sync slot: the fence or the fetch-and-add. */
static double send_sync(sim_world_t *w, sim_client_t *c, int hop, double t)
{
    arm_srv_req_t r;
    uint64_t base = (uint64_t)(uintptr_t)(w->mem + (size_t)c->target * SIM_WIN);
    if (c->op == SIM_OP_FADD) {
        r = req_new(c, ARM_SRV_RMW | ARM_SRV_SYNC, base + SIM_FADD_OFF, 0, 1);
        r.sub = ARM_SRV_FADD32;
        r.operand = 1;
        w->fadd_issued++;
    } else {
        r = req_new(c, ARM_SRV_FENCE | ARM_SRV_SYNC, 0, 0, 1);
    }
    t += sim_cli_cpu(w, w->m.client_us + w->m.cli_msg_us);
    sim_send_to_server(w, t, c->node, hop, ARM_SRV_AM_REQ, &r, sizeof r, NULL, 0);
    c->want_id = r.req_id;
    set_state(w, c, CL_WAIT_REPLY);
    return t;
}

static double local_op(sim_world_t *w, sim_client_t *c, double t)
{
    char *win = w->mem + (size_t)c->target * SIM_WIN;
    if (c->op == SIM_OP_FADD) {
        int32_t v;
        memcpy(&v, win + SIM_FADD_OFF, sizeof v);
        fadd_seen(w, v);
        v++;
        memcpy(win + SIM_FADD_OFF, &v, sizeof v);
        w->fadd_issued++;
    } else {
        for (int k = 0; k < SIM_PUTV_SEGS; k++)
            memset(win + SIM_PUTV_OFF + k * 2 * SIM_PUTV_SEG, (int)(c->rank & 0x7f),
                   SIM_PUTV_SEG);
    }
    return t + sim_cli_cpu(w, w->m.client_us + w->m.local_us);
}

/* Takes the operation as far as it goes without waiting, from time t on
 * a processor; returns when the processor is free again. */
static double advance(sim_world_t *w, sim_client_t *c, double t)
{
    int tnode = w->node_of[c->target];
    if (tnode == c->node) {
        t = local_op(w, c, t);
        op_done(w, c, t);
        return t;
    }
    int hop = sim_first_hop(w, c->node, tnode);
    sim_conn_use(w, SIM_CONN_C2S, c->rank, hop);
    /* Lazy: the client also says hello to the target's server, which then
     * answers it straight (decision 070); the hello is taken to arrive
     * before the forwarded request. Under edges it never connects there. */
    if (hop != tnode && !w->prm.bound)
        sim_conn_use(w, SIM_CONN_C2S, c->rank, tnode);
    if (c->op == SIM_OP_PUTV && c->phase == 0) {
        sim_credit_t *k = credit_of(w, c, hop);
        if (k->credits <= 0) {
            set_state(w, c, CL_WAIT_CREDIT);
            return t;
        }
        k->credits--;
        if (++k->out > w->prm.slots)
            w->credit_over++;
        t = send_putv(w, c, hop, t);
        c->phase = 1;
    }
    return send_sync(w, c, hop, t);
}

void sim_client_run(sim_world_t *w, int rank)
{
    sim_client_t *c = &w->cl[rank];
    int core;
    double start = sim_core_take(w, w->now, &core);
    if (start > w->now) {
        sim_push(w, start, EV_CLI_RUN, rank, NULL);
        return;
    }
    double end = advance(w, c, start);
    c->busy_until = end > c->busy_until ? end : c->busy_until;
    sim_core_release(w, core, end);
}

void sim_client_msg(sim_world_t *w, int rank, sim_msg_t *msg)
{
    sim_client_t *c = &w->cl[rank];
    int core;
    double start = sim_core_take(w, w->now, &core);
    if (start > w->now) {
        sim_push(w, start, EV_CLI_MSG, rank, msg);
        return;
    }
    arm_srv_rep_t rep;
    memset(&rep, 0, sizeof rep);
    memcpy(&rep, msg->hdr, msg->hdr_len < sizeof rep ? msg->hdr_len : sizeof rep);
    free(msg->data);
    free(msg);
    double t = start + sim_cli_cpu(w, w->m.cli_msg_us);
    /* From a node reached through another server the field tells of
     * forwarded writes served there, not credits (decision 078). */
    if (rep.credits && sim_first_hop(w, c->node, rep.node) == rep.node) {
        sim_credit_t *k = credit_of(w, c, rep.node);
        k->credits += (int)rep.credits;
        k->out -= (int)rep.credits;
        if (k->out < 0)
            w->credit_over++;
    }
    if (rep.status < 0) {
        w->refused++;
        if (w->refused <= 5)
            fprintf(stderr, "armada-sim: rank %d: a request was refused (status %d)\n", rank,
                    rep.status);
    }
    if (c->state == CL_WAIT_REPLY && rep.req_id == c->want_id && rep.req_id) {
        if (c->op == SIM_OP_FADD)
            fadd_seen(w, rep.value);
        op_done(w, c, t);
    } else if (c->state == CL_WAIT_CREDIT) {
        t = advance(w, c, t);
    }
    c->busy_until = t > c->busy_until ? t : c->busy_until;
    sim_core_release(w, core, t);
}
