/* Strided descriptors: count[0] bytes per contiguous piece, count[1..levels]
 * repetitions, stride[0..levels-1] byte distances between repetitions. */
#ifndef ARM_STRIDED_H
#define ARM_STRIDED_H

#include <stddef.h>

#define ARM_MAX_STRIDE_LEVELS 7

typedef void (*arm_strided_fn)(void *ctx, size_t src_off, size_t dst_off, size_t len);
/* n pieces of len bytes, the k-th at src_off + k * src_step and dst_off +
 * k * dst_step. */
typedef void (*arm_strided_run_fn)(void *ctx, size_t src_off, size_t dst_off, size_t len,
                                   size_t n, size_t src_step, size_t dst_step);

/* Bytes from the first to one past the last byte touched; SIZE_MAX when
 * that does not fit a size_t (no memory holds such a span). */
size_t arm_strided_extent(int levels, const int *count, const int *stride);
/* Total payload bytes: count[0] * count[1] * ... * count[levels]; SIZE_MAX
 * when the product does not fit a size_t. Counts are >= 0 (checked). */
size_t arm_strided_bytes(int levels, const int *count);
/* Calls fn once per contiguous piece, in order; levels whose pieces are
 * adjacent on both sides are merged into one larger piece. */
void arm_strided_for_each(int levels, const int *count, const int *src_stride,
                          const int *dst_stride, arm_strided_fn fn, void *ctx);
/* The same pieces, in the same order, a run at a time: the lowest level left
 * after merging is each run (a single piece when none is left). */
void arm_strided_for_each_run(int levels, const int *count, const int *src_stride,
                              const int *dst_stride, arm_strided_run_fn fn, void *ctx);

#endif
