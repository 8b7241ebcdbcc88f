/* Strided descriptors: count[0] bytes per contiguous piece, count[1..levels]
 * repetitions, stride[0..levels-1] byte distances between repetitions. */
#ifndef ARM_STRIDED_H
#define ARM_STRIDED_H

#include <stddef.h>

#define ARM_MAX_STRIDE_LEVELS 7

typedef void (*arm_strided_fn)(void *ctx, size_t src_off, size_t dst_off, size_t len);

/* Bytes from the first to one past the last byte touched. */
size_t arm_strided_extent(int levels, const int *count, const int *stride);
/* Total payload bytes: count[0] * count[1] * ... * count[levels]. */
size_t arm_strided_bytes(int levels, const int *count);
/* Calls fn once per contiguous piece, in order; levels whose pieces are
 * adjacent on both sides are merged into one larger piece. */
void arm_strided_for_each(int levels, const int *count, const int *src_stride,
                          const int *dst_stride, arm_strided_fn fn, void *ctx);

#endif
