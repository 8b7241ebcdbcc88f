/* acc: ARMCI_Acc for all six types with non-trivial scales; every rank
 * accumulates into the same elements on rank 0 many times, and into a
 * region of every rank, and the sums must be exact. */
#include <armci.h>
#include "tst.h"

#define ITERS 25
#define N 37           /* irregular element count */
#define GUARD 3        /* untouched elements on each side */

typedef struct { float re, im; } cpl_t;
typedef struct { double re, im; } dcp_t;

static const int types[] = { ARMCI_ACC_INT, ARMCI_ACC_LNG, ARMCI_ACC_FLT, ARMCI_ACC_DBL,
                             ARMCI_ACC_CPL, ARMCI_ACC_DCP };
static const char *tname[] = { "INT", "LNG", "FLT", "DBL", "CPL", "DCP" };
static const size_t tsize[] = { sizeof(int), sizeof(long), sizeof(float), sizeof(double),
                                sizeof(cpl_t), sizeof(dcp_t) };

/* Source element i of rank r, as (re, im) small integers. */
static long src_re(int r, int i) { return (i * 7 + r * 3) % 23 - 11; }
static long src_im(int r, int i) { return (i * 5 + r) % 13 - 6; }
/* Scale of rank r per type (complex types use re and im). */
static long sc_re(int r) { return 2 + r % 3; }
static long sc_im(int r) { return r % 2 ? -1 : 3; }

static void make_src(int type, int r, void *buf)
{
    for (int i = 0; i < N; i++) {
        long re = src_re(r, i), im = src_im(r, i);
        switch (type) {
        case ARMCI_ACC_INT: ((int *)buf)[i] = (int)re; break;
        case ARMCI_ACC_LNG: ((long *)buf)[i] = re * 1000000000L; break;
        case ARMCI_ACC_FLT: ((float *)buf)[i] = (float)re; break;
        case ARMCI_ACC_DBL: ((double *)buf)[i] = (double)re; break;
        case ARMCI_ACC_CPL: ((cpl_t *)buf)[i] = (cpl_t){ (float)re, (float)im }; break;
        default: ((dcp_t *)buf)[i] = (dcp_t){ (double)re, (double)im }; break;
        }
    }
}

static void make_scale(int type, int r, void *sc)
{
    switch (type) {
    case ARMCI_ACC_INT: *(int *)sc = (int)sc_re(r); break;
    case ARMCI_ACC_LNG: *(long *)sc = sc_re(r); break;
    case ARMCI_ACC_FLT: *(float *)sc = (float)sc_re(r); break;
    case ARMCI_ACC_DBL: *(double *)sc = (double)sc_re(r); break;
    case ARMCI_ACC_CPL: *(cpl_t *)sc = (cpl_t){ (float)sc_re(r), (float)sc_im(r) }; break;
    default: *(dcp_t *)sc = (dcp_t){ (double)sc_re(r), (double)sc_im(r) }; break;
    }
}

/* Initial value of element i (before any accumulate). */
static long init_re(int i) { return 100 + i; }
static long init_im(int i) { return -50 + i; }

/* Expected (re, im) of element i after `iters` accumulates by ranks in [0, np). */
static void expected(int type, int np, int iters, int i, long *re, long *im)
{
    long r_ = init_re(i), i_ = init_im(i);
    for (int r = 0; r < np; r++) {
        long a = src_re(r, i), b = src_im(r, i), c = sc_re(r), d = sc_im(r);
        if (type == ARMCI_ACC_CPL || type == ARMCI_ACC_DCP) {
            r_ += iters * (c * a - d * b);
            i_ += iters * (c * b + d * a);
        } else {
            r_ += iters * c * a * (type == ARMCI_ACC_LNG ? 1000000000L : 1);
        }
    }
    *re = r_;
    *im = i_;
}

