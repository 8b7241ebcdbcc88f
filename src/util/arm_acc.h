/* Accumulate kernels: dst[i] += scale * src[i] for the six ARMCI element
 * types. Pure functions, shared by the shared-memory path and the server. */
#ifndef ARM_ACC_H
#define ARM_ACC_H

#include <stddef.h>

/* Same values as ARMCI_ACC_INT .. ARMCI_ACC_DCP. */
enum { ARM_ACC_INT = 0, ARM_ACC_LNG, ARM_ACC_FLT, ARM_ACC_DBL, ARM_ACC_CPL, ARM_ACC_DCP,
       ARM_ACC_NTYPES };

/* Bytes of one element (a complex counts as one element), 0 if invalid. */
size_t arm_acc_elem_size(int type);
/* Bytes of the scale factor for the type. */
size_t arm_acc_scale_size(int type);
/* dst += scale * src over `bytes` bytes (a multiple of the element size). */
void arm_acc_apply(int type, const void *scale, void *dst, const void *src, size_t bytes);

#endif
