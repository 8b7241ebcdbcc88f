/* Global Arrays 5.8 (Debian's libga-openmpi.a, unchanged) running on
 * Armada's libarmci: 1-D and 2-D arrays of int, long and double; patches
 * put and read back, accumulate with a scale, scatter and gather,
 * non-blocking put, and read-increment under contention with every value
 * checked to be handed out exactly once. Prints a summary; exits non-zero
 * on any mismatch. */
#include "ga_check.h"
#include <macdecls.h>
#include <stdlib.h>
#include <string.h>

/* ---- typed buffers: every value used here is a small integer, exact in
 * int, long and double alike. ------------------------------------------- */

static size_t elem_size(int type)
{
    return type == C_INT ? sizeof(int) : type == C_LONG ? sizeof(long) : sizeof(double);
}

static void put_val(void *buf, int type, long i, long v)
{
    if (type == C_INT) ((int *)buf)[i] = (int)v;
    else if (type == C_LONG) ((long *)buf)[i] = v;
    else ((double *)buf)[i] = (double)v;
}

static long get_val(const void *buf, int type, long i)
{
    if (type == C_INT) return ((const int *)buf)[i];
    if (type == C_LONG) return ((const long *)buf)[i];
    return (long)((const double *)buf)[i];
}

static const char *type_name(int type)
{
    return type == C_INT ? "int" : type == C_LONG ? "long" : "double";
}

/* Shape: ndim 1 -> {n0}, ndim 2 -> {n0, n1}; L = i*n1 + j. */
typedef struct {
    int  ndim;
    int  dims[2];
    long total;
} shape_t;

static long lin(const shape_t *s, int i, int j)
{
    return s->ndim == 1 ? i : (long)i * s->dims[1] + j;
}

static long pattern(long L, int salt)
{
    return (L * 7 + 3 * salt) % 1009 + salt;
}

/* Reads the whole array and compares each element with want(L). */
static void check_all(int g, int type, const shape_t *s, long (*want)(long, void *), void *arg,
                      const char *what)
{
    int lo[2] = { 0, 0 }, hi[2] = { s->dims[0] - 1, s->dims[1] - 1 }, ld[1] = { s->dims[1] };
    void *buf = malloc((size_t)s->total * elem_size(type));
    NGA_Get(g, lo, hi, buf, ld);
    long bad = 0, first = -1;
    for (long L = 0; L < s->total; L++)
        if (get_val(buf, type, L) != want(L, arg)) {
            if (first < 0) first = L;
            bad++;
        }
    EXPECT(bad == 0, "%s %dD %s: %ld wrong elements, first at %ld (got %ld want %ld)",
           type_name(type), s->ndim, what, bad, first,
           first >= 0 ? get_val(buf, type, first) : 0, first >= 0 ? want(first, arg) : 0);
    free(buf);
}

static long want_pattern(long L, void *arg) { return pattern(L, *(int *)arg); }

typedef struct { const shape_t *s; int salt; int lo[2], hi[2]; long add; } acc_want_t;

static long want_acc(long L, void *arg)
{
    acc_want_t *a = arg;
    int i = a->s->ndim == 1 ? (int)L : (int)(L / a->s->dims[1]);
    int j = a->s->ndim == 1 ? 0 : (int)(L % a->s->dims[1]);
    int in = i >= a->lo[0] && i <= a->hi[0] && (a->s->ndim == 1 || (j >= a->lo[1] && j <= a->hi[1]));
    return pattern(L, a->salt) + (in ? a->add : 0);
}

typedef struct { int stride; } scat_want_t;

static long want_scatter(long L, void *arg)
{
    scat_want_t *w = arg;
    return L % w->stride == 0 ? L + 5 : 0;
}

/* My block of rows, [r0, r1). */
static void my_rows(const shape_t *s, int *r0, int *r1)
{
    *r0 = (int)((long)s->dims[0] * me / np);
    *r1 = (int)((long)s->dims[0] * (me + 1) / np);
}

