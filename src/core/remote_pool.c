/* The request pool and the server credits: a request in flight is an rop_t
 * from a fixed pool; a request needs a credit of its target node, or the
 * one sync slot. */
#define _POSIX_C_SOURCE 200809L
#include "arm_build_config.h"
#if ARMADA_HAVE_UCX
#include <stdlib.h>
#include <string.h>
#include "core/remote_int.h"

/* ---- request pool ---------------------------------------------------------------- */
void arm_rem_op_release(rop_t *op)
{
    op->busy = 0;
    arm_rc.free_ops[arm_rc.nfree++] = (int)(op - arm_rc.ops);
}

void arm_rem_maybe_release(rop_t *op)
{
    if (op->send.pending == 0 && (!op->want_reply || op->replied) && op->busy == 2) {
        if (op->nb >= 0) {
            /* A non-blocking get that nobody waits on right now: its errors
             * stop the program here, naming the call that started it. */
            if (op->send.status != ARM_OK || op->status != ARM_OK)
                arm_fatal(op->call, "a non-blocking get from rank %d failed: %s",
                          op->req.target, arm_status_str(op->send.status != ARM_OK
                              ? op->send.status : (arm_status_t)op->status));
            arm_rc.nb[op->nb].live--;
            arm_rc.nb_live--;
        }
        arm_rem_op_release(op);
    }
}

void arm_rem_send_done(arm_net_comp_t *c)
{
    arm_rem_maybe_release(c->arg);
}

/* Every request is in flight: the first one names the call and the peer
 * a timeout blames (they all wait on other nodes). */
static void wait_free_op(void)
{
    arm_rem_deadline_t d = { 0, 0.0, 0.0 };
    /* Threads' open batches hold requests: sent, they come back. */
    arm_rem_tb_flush("ARMCI", -1);
    while (arm_rc.nfree == 0) {
        const rop_t *old = &arm_rc.ops[0];
        for (int i = 0; i < OP_POOL && !old->busy; i++)
            old = &arm_rc.ops[i];
        arm_rem_deadline_step(&d, old->call ? old->call : "ARMCI",
                              old->req.target >= 0 ? old->req.target : 0, 10);
    }
}

rop_t *arm_rem_op_get(int node)
{
    if (arm_rc.nfree == 0)
        wait_free_op();
    rop_t *op = &arm_rc.ops[arm_rc.free_ops[--arm_rc.nfree]];
    op->busy = 1;
    op->want_reply = 0;
    op->replied = 0;
    op->status = ARM_OK;
    op->node = node;
    op->nseg = 0;
    op->data_len = 0;
    op->am_flags = 0;
    op->nb = -1;
    op->call = NULL;
    memset(&op->req, 0, sizeof op->req);
    op->req.src = arm_core.me;
    op->req.target = arm_core.node_leader[node];
    return op;
}

char *arm_rem_op_big(rop_t *op, size_t n)
{
    if (op->big_len >= n)
        return op->big;
    char *b = realloc(op->big, n);
    if (!b)
        return NULL;
    op->big = b;
    op->big_len = n;
    return b;
}

/* A request of kind to `len` bytes at raddr (server mapping) of proc. */
rop_t *arm_rem_op_new(int kind, int proc, uint64_t raddr, size_t len)
{
    rop_t *op = arm_rem_op_get(arm_core.node_of[proc]);
    op->req.op = (uint8_t)kind;
    op->req.target = proc;
    op->req.raddr = raddr;
    op->req.len = (uint32_t)len;
    return op;
}

void arm_rem_take_credit(const char *call, int node, int proc)
{
    arm_rem_deadline_t d = { 0, 0.0, 0.0 };
    while (arm_rc.credits[node] == 0)
        arm_rem_deadline_step(&d, call, proc, 10);
    arm_rc.credits[node]--;
}

/* Gives op's request its req_id: a reply's names the op; one without
 * reply is a sequence number remembered in a ring, for a refusal. */
void arm_rem_set_req_id(const char *call, rop_t *op, int want_reply)
{
    if (want_reply) {
        op->req.req_id = ((++arm_rc.gen) << 8) | (uint64_t)(op - arm_rc.ops);
        return;
    }
    uint64_t seq = ++arm_rc.noreply_seq;
    int i = (int)(seq % NOREPLY_RING);
    arm_rc.noreply[i].call = call;
    arm_rc.noreply[i].arg = arm_rem_arg_name(op->req.op);
    arm_rc.noreply[i].target = op->req.target;
    op->req.req_id = ARM_SRV_REQ_NOREPLY | (seq & ~ARM_SRV_REQ_NOREPLY);
}

