/* Data movement: contiguous, strided, vector and value operations, blocking
 * and non-blocking. Each checks its arguments and hands over to the one
 * dispatch function of its family (core/arm_ops.c). */
#include <stdatomic.h>
#include <string.h>
#include "api/api_check.h"
#include "armci.h"
#include "core/arm_ops.h"

/* ---- contiguous ------------------------------------------------------------- */
static inline void contig_args(const char *call, const char *count_arg, const void *src,
                               const void *dst, int bytes, int proc)
{
    api_init(call);
    api_proc(call, proc);
    api_count(call, count_arg, bytes);
    api_ptr(call, "src", src, bytes);
    api_ptr(call, "dst", dst, bytes);
}

int PARMCI_Put(void *src, void *dst, int size, int target)
{
    contig_args("ARMCI_Put", "size", src, dst, size, target);
    arm_op_put("ARMCI_Put", src, dst, (size_t)size, target);
    return 0;
}

int PARMCI_Get(void *src, void *dst, int size, int target)
{
    contig_args("ARMCI_Get", "size", src, dst, size, target);
    arm_op_get("ARMCI_Get", src, dst, (size_t)size, target);
    return 0;
}

int PARMCI_Acc(int datatype, void *scale, void *src, void *dst, int bytes, int proc)
{
    contig_args("ARMCI_Acc", "bytes", src, dst, bytes, proc);
    api_acc_type("ARMCI_Acc", datatype, scale);
    api_acc_bytes("ARMCI_Acc", "bytes", datatype, bytes);
    arm_op_acc("ARMCI_Acc", datatype, scale, src, dst, (size_t)bytes, proc);
    return 0;
}

void ARMCI_Copy(void *src, void *dst, int size)
{
    if (ARM_API_CHECKS) {
        api_count("ARMCI_Copy", "size", size);
        api_ptr("ARMCI_Copy", "src", src, size);
        api_ptr("ARMCI_Copy", "dst", dst, size);
    }
    memmove(dst, src, (size_t)size);
}

/* ---- strided ---------------------------------------------------------------- */
static inline void strided_args(const char *call, void *src, int *ss, void *dst, int *ds,
                                int *count, int levels, int proc)
{
    api_init(call);
    api_proc(call, proc);
    api_strided(call, src, ss, dst, ds, count, levels);
}

int PARMCI_PutS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[],
                int count[], int stride_levels, int proc)
{
    strided_args("ARMCI_PutS", src_ptr, src_stride_ar, dst_ptr, dst_stride_ar, count,
                 stride_levels, proc);
    arm_op_strided("ARMCI_PutS", ARMADA_OP_PUTS, 0, NULL, src_ptr, src_stride_ar, dst_ptr,
                   dst_stride_ar, count, stride_levels, proc);
    return 0;
}

int PARMCI_GetS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[],
                int count[], int stride_levels, int proc)
{
    strided_args("ARMCI_GetS", src_ptr, src_stride_ar, dst_ptr, dst_stride_ar, count,
                 stride_levels, proc);
    arm_op_strided("ARMCI_GetS", ARMADA_OP_GETS, 0, NULL, src_ptr, src_stride_ar, dst_ptr,
                   dst_stride_ar, count, stride_levels, proc);
    return 0;
}

int PARMCI_AccS(int datatype, void *scale, void *src_ptr, int src_stride_ar[],
                void *dst_ptr, int dst_stride_ar[], int count[], int stride_levels, int proc)
{
    strided_args("ARMCI_AccS", src_ptr, src_stride_ar, dst_ptr, dst_stride_ar, count,
                 stride_levels, proc);
    api_acc_type("ARMCI_AccS", datatype, scale);
    api_acc_bytes("ARMCI_AccS", "count[0]", datatype, count[0]);
    arm_op_strided("ARMCI_AccS", ARMADA_OP_ACCS, datatype, scale, src_ptr, src_stride_ar,
                   dst_ptr, dst_stride_ar, count, stride_levels, proc);
    return 0;
}

int PARMCI_Put_flag(void *src, void *dst, int size, int *flag, int value, int proc)
{
    contig_args("ARMCI_Put_flag", "size", src, dst, size, proc);
    api_ptr("ARMCI_Put_flag", "flag", flag, 1);
    arm_op_put("ARMCI_Put_flag", src, dst, (size_t)size, proc);
    arm_op_put_flag("ARMCI_Put_flag", flag, value, proc);
    return 0;
}

int PARMCI_PutS_flag(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[],
                     int count[], int stride_levels, int *flag, int value, int proc)
{
    strided_args("ARMCI_PutS_flag", src_ptr, src_stride_ar, dst_ptr, dst_stride_ar, count,
                 stride_levels, proc);
    api_ptr("ARMCI_PutS_flag", "flag", flag, 1);
    arm_op_strided("ARMCI_PutS_flag", ARMADA_OP_PUTS, 0, NULL, src_ptr, src_stride_ar,
                   dst_ptr, dst_stride_ar, count, stride_levels, proc);
    arm_op_put_flag("ARMCI_PutS_flag", flag, value, proc);
    return 0;
}

