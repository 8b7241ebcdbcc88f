#include "util/arm_acc.h"

#include <stdint.h>
#include <string.h>

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
        T s_;                                                      \
        memcpy(&s_, (scale), sizeof s_);                           \
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
        T sc_[2];                                                  \
        memcpy(sc_, (scale), sizeof sc_);                          \
        T sr_ = sc_[0], si_ = sc_[1];                              \
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
        T st_;                                                     \
        memcpy(&st_, (scale), sizeof st_);                         \
        UT s_ = (UT)st_;                                           \
        T *d_ = (T *)(dst);                                        \
        const T *x_ = (const T *)(src);                            \
        size_t n_ = (bytes) / sizeof(T);                           \
        for (size_t i_ = 0; i_ < n_; i_++)                         \
            d_[i_] = (T)((UT)d_[i_] + s_ * (UT)x_[i_]);            \
    } while (0)

/* Buffers not aligned to their element type (ARMCI does not require it):
 * the same arithmetic through fixed-size copies, which compile to plain
 * unaligned loads and stores, with the scale read once (decision 066). */
#define ACC_U(T, scale, dst, src, bytes, EXPR)                     \
    do {                                                           \
        T s_;                                                      \
        memcpy(&s_, (scale), sizeof s_);                           \
        size_t n_ = (bytes) / sizeof(T);                           \
        for (size_t i_ = 0; i_ < n_; i_++) {                       \
            T x_, y_;                                              \
            memcpy(&x_, (src) + i_ * sizeof(T), sizeof(T));        \
            memcpy(&y_, (dst) + i_ * sizeof(T), sizeof(T));        \
            y_ = (EXPR);                                           \
            memcpy((dst) + i_ * sizeof(T), &y_, sizeof(T));        \
        }                                                          \
    } while (0)

static void acc_unaligned_cplx(int type, const void *scale, char *dst, const char *src,
                               size_t bytes)
{
    size_t esz = arm_acc_elem_size(type);
    union { float f[2]; double d[2]; } x, y;
    for (size_t off = 0; off + esz <= bytes; off += esz) {
        memcpy(&x, src + off, esz);
        memcpy(&y, dst + off, esz);
        if (type == ARM_ACC_CPL)
            ACC_CPLX(float, scale, &y, &x, 2 * sizeof(float));
        else
            ACC_CPLX(double, scale, &y, &x, 2 * sizeof(double));
        memcpy(dst + off, &y, esz);
    }
}

static void acc_unaligned(int type, const void *scale, char *dst, const char *src,
                          size_t bytes)
{
    switch (type) {
    case ARM_ACC_INT:
        ACC_U(int, scale, dst, src, bytes,
              (int)((unsigned int)y_ + (unsigned int)s_ * (unsigned int)x_));
        break;
    case ARM_ACC_LNG:
        ACC_U(long, scale, dst, src, bytes,
              (long)((unsigned long)y_ + (unsigned long)s_ * (unsigned long)x_));
        break;
    case ARM_ACC_FLT:
        ACC_U(float, scale, dst, src, bytes, s_ == 1.0f ? y_ + x_ : y_ + s_ * x_);
        break;
    case ARM_ACC_DBL:
        ACC_U(double, scale, dst, src, bytes, s_ == 1.0 ? y_ + x_ : y_ + s_ * x_);
        break;
    default:
        acc_unaligned_cplx(type, scale, dst, src, bytes);
        break;
    }
}

void arm_acc_apply(int type, const void *scale, void *dst, const void *src, size_t bytes)
{
    static const size_t align[ARM_ACC_NTYPES] = { sizeof(int), sizeof(long), sizeof(float),
                                                  sizeof(double), sizeof(float),
                                                  sizeof(double) };
    if (type < 0 || type >= ARM_ACC_NTYPES)
        return;
    if (((uintptr_t)dst | (uintptr_t)src) % align[type] != 0) {
        acc_unaligned(type, scale, dst, src, bytes);
        return;
    }
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
