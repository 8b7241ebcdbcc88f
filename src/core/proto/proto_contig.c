/* Contiguous put and get, by the path arm_path_choose gives. */
#define _POSIX_C_SOURCE 200809L
#include "arm_build_config.h"
#if ARMADA_HAVE_UCX
#include <string.h>
#include "core/remote_int.h"

static unsigned am_flags(unsigned path_flags)
{
    return (path_flags & ARM_PATH_AM_EAGER ? ARM_NET_AM_EAGER : 0) |
           (path_flags & ARM_PATH_AM_RNDV ? ARM_NET_AM_RNDV : 0);
}

static void locked_put(const char *call, const void *src, const arm_slice_t *s, uintptr_t dst,
                    size_t n, int proc)
{
    int node = arm_core.node_of[proc];
    uint64_t raddr = s->raddr + (dst - s->base);
    arm_path_t p = arm_rem_path(ARM_FAM_PUT, n, node);
    arm_rem_order_paths(node, p.proto == ARM_PROTO_RMA);
    switch (p.proto) {
    case ARM_PROTO_RMA: {
        arm_net_comp_t c;
        arm_net_comp_init(&c, NULL, NULL);
        arm_rem_rma_complete(call, arm_net_put(arm_rem_rkey_for(call, s, node), src, n, raddr,
                                               &c), &c, proc);
        arm_rem_mark_dirty(node, arm_rc.rma_dirty);
        COUNT(ARMADA_OP_PUT, ARMADA_PATH_RMA, n);
        return;
    }
    case ARM_PROTO_BATCH:
        arm_rem_batch_add(call, ARM_SRV_PUT, 0, NULL, src, n, raddr, proc, p.seg_max);
        COUNT(ARMADA_OP_PUT, ARMADA_PATH_SERVER, n);
        return;
    case ARM_PROTO_COPY: {
        /* Copied into a slot-size buffer and sent without waiting. */
        arm_rem_batch_send(call, 0);
        rop_t *op = arm_rem_op_new(ARM_SRV_PUT, proc, raddr, n);
        memcpy(op->buf, src, n);
        arm_net_iov_t iov = { op->buf, n };
        arm_rem_op_send(call, op, &iov, 1, 0, 1);
        break;
    }
    case ARM_PROTO_SEG: {
        /* Through forwarding servers: slot-size pieces, pipelined. */
        arm_rem_batch_send(call, 0);
        seg_builder_t b;
        arm_rem_sb_init(&b, call, ARM_SRV_PUTSEG, 0, NULL, proc, p.seg_max);
        arm_rem_sb_add(&b, (char *)src, raddr, n);
        arm_rem_sb_done(&b, ARMADA_OP_PUT);
        return;
    }
    default: {
        /* One request sent from the source, whatever the size; locally
         * complete when the send is. Beyond a slot: eager up to
         * eager_write_max (the server copies from UCX's buffer, which it
         * may keep while the request waits its turn), a rendezvous beyond,
         * which the server receives straight into the destination
         * (decision 013). */
        arm_rem_batch_send(call, 0);
        rop_t *op = arm_rem_op_new(ARM_SRV_PUT, proc, raddr, n);
        arm_rem_op_send_whole(call, op, src, n, am_flags(p.am_flags));
        break;
    }
    }
    arm_rem_mark_dirty(node, arm_rc.srv_dirty);
    COUNT(ARMADA_OP_PUT, ARMADA_PATH_SERVER, n);
}

/* A get by the transport's own get; non-blocking inside an NbGet call. */
static void get_rma(const char *call, const arm_slice_t *s, uint64_t raddr, void *dst,
                    size_t n, int proc)
{
    int node = arm_core.node_of[proc];
    if (arm_rem_nb_cur) {
        /* Non-blocking: the request's own completion tracks the get. */
        rop_t *op = arm_rem_op_get(node);
        op->req.target = proc;
        arm_net_comp_init(&op->send, arm_rem_send_done, op);
        arm_status_t st = arm_net_get(arm_rem_rkey_for(call, s, node), dst, n, raddr, &op->send);
        if (st != ARM_OK && st != ARM_INPROGRESS)
            arm_fatal(call, "get from rank %d failed: %s", proc, arm_status_str(st));
        arm_rem_nb_attach(call, op);
        return;
    }
    arm_net_comp_t c;
    arm_net_comp_init(&c, NULL, NULL);
    arm_rem_rma_complete(call, arm_net_get(arm_rem_rkey_for(call, s, node), dst, n, raddr, &c),
                         &c, proc);
}

