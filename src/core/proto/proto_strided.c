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

static void strided_piece(void *ctx, size_t soff, size_t doff, size_t len)
{
    strided_remote_t *x = ctx;
    if (x->remote_is_src)
        arm_rem_sb_add(x->b, x->local + doff, x->rbase + soff, len);
    else
        arm_rem_sb_add(x->b, x->local + soff, x->rbase + doff, len);
}

static void locked_strided(const char *call, int op, int type, const void *scale,
                        void *src, const int *src_stride, void *dst, const int *dst_stride,
                        const int *count, int levels, int proc)
{
    arm_rem_batch_send(call, 0);
    int remote_is_src = op == ARMADA_OP_GETS;
    void *remote = remote_is_src ? src : dst;
    arm_slice_t *s = arm_reg_lookup(proc, (uintptr_t)remote, 0);
    seg_builder_t b;
    int kind = op == ARMADA_OP_GETS ? ARM_SRV_GETSEG
             : op == ARMADA_OP_PUTS ? ARM_SRV_PUTSEG : ARM_SRV_ACCSEG;
    arm_rem_sb_init(&b, call, kind, type, scale, proc);
    strided_remote_t x = { &b, remote_is_src ? dst : src,
                           s->raddr + ((uintptr_t)remote - s->base), remote_is_src };
    arm_strided_for_each(levels, count, src_stride, dst_stride, strided_piece, &x);
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
    seg_builder_t b;
    arm_rem_sb_init(&b, call, kind, type, scale, proc);
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
    locked_strided(call, op, type, scale, src, src_stride, dst, dst_stride, count, levels, proc);
    arm_rem_leave();
}
void arm_remote_vector(const char *call, int op, int type, const void *scale,
                       const void *const *src, void *const *dst, int n, size_t bytes,
                       int proc)
{
    arm_rem_enter();
    locked_vector(call, op, type, scale, src, dst, n, bytes, proc);
    arm_rem_leave();
}
#endif /* ARMADA_HAVE_UCX */
