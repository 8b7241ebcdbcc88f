/* Random strided shapes and a reference copy/accumulate loop, shared by the
 * strided and non-blocking tests. */
#ifndef ARMADA_TESTS_MPI_STRIDED_H
#define ARMADA_TESTS_MPI_STRIDED_H

#include "tst.h"

#define SHP_MAXL 7

typedef struct {
    int levels;
    int count[SHP_MAXL + 1];
    int sst[SHP_MAXL];     /* source strides      */
    int dst[SHP_MAXL];     /* destination strides */
    long sext, dext;       /* bytes spanned       */
} shape_t;

static inline long shp_extent(const int *st, const int *count, int levels)
{
    long e = count[0];
    for (int i = 1; i <= levels; i++)
        e += (long)(count[i] - 1) * st[i - 1];
    return e;
}

static inline void shp_strides(unsigned long long *rng, int *st, const int *count, int levels, int elem)
{
    long prev = count[0];
    for (int i = 0; i < levels; i++) {
        st[i] = (int)(prev + elem * tst_range(rng, 0, 9));
        prev = (long)st[i] * count[i + 1];
    }
}

/* A shape of `levels` levels whose extents fit in maxext bytes; elem is the
 * element size (count[0] and strides are multiples of it). */
static inline void shp_random(unsigned long long *rng, shape_t *s, int levels, int elem, long maxext)
{
    int c0max = levels >= 5 ? 24 : levels >= 2 ? 120 : 3000;
    int cmax = levels >= 5 ? 3 : 6;
    for (;;) {
        s->levels = levels;
        s->count[0] = elem * tst_range(rng, 1, c0max / elem > 0 ? c0max / elem : 1);
        for (int i = 1; i <= levels; i++)
            s->count[i] = tst_range(rng, 1, cmax);
        shp_strides(rng, s->sst, s->count, levels, elem);
        shp_strides(rng, s->dst, s->count, levels, elem);
        s->sext = shp_extent(s->sst, s->count, levels);
        s->dext = shp_extent(s->dst, s->count, levels);
        if (s->sext <= maxext && s->dext <= maxext)
            return;
    }
}

enum { SHP_COPY = -1 };

/* Reference: dst[strided] = src[strided] (op SHP_COPY) or
 * dst += scale * src for ARMCI_ACC_INT/LNG/DBL (scale given as a long). */
static inline void shp_apply(const unsigned char *src, const int *sst, unsigned char *dst,
                      const int *dstst, const int *count, int levels, int op, long scale)
{
    int idx[SHP_MAXL + 1] = { 0 };
    for (;;) {
        long so = 0, dof = 0;
        for (int i = 1; i <= levels; i++) {
            so += (long)idx[i] * sst[i - 1];
            dof += (long)idx[i] * dstst[i - 1];
        }
        if (op == SHP_COPY) {
            memcpy(dst + dof, src + so, count[0]);
        } else if (op == 0 /* ARMCI_ACC_INT */) {
            for (int k = 0; k < count[0]; k += 4) {
                int a, b;
                memcpy(&a, src + so + k, 4);
                memcpy(&b, dst + dof + k, 4);
                b = (int)((unsigned)b + (unsigned)(int)scale * (unsigned)a);
                memcpy(dst + dof + k, &b, 4);
            }
        } else if (op == 1 /* ARMCI_ACC_LNG */) {
            for (int k = 0; k < count[0]; k += 8) {
                long a, b;
                memcpy(&a, src + so + k, 8);
                memcpy(&b, dst + dof + k, 8);
                b = (long)((unsigned long)b + (unsigned long)scale * (unsigned long)a);
                memcpy(dst + dof + k, &b, 8);
            }
        } else { /* ARMCI_ACC_DBL */
            for (int k = 0; k < count[0]; k += 8) {
                double a, b;
                memcpy(&a, src + so + k, 8);
                memcpy(&b, dst + dof + k, 8);
                b += (double)scale * a;
                memcpy(dst + dof + k, &b, 8);
            }
        }
        int i = 1;
        while (i <= levels && ++idx[i] == count[i])
            idx[i++] = 0;
        if (i > levels)
            return;
    }
}

/* Fills n bytes with elements of type op (SHP_COPY: bytes) that are small
 * integers, so that sums stay exact. */
static inline void shp_fill(unsigned char *p, long n, int op, unsigned long long *rng)
{
    if (op == SHP_COPY) {
        for (long i = 0; i < n; i++)
            p[i] = (unsigned char)tst_rand(rng);
    } else if (op == 0) {
        for (long i = 0; i + 4 <= n; i += 4) {
            int v = tst_range(rng, -1000, 1000);
            memcpy(p + i, &v, 4);
        }
    } else if (op == 1) {
        for (long i = 0; i + 8 <= n; i += 8) {
            long v = (long)tst_range(rng, -1000, 1000) * 4294967296L;
            memcpy(p + i, &v, 8);
        }
    } else {
        for (long i = 0; i + 8 <= n; i += 8) {
            double v = tst_range(rng, -1000, 1000);
            memcpy(p + i, &v, 8);
        }
    }
}

#endif
