/* unit.acc: accumulate kernels (util/arm_acc.h), dst += scale * src, for
 * the six types against a reference loop. The values are small integers
 * and quarters, so every product and sum is exact in float and double and
 * the comparison can be exact whatever order or contraction the kernel
 * uses. Elements past `bytes` must stay untouched. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/arm_acc.h"
#include "unit.h"

#define GUARD 4
static const int lengths[] = { 0, 1, 2, 3, 7, 64, 1001 };
#define N_LENGTHS (int)(sizeof lengths / sizeof lengths[0])

static double quarter(void)
{
    return (double)unit_range(-256, 256) / 4.0;     /* -64 .. 64 in steps of 1/4 */
}

/* ---- real types ---------------------------------------------------------- */

#define REAL_CASE(T, TYPE, FMT, gen, scales)                                       \
    do {                                                                           \
        const T sc_[] = scales;                                                    \
        for (size_t si_ = 0; si_ < sizeof sc_ / sizeof sc_[0]; si_++) {            \
            for (int li_ = 0; li_ < N_LENGTHS; li_++) {                            \
                int n_ = lengths[li_];                                             \
                T *d_ = malloc(sizeof(T) * (n_ + GUARD));                          \
                T *w_ = malloc(sizeof(T) * (n_ + GUARD));                          \
                T *x_ = malloc(sizeof(T) * (n_ + GUARD) + 1);                      \
                for (int i_ = 0; i_ < n_ + GUARD; i_++) {                          \
                    d_[i_] = w_[i_] = (T)(gen);                                    \
                    x_[i_] = (T)(gen);                                             \
                }                                                                  \
                T s_ = sc_[si_];                                                   \
                for (int i_ = 0; i_ < n_; i_++)                                    \
                    w_[i_] = w_[i_] + s_ * x_[i_];                                 \
                arm_acc_apply(TYPE, &s_, d_, x_, sizeof(T) * (size_t)n_);          \
                int bad_ = 0, at_ = -1;                                            \
                for (int i_ = 0; i_ < n_ + GUARD; i_++)                            \
                    if (d_[i_] != w_[i_]) {                                        \
                        if (at_ < 0)                                               \
                            at_ = i_;                                              \
                        bad_++;                                                    \
                    }                                                              \
                CHECK(bad_ == 0, #TYPE " scale " FMT " n %d: %d wrong, first at %d: "  \
                      "got " FMT " want " FMT, s_, n_, bad_, at_,                  \
                      at_ >= 0 ? d_[at_] : (T)0, at_ >= 0 ? w_[at_] : (T)0);       \
                free(d_);                                                          \
                free(w_);                                                          \
                free(x_);                                                          \
            }                                                                      \
        }                                                                          \
    } while (0)

#define LIST(...) { __VA_ARGS__ }

static void test_real(void)
{
    REAL_CASE(int, ARM_ACC_INT, "%d", unit_range(-1000, 1000), LIST(1, 0, -1, 2, 3, -5, 7));
    unit_section("INT: scales 1 (fast path), 0, -1, 2, 3, -5, 7");
    /* Values beyond 32 bits: the arithmetic must be done in long. */
    REAL_CASE(long, ARM_ACC_LNG, "%ld", unit_range(-(1L << 40), 1L << 40),
              LIST(1, 0, -1, 3, 1000));
    unit_section("LONG: values beyond 2^32, scales 1, 0, -1, 3, 1000");
    REAL_CASE(float, ARM_ACC_FLT, "%g", quarter(),
              LIST(1.0f, 0.0f, -1.0f, 0.5f, -2.25f, 3.0f, 1.5f, 1.25f, 0.75f));
    unit_section("FLOAT: scales 1 (fast path), 0, -1, 0.5, -2.25, 3, 1.5, 1.25, 0.75");
    REAL_CASE(double, ARM_ACC_DBL, "%g", quarter(),
              LIST(1.0, 0.0, -1.0, 0.5, -2.25, 3.0, 1024.0, 1.5, 1.0 + 1.0 / 1024));
    unit_section("DOUBLE: scales 1 (fast path), 0, -1, 0.5, -2.25, 3, 1024, 1.5, 1+2^-10");
}

/* ---- complex types ------------------------------------------------------- */