/* Local strided copies between a strided region and a packed buffer. */
typedef struct local_copy {
    char *src, *dst;
} local_copy_t;

static void local_piece(void *ctx, size_t soff, size_t doff, size_t len)
{
    local_copy_t *x = ctx;
    memcpy(x->dst + doff, x->src + soff, len);
}

static void local_strided(const char *call, void *ptr, int levels, int stride_arr[],
                          int count[], char *buf, int to_buf)
{
    int packed[ARM_MAX_STRIDE_LEVELS] = { 0 };
    if (count && levels > 0 && levels <= ARM_MAX_STRIDE_LEVELS) {
        packed[0] = count[0];
        for (int i = 1; i < levels; i++)
            packed[i] = packed[i - 1] * count[i];
    }
    /* The strided side is the destination only when writing. */
    if (to_buf)
        api_strided(call, ptr, stride_arr, buf, packed, count, levels);
    else
        api_strided(call, buf, packed, ptr, stride_arr, count, levels);
    local_copy_t x = { to_buf ? (char *)ptr : buf, to_buf ? buf : (char *)ptr };
    arm_strided_for_each(levels, count, to_buf ? stride_arr : packed,
                         to_buf ? packed : stride_arr, local_piece, &x);
}

/* ARMCI's own convention, which Global Arrays' ghost-cell update relies on
 * (decision 083): the names are from the buffer's side. write_strided writes
 * the strided region at ptr into buf (packs); read_strided reads buf into
 * the strided region at ptr (unpacks). */
void armci_read_strided(void *ptr, int stride_levels, int stride_arr[], int count[], char *buf)
{
    local_strided("armci_read_strided", ptr, stride_levels, stride_arr, count, buf, 0);
}

void armci_write_strided(void *ptr, int stride_levels, int stride_arr[], int count[],
                         char *buf)
{
    local_strided("armci_write_strided", ptr, stride_levels, stride_arr, count, buf, 1);
}

/* ---- vector ----------------------------------------------------------------- */
int PARMCI_PutV(armci_giov_t *iov, int iov_len, int proc)
{
    api_init("ARMCI_PutV");
    api_proc("ARMCI_PutV", proc);
    api_giov("ARMCI_PutV", iov, iov_len);
    arm_op_vector("ARMCI_PutV", ARMADA_OP_PUTV, 0, NULL, iov, iov_len, proc);
    return 0;
}

int PARMCI_GetV(armci_giov_t *iov, int iov_len, int proc)
{
    api_init("ARMCI_GetV");
    api_proc("ARMCI_GetV", proc);
    api_giov("ARMCI_GetV", iov, iov_len);
    arm_op_vector("ARMCI_GetV", ARMADA_OP_GETV, 0, NULL, iov, iov_len, proc);
    return 0;
}

int PARMCI_AccV(int datatype, void *scale, armci_giov_t *iov, int iov_len, int proc)
{
    api_init("ARMCI_AccV");
    api_proc("ARMCI_AccV", proc);
    api_giov("ARMCI_AccV", iov, iov_len);
    api_acc_type("ARMCI_AccV", datatype, scale);
    for (int d = 0; ARM_API_CHECKS && d < iov_len; d++)
        api_acc_bytes("ARMCI_AccV", "iov[].bytes", datatype, iov[d].bytes);
    arm_op_vector("ARMCI_AccV", ARMADA_OP_ACCV, datatype, scale, iov, iov_len, proc);
    return 0;
}

/* ---- values ----------------------------------------------------------------- */
#define VALUE_PUT(NAME, T)                                                   \
    int PARMCI_PutValue##NAME(T src, void *dst, int proc)                    \
    {                                                                        \
        contig_args("ARMCI_PutValue" #NAME, "src", &src, dst, (int)sizeof(T), proc); \
        arm_op_put("ARMCI_PutValue" #NAME, &src, dst, sizeof(T), proc);      \
        return 0;                                                            \
    }                                                                        \
    int PARMCI_NbPutValue##NAME(T src, void *dst, int proc, armci_hdl_t *hdl) \
    {                                                                        \
        (void)hdl;                                                           \
        return PARMCI_PutValue##NAME(src, dst, proc);                        \
    }
#define VALUE_GET(NAME, T)                                                   \
    T PARMCI_GetValue##NAME(void *src, int proc)                             \
    {                                                                        \
        T v = 0;                                                             \
        contig_args("ARMCI_GetValue" #NAME, "src", src, &v, (int)sizeof(T), proc);  \
        arm_op_get("ARMCI_GetValue" #NAME, src, &v, sizeof(T), proc);        \
        return v;                                                            \
    }
VALUE_PUT(Int, int)
VALUE_PUT(Long, long)
VALUE_PUT(Float, float)
VALUE_PUT(Double, double)
VALUE_GET(Int, int)
VALUE_GET(Long, long)
VALUE_GET(Float, float)
VALUE_GET(Double, double)