/* Sends op's request with payload iov. detach: the op frees itself when
 * done (fire and forget); otherwise the caller waits and releases it.
 * Returns 1 when a get joined the non-blocking call under way instead: the
 * caller then neither waits nor releases. */
int arm_rem_op_send(const char *call, rop_t *op, const arm_net_iov_t *iov, size_t iovcnt,
                    int want_reply, int detach)
{
    uint8_t kind = op->req.op;
    int nb = arm_rem_nb_cur && want_reply && !detach &&
             (kind == ARM_SRV_GET || kind == ARM_SRV_GETSEG);
    /* A blocking request without payload rides the one sync slot: no credit.
     * A process has one such request outstanding at most (it waits for it),
     * unless several threads issue them (MPI_THREAD_MULTIPLE): then every
     * request takes a credit; so do the progress agent's. */
    int sync = !arm_rc.mt && !arm_rem_in_agent && !nb && iovcnt == 0 && want_reply &&
               (kind == ARM_SRV_GET || kind == ARM_SRV_RMW || kind == ARM_SRV_FENCE ||
                kind == ARM_SRV_LOCK || kind == ARM_SRV_TRYLOCK);
    op->call = call;
    int hop = arm_rc.hop[op->node];
    if (sync)
        op->req.op |= ARM_SRV_SYNC;
    else
        arm_rem_take_credit(call, hop, op->req.target);
    op->want_reply = want_reply;
    for (size_t i = 0; i < iovcnt; i++)
        op->iov[i] = iov[i];
    arm_rem_set_req_id(call, op, want_reply);
    /* Its target tells this process when it is served (decision 078). */
    op->hop_seq = ++arm_rc.seq_sent[hop];
    if (!want_reply && hop != op->node)
        arm_rc.fwd_sent[op->node]++;
    else if (!want_reply)
        arm_rc.seq_write[hop] = op->hop_seq;
    size_t hdr_len = sizeof op->req;
    if (arm_rc.inject)
        arm_rem_inject(call, op, op->iov, &iovcnt, &hdr_len);
    arm_net_ep_t *ep = arm_net_server_ep(arm_rc.net, hop);
    if (!ep)
        arm_fatal(call, "cannot reach rank %d (node %d), the server on the way to rank %d",
                  arm_core.node_leader[hop], hop, op->req.target);
    arm_net_comp_init(&op->send, arm_rem_send_done, op);
    /* One buffer goes as a contiguous send (UCX's short and copy protocols);
     * only a table plus data needs the gather of an iov. */
    arm_status_t st = iovcnt > 1
        ? arm_net_am_sendv(ep, ARM_SRV_AM_REQ, &op->req, hdr_len, op->iov, iovcnt,
                           op->am_flags, &op->send)
        : arm_net_am_send(ep, ARM_SRV_AM_REQ, &op->req, hdr_len,
                          iovcnt ? op->iov[0].buf : NULL, iovcnt ? op->iov[0].len : 0,
                          op->am_flags, &op->send);
    if (st != ARM_OK && st != ARM_INPROGRESS)
        arm_fatal(call, "cannot reach rank %d (node %d): sending a request to the server of "
                  "node %d failed: %s", op->req.target, op->node, hop, arm_status_str(st));
    if (arm_rc.inject)
        arm_rem_inject_after(call, op);
    if (!want_reply)
        arm_rem_agent_owed();
    if (nb) {
        arm_rem_nb_attach(call, op);
        return 1;
    }
    if (detach) {
        op->busy = 2;
        arm_rem_maybe_release(op);
    }
    return 0;
}

/* Sends op's request (header filled) with n bytes at src as its one payload,
 * by the protocol flags choose (0: UCX's), and waits until src may be reused. */
void arm_rem_op_send_whole(const char *call, rop_t *op, const void *src, size_t n,
                          unsigned flags)
{
    op->am_flags = flags;
    arm_net_iov_t iov = { (void *)src, n };
    arm_rem_op_send(call, op, &iov, 1, 0, 0);
    arm_rem_wait_sent(op);
    arm_rem_op_release(op);
}

/* Waits for op's reply (and local completion), returns it to the pool. */
void arm_rem_op_finish(const char *call, rop_t *op)
{
    arm_rem_wait_on(&op->replied, 0, call, op->req.target,
              (op->req.op & (uint8_t)~ARM_SRV_SYNC) != ARM_SRV_LOCK);
    arm_rem_wait_sent(op);
    if (op->status != ARM_OK)
        arm_fatal(call, "the server of node %d refused the request: %s", op->node,
                  arm_status_str((arm_status_t)op->status));
    arm_rem_op_release(op);
}
#endif /* ARMADA_HAVE_UCX */