#define CPLX_CASE(T, TYPE)                                                         \
    do {                                                                           \
        const T sc_[][2] = { { 1, 0 }, { 0, 0 }, { 0, 1 }, { 0, -1 }, { -1, 0 },   \
                             { 2, -3 }, { 0.5, 0.25 }, { -1.5, 2 } };             \
        for (size_t si_ = 0; si_ < sizeof sc_ / sizeof sc_[0]; si_++) {            \
            for (int li_ = 0; li_ < N_LENGTHS; li_++) {                            \
                int n_ = lengths[li_];                                             \
                size_t m_ = 2 * (size_t)(n_ + GUARD);                              \
                T *d_ = malloc(sizeof(T) * m_);                                    \
                T *w_ = malloc(sizeof(T) * m_);                                    \
                T *x_ = malloc(sizeof(T) * m_);                                    \
                for (size_t i_ = 0; i_ < m_; i_++) {                               \
                    d_[i_] = w_[i_] = (T)quarter();                                \
                    x_[i_] = (T)quarter();                                         \
                }                                                                  \
                T sr_ = sc_[si_][0], sim_ = sc_[si_][1];                           \
                /* (a+bi)(c+di) = (ac - bd) + (ad + bc)i */                        \
                for (int i_ = 0; i_ < n_; i_++) {                                  \
                    T xr_ = x_[2 * i_], xi_ = x_[2 * i_ + 1];                      \
                    T pr_ = sr_ * xr_, pi_ = sr_ * xi_;                            \
                    pr_ -= sim_ * xi_;                                             \
                    pi_ += sim_ * xr_;                                             \
                    w_[2 * i_] += pr_;                                             \
                    w_[2 * i_ + 1] += pi_;                                         \
                }                                                                  \
                T scale_[2] = { sr_, sim_ };                                       \
                arm_acc_apply(TYPE, scale_, d_, x_, 2 * sizeof(T) * (size_t)n_);   \
                int bad_ = 0;                                                      \
                long at_ = -1;                                                     \
                for (size_t i_ = 0; i_ < m_; i_++)                                 \
                    if (d_[i_] != w_[i_]) {                                        \
                        if (at_ < 0)                                               \
                            at_ = (long)i_;                                        \
                        bad_++;                                                    \
                    }                                                              \
                CHECK(bad_ == 0, #TYPE " scale (%g,%g) n %d: %d wrong parts, first at "  \
                      "%ld: got %g want %g", (double)sr_, (double)sim_, n_, bad_, at_,  \
                      at_ >= 0 ? (double)d_[at_] : 0.0,                            \
                      at_ >= 0 ? (double)w_[at_] : 0.0);                           \
                free(d_);                                                          \
                free(w_);                                                          \
                free(x_);                                                          \
            }                                                                      \
        }                                                                          \
    } while (0)

static void test_complex(void)
{
    CPLX_CASE(float, ARM_ACC_CPL);
    unit_section("COMPLEX: scales 1, 0, i, -i, -1, 2-3i, 0.5+0.25i, -1.5+2i");
    CPLX_CASE(double, ARM_ACC_DCP);
    unit_section("DCOMPLEX: the same scales");

    /* Hand-worked values: dst (1,2) += (2,-3)*(4,5) = (8+15, 10-12) = (23,-2)
     * -> (24, 0). */
    double d[2] = { 1, 2 }, x[2] = { 4, 5 }, s[2] = { 2, -3 };
    arm_acc_apply(ARM_ACC_DCP, s, d, x, sizeof d);
    CHECK(d[0] == 24 && d[1] == 0, "DCP (1,2)+(2,-3)*(4,5) = (%g,%g), want (24,0)", d[0], d[1]);
    float df[2] = { 1, 2 }, xf[2] = { 4, 5 }, sf[2] = { 0, 1 };   /* i*(4+5i) = -5+4i */
    arm_acc_apply(ARM_ACC_CPL, sf, df, xf, sizeof df);
    CHECK(df[0] == -4 && df[1] == 6, "CPL (1,2)+i*(4,5) = (%g,%g), want (-4,6)",
          (double)df[0], (double)df[1]);
    unit_section("complex products worked by hand");
}

static void test_sizes(void)
{
    size_t want[] = { sizeof(int), sizeof(long), sizeof(float), sizeof(double),
                      2 * sizeof(float), 2 * sizeof(double) };
    for (int t = 0; t < ARM_ACC_NTYPES; t++) {
        CHECK(arm_acc_elem_size(t) == want[t], "elem_size(%d) = %zu, want %zu", t,
              arm_acc_elem_size(t), want[t]);
        CHECK(arm_acc_scale_size(t) == want[t], "scale_size(%d) = %zu, want %zu", t,
              arm_acc_scale_size(t), want[t]);
    }
    CHECK(ARM_ACC_NTYPES == 6, "ARM_ACC_NTYPES = %d", ARM_ACC_NTYPES);
    CHECK(arm_acc_elem_size(-1) == 0 && arm_acc_elem_size(6) == 0 &&
          arm_acc_elem_size(1000) == 0, "an invalid type has a non-zero size");
    /* An invalid type changes nothing. */
    int d[4] = { 1, 2, 3, 4 }, x[4] = { 5, 6, 7, 8 }, s = 1;
    arm_acc_apply(7, &s, d, x, sizeof d);
    arm_acc_apply(-1, &s, d, x, sizeof d);
    CHECK(d[0] == 1 && d[1] == 2 && d[2] == 3 && d[3] == 4, "invalid type modified dst");
    unit_section("element and scale sizes, invalid types");
}