static void locked_get(const char *call, const arm_slice_t *s, uintptr_t src, void *dst,
                    size_t n, int proc)
{
    arm_rem_batch_send(call, 0);
    int node = arm_core.node_of[proc];
    uint64_t raddr = s->raddr + (src - s->base);
    arm_path_t p = arm_rem_path(ARM_FAM_GET, n, node);
    arm_rem_order_paths(node, p.proto == ARM_PROTO_RMA);
    if (p.proto == ARM_PROTO_RMA) {
        get_rma(call, s, raddr, dst, n, proc);
        COUNT(ARMADA_OP_GET, ARMADA_PATH_RMA, n);
        return;
    }
    /* One request; the reply streams straight from the target's memory into
     * dst, whatever its size. (Splitting a large get into concurrent chunks
     * was measured slower on loopback TCP: 3.3 against 5.7 GB/s at 1 MiB.) */
    rop_t *op = arm_rem_op_new(ARM_SRV_GET, proc, raddr, n);
    op->dst = dst;
    if (!arm_rem_op_send(call, op, NULL, 0, 1, 0))
        arm_rem_op_finish(call, op);
    COUNT(ARMADA_OP_GET, ARMADA_PATH_SERVER, n);
}
/* Decision 068: a put or get to a mapped node that the path would send by
 * the transport's put or get (a memcpy there) is done here, without the
 * client's lock, so threads of one process copy side by side. Only when
 * the node is clean for this thread's own order: no server write of its
 * outstanding, no fence under way, no job queued to the agent (these are
 * set under the lock by the thread that issues them, so a thread always
 * sees its own; other threads' operations are not ordered with it anyway).
 * Otherwise, or on first use (the key not unpacked yet), the locked path. */
static inline char *mapped_fast(arm_path_family_t fam, const arm_slice_t *s, uintptr_t addr,
                               size_t n, int node)
{
    const remote_alloc_t *ra = s->alloc->remote;
    char *base;
    if (!ra || !ra->fast || !(base = __atomic_load_n(&ra->fast[node], __ATOMIC_ACQUIRE)))
        return NULL;
    /* A non-blocking call the agent would carry stays non-blocking. */
    if (arm_rem_nb_cur && arm_rc.agent && !arm_rem_in_agent && arm_path_offload(fam, n, &arm_rc.ps))
        return NULL;
    if (__atomic_load_n(&arm_rc.srv_dirty[node], __ATOMIC_RELAXED) ||
        __atomic_load_n(&arm_rc.fencing[node], __ATOMIC_RELAXED) ||
        (arm_rc.agent_pending && __atomic_load_n(&arm_rc.agent_pending[node], __ATOMIC_RELAXED)))
        return NULL;
    /* The one path choice decides (the node's bits were learnt before fast
     * was published with release). */
    if (arm_path_choose(fam, n, arm_rc.node_caps[node], 0, &arm_rc.ps).proto != ARM_PROTO_RMA)
        return NULL;
    uint64_t off = s->raddr + (addr - s->base) - ra->node_base[node];
    if (off > ra->node_map[node].len || n > ra->node_map[node].len - off)
        return NULL;
    return base + off;
}

static inline void count_fast(int op, size_t n)
{
    COUNT(op, ARMADA_PATH_RMA, n);
    arm_stat_add(&arm_core.opstats[ARM_STAT_SHARD()].mapped, 1);
}

void arm_remote_put(const char *call, const void *src, const arm_slice_t *s, uintptr_t dst,
                    size_t n, int proc)
{
    char *m = mapped_fast(ARM_FAM_PUT, s, dst, n, arm_core.node_of[proc]);
    if (m) {
        memcpy(m, src, n);
        count_fast(ARMADA_OP_PUT, n);
        return;
    }
    if (arm_rc.mt && arm_rem_batch_fast(ARM_FAM_PUT, ARM_SRV_PUT, 0, NULL, src, n,
                                        s->raddr + (dst - s->base), proc)) {
        COUNT(ARMADA_OP_PUT, ARMADA_PATH_SERVER, n);
        return;
    }
    arm_rem_enter();
    int node = arm_core.node_of[proc];
    if (arm_rem_agent_takes(ARM_FAM_PUT, n, node)) {
        arm_rem_job_t j = { .kind = ARM_JOB_PUT, .call = call, .proc = proc,
                            .src = (void *)src, .slice = s, .addr = dst, .n = n };
        arm_rem_agent_submit(&j);
    } else {
        arm_rem_agent_order(call, node);
        locked_put(call, src, s, dst, n, proc);
    }
    arm_rem_leave();
}
void arm_remote_get(const char *call, const arm_slice_t *s, uintptr_t src, void *dst,
                    size_t n, int proc)
{
    char *m = mapped_fast(ARM_FAM_GET, s, src, n, arm_core.node_of[proc]);
    if (m) {
        memcpy(dst, m, n);
        count_fast(ARMADA_OP_GET, n);
        return;
    }
    arm_rem_enter();
    int node = arm_core.node_of[proc];
    if (arm_rem_agent_takes(ARM_FAM_GET, n, node)) {
        arm_rem_job_t j = { .kind = ARM_JOB_GET, .call = call, .proc = proc,
                            .dst = dst, .slice = s, .addr = src, .n = n };
        arm_rem_agent_submit(&j);
    } else {
        arm_rem_agent_order(call, node);
        locked_get(call, s, src, dst, n, proc);
    }
    arm_rem_leave();
}
#endif /* ARMADA_HAVE_UCX */
