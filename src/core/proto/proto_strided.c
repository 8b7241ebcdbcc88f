/* Strided and vector transfers, through the segment builder. */
#define _POSIX_C_SOURCE 200809L
#include "arm_build_config.h"
#if ARMADA_HAVE_UCX
#include <stdlib.h>
#include <string.h>
#include "core/remote_int.h"

typedef struct strided_remote {
    seg_builder_t *b;
    char *local;
    uint64_t rbase;
    int remote_is_src;
} strided_remote_t;

static void strided_run(void *ctx, size_t soff, size_t doff, size_t len, size_t n,
                        size_t sstep, size_t dstep)
{
    strided_remote_t *x = ctx;
    if (x->remote_is_src)
        arm_rem_sb_add_run(x->b, x->local + doff, (ptrdiff_t)dstep, x->rbase + soff, sstep,
                           len, n);
    else
        arm_rem_sb_add_run(x->b, x->local + soff, (ptrdiff_t)sstep, x->rbase + doff, dstep,
                           len, n);
}

/* ---- pipelined zero-copy chunks (gemini III-B2, decision 057) ------------------------
 * Each contiguous chunk goes by the transport's own put or get, straight
 * between the caller's memory and the target's registered segment, with at
 * most arm_rc.depth chunks in flight; no packing copy. */
typedef struct rma_pipe {
    const char *call;
    arm_net_rkey_t *rkey;
    int proc, get, next;
    arm_net_comp_t comp[OP_POOL / 2];
    size_t bytes;
} rma_pipe_t;

static void pipe_init(rma_pipe_t *p, const char *call, const arm_slice_t *s, int proc, int get)
{
    int node = arm_core.node_of[proc];
    p->call = call;
    p->proc = proc;
    p->get = get;
    p->next = 0;
    p->bytes = 0;
    for (int i = 0; i < arm_rc.depth; i++)
        arm_net_comp_init(&p->comp[i], NULL, NULL);
    arm_rem_order_paths(node, 1);
    p->rkey = arm_rem_rkey_for(call, s, node);
}

static void pipe_chunk(rma_pipe_t *p, char *local, uint64_t raddr, size_t len)
{
    arm_net_comp_t *c = &p->comp[p->next];
    p->next = (p->next + 1) % arm_rc.depth;
    if (c->pending)
        arm_rem_rma_complete(p->call, ARM_INPROGRESS, c, p->proc);
    else if (c->status != ARM_OK)
        arm_rem_rma_complete(p->call, c->status, c, p->proc);
    arm_net_comp_init(c, NULL, NULL);
    arm_status_t st = p->get ? arm_net_get(p->rkey, local, len, raddr, c)
                             : arm_net_put(p->rkey, local, len, raddr, c);
    if (st != ARM_INPROGRESS)
        arm_rem_rma_complete(p->call, st, c, p->proc);
    p->bytes += len;
}

static void pipe_done(rma_pipe_t *p, int op_family)
{
    for (int i = 0; i < arm_rc.depth; i++)
        if (p->comp[i].pending)
            arm_rem_rma_complete(p->call, ARM_INPROGRESS, &p->comp[i], p->proc);
    if (!p->get)
        arm_rem_mark_dirty(arm_core.node_of[p->proc], arm_rc.rma_dirty);
    COUNT(op_family, ARMADA_PATH_RMA, p->bytes);
}

typedef struct strided_pipe {
    rma_pipe_t *p;
    char *local;
    uint64_t rbase;
} strided_pipe_t;

static void pipe_piece(void *ctx, size_t soff, size_t doff, size_t len)
{
    strided_pipe_t *x = ctx;
    if (x->p->get)
        pipe_chunk(x->p, x->local + doff, x->rbase + soff, len);
    else
        pipe_chunk(x->p, x->local + soff, x->rbase + doff, len);
}

/* ---- mapped nodes (decision 079) -------------------------------------------------------
 * A node of this host whose segment is mapped here (decision 068) is
 * written and read by memcpy. Where the path says so (ARM_PROTO_MAPPED: a
 * put or get, no server write of this process outstanding there, nothing
 * forced), a strided or vector transfer to it is one local copy, row by
 * row, instead of a packed request through its server (small rows) or one
 * transport call per row (large ones): the same work as a copy within the
 * node. A span outside the mapping (a named segment) takes the transport's
 * own put and get instead. */
static char *mapped_at(const char *call, const arm_slice_t *s, const void *remote, size_t len,
                       int node)
{
    const remote_alloc_t *ra = s->alloc->remote;
    if (!ra || !ra->fast)
        return NULL;
    arm_rem_rkey_for(call, s, node);   /* maps it, on first use */
    char *base = ra->fast[node];
    if (!base)
        return NULL;
    uint64_t off = s->raddr + ((uintptr_t)remote - s->base) - ra->node_base[node];
    if (off > ra->node_map[node].len || len > ra->node_map[node].len - off)
        return NULL;
    return base + off;
}