static void test_in_place(void)
{
    /* dst == src: dst = (1 + scale) * dst, element by element. */
    double a[16];
    for (int i = 0; i < 16; i++)
        a[i] = i - 5;
    double s = 3;
    arm_acc_apply(ARM_ACC_DBL, &s, a, a, sizeof a);
    int bad = 0;
    for (int i = 0; i < 16; i++)
        bad += a[i] != 4.0 * (i - 5);
    CHECK(bad == 0, "in-place DBL accumulate: %d wrong", bad);
    int b[9];
    for (int i = 0; i < 9; i++)
        b[i] = 2 * i - 7;
    int one = 1;
    arm_acc_apply(ARM_ACC_INT, &one, b, b, sizeof b);
    bad = 0;
    for (int i = 0; i < 9; i++)
        bad += b[i] != 2 * (2 * i - 7);
    CHECK(bad == 0, "in-place INT accumulate with scale 1: %d wrong", bad);
    unit_section("dst == src");
}

/* Buffers at every byte offset give the bytes the aligned kernel gives
 * (tested above), and leave the bytes around them alone. */
static void test_unaligned(void)
{
    enum { NE = 37 };
    const int types[] = { ARM_ACC_INT, ARM_ACC_LNG, ARM_ACC_FLT, ARM_ACC_DBL, ARM_ACC_CPL,
                          ARM_ACC_DCP };
    const int ival = 3;
    const long lval = -2;
    const float fval[2] = { 0.25f, -1.5f };
    const double dval[2] = { -0.75, 2.0 };
    const void *scales[] = { &ival, &lval, fval, dval, fval, dval };
    int bad = 0;
    for (int t = 0; t < 6; t++) {
        size_t esz = arm_acc_elem_size(types[t]), bytes = esz * NE;
        double ad[NE * 2], ax[NE * 2];          /* aligned copies, 16 B elements max */
        unsigned char d[NE * 16 + 32], x[NE * 16 + 32];
        for (int off = 1; off < 8; off++) {
            int xoff = (off * 3) % 8;
            for (size_t i = 0; i < sizeof d; i++) {
                d[i] = (unsigned char)(i * 7 + (size_t)off);
                x[i] = (unsigned char)(i * 13 + 5);
            }
            /* small exact values, written through the aligned copies */
            for (int i = 0; i < NE * 2; i++) {
                ad[i] = (double)(i % 9) - 4.0;
                ax[i] = (double)(i % 5) + 0.5;
            }
            if (types[t] == ARM_ACC_INT || types[t] == ARM_ACC_LNG || types[t] == ARM_ACC_FLT ||
                types[t] == ARM_ACC_CPL) {
                for (int i = 0; i < NE * 2; i++) {
                    if (types[t] == ARM_ACC_INT) {
                        int a = i - 20, b = 2 * i;
                        memcpy((char *)ad + i * sizeof a, &a, sizeof a);
                        memcpy((char *)ax + i * sizeof b, &b, sizeof b);
                    } else if (types[t] == ARM_ACC_LNG) {
                        long a = i - 20, b = 3 * i;
                        memcpy((char *)ad + i * sizeof a, &a, sizeof a);
                        memcpy((char *)ax + i * sizeof b, &b, sizeof b);
                    } else {
                        float a = (float)(i % 7) - 3.0f, b = (float)(i % 3) + 0.25f;
                        memcpy((char *)ad + i * sizeof a, &a, sizeof a);
                        memcpy((char *)ax + i * sizeof b, &b, sizeof b);
                    }
                }
            }
            memcpy(d + 8 + off, ad, bytes);
            memcpy(x + 8 + xoff, ax, bytes);
            unsigned char before[sizeof d];
            memcpy(before, d, sizeof d);
            arm_acc_apply(types[t], scales[t], ad, ax, bytes);
            arm_acc_apply(types[t], scales[t], d + 8 + off, x + 8 + xoff, bytes);
            bad += memcmp(d + 8 + off, ad, bytes) != 0;
            bad += memcmp(d, before, 8 + (size_t)off) != 0;
            bad += memcmp(d + 8 + off + bytes, before + 8 + off + bytes,
                          sizeof d - 8 - (size_t)off - bytes) != 0;
        }
    }
    CHECK(bad == 0, "unaligned accumulates: %d cases differ from the aligned kernel", bad);
    unit_section("unaligned buffers, offsets 1..7");
}

int main(void)
{
    test_sizes();
    test_real();
    test_complex();
    test_in_place();
    test_unaligned();
    return unit_finish("unit.acc");
}
