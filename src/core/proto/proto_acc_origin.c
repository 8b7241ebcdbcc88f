/* Accumulate at the origin (gemini III-B3, decision 060): the target rank's
 * accumulate lock is taken at its node's server (ARM_SRV_ACCLOCK, answered
 * when granted), then the target's bytes come over in chunks,
 * are combined here with the source and go back, with three buffers: while
 * one chunk is combined and put, the gets of the next two are in flight.
 * The lock is the one every other accumulate to the rank takes (server
 * path, same-node copies), so accumulates stay atomic whichever protocol
 * each takes. Gets and puts go by the transport's RMA where the node allows
 * it, else as server requests queued before the unlock. */
#define _POSIX_C_SOURCE 200809L
#include "arm_build_config.h"
#if ARMADA_HAVE_UCX
#include <stdlib.h>
#include <string.h>
#include "core/remote_int.h"

#define ACC_BUFS 3

typedef struct acc_chunk {
    char          *buf;        /* chunk bytes of arm_rc.acc_buf            */
    size_t         off, len;   /* its part of the transfer                 */
    rop_t         *get, *put;  /* server path: the requests in flight      */
    arm_net_comp_t gc, pc;     /* RMA: the get's and the put's completion  */
    arm_status_t   gst, pst;
    int            putting;
} acc_chunk_t;

typedef struct acc_origin {
    const char      *call;
    int              type, proc, node, rma;
    const void      *scale;
    const char      *src;
    uint64_t         raddr;
    size_t           n, chunk;
    arm_net_rkey_t  *rkey;
    acc_chunk_t      c[ACC_BUFS];
} acc_origin_t;

static void lock_request(const char *call, int kind, int proc)
{
    rop_t *op = arm_rem_op_new(kind, proc, 0, 0);
    if (kind == ARM_SRV_ACCUNLOCK) {
        arm_rem_op_send(call, op, NULL, 0, 0, 1);
        return;
    }
    arm_rem_op_send(call, op, NULL, 0, 1, 0);
    arm_rem_op_finish(call, op);
}

static void get_start(acc_origin_t *a, acc_chunk_t *c, size_t off)
{
    c->off = off;
    c->len = a->n - off < a->chunk ? a->n - off : a->chunk;
    if (a->rma) {
        arm_net_comp_init(&c->gc, NULL, NULL);
        c->gst = arm_net_get(a->rkey, c->buf, c->len, a->raddr + off, &c->gc);
        return;
    }
    /* A one-piece segmented get: it takes a credit, not the one sync slot,
     * so that two can be in flight; the reply lands in c->buf. */
    rop_t *op = c->get = arm_rem_op_get(a->node);
    op->req.op = ARM_SRV_GETSEG;
    op->req.target = a->proc;
    op->req.nseg = 1;
    op->req.len = (uint32_t)sizeof(arm_srv_seg_t);
    op->nseg = 1;
    op->tab[0].raddr = a->raddr + off;
    op->tab[0].len = c->len;
    op->loc[0].ptr = c->buf;
    arm_net_iov_t iov = { op->tab, sizeof(arm_srv_seg_t) };
    arm_rem_op_send(a->call, op, &iov, 1, 1, 0);
}

static void get_wait(acc_origin_t *a, acc_chunk_t *c)
{
    if (a->rma)
        arm_rem_rma_complete(a->call, c->gst, &c->gc, a->proc);
    else
        arm_rem_op_finish(a->call, c->get);
}

static void put_start(acc_origin_t *a, acc_chunk_t *c)
{
    c->putting = 1;
    if (a->rma) {
        arm_net_comp_init(&c->pc, NULL, NULL);
        c->pst = arm_net_put(a->rkey, c->buf, c->len, a->raddr + c->off, &c->pc);
        return;
    }
    rop_t *op = c->put = arm_rem_op_new(ARM_SRV_PUT, a->proc, a->raddr + c->off, c->len);
    arm_net_iov_t iov = { c->buf, c->len };
    arm_rem_op_send(a->call, op, &iov, 1, 0, 0);
}