static void init_elems(int type, void *p, int n)
{
    for (int i = 0; i < n; i++) {
        long re = init_re(i - GUARD), im = init_im(i - GUARD);
        switch (type) {
        case ARMCI_ACC_INT: ((int *)p)[i] = (int)re; break;
        case ARMCI_ACC_LNG: ((long *)p)[i] = re; break;
        case ARMCI_ACC_FLT: ((float *)p)[i] = (float)re; break;
        case ARMCI_ACC_DBL: ((double *)p)[i] = (double)re; break;
        case ARMCI_ACC_CPL: ((cpl_t *)p)[i] = (cpl_t){ (float)re, (float)im }; break;
        default: ((dcp_t *)p)[i] = (dcp_t){ (double)re, (double)im }; break;
        }
    }
}

static void read_elem(int type, const void *p, int i, long *re, long *im)
{
    *im = 0;
    switch (type) {
    case ARMCI_ACC_INT: *re = ((const int *)p)[i]; break;
    case ARMCI_ACC_LNG: *re = ((const long *)p)[i]; break;
    case ARMCI_ACC_FLT: *re = (long)((const float *)p)[i]; break;
    case ARMCI_ACC_DBL: *re = (long)((const double *)p)[i]; break;
    case ARMCI_ACC_CPL: *re = (long)((const cpl_t *)p)[i].re; *im = (long)((const cpl_t *)p)[i].im; break;
    default: *re = (long)((const dcp_t *)p)[i].re; *im = (long)((const dcp_t *)p)[i].im; break;
    }
}

/* Checks elements [GUARD, GUARD+N) against `iters` rounds by `nsrc` ranks and
 * the guards against their initial values. */
static void check_array(int type, const void *p, int nsrc, int iters, const char *where)
{
    for (int i = 0; i < N + 2 * GUARD; i++) {
        long re, im, ere, eim;
        read_elem(type, p, i, &re, &im);
        if (i < GUARD || i >= N + GUARD) {
            ere = init_re(i - GUARD);
            eim = type >= ARMCI_ACC_CPL ? init_im(i - GUARD) : 0;
        } else {
            expected(type, nsrc, iters, i - GUARD, &ere, &eim);
            if (type < ARMCI_ACC_CPL)
                eim = 0;
        }
        CHECK(re == ere && im == eim, "%s %s element %d: got (%ld,%ld) expected (%ld,%ld)",
              tname[type], where, i, re, im, ere, eim);
    }
}