/* Puts pattern(salt) over my rows, blocking or not. */
static void put_my_rows(int g, int type, const shape_t *s, int salt, int nonblocking)
{
    int r0, r1;
    my_rows(s, &r0, &r1);
    if (r1 <= r0) return;
    int width = s->ndim == 1 ? 1 : s->dims[1];
    void *buf = malloc((size_t)(r1 - r0) * width * elem_size(type));
    for (int i = r0; i < r1; i++)
        for (int j = 0; j < width; j++)
            put_val(buf, type, (long)(i - r0) * width + j, pattern(lin(s, i, j), salt));
    int ld[1] = { width };
    if (!nonblocking) {
        int lo[2] = { r0, 0 }, hi[2] = { r1 - 1, width - 1 };
        NGA_Put(g, lo, hi, buf, ld);
    } else {
        /* two halves in flight at once */
        int mid = r0 + (r1 - r0) / 2;
        ga_nbhdl_t h[2];
        int n = 0;
        if (mid > r0) {
            int lo[2] = { r0, 0 }, hi[2] = { mid - 1, width - 1 };
            NGA_NbPut(g, lo, hi, buf, ld, &h[n++]);
        }
        int lo[2] = { mid, 0 }, hi[2] = { r1 - 1, width - 1 };
        NGA_NbPut(g, lo, hi, (char *)buf + (size_t)(mid - r0) * width * elem_size(type), ld,
                  &h[n++]);
        for (int k = 0; k < n; k++) NGA_NbWait(&h[k]);
    }
    free(buf);
}

static void test_array(int type, int ndim)
{
    shape_t s = { ndim, { ndim == 1 ? 1000 : 37, ndim == 1 ? 1 : 53 }, 0 };
    s.total = (long)s.dims[0] * s.dims[1];
    char name[32];
    snprintf(name, sizeof name, "a_%s_%d", type_name(type), ndim);
    int g = NGA_Create(type, ndim, s.dims, name, NULL);
    EXPECT(g != 0, "NGA_Create %s", name);
    GA_Zero(g);

    /* put my rows, read everything */
    int salt = 1 + type % 7;
    put_my_rows(g, type, &s, salt, 0);
    GA_Sync();
    check_all(g, type, &s, want_pattern, &salt, "put/get");

    /* an interior patch read into a buffer with its own leading dimension */
    {
        int lo[2] = { 1, ndim == 1 ? 0 : 2 };
        int hi[2] = { s.dims[0] - 2, ndim == 1 ? 0 : s.dims[1] - 3 };
        int rows = hi[0] - lo[0] + 1, cols = hi[1] - lo[1] + 1;
        int ldv = ndim == 1 ? 1 : cols + 3; /* 1-D buffers are contiguous */
        void *buf = calloc((size_t)rows * ldv, elem_size(type));
        int ld[1] = { ldv };
        NGA_Get(g, lo, hi, buf, ld);
        long bad = 0;
        for (int i = 0; i < rows; i++)
            for (int j = 0; j < cols; j++)
                bad += get_val(buf, type, (long)i * ldv + j) !=
                       pattern(lin(&s, lo[0] + i, lo[1] + j), salt);
        EXPECT(bad == 0, "%s %dD get of an interior patch: %ld wrong", type_name(type), ndim, bad);
        free(buf);
    }
    GA_Sync();

    /* everyone accumulates (me+1) with scale 2 into one patch */
    {
        acc_want_t a = { &s, salt, { 2, ndim == 1 ? 0 : 3 }, { ndim == 1 ? 400 : 10, ndim == 1 ? 0 : 20 },
                         2L * np * (np + 1) / 2 };
        int rows = a.hi[0] - a.lo[0] + 1, cols = a.hi[1] - a.lo[1] + 1;
        void *buf = malloc((size_t)rows * cols * elem_size(type));
        for (long k = 0; k < (long)rows * cols; k++) put_val(buf, type, k, me + 1);
        int ld[1] = { cols };
        int ialpha = 2;
        long lalpha = 2;
        double dalpha = 2.0;
        void *alpha = type == C_INT ? (void *)&ialpha : type == C_LONG ? (void *)&lalpha
                                                                        : (void *)&dalpha;
        NGA_Acc(g, a.lo, a.hi, buf, ld, alpha);
        free(buf);
        GA_Sync();
        check_all(g, type, &s, want_acc, &a, "acc scale 2");
    }
    GA_Sync();

    /* scatter: every third element, split among the ranks; then gather */
    {
        GA_Zero(g);
        scat_want_t w = { 3 };
        long nmine = 0;
        for (long L = 0; L < s.total; L += w.stride)
            if ((L / w.stride) % np == me) nmine++;
        int *subs_store = malloc(sizeof(int) * 2 * (size_t)(nmine + 1));
        int **subs = malloc(sizeof(int *) * (size_t)(nmine + 1));
        void *vals = malloc((size_t)(nmine + 1) * elem_size(type));
        long k = 0;
        for (long L = 0; L < s.total; L += w.stride)
            if ((L / w.stride) % np == me) {
                subs[k] = subs_store + 2 * k;
                subs[k][0] = ndim == 1 ? (int)L : (int)(L / s.dims[1]);
                subs[k][1] = ndim == 1 ? 0 : (int)(L % s.dims[1]);
                put_val(vals, type, k, L + 5);
                k++;
            }
        GA_Sync();
        if (nmine > 0) NGA_Scatter(g, vals, subs, (int)nmine);
        GA_Sync();
        check_all(g, type, &s, want_scatter, &w, "scatter");
        free(subs_store);
        free(subs);
        free(vals);

        /* gather every element, in reverse order */
        int *gs = malloc(sizeof(int) * 2 * (size_t)s.total);
        int **gp = malloc(sizeof(int *) * (size_t)s.total);
        void *gv = malloc((size_t)s.total * elem_size(type));
        for (long q = 0; q < s.total; q++) {
            long L = s.total - 1 - q;
            gp[q] = gs + 2 * q;
            gp[q][0] = ndim == 1 ? (int)L : (int)(L / s.dims[1]);
            gp[q][1] = ndim == 1 ? 0 : (int)(L % s.dims[1]);
        }
        NGA_Gather(g, gv, gp, (int)s.total);
        long bad = 0;
        for (long q = 0; q < s.total; q++)
            bad += get_val(gv, type, q) != want_scatter(s.total - 1 - q, &w);
        EXPECT(bad == 0, "%s %dD gather: %ld wrong", type_name(type), ndim, bad);
        free(gs);
        free(gp);
        free(gv);
    }
    GA_Sync();

    /* non-blocking put of my rows, a fresh pattern */
    {
        int salt2 = salt + 11;
        GA_Zero(g);
        put_my_rows(g, type, &s, salt2, 1);
        GA_Sync();
        check_all(g, type, &s, want_pattern, &salt2, "nbput/nbwait");
    }
    GA_Sync();
    GA_Destroy(g);
}

