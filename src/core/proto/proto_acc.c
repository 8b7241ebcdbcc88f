/* Contiguous accumulate, by size: aggregated, copied, one request or
 * segmented to the target node's server, or done at the origin
 * (proto_acc_origin.c) when arm_path_choose says so. */
#define _POSIX_C_SOURCE 200809L
#include "arm_build_config.h"
#if ARMADA_HAVE_UCX
#include <stdlib.h>
#include <string.h>
#include "core/remote_int.h"

static rop_t *acc_request(int type, const void *scale, uint64_t raddr, size_t n, int proc)
{
    rop_t *op = arm_rem_op_new(ARM_SRV_ACC, proc, raddr, n);
    op->req.sub = (uint8_t)type;
    memcpy(op->req.scale, scale, arm_acc_scale_size(type));
    return op;
}

static void locked_acc(const char *call, int type, const void *scale, const void *src,
                    const arm_slice_t *s, uintptr_t dst, size_t n, int proc)
{
    int node = arm_core.node_of[proc];
    uint64_t raddr = s->raddr + (dst - s->base);
    arm_path_t p = arm_rem_path(ARM_FAM_ACC, n, node);
    if (p.proto == ARM_PROTO_ORIGIN) {
        arm_rem_acc_origin(call, type, scale, src, s, raddr, n, proc);
        return;
    }
    arm_rem_order_paths(node, 0);
    if (p.proto == ARM_PROTO_BATCH) {
        arm_rem_batch_add(call, ARM_SRV_ACC, type, scale, src, n, raddr, proc, p.seg_max);
        COUNT(ARMADA_OP_ACC, ARMADA_PATH_SERVER, n);
        return;
    }
    arm_rem_batch_send(call, 0);
    if (p.proto == ARM_PROTO_COPY) {
        rop_t *op = acc_request(type, scale, raddr, n, proc);
        memcpy(op->buf, src, n);
        arm_net_iov_t iov = { op->buf, n };
        arm_rem_op_send(call, op, &iov, 1, 0, 1);
    } else if (p.proto == ARM_PROTO_WHOLE) {
        /* Over a stream transport, one eager request, combined from UCX's
         * buffer (decision 013); elsewhere the chunks below overlap
         * transfer and combining. */
        arm_rem_op_send_whole(call, acc_request(type, scale, raddr, n, proc), src, n,
                              ARM_NET_AM_EAGER);
    } else {
        seg_builder_t b;
        arm_rem_sb_init(&b, call, ARM_SRV_ACCSEG, type, scale, proc, p.seg_max);
        arm_rem_sb_add(&b, (char *)src, raddr, n);
        arm_rem_sb_done(&b, ARMADA_OP_ACC);
        return;
    }
    arm_rem_mark_dirty(node, arm_rc.srv_dirty);
    COUNT(ARMADA_OP_ACC, ARMADA_PATH_SERVER, n);
}
void arm_remote_acc(const char *call, int type, const void *scale, const void *src,
                    const arm_slice_t *s, uintptr_t dst, size_t n, int proc)
{
    if (arm_rc.mt && arm_rem_batch_fast(ARM_FAM_ACC, ARM_SRV_ACC, type, scale, src, n,
                                        s->raddr + (dst - s->base), proc)) {
        COUNT(ARMADA_OP_ACC, ARMADA_PATH_SERVER, n);
        return;
    }
    arm_rem_enter();
    int node = arm_core.node_of[proc];
    if (arm_rem_agent_takes(ARM_FAM_ACC, n, node)) {
        arm_rem_job_t j = { .kind = ARM_JOB_ACC, .call = call, .type = type, .proc = proc,
                            .src = (void *)src, .slice = s, .addr = dst, .n = n };
        memcpy(j.scale, scale, arm_acc_scale_size(type));
        arm_rem_agent_submit(&j);
    } else {
        arm_rem_agent_order(call, node);
        locked_acc(call, type, scale, src, s, dst, n, proc);
    }
    arm_rem_leave();
}
#endif /* ARMADA_HAVE_UCX */