typedef struct mapped_copy {
    const char *src;
    char *dst;
} mapped_copy_t;

static void mapped_run(void *ctx, size_t soff, size_t doff, size_t len, size_t n,
                       size_t sstep, size_t dstep)
{
    const mapped_copy_t *x = ctx;
    for (size_t k = 0; k < n; k++)
        memcpy(x->dst + doff + k * dstep, x->src + soff + k * sstep, len);
}

static void mapped_count(int op, size_t bytes)
{
    COUNT(op, ARMADA_PATH_RMA, bytes);
    arm_stat_add(&arm_core.opstats[ARM_STAT_SHARD()].mapped, 1);
}

static int mapped_strided(const char *call, int op, const arm_slice_t *s, void *src,
                          const int *src_stride, void *dst, const int *dst_stride,
                          const int *count, int levels, int proc)
{
    int node = arm_core.node_of[proc], get = op == ARMADA_OP_GETS;
    void *remote = get ? src : dst;
    char *m = mapped_at(call, s, remote,
                        arm_strided_extent(levels, count, get ? src_stride : dst_stride), node);
    if (!m)
        return 0;
    mapped_copy_t x = { get ? m : (const char *)src, get ? (char *)dst : m };
    arm_strided_for_each_run(levels, count, src_stride, dst_stride, mapped_run, &x);
    mapped_count(op, arm_strided_bytes(levels, count));
    return 1;
}

static int mapped_vector(const char *call, int op, const void *const *src, void *const *dst,
                         int n, size_t bytes, int proc)
{
    int node = arm_core.node_of[proc], get = op == ARMADA_OP_GETV;
    const char *arg = get ? "iov.src_ptr_array" : "iov.dst_ptr_array";
    /* Each segment translated once. One outside the mapping (rare: a named
     * segment) sends the whole call to the transport's path, which copies
     * the segments already copied here again: the same bytes from the same
     * origin, so the result is the same (accumulates never come here). */
    for (int i = 0; i < n; i++) {
        const void *rp = get ? src[i] : dst[i];
        char *m = mapped_at(call, arm_reg_translate(call, arg, proc, rp, bytes), rp, bytes,
                            node);
        if (!m)
            return 0;
        if (get)
            memcpy(dst[i], m, bytes);
        else
            memcpy(m, src[i], bytes);
    }
    mapped_count(op, bytes * (size_t)n);
    return 1;
}

/* The chunk path of a strided or vector call to proc's node. */
static arm_path_t chunk_path(arm_path_family_t fam, int op, size_t chunk, size_t count,
                             int proc)
{
    int node = arm_core.node_of[proc];
    int put = op == ARMADA_OP_PUTS || op == ARMADA_OP_PUTV;
    int acc = !put && op != ARMADA_OP_GETS && op != ARMADA_OP_GETV;
    return arm_path_choose_chunks(fam, put, acc, chunk, count, arm_rem_caps(node),
                                  arm_rc.srv_dirty[node] || arm_rc.fencing[node], &arm_rc.ps);
}

static void locked_strided(const char *call, int op, int type, const void *scale,
                        void *src, const int *src_stride, void *dst, const int *dst_stride,
                        const int *count, int levels, int proc)
{
    arm_rem_batch_send(call, 0);
    int remote_is_src = op == ARMADA_OP_GETS;
    void *remote = remote_is_src ? src : dst;
    arm_slice_t *s = arm_reg_lookup(proc, (uintptr_t)remote, 0);
    size_t nchunks = 1;
    for (int l = 1; l <= levels; l++)
        nchunks *= (size_t)count[l];
    arm_path_t path = chunk_path(ARM_FAM_STRIDED, op, (size_t)count[0], nchunks, proc);
    if (path.proto == ARM_PROTO_MAPPED &&
        mapped_strided(call, op, s, src, src_stride, dst, dst_stride, count, levels, proc))
        return;
    if (path.proto == ARM_PROTO_RMA || path.proto == ARM_PROTO_MAPPED) {
        rma_pipe_t p;
        pipe_init(&p, call, s, proc, remote_is_src);
        strided_pipe_t x = { &p, remote_is_src ? dst : src,
                             s->raddr + ((uintptr_t)remote - s->base) };
        arm_strided_for_each(levels, count, src_stride, dst_stride, pipe_piece, &x);
        pipe_done(&p, op);
        return;
    }
    seg_builder_t b;
    int kind = op == ARMADA_OP_GETS ? ARM_SRV_GETSEG
             : op == ARMADA_OP_PUTS ? ARM_SRV_PUTSEG : ARM_SRV_ACCSEG;
    arm_rem_sb_init(&b, call, kind, type, scale, proc, path.seg_max);
    strided_remote_t x = { &b, remote_is_src ? dst : src,
                           s->raddr + ((uintptr_t)remote - s->base), remote_is_src };
    arm_strided_for_each_run(levels, count, src_stride, dst_stride, strided_run, &x);
    arm_rem_sb_done(&b, op);
}

