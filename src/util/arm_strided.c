#include "util/arm_strided.h"

#include <stdint.h>

size_t arm_strided_extent(int levels, const int *count, const int *stride)
{
    /* One pass: a zero count anywhere means nothing is touched, even after
     * a level whose span does not fit. */
    size_t ext = (size_t)count[0], step;
    int wraps = 0;
    if (ext == 0)
        return 0;
    for (int i = 1; i <= levels; i++) {
        if (count[i] == 0)
            return 0;
        if (count[i] > 1 && !wraps)
            wraps = __builtin_mul_overflow((size_t)(count[i] - 1), (size_t)stride[i - 1],
                                           &step) || __builtin_add_overflow(ext, step, &ext);
    }
    return wraps ? SIZE_MAX : ext;
}

size_t arm_strided_bytes(int levels, const int *count)
{
    for (int i = 0; i <= levels; i++)
        if (count[i] == 0)
            return 0;   /* nothing to move, whatever the other counts */
    size_t n = (size_t)count[0];
    for (int i = 1; i <= levels; i++)
        if (__builtin_mul_overflow(n, (size_t)count[i], &n))
            return SIZE_MAX;
    return n;
}

/* The leading levels contiguous on both sides merged: the piece's bytes;
 * *first: the lowest level left. 0 when there is nothing to move. */
static size_t merged_piece(int levels, const int *count, const int *src_stride,
                           const int *dst_stride, int *first)
{
    size_t piece = (size_t)count[0];
    int f = 1;
    while (f <= levels && (size_t)src_stride[f - 1] == piece &&
           (size_t)dst_stride[f - 1] == piece) {
        piece *= (size_t)count[f];
        f++;
    }
    for (int i = f; i <= levels; i++)
        if (count[i] <= 0)
            return 0;
    *first = f;
    return piece;
}

typedef struct walk {
    size_t piece, n, sstep, dstep;
    arm_strided_fn fn;
    arm_strided_run_fn run;
    void *ctx;
} walk_t;

static void visit(const walk_t *w, size_t soff, size_t doff)
{
    if (w->run)
        w->run(w->ctx, soff, doff, w->piece, w->n, w->sstep, w->dstep);
    else
        w->fn(w->ctx, soff, doff, w->piece);
}

/* Visits every combination of the indices of levels from..levels, in
 * order, with the source and destination offsets they give. */
static void walk_levels(int levels, const int *count, const int *src_stride,
                        const int *dst_stride, int from, const walk_t *w)
{
    size_t idx[ARM_MAX_STRIDE_LEVELS + 2] = { 0 };
    size_t soff = 0, doff = 0;
    for (;;) {
        visit(w, soff, doff);
        int l = from;
        while (l <= levels) {
            idx[l]++;
            soff += (size_t)src_stride[l - 1];
            doff += (size_t)dst_stride[l - 1];
            if (idx[l] < (size_t)count[l])
                break;
            soff -= idx[l] * (size_t)src_stride[l - 1];
            doff -= idx[l] * (size_t)dst_stride[l - 1];
            idx[l] = 0;
            l++;
        }
        if (l > levels)
            return;
    }
}

void arm_strided_for_each(int levels, const int *count, const int *src_stride,
                          const int *dst_stride, arm_strided_fn fn, void *ctx)
{
    int first;
    walk_t w = { 0, 1, 0, 0, fn, NULL, ctx };
    w.piece = merged_piece(levels, count, src_stride, dst_stride, &first);
    if (w.piece)
        walk_levels(levels, count, src_stride, dst_stride, first, &w);
}

void arm_strided_for_each_run(int levels, const int *count, const int *src_stride,
                              const int *dst_stride, arm_strided_run_fn fn, void *ctx)
{
    int first;
    walk_t w = { 0, 1, 0, 0, NULL, fn, ctx };
    w.piece = merged_piece(levels, count, src_stride, dst_stride, &first);
    if (!w.piece)
        return;
    if (first <= levels) {   /* the lowest level left is the run */
        w.n = (size_t)count[first];
        w.sstep = (size_t)src_stride[first - 1];
        w.dstep = (size_t)dst_stride[first - 1];
        first++;
    }
    walk_levels(levels, count, src_stride, dst_stride, first, &w);
}