/* Every rank takes `per` values from one element of a counter array; all
 * values together must be 0, inc, 2 inc, ... each exactly once. */
static void test_read_inc(int type, int per, long inc)
{
    int dims[1] = { np + 1 };
    int g = NGA_Create(type, 1, dims, "counter", NULL);
    GA_Zero(g);
    GA_Sync();
    int sub[1] = { np / 2 };
    long *mine = malloc(sizeof(long) * (size_t)per);
    for (int k = 0; k < per; k++) mine[k] = NGA_Read_inc(g, sub, inc);
    long *all = malloc(sizeof(long) * (size_t)per * np);
    MPI_Allgather(mine, per, MPI_LONG, all, per, MPI_LONG, MPI_COMM_WORLD);
    long total = (long)per * np;
    char *seen = calloc((size_t)total, 1);
    long bad = 0;
    for (long q = 0; q < total; q++) {
        long v = all[q];
        if (v < 0 || v % inc != 0 || v / inc >= total || seen[v / inc]) bad++;
        else seen[v / inc] = 1;
    }
    EXPECT(bad == 0, "read_inc %s: %ld of %ld values repeated or out of range", type_name(type),
           bad, total);
    for (int k = 1; k < per; k++)
        EXPECT(mine[k] > mine[k - 1], "read_inc %s: values go backwards on one rank", type_name(type));
    GA_Sync();
    long final = 0;
    if (type == C_LONG) {
        long v;
        NGA_Get(g, sub, sub, &v, NULL);
        final = v;
    } else {
        int v;
        NGA_Get(g, sub, sub, &v, NULL);
        final = v;
    }
    EXPECT(final == total * inc, "read_inc %s: final value %ld, expected %ld", type_name(type),
           final, total * inc);
    free(seen);
    free(all);
    free(mine);
    GA_Destroy(g);
}

int main(int argc, char **argv)
{
    ga_check_start(&argc, &argv);
    int wnp;
    MPI_Comm_size(MPI_COMM_WORLD, &wnp);
    EXPECT(np == wnp, "GA_Nnodes %d, MPI size %d", np, wnp);

    const int types[3] = { C_INT, C_LONG, C_DBL };
    for (int t = 0; t < 3; t++)
        for (int ndim = 1; ndim <= 2; ndim++) {
            if (me == 0) { printf("array %s %dD\n", type_name(types[t]), ndim); fflush(stdout); }
            test_array(types[t], ndim);
        }
    if (me == 0) { printf("read_inc under contention\n"); fflush(stdout); }
    test_read_inc(C_LONG, 200, 1);
    test_read_inc(C_INT, 100, 3);

    int rc = ga_check_summary("ga_basic");
    GA_Terminate();
    MPI_Finalize();
    return rc;
}
