#include "util/arm_acc.h"

static const size_t elem_sizes[ARM_ACC_NTYPES] = {
    sizeof(int), sizeof(long), sizeof(float), sizeof(double),
    2 * sizeof(float), 2 * sizeof(double)
};

size_t arm_acc_elem_size(int type)
{
    return (type >= 0 && type < ARM_ACC_NTYPES) ? elem_sizes[type] : 0;
}

size_t arm_acc_scale_size(int type)
{
    return arm_acc_elem_size(type);
}

#define ACC_REAL(T, scale, dst, src, bytes)                        \
    do {                                                           \
        T s_ = *(const T *)(scale);                                \
        T *d_ = (T *)(dst);                                        \
        const T *x_ = (const T *)(src);                            \
        size_t n_ = (bytes) / sizeof(T);                           \
        if (s_ == (T)1)                                            \
            for (size_t i_ = 0; i_ < n_; i_++) d_[i_] += x_[i_];   \
        else                                                       \
            for (size_t i_ = 0; i_ < n_; i_++) d_[i_] += s_ * x_[i_]; \
    } while (0)

#define ACC_CPLX(T, scale, dst, src, bytes)                        \
    do {                                                           \
        T sr_ = ((const T *)(scale))[0], si_ = ((const T *)(scale))[1]; \
        T *d_ = (T *)(dst);                                        \
        const T *x_ = (const T *)(src);                            \
        size_t n_ = (bytes) / (2 * sizeof(T));                     \
        for (size_t i_ = 0; i_ < n_; i_++) {                       \
            T xr_ = x_[2 * i_], xi_ = x_[2 * i_ + 1];              \
            d_[2 * i_] += sr_ * xr_ - si_ * xi_;                   \
            d_[2 * i_ + 1] += sr_ * xi_ + si_ * xr_;               \
        }                                                          \
    } while (0)

/* Integer accumulates wrap around on overflow (two's complement), computed
 * in unsigned arithmetic so that overflow is defined behaviour. */
#define ACC_INT(T, UT, scale, dst, src, bytes)                     \
    do {                                                           \
        UT s_ = (UT)*(const T *)(scale);                           \
        T *d_ = (T *)(dst);                                        \
        const T *x_ = (const T *)(src);                            \
        size_t n_ = (bytes) / sizeof(T);                           \
        for (size_t i_ = 0; i_ < n_; i_++)                         \
            d_[i_] = (T)((UT)d_[i_] + s_ * (UT)x_[i_]);            \
    } while (0)

void arm_acc_apply(int type, const void *scale, void *dst, const void *src, size_t bytes)
{
    switch (type) {
    case ARM_ACC_INT: ACC_INT(int, unsigned int, scale, dst, src, bytes); break;
    case ARM_ACC_LNG: ACC_INT(long, unsigned long, scale, dst, src, bytes); break;
    case ARM_ACC_FLT: ACC_REAL(float, scale, dst, src, bytes); break;
    case ARM_ACC_DBL: ACC_REAL(double, scale, dst, src, bytes); break;
    case ARM_ACC_CPL: ACC_CPLX(float, scale, dst, src, bytes); break;
    case ARM_ACC_DCP: ACC_CPLX(double, scale, dst, src, bytes); break;
    default: break;
    }
}
