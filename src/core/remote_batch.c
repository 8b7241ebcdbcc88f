#define _POSIX_C_SOURCE 200809L
#include "arm_build_config.h"
#if ARMADA_HAVE_UCX
#include <stdlib.h>
#include <string.h>
#include "core/remote_int.h"

/* ---- aggregation -------------------------------------------------------------
 * Small puts and accumulates to one node are packed into one request and
 * sent when the process does anything else: another node, another kind of
 * operation, a fence (which then rides in the same message), or a call that
 * could let another process observe the data. ARMCI guarantees a put at the
 * target only after a fence, so holding it until then is within the
 * interface; ARMADA_AGGREGATE=0 sends every operation at once.
 *
 * A batch holds a slot's worth, or, to a node reached directly over a
 * stream, up to the path's seg_max in the op's larger buffer, sent eagerly
 * (decision 073): there every request costs a wake-up and a system call
 * at both ends. */

static char *batch_buf(rop_t *op)
{
    return arm_rc.batch_cap > arm_rc.slot_size ? op->big : op->buf;
}

void arm_rem_batch_send(const char *call, int with_fence)
{
    rop_t *op = arm_rc.batch;
    if (!op)
        return;
    arm_rc.batch = NULL;
    op->req.op = ARM_SRV_BATCH;
    op->req.sub = (uint8_t)with_fence;
    op->req.len = (uint32_t)arm_rc.batch_used;
    arm_net_iov_t iov = { batch_buf(op), arm_rc.batch_used };
    if (arm_rc.batch_used > arm_rc.slot_size)
        op->am_flags = ARM_NET_AM_EAGER;
    /* Under threads the send may wait for a credit with the process lock
     * dropped: the batch may carry other threads' writes, whose fences must
     * not overtake it (fence_node waits for unsent to drop). */
    int node = op->node;
    arm_rc.unsent[node]++;
    arm_rem_op_send(call, op, &iov, 1, with_fence, !with_fence);
    arm_rc.unsent[node]--;
    if (with_fence)
        arm_rem_op_finish(call, op);
}

/* Callers have ordered the write against the RMA path (order_paths). */
void arm_rem_batch_add(const char *call, int kind, int type, const void *scale,
                      const void *src, size_t n, uint64_t raddr, int proc, size_t cap)
{
    int node = arm_core.node_of[proc];
    size_t need = sizeof(arm_srv_batch_ent_t) + ((n + 7) & ~(size_t)7);
    if (cap < arm_rc.slot_size)
        cap = arm_rc.slot_size;
    /* A wait (for a request, a credit) lets other threads change the batch
     * under MPI_THREAD_MULTIPLE: look again after each. */
    for (;;) {
        rop_t *b = arm_rc.batch;
        if (b && (arm_rc.batch_node != node || arm_rc.batch_cap != cap ||
                  arm_rc.batch_used + need > cap || b->nseg == 65535)) {
            arm_rem_batch_send(call, 0);
            continue;
        }
        if (b)
            break;
        rop_t *op = arm_rem_op_get(node);
        if (arm_rc.batch) {
            arm_rem_op_release(op);
            continue;
        }
        /* Without memory for the larger buffer, a slot's worth. */
        if (cap > arm_rc.slot_size && !arm_rem_op_big(op, cap))
            cap = arm_rc.slot_size;
        arm_rc.batch = op;
        arm_rc.batch_node = node;
        arm_rc.batch_used = 0;
        arm_rc.batch_cap = cap;
        break;
    }
    arm_srv_batch_ent_t e;
    memset(&e, 0, sizeof e);
    e.op = (uint8_t)kind;
    e.type = (uint8_t)type;
    e.target = proc;
    e.len = (uint32_t)n;
    e.raddr = raddr;
    if (scale)
        memcpy(e.scale, scale, arm_acc_scale_size(type));
    char *buf = batch_buf(arm_rc.batch);
    memcpy(buf + arm_rc.batch_used, &e, sizeof e);
    memcpy(buf + arm_rc.batch_used + sizeof e, src, n);
    arm_rc.batch_used += need;
    arm_rc.batch->req.nseg = (uint16_t)++arm_rc.batch->nseg;
    arm_rem_mark_dirty(node, arm_rc.srv_dirty);
}

static void locked_flush(void)
{
    if (arm_rc.active)
        arm_rem_batch_send("ARMCI", 0);
}
void arm_remote_flush(void)
{
    arm_rem_enter();
    locked_flush();
    arm_rem_leave();
}
#endif /* ARMADA_HAVE_UCX */