int main(int argc, char **argv)
{
    int me, np;
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);

    size_t arr = (N + 2 * GUARD) * sizeof(dcp_t);
    void **base = malloc(sizeof(void *) * np);
    /* per type: one shared array (contended) + one array per source rank */
    CHECK_EQ(ARMCI_Malloc(base, 6 * arr * (1 + np)), 0, "ARMCI_Malloc");
    ARMCI_Access_begin(base[me]);
    for (int ti = 0; ti < 6; ti++)
        for (int k = 0; k <= np; k++)
            init_elems(types[ti], (char *)base[me] + (ti * (1 + np) + k) * arr, N + 2 * GUARD);
    ARMCI_Access_end(base[me]);
    ARMCI_Barrier();

    unsigned char src[N * sizeof(dcp_t)], sc[sizeof(dcp_t)];
    for (int ti = 0; ti < 6; ti++) {
        int type = types[ti];
        make_src(type, me, src);
        make_scale(type, me, sc);
        size_t bytes = N * tsize[type];
        /* contended: all ranks into the same elements on rank 0 */
        char *shared0 = (char *)base[0] + (ti * (1 + np)) * arr + GUARD * tsize[type];
        for (int it = 0; it < ITERS; it++)
            CHECK_EQ(ARMCI_Acc(type, sc, src, shared0, (int)bytes, 0), 0, "ARMCI_Acc return");
        /* private region `me` on every rank, two accumulates each */
        for (int k = 0; k < np; k++) {
            int t = (me + k) % np;
            char *mine = (char *)base[t] + (ti * (1 + np) + 1 + me) * arr + GUARD * tsize[type];
            for (int it = 0; it < 2; it++)
                CHECK_EQ(ARMCI_Acc(type, sc, src, mine, (int)bytes, t), 0, "ARMCI_Acc return");
        }
    }
    ARMCI_Barrier();

    unsigned char *buf = malloc(arr);
    for (int ti = 0; ti < 6; ti++) {
        int type = types[ti];
        /* everyone reads the contended array of rank 0 */
        ARMCI_Get((char *)base[0] + (ti * (1 + np)) * arr, buf, (int)arr, 0);
        check_array(type, buf, np, ITERS, "contended on rank 0");
        /* my region on every rank holds only my two accumulates */
        for (int t = 0; t < np; t++) {
            ARMCI_Get((char *)base[t] + (ti * (1 + np) + 1 + me) * arr, buf, (int)arr, t);
            long re, im, ere, eim;
            for (int i = 0; i < N; i++) {
                read_elem(type, buf, i + GUARD, &re, &im);
                /* expected for a single source `me`: shift sources so that
                 * expected() over one rank is computed with rank me's data */
                ere = init_re(i);
                eim = type >= ARMCI_ACC_CPL ? init_im(i) : 0;
                long a = src_re(me, i), b = src_im(me, i), c = sc_re(me), d = sc_im(me);
                if (type >= ARMCI_ACC_CPL) {
                    ere += 2 * (c * a - d * b);
                    eim += 2 * (c * b + d * a);
                } else {
                    ere += 2 * c * a * (type == ARMCI_ACC_LNG ? 1000000000L : 1);
                }
                CHECK(re == ere && im == eim, "%s private on rank %d elem %d: (%ld,%ld) vs (%ld,%ld)",
                      tname[type], t, i, re, im, ere, eim);
            }
        }
    }
    if (me == 0) {
        ARMCI_Access_begin(base[0]);
        for (int ti = 0; ti < 6; ti++)
            check_array(types[ti], (char *)base[0] + (ti * (1 + np)) * arr, np, ITERS,
                        "rank 0 local view");
        ARMCI_Access_end(base[0]);
    }
    TST_SAY("acc: INT LNG FLT DBL CPL DCP with scales; %d ranks x %d accumulates into rank 0 exact,"
            " private regions on every rank exact, guards untouched", np, ITERS);

    /* Large accumulates, one request or several between nodes: every rank
     * adds into the same doubles of rank 0, three times per size. */
    {
        static const int nd[] = { 2500, 12500, 37500 };   /* 20 KB, 100 KB, 300 KB */
        const int maxd = 37500, reps = 3;
        void **big = malloc(sizeof(void *) * np);
        CHECK_EQ(ARMCI_Malloc(big, (armci_size_t)(3 * maxd * sizeof(double))), 0,
                 "ARMCI_Malloc (large)");
        ARMCI_Access_begin(big[me]);
        memset(big[me], 0, 3 * maxd * sizeof(double));
        ARMCI_Access_end(big[me]);
        ARMCI_Barrier();
        double *v = malloc(maxd * sizeof(double)), scale = 2.0;
        for (int k = 0; k < 3; k++) {
            for (int i = 0; i < nd[k]; i++)
                v[i] = (double)((i * 13 + me * 7 + k) % 101);
            double *dst = (double *)big[0] + k * maxd;
            for (int it = 0; it < reps; it++)
                CHECK_EQ(ARMCI_Acc(ARMCI_ACC_DBL, &scale, v, dst, nd[k] * (int)sizeof(double), 0),
                         0, "ARMCI_Acc (large) return");
        }
        ARMCI_Barrier();
        double *got = malloc(maxd * sizeof(double));
        for (int k = 0; k < 3; k++) {
            ARMCI_Get((double *)big[0] + k * maxd, got, maxd * (int)sizeof(double), 0);
            int bad = -1;
            for (int i = 0; i < maxd && bad < 0; i++) {
                double want = 0.0;
                for (int r = 0; i < nd[k] && r < np; r++)
                    want += reps * scale * (double)((i * 13 + r * 7 + k) % 101);
                if (got[i] != want)
                    bad = i;
            }
            CHECK(bad < 0, "large accumulate of %d doubles into rank 0: element %d wrong",
                  nd[k], bad);
        }
        TST_SAY("acc: %d ranks x %d accumulates of 20 KB, 100 KB and 300 KB into rank 0 exact",
                np, reps);
        ARMCI_Barrier();
        ARMCI_Free(big[me]);
        free(big); free(v); free(got);
    }

    ARMCI_Barrier();
    ARMCI_Free(base[me]);
    free(base); free(buf);
    ARMCI_Finalize();
    MPI_Finalize();
    return tst_finish("acc");
}
