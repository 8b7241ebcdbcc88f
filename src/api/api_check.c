/* The argument checks of the api layer that take more than a compare or
 * two: accumulate types and sizes, strided descriptors (including
 * overlapping destinations, decision 031) and vector descriptors. */
#include <stdint.h>
#include <stdlib.h>
#include "api/api_check.h"
#include "armci.h"
#include "util/arm_acc.h"

void api_acc_type(const char *call, int type, const void *scale)
{
    if (ARM_API_CHECKS && arm_acc_elem_size(type) == 0)
        arm_fatal(call, "argument 'datatype' = %d is not an ARMCI_ACC_* type", type);
    if (ARM_API_CHECKS && scale == NULL)
        arm_fatal(call, "argument 'scale' is NULL");
}

void api_acc_bytes(const char *call, const char *arg, int type, long bytes)
{
    size_t elem = arm_acc_elem_size(type);   /* 4, 8 or 16: a mask suffices */
    if (ARM_API_CHECKS && elem && bytes > 0 && ((size_t)bytes & (elem - 1)) != 0)
        arm_fatal(call, "argument '%s' = %ld is not a whole number of %zu-byte elements of "
                  "datatype %d", arg, bytes, elem, type);
}

static int cmp_offset(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* Rows beyond which a layout that does not nest is not sorted (8 MiB of
 * offsets): only the count of bytes against the span is compared then. */
#define OVERLAP_ROWS_MAX (1u << 20)

/* The exact test for layouts that do not nest: every row's offset, sorted;
 * rows overlap when two offsets are closer than a row. */
static int rows_overlap(const int *stride, const int *count, int levels)
{
    size_t rows = 1;
    for (int i = 1; i <= levels; i++) {
        if ((size_t)count[i] > OVERLAP_ROWS_MAX / rows)
            return 0;
        rows *= (size_t)count[i];
    }
    size_t *off = malloc(rows * sizeof *off);
    if (!off)
        return 0;   /* no memory to look: each row is still copied as given */
    int idx[ARM_MAX_STRIDE_LEVELS + 1] = { 0 };
    for (size_t r = 0; r < rows; r++) {
        size_t o = 0;
        for (int i = 1; i <= levels; i++)
            o += (size_t)idx[i] * (size_t)stride[i - 1];
        off[r] = o;
        for (int i = 1; i <= levels && ++idx[i] == count[i]; i++)
            idx[i] = 0;
    }
    qsort(off, rows, sizeof *off, cmp_offset);
    int hit = 0;
    for (size_t r = 1; r < rows && !hit; r++)
        hit = off[r] - off[r - 1] < (size_t)count[0];
    free(off);
    return hit;
}

/* Stops when two rows of a strided destination share a byte: what such a
 * put or accumulate leaves would depend on the order the rows are written,
 * which the pipelined and server paths do not fix. Layouts that nest (each
 * stride at least the extent below it) pass in O(levels), and so does one
 * with more bytes than its span holds (it overlaps); others are checked
 * exactly up to OVERLAP_ROWS_MAX rows. The extents fit a size_t here. */
static void dst_overlap(const char *call, const char *arg, const int *stride,
                        const int *count, int levels)
{
    size_t ext = (size_t)count[0];
    int nested = 1, first_bad = -1;
    for (int i = 0; i < levels && nested; i++) {
        if (count[i + 1] <= 1)
            continue;
        if ((size_t)stride[i] < ext) {
            nested = 0;
            first_bad = i;
        }
        ext += (size_t)stride[i] * (size_t)(count[i + 1] - 1);
    }
    if (nested)
        return;
    if (arm_strided_bytes(levels, count) <= arm_strided_extent(levels, count, stride) &&
        !rows_overlap(stride, count, levels))
        return;
    arm_fatal(call, "argument '%s[%d]' = %d: rows of the destination overlap (count[0] = %d "
              "bytes per row; decision 031)", arg, first_bad, stride[first_bad], count[0]);
}

void api_strided(const char *call, const void *src, const int *src_stride, const void *dst,
                 const int *dst_stride, const int *count, int levels)
{
    if (!ARM_API_CHECKS)
        return;
    if (levels < 0 || levels > ARM_MAX_STRIDE_LEVELS)
        arm_fatal(call, "argument 'stride_levels' = %d is outside 0..%d", levels,
                  ARM_MAX_STRIDE_LEVELS);
    if (!count)
        arm_fatal(call, "argument 'count' is NULL");
    if (levels > 0 && (!src_stride || !dst_stride))
        arm_fatal(call, "argument '%s' is NULL", src_stride ? "dst_stride_ar" : "src_stride_ar");
    for (int i = 0; i <= levels; i++)
        if (count[i] < 0)
            arm_fatal(call, "argument 'count[%d]' = %d is negative", i, count[i]);
    for (int i = 0; i < levels; i++)
        if (src_stride[i] < 0 || dst_stride[i] < 0)
            arm_fatal(call, "argument '%s[%d]' = %d is negative",
                      src_stride[i] < 0 ? "src_stride_ar" : "dst_stride_ar", i,
                      src_stride[i] < 0 ? src_stride[i] : dst_stride[i]);
    size_t bytes = arm_strided_bytes(levels, count);
    if (bytes > 0) {
        if (!src)
            arm_fatal(call, "argument 'src_ptr' is NULL");
        if (!dst)
            arm_fatal(call, "argument 'dst_ptr' is NULL");
        /* Beyond a size_t no memory holds it; the sums and products the
         * paths make would wrap. */
        if (bytes == SIZE_MAX)
            arm_fatal(call, "argument 'count': the product of count[0..%d] is more bytes than "
                      "memory can hold", levels);
        if (arm_strided_extent(levels, count, src_stride) == SIZE_MAX ||
            arm_strided_extent(levels, count, dst_stride) == SIZE_MAX) {
            const char *arg = arm_strided_extent(levels, count, src_stride) == SIZE_MAX
                ? "src_stride_ar" : "dst_stride_ar";
            arm_fatal(call, "argument '%s': with count it spans more bytes than memory can hold",
                      arg);
        }
        dst_overlap(call, "dst_stride_ar", dst_stride, count, levels);
    }
}

void api_giov(const char *call, const void *iovp, int iov_len)
{
    const armci_giov_t *iov = iovp;
    if (!ARM_API_CHECKS)
        return;
    api_count(call, "iov_len", iov_len);
    if (iov_len > 0 && !iov)
        arm_fatal(call, "argument 'iov' is NULL");
    for (int d = 0; d < iov_len; d++) {
        if (iov[d].bytes < 0 || iov[d].ptr_array_len < 0)
            arm_fatal(call, "argument 'iov[%d].%s' is negative", d,
                      iov[d].bytes < 0 ? "bytes" : "ptr_array_len");
        if (iov[d].ptr_array_len > 0 && (!iov[d].src_ptr_array || !iov[d].dst_ptr_array))
            arm_fatal(call, "argument 'iov[%d].%s' is NULL", d,
                      iov[d].src_ptr_array ? "dst_ptr_array" : "src_ptr_array");
        if (iov[d].bytes == 0)
            continue;
        for (int i = 0; i < iov[d].ptr_array_len; i++)
            if (!iov[d].src_ptr_array[i] || !iov[d].dst_ptr_array[i])
                arm_fatal(call, "argument 'iov[%d].%s[%d]' is NULL", d,
                          iov[d].src_ptr_array[i] ? "dst_ptr_array" : "src_ptr_array", i);
    }
}
