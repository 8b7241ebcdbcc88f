/* Segmented requests: a table of pieces plus their data, cut into slot-size
 * requests and pipelined (accumulate, strided, vector). */
#define _POSIX_C_SOURCE 200809L
#include "arm_build_config.h"
#if ARMADA_HAVE_UCX
#include <stdlib.h>
#include <string.h>
#include "core/remote_int.h"

/* ---- segmented requests (accumulate, strided, vector) ------------------------------
 * A request's table has at most a slot's worth of entries. Its data is a
 * slot's worth with the table (the server reads both from one slot), or,
 * over a stream to a node reached directly, up to b->cap bytes beside it
 * (b->large: packed into op->big and sent eagerly; the server serves it
 * from the transport's buffer, and a get's reply is unpacked from the
 * transport's buffer; decision 072). */
static char *data_buf(const seg_builder_t *b, rop_t *op)
{
    return b->large ? op->big : op->buf;
}

void arm_rem_sb_flush(seg_builder_t *b)
{
    rop_t *op = b->cur;
    if (!op)
        return;
    b->cur = NULL;
    op->req.nseg = (uint16_t)op->nseg;
    size_t tab_bytes = (size_t)op->nseg * sizeof(arm_srv_seg_t);
    if (b->kind == ARM_SRV_GETSEG) {
        arm_net_iov_t iov = { op->tab, tab_bytes };
        op->req.len = (uint32_t)tab_bytes;
        if (arm_rem_op_send(b->call, op, &iov, 1, 1, 0))
            return;
        b->gets[b->ngets++] = op;
        if (b->ngets == arm_rc.depth) {
            for (int i = 0; i < b->ngets; i++)
                arm_rem_op_finish(b->call, b->gets[i]);
            b->ngets = 0;
        }
        return;
    }
    arm_net_iov_t iov[2] = { { op->tab, tab_bytes }, { data_buf(b, op), op->data_len } };
    op->req.len = (uint32_t)(tab_bytes + op->data_len);
    if (op->req.len > arm_rc.slot_size)
        op->am_flags = ARM_NET_AM_EAGER;
    arm_rem_op_send(b->call, op, iov, 2, 0, 1);
}

/* Bytes the current request of b can still take. */
static size_t room_of(const seg_builder_t *b, const rop_t *op)
{
    size_t slot = arm_rc.slot_size, tab = (size_t)(op->nseg + 1) * sizeof(arm_srv_seg_t);
    if (tab > slot)
        return 0;
    if (b->kind == ARM_SRV_GETSEG || b->large)   /* table and data apart */
        return b->cap > op->data_len ? b->cap - op->data_len : 0;
    return tab + op->data_len < slot ? slot - tab - op->data_len : 0;
}

/* Adds one contiguous piece: local address, remote address at the server. */
void arm_rem_sb_add(seg_builder_t *b, char *local, uint64_t raddr, size_t len)
{
    b->bytes += len;
    while (len > 0) {
        if (!b->cur) {
            rop_t *op = b->cur = arm_rem_op_get(b->node);
            op->req.op = (uint8_t)b->kind;
            op->req.sub = (uint8_t)b->type;
            op->req.target = b->proc;
            if (b->scale)
                memcpy(op->req.scale, b->scale, arm_acc_scale_size(b->type));
            /* Without memory for a larger buffer, a slot's worth. */
            if (b->large && b->kind != ARM_SRV_GETSEG && !arm_rem_op_big(op, b->cap)) {
                b->large = 0;
                b->cap = arm_rc.slot_size;
            }
        }
        rop_t *op = b->cur;
        size_t room = room_of(b, op);
        room -= room % b->elem;
        if (room == 0) {
            arm_rem_sb_flush(b);
            continue;
        }
        size_t take = len < room ? len : room;
        op->tab[op->nseg].raddr = raddr;
        op->tab[op->nseg].len = take;
        if (b->kind == ARM_SRV_GETSEG)
            op->lptr[op->nseg] = local;
        else
            memcpy(data_buf(b, op) + op->data_len, local, take);
        op->nseg++;
        op->data_len += take;
        local += take;
        raddr += take;
        len -= take;
    }
}

void arm_rem_sb_init(seg_builder_t *b, const char *call, int kind, int type,
                    const void *scale, int proc, size_t seg_max)
{
    memset(b, 0, sizeof *b);
    b->call = call;
    b->kind = kind;
    b->proc = proc;
    b->node = arm_core.node_of[proc];
    b->type = type;
    b->scale = scale;
    b->elem = kind == ARM_SRV_ACCSEG ? arm_acc_elem_size(type) : 1;
    b->large = seg_max > arm_rc.slot_size;
    b->cap = b->large ? seg_max : arm_rc.slot_size;
    arm_rem_order_paths(b->node, 0);
}

void arm_rem_sb_done(seg_builder_t *b, int op_family)
{
    arm_rem_sb_flush(b);
    for (int i = 0; i < b->ngets; i++)
        arm_rem_op_finish(b->call, b->gets[i]);
    if (b->kind != ARM_SRV_GETSEG)
        arm_rem_mark_dirty(b->node, arm_rc.srv_dirty);
    COUNT(op_family, ARMADA_PATH_SERVER, b->bytes);
}
#endif /* ARMADA_HAVE_UCX */
