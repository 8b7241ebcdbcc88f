/* Argument checks of the api layer: a few compares each, compiled out with
 * ARMADA_NO_CHECKS (a build for measurements), never skipped silently
 * otherwise. A failed check stops the job with a message naming the call,
 * the argument and the rank (arm_fatal adds the rank). */
#ifndef ARM_API_CHECK_H
#define ARM_API_CHECK_H

#include <stddef.h>
#include "core/arm_core.h"
#include "util/arm_log.h"
#include "util/arm_strided.h"

#ifdef ARMADA_NO_CHECKS
#define ARM_API_CHECKS 0
#else
#define ARM_API_CHECKS 1
#endif

_Noreturn void arm_api_not_initialised(const char *call);

static inline void api_init(const char *call)
{
    if (__builtin_expect(!arm_core.initialized, 0))
        arm_api_not_initialised(call);
}

static inline void api_proc(const char *call, int proc)
{
    if (ARM_API_CHECKS && (unsigned)proc >= (unsigned)arm_core.nproc)
        arm_fatal(call, "argument 'proc' = %d is not a valid rank (0..%d)", proc,
                  arm_core.nproc - 1);
}

static inline void api_count(const char *call, const char *arg, int n)
{
    if (ARM_API_CHECKS && n < 0)
        arm_fatal(call, "argument '%s' = %d is negative", arg, n);
}

static inline void api_ptr(const char *call, const char *arg, const void *p, long n)
{
    if (ARM_API_CHECKS && p == NULL && n > 0)
        arm_fatal(call, "argument '%s' is NULL", arg);
}

void api_acc_type(const char *call, int type, const void *scale);
/* Stops unless bytes is a whole number of elements of the accumulate type. */
void api_acc_bytes(const char *call, const char *arg, int type, long bytes);
/* Also stops when rows of the destination overlap (decision 031). */
void api_strided(const char *call, const void *src, const int *src_stride, const void *dst,
                 const int *dst_stride, const int *count, int levels);
/* Also stops on a NULL pointer inside a descriptor's arrays. */
void api_giov(const char *call, const void *iov, int iov_len);

#endif