/* Waits until c's buffer may be reused (the put has left). */
static void put_wait(acc_origin_t *a, acc_chunk_t *c)
{
    if (!c->putting)
        return;
    c->putting = 0;
    if (a->rma) {
        arm_rem_rma_complete(a->call, c->pst, &c->pc, a->proc);
        return;
    }
    arm_rem_wait_sent(c->put);
    arm_rem_op_release(c->put);
}

static void pipeline(acc_origin_t *a)
{
    size_t nch = (a->n + a->chunk - 1) / a->chunk;
    for (size_t k = 0; k < ACC_BUFS - 1 && k < nch; k++)
        get_start(a, &a->c[k], k * a->chunk);
    int cur = 0;
    for (size_t i = 0; i < nch; i++) {
        acc_chunk_t *c = &a->c[cur];
        get_wait(a, c);
        arm_acc_apply(a->type, a->scale, c->buf, a->src + c->off, c->len);
        put_start(a, c);
        /* The buffer two chunks ahead held the previous chunk's put. */
        int ahead = cur == 0 ? ACC_BUFS - 1 : cur - 1;
        if (i + ACC_BUFS - 1 < nch) {
            put_wait(a, &a->c[ahead]);
            get_start(a, &a->c[ahead], (i + ACC_BUFS - 1) * a->chunk);
        }
        cur = cur + 1 == ACC_BUFS ? 0 : cur + 1;
    }
    for (int k = 0; k < ACC_BUFS; k++)
        put_wait(a, &a->c[k]);
}

static void acc_setup(acc_origin_t *a, const char *call, const arm_slice_t *s)
{
    /* The transport's RMA where a put of the whole would take it, in chunks
     * of ACC_ORIGIN_CHUNK; through the server, a chunk is a slot (a
     * segmented get's reply fits one). Multiples of 16 bytes, the largest
     * accumulate element. */
    a->rma = arm_rem_path(ARM_FAM_PUT, a->n, a->node).proto == ARM_PROTO_RMA;
    size_t chunk = a->rma ? (size_t)arm_config.acc_origin_chunk : arm_rc.slot_size;
    a->chunk = chunk < 16 ? 16 : chunk - chunk % 16;
    if (ACC_BUFS * a->chunk > arm_rc.acc_buf_len) {
        free(arm_rc.acc_buf);
        arm_rc.acc_buf_len = 0;
        if (!(arm_rc.acc_buf = malloc(ACC_BUFS * a->chunk)))
            arm_fatal(call, "no memory for %d accumulate buffers of %zu bytes", ACC_BUFS,
                      a->chunk);
        arm_rc.acc_buf_len = ACC_BUFS * a->chunk;
    }
    for (int k = 0; k < ACC_BUFS; k++) {
        memset(&a->c[k], 0, sizeof a->c[k]);
        a->c[k].buf = arm_rc.acc_buf + (size_t)k * a->chunk;
    }
    a->rkey = a->rma ? arm_rem_rkey_for(call, s, a->node) : NULL;
}

void arm_rem_acc_origin(const char *call, int type, const void *scale, const void *src,
                        const arm_slice_t *s, uint64_t raddr, size_t n, int proc)
{
    acc_origin_t a;
    a.call = call;
    a.type = type;
    a.scale = scale;
    a.src = src;
    a.raddr = raddr;
    a.n = n;
    a.proc = proc;
    a.node = arm_core.node_of[proc];
    arm_rem_batch_send(call, 0);
    acc_setup(&a, call, s);
    /* Earlier writes of this process to the node land before the gets. */
    arm_rem_order_paths(a.node, a.rma);
    lock_request(call, ARM_SRV_ACCLOCK, proc);
    pipeline(&a);
    if (a.rma) {
        /* The puts complete at the target before the lock is let go. */
        arm_net_comp_t c;
        arm_net_comp_init(&c, NULL, NULL);
        arm_rem_rma_complete(call, arm_net_ep_flush(arm_net_server_ep(arm_rc.net, a.node), &c),
                             &c, proc);
    }
    lock_request(call, ARM_SRV_ACCUNLOCK, proc);
    arm_rem_mark_dirty(a.node, arm_rc.srv_dirty);
    COUNT(ARMADA_OP_ACC, a.rma ? ARMADA_PATH_RMA : ARMADA_PATH_SERVER, n);
}
#endif /* ARMADA_HAVE_UCX */
