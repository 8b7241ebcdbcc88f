#include "util/arm_strided.h"

size_t arm_strided_extent(int levels, const int *count, const int *stride)
{
    if (arm_strided_bytes(levels, count) == 0)
        return 0;
    size_t ext = (size_t)count[0];
    for (int i = 1; i <= levels; i++)
        if (count[i] > 0)
            ext += (size_t)(count[i] - 1) * (size_t)stride[i - 1];
    return ext;
}

size_t arm_strided_bytes(int levels, const int *count)
{
    size_t n = (size_t)count[0];
    for (int i = 1; i <= levels; i++)
        n *= (size_t)count[i];
    return n;
}

void arm_strided_for_each(int levels, const int *count, const int *src_stride,
                          const int *dst_stride, arm_strided_fn fn, void *ctx)
{
    size_t piece = (size_t)count[0];
    int first = 1;
    /* Merge leading levels that are contiguous on both sides. */
    while (first <= levels && (size_t)src_stride[first - 1] == piece &&
           (size_t)dst_stride[first - 1] == piece) {
        piece *= (size_t)count[first];
        first++;
    }
    if (piece == 0)
        return;
    for (int i = first; i <= levels; i++)
        if (count[i] <= 0)
            return;
    size_t idx[ARM_MAX_STRIDE_LEVELS + 1] = { 0 };
    size_t soff = 0, doff = 0;
    for (;;) {
        fn(ctx, soff, doff, piece);
        int l = first;
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