static void locked_vector(const char *call, int op, int type, const void *scale,
                       const void *const *src, void *const *dst, int n, size_t bytes,
                       int proc)
{
    arm_rem_batch_send(call, 0);
    int remote_is_src = op == ARMADA_OP_GETV;
    int kind = op == ARMADA_OP_GETV ? ARM_SRV_GETSEG
             : op == ARMADA_OP_PUTV ? ARM_SRV_PUTSEG : ARM_SRV_ACCSEG;
    const char *arg = remote_is_src ? "iov.src_ptr_array" : "iov.dst_ptr_array";
    arm_path_t path = n > 0 ? chunk_path(ARM_FAM_VECTOR, op, bytes, (size_t)n, proc)
                            : (arm_path_t){ ARM_PROTO_SEG, 0, 0 };
    if (path.proto == ARM_PROTO_MAPPED && mapped_vector(call, op, src, dst, n, bytes, proc))
        return;
    if (path.proto == ARM_PROTO_RMA || path.proto == ARM_PROTO_MAPPED) {
        /* One pipeline per allocation the segments fall in: a run of
         * segments in one allocation shares its remote key. */
        rma_pipe_t p;
        const arm_slice_t *cur = NULL;
        for (int i = 0; i < n; i++) {
            const void *rp = remote_is_src ? src[i] : dst[i];
            arm_slice_t *s = arm_reg_translate(call, arg, proc, rp, bytes);
            if (s != cur) {
                if (cur)
                    pipe_done(&p, op);
                pipe_init(&p, call, s, proc, remote_is_src);
                cur = s;
            }
            pipe_chunk(&p, remote_is_src ? (char *)dst[i] : (char *)src[i],
                       s->raddr + ((uintptr_t)rp - s->base), bytes);
        }
        pipe_done(&p, op);
        return;
    }
    seg_builder_t b;
    arm_rem_sb_init(&b, call, kind, type, scale, proc, path.seg_max);
    for (int i = 0; i < n; i++) {
        const void *rp = remote_is_src ? src[i] : dst[i];
        arm_slice_t *s = arm_reg_translate(call, arg, proc, rp, bytes);
        uint64_t raddr = s->raddr + ((uintptr_t)rp - s->base);
        arm_rem_sb_add(&b, remote_is_src ? (char *)dst[i] : (char *)src[i], raddr, bytes);
    }
    arm_rem_sb_done(&b, op);
}
void arm_remote_strided(const char *call, int op, int type, const void *scale,
                        void *src, const int *src_stride, void *dst, const int *dst_stride,
                        const int *count, int levels, int proc)
{
    arm_rem_enter();
    int node = arm_core.node_of[proc];
    size_t bytes = 1;
    for (int l = 0; l <= levels; l++)
        bytes *= (size_t)count[l];
    if (arm_rem_agent_takes(ARM_FAM_STRIDED, bytes, node)) {
        arm_rem_job_t j = { .kind = ARM_JOB_STRIDED, .call = call, .op = op, .type = type,
                            .proc = proc, .levels = levels, .src = src, .dst = dst };
        if (scale)
            memcpy(j.scale, scale, arm_acc_scale_size(type));
        memcpy(j.src_stride, src_stride, (size_t)levels * sizeof *src_stride);
        memcpy(j.dst_stride, dst_stride, (size_t)levels * sizeof *dst_stride);
        memcpy(j.count, count, (size_t)(levels + 1) * sizeof *count);
        arm_rem_agent_submit(&j);
    } else {
        arm_rem_agent_order(call, node);
        locked_strided(call, op, type, scale, src, src_stride, dst, dst_stride, count,
                       levels, proc);
    }
    arm_rem_leave();
}
void arm_remote_vector(const char *call, int op, int type, const void *scale,
                       const void *const *src, void *const *dst, int n, size_t bytes,
                       int proc)
{
    arm_rem_enter();
    int node = arm_core.node_of[proc];
    void **vec;
    /* The size that counts is what the call puts on the wire: its data and a
     * target address per segment (1,024 updates of 8 B are 16 KiB, not 8). */
    if (arm_rem_agent_takes(ARM_FAM_VECTOR, (bytes + sizeof(uint64_t)) * (size_t)n, node) &&
        (vec = malloc(2 * (size_t)n * sizeof *vec)) != NULL) {
        /* The pointer arrays are copied: the caller may reuse them. */
        memcpy(vec, src, (size_t)n * sizeof *vec);
        memcpy(vec + n, dst, (size_t)n * sizeof *vec);
        arm_rem_job_t j = { .kind = ARM_JOB_VECTOR, .call = call, .op = op, .type = type,
                            .proc = proc, .n = bytes, .vec = vec, .vn = n };
        if (scale)
            memcpy(j.scale, scale, arm_acc_scale_size(type));
        arm_rem_agent_submit(&j);
    } else {
        arm_rem_agent_order(call, node);
        locked_vector(call, op, type, scale, src, dst, n, bytes, proc);
    }
    arm_rem_leave();
}
#endif /* ARMADA_HAVE_UCX */
