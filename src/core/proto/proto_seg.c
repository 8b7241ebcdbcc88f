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
    /* The data starts 64-byte aligned: the table's padding goes as zeros. */
    size_t off = arm_srv_seg_data_off((unsigned)op->nseg);
    memset((char *)op->tab + tab_bytes, 0, off - tab_bytes);
    arm_net_iov_t iov[2] = { { op->tab, off }, { data_buf(b, op), op->data_len } };
    op->req.len = (uint32_t)(off + op->data_len);
    if (op->req.len > arm_rc.slot_size)
        op->am_flags = ARM_NET_AM_EAGER;
    arm_rem_op_send(b->call, op, iov, 2, 0, 1);
}

/* Bytes the current request of b can still take. */
static size_t room_of(const seg_builder_t *b, const rop_t *op)
{
    size_t slot = arm_rc.slot_size, tab = arm_srv_seg_data_off((unsigned)op->nseg + 1);
    if (tab > slot)
        return 0;
    if (b->kind == ARM_SRV_GETSEG || b->large)   /* table and data apart */
        return b->cap > op->data_len ? b->cap - op->data_len : 0;
    return tab + op->data_len < slot ? slot - tab - op->data_len : 0;
}

/* Does the whole piece (local, raddr, len) join cur's last entry as one
 * more piece of a run (decision 077)? A piece the same length as the last,
 * a stride further on at the target (and, for a get, a constant step further
 * on here), extends its run, or makes a run of a plain entry; that costs one
 * table entry at most, which room_of has reserved. */
static int run_join(seg_builder_t *b, rop_t *op, char *local, uint64_t raddr, size_t len)
{
    int i = b->last;
    if (i < 0)
        return 0;
    arm_srv_seg_t *e = &op->tab[i];
    int get = b->kind == ARM_SRV_GETSEG;
    if (!(e->len & ARM_SRV_SEG_RUN)) {
        if (e->len != len || raddr <= e->raddr)
            return 0;
        e->len |= ARM_SRV_SEG_RUN;
        op->tab[i + 1] = (arm_srv_seg_t){ raddr - e->raddr, 2 };
        if (get)
            op->loc[i + 1].step = (ptrdiff_t)((uintptr_t)local - (uintptr_t)op->loc[i].ptr);
        op->nseg++;
        return 1;
    }
    arm_srv_seg_t *r = &op->tab[i + 1];
    if ((e->len & ~ARM_SRV_SEG_RUN) != len || raddr != e->raddr + r->len * r->raddr ||
        (get && (uintptr_t)local != (uintptr_t)op->loc[i].ptr +
                                    (uintptr_t)r->len * (uintptr_t)op->loc[i + 1].step))
        return 0;
    r->len++;
    return 1;
}

/* Adds one contiguous piece: local address, remote address at the server. */
void arm_rem_sb_add(seg_builder_t *b, char *local, uint64_t raddr, size_t len)
{
    b->bytes += len;
    while (len > 0) {
        if (!b->cur) {
            b->last = -1;
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
        if (take < len || !run_join(b, op, local, raddr, take)) {
            b->last = take < len ? -1 : op->nseg;
            op->tab[op->nseg].raddr = raddr;
            op->tab[op->nseg].len = take;
            if (b->kind == ARM_SRV_GETSEG)
                op->loc[op->nseg].ptr = local;
            op->nseg++;
        }
        if (b->kind != ARM_SRV_GETSEG)
            memcpy(data_buf(b, op) + op->data_len, local, take);
        op->data_len += take;
        local += take;
        raddr += take;
        len -= take;
    }
}

/* Adds n pieces of len bytes, the k-th at local + k * lstep here and
 * raddr + k * rstride at the server: the same as n calls of arm_rem_sb_add,
 * but once a run is open in the request the pieces that fit join it in
 * bulk, without the per-piece bookkeeping. */
void arm_rem_sb_add_run(seg_builder_t *b, char *local, ptrdiff_t lstep, uint64_t raddr,
                        uint64_t rstride, size_t len, size_t n)
{
    int get = b->kind == ARM_SRV_GETSEG;
    while (n > 0) {
        arm_rem_sb_add(b, local, raddr, len);
        local += lstep;
        raddr += rstride;
        n--;
        rop_t *op = b->cur;
        if (n == 0 || !op || b->last < 0)
            continue;
        size_t room = room_of(b, op);
        room -= room % b->elem;
        size_t m = room / len < n ? room / len : n;
        if (m == 0 || !run_join(b, op, local, raddr, len))
            continue;   /* the next piece goes the general way */
        /* It joined. The rest join in bulk only if the run it joined has
         * this call's stride and step (an older run may have another). */
        arm_srv_seg_t *r = &op->tab[b->last + 1];
        if (r->raddr != rstride || (get && op->loc[b->last + 1].step != lstep))
            m = 1;
        r->len += m - 1;
        if (!get) {
            char *d = data_buf(b, op) + op->data_len;
            for (size_t k = 0; k < m; k++, d += len)
                memcpy(d, local + (ptrdiff_t)k * lstep, len);
        }
        op->data_len += m * len;
        b->bytes += m * len;
        local += (ptrdiff_t)m * lstep;
        raddr += m * rstride;
        n -= m;
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
    b->last = -1;
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
