/* Dense LU kernel: layout, options, test matrix and verification (shared by
 * the ARMCI program and the ScaLAPACK reference). */
#include "lu.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int lu_numroc(int n, int nb, int p, int q)
{
    int nblocks = n / nb;
    int num = (nblocks / q) * nb;
    int extra = nblocks % q;
    if (p < extra)
        num += nb;
    else if (p == extra)
        num += n % nb;
    return num;
}

int lu_local_start(int k, int nb, int p, int q)
{
    int count = k > p ? (k - p - 1) / q + 1 : 0;
    return count * nb;
}

int lu_global(int l, int nb, int p, int q)
{
    return ((l / nb) * q + p) * nb + l % nb;
}

int lu_block_size(const lu_layout *L, int k)
{
    int rest = L->n - k * L->nb;
    return rest < L->nb ? rest : L->nb;
}

static int parse_int(const char *s, int *out)
{
    char *end;
    long v;
    if (!s)
        return -1;
    v = strtol(s, &end, 10);
    if (*end != '\0' || end == s || v < -1000000000L || v > 1000000000L)
        return -1;
    *out = (int)v;
    return 0;
}

static int parse_grid(const char *s, int *pr, int *pc)
{
    char buf[64], *x;
    if (!s || strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    x = strchr(buf, 'x');
    if (!x)
        return -1;
    *x = '\0';
    if (parse_int(buf, pr) != 0 || parse_int(x + 1, pc) != 0 || *pr < 1 || *pc < 1)
        return -1;
    return 0;
}

static int usage(int me, const char *prog, const char *why)
{
    if (me == 0) {
        fprintf(stderr, "%s: %s\n", prog, why);
        fprintf(stderr, "usage: %s [-n N] [--nb NB] [--grid PRxPC] [--matrix random|dd]\n", prog);
    }
    return 2;
}

int lu_parse(int argc, char **argv, int np, int me, const char *prog, lu_opts *o)
{
    char why[160];
    o->n = 4096;
    o->nb = 64;
    o->pr = 0;
    o->pc = 0;
    o->dd = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;
        if (strcmp(a, "-n") == 0)
            bad = parse_int(val, &o->n), i++;
        else if (strcmp(a, "--nb") == 0)
            bad = parse_int(val, &o->nb), i++;
        else if (strcmp(a, "--grid") == 0)
            bad = parse_grid(val, &o->pr, &o->pc), i++;
        else if (strcmp(a, "--matrix") == 0 && val && strcmp(val, "random") == 0)
            o->dd = 0, i++;
        else if (strcmp(a, "--matrix") == 0 && val && strcmp(val, "dd") == 0)
            o->dd = 1, i++;
        else
            bad = -1;
        if (bad) {
            snprintf(why, sizeof why, "bad argument '%s%s%s'", a, val ? " " : "",
                     val ? val : "");
            return usage(me, prog, why);
        }
    }
    if (o->n < 1) {
        snprintf(why, sizeof why, "-n %d: the matrix order must be at least 1", o->n);
        return usage(me, prog, why);
    }
    if (o->nb < 1 || o->nb > o->n) {
        snprintf(why, sizeof why, "--nb %d: the block size must be between 1 and n=%d", o->nb,
                 o->n);
        return usage(me, prog, why);
    }
    if (o->pr == 0) {
        for (int r = 1; r * r <= np; r++)
            if (np % r == 0)
                o->pr = r;
        o->pc = np / o->pr;
    } else if (o->pr * o->pc != np) {
        snprintf(why, sizeof why, "--grid %dx%d has %d processes, but the run has %d", o->pr,
                 o->pc, o->pr * o->pc, np);
        return usage(me, prog, why);
    }
    return 0;
}

void lu_layout_init(lu_layout *L, const lu_opts *o, int me, int np)
{
    L->n = o->n;
    L->nb = o->nb;
    L->nblk = (o->n + o->nb - 1) / o->nb;
    L->pr = o->pr;
    L->pc = o->pc;
    L->me = me;
    L->np = np;
    L->myr = me / o->pc;
    L->myc = me % o->pc;
    L->mloc = lu_numroc(L->n, L->nb, L->myr, L->pr);
    L->nloc = lu_numroc(L->n, L->nb, L->myc, L->pc);
    L->lda = L->mloc > 0 ? L->mloc : 1;
    L->dd = o->dd;
}

double lu_entry(const lu_layout *L, int i, int j)
{
    uint64_t z = (uint64_t)i * (uint64_t)L->n + (uint64_t)j + 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    double v = (double)(z >> 11) * (1.0 / 9007199254740992.0) - 0.5;
    return i == j && L->dd ? v + (double)L->n : v;
}

double lu_xtrue(int i)
{
    return 1.0 + (double)(i % 13) / 13.0;
}

void lu_fill(const lu_layout *L, double *a)
{
    for (int jl = 0; jl < L->nloc; jl++) {
        int j = lu_global(jl, L->nb, L->myc, L->pc);
        for (int il = 0; il < L->mloc; il++)
            a[(size_t)jl * L->lda + il] = lu_entry(L, lu_global(il, L->nb, L->myr, L->pr), j);
    }
}

void lu_matvec(const lu_layout *L, const double *x, double *out, double *rowabs)
{
    size_t n = (size_t)L->n;
    double *part = calloc(2 * n, sizeof *part), *sum = malloc(2 * n * sizeof *sum);
    int *grow = malloc(((size_t)L->mloc + 1) * sizeof *grow);
    if (!part || !sum || !grow) {
        fprintf(stderr, "lu: rank %d: out of memory for the verification vectors\n", L->me);
        MPI_Abort(MPI_COMM_WORLD, 1);
        return;
    }
    for (int il = 0; il < L->mloc; il++)
        grow[il] = lu_global(il, L->nb, L->myr, L->pr);
    for (int jl = 0; jl < L->nloc; jl++) {
        int j = lu_global(jl, L->nb, L->myc, L->pc);
        for (int il = 0; il < L->mloc; il++) {
            double a = lu_entry(L, grow[il], j);
            part[grow[il]] += a * x[j];
            part[n + (size_t)grow[il]] += fabs(a);
        }
    }
    MPI_Allreduce(part, sum, (int)(2 * n), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    memcpy(out, sum, n * sizeof *out);
    if (rowabs)
        memcpy(rowabs, sum + n, n * sizeof *rowabs);
    free(part);
    free(sum);
    free(grow);
}

lu_check lu_verify(const lu_layout *L, const double *x, const double *b)
{
    size_t n = (size_t)L->n;
    double *ax = malloc(n * sizeof *ax), *rowabs = malloc(n * sizeof *rowabs);
    double na = 0, nx = 0, nbv = 0, nr = 0, err = 0;
    lu_check c;
    if (!ax || !rowabs) {
        fprintf(stderr, "lu: rank %d: out of memory for the verification\n", L->me);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    lu_matvec(L, x, ax, rowabs);
    for (size_t i = 0; i < n; i++) {
        na = fmax(na, rowabs[i]);
        nx = fmax(nx, fabs(x[i]));
        nbv = fmax(nbv, fabs(b[i]));
        nr = fmax(nr, fabs(ax[i] - b[i]));
        err = fmax(err, fabs(x[i] - lu_xtrue((int)i)));
        if (!isfinite(x[i]))
            nr = INFINITY;
    }
    c.resid = nr / ((na * nx + nbv) * (double)n * DBL_EPSILON);
    c.err = err;
    c.ok = isfinite(c.resid) && c.resid < LU_RESID_THRESHOLD;
    free(ax);
    free(rowabs);
    return c;
}

void lu_report(const lu_layout *L, const char *impl, double t, double comm,
               const lu_check *c)
{
    double flops = 2.0 / 3.0 * (double)L->n * (double)L->n * (double)L->n;
    char commbuf[32];
    if (L->me != 0)
        return;
    if (comm < 0)
        snprintf(commbuf, sizeof commbuf, "na");
    else
        snprintf(commbuf, sizeof commbuf, "%.6f", comm);
    printf(" LU factorisation (%s): n=%d nb=%d grid=%dx%d np=%d matrix=%s\n", impl, L->n,
           L->nb, L->pr, L->pc, L->np, L->dd ? "dd" : "random");
    printf(" time %.6f s, %.3f Gflop/s, communication wait %s s (mean over ranks)\n", t,
           flops / t / 1e9, commbuf);
    printf(" scaled residual %.6g (threshold %.0f), max |x - x_true| %.3g\n", c->resid,
           LU_RESID_THRESHOLD, c->err);
    printf(" %s\n", c->ok ? "VERIFICATION SUCCESSFUL" : "VERIFICATION FAILED");
    printf("RESULT app=lu impl=%s np=%d n=%d nb=%d grid=%dx%d time=%.6f gflops=%.4f comm=%s "
           "resid=%.6g verified=%d\n",
           impl, L->np, L->n, L->nb, L->pr, L->pc, t, flops / t / 1e9, commbuf, c->resid,
           c->ok);
    fflush(stdout);
}
