/* armada-ft: the NAS FT kernel (3-D FFT PDE solver) over a slab
 * decomposition, with a choice of one-sided and two-sided transpositions.
 *
 *   armada-ft --class S|W|A|B --variant NAME [--window N] [--pad N]
 *             [--plan measure|estimate] [--phases]
 *
 * Exit status: 0 when the checksums verify, 1 when they do not, 2 on a usage
 * or setup error. */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ft.h"

typedef struct ft_opts {
    const ft_class *cls;
    const ft_variant *v;
    int window;
    int pad;
    int phases;
    unsigned plan_flags;
} ft_opts;

typedef struct ft_arrays {
    void **zall[2], **y0all;    /* ARMCI base pointers of every rank        */
    ft_cplx *uz[2];             /* layout Z: inverse destinations (odd/even) */
    ft_cplx *uy0;               /* layout Y: spectrum, forward destination  */
    ft_cplx *uy1;               /* layout Y: work copy for the inverse      */
    double *tw;
    ft_cplx *zptr[2][64], *y0ptr[64];
} ft_arrays;

static void usage(FILE *out)
{
    fprintf(out, "usage: armada-ft --class S|W|A|B --variant NAME [--window N] [--pad N]"
                 " [--plan measure|estimate] [--phases]\nvariants:\n");
    ft_variant_list(out);
}

static int parse(int argc, char **argv, ft_opts *o, int me)
{
    o->cls = NULL;
    o->v = NULL;
    o->window = 64;
    o->pad = 8;
    o->phases = 0;
    o->plan_flags = FFTW_MEASURE;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            if (me == 0)
                usage(stdout);
            return 1;
        }
        if (strcmp(a, "--phases") == 0) {
            o->phases = 1;
            continue;
        }
        if (!val)
            goto bad;
        i++;
        if (strcmp(a, "--class") == 0 && strlen(val) == 1)
            o->cls = ft_class_find((char)toupper((unsigned char)val[0]));
        else if (strcmp(a, "--variant") == 0)
            o->v = ft_variant_find(val);
        else if (strcmp(a, "--window") == 0)
            o->window = atoi(val);
        else if (strcmp(a, "--pad") == 0 && isdigit((unsigned char)val[0]))
            o->pad = atoi(val);
        else if (strcmp(a, "--plan") == 0 && strcmp(val, "measure") == 0)
            o->plan_flags = FFTW_MEASURE;
        else if (strcmp(a, "--plan") == 0 && strcmp(val, "estimate") == 0)
            o->plan_flags = FFTW_ESTIMATE;
        else
            goto bad;
    }
    if (o->cls && o->v && o->window > 0 && o->pad >= 0 && o->pad <= 64)
        return 0;
bad:
    if (me == 0) {
        fprintf(stderr, "armada-ft: missing or bad arguments\n");
        usage(stderr);
    }
    return -1;
}

/* Every rank's arrays start FT_ALIGN-aligned, so that FFTW may use aligned
 * SIMD whatever alignment the ARMCI implementation returns (Armada's blocks
 * are page-aligned, ARMCI-MPI's only 8-byte aligned).  A remote address is
 * aligned by the same arithmetic its owner applies to it. */
#define FT_ALIGN 64

static ft_cplx *align_up(void *p)
{
    return (ft_cplx *)(((uintptr_t)p + FT_ALIGN - 1) & ~(uintptr_t)(FT_ALIGN - 1));
}

static int alloc_arrays(ft_arrays *m, size_t elems, int np)
{
    armci_size_t bytes = (armci_size_t)(elems * sizeof(ft_cplx) + FT_ALIGN);
    memset(m, 0, sizeof *m);
    if (np > 64)
        return -1;
    for (int i = 0; i < 2; i++) {
        m->zall[i] = calloc((size_t)np, sizeof(void *));
        if (!m->zall[i] || ARMCI_Malloc(m->zall[i], bytes) != 0)
            return -1;
    }
    m->y0all = calloc((size_t)np, sizeof(void *));
    if (!m->y0all || ARMCI_Malloc(m->y0all, bytes) != 0)
        return -1;
    for (int p = 0; p < np; p++) {
        m->zptr[0][p] = align_up(m->zall[0][p]);
        m->zptr[1][p] = align_up(m->zall[1][p]);
        m->y0ptr[p] = align_up(m->y0all[p]);
    }
    m->uy1 = fftw_malloc(elems * sizeof(ft_cplx));
    m->tw = fftw_malloc(elems * sizeof(double));
    return m->uy1 && m->tw ? 0 : -1;
}

/* ARMCI_Free takes this rank's own pointer; release in reverse order of
 * allocation. */
static void free_arrays(ft_arrays *m, int me)
{
    fftw_free(m->tw);
    fftw_free(m->uy1);
    if (m->y0all && m->y0all[me])
        ARMCI_Free(m->y0all[me]);
    free(m->y0all);
    for (int i = 1; i >= 0; i--) {
        if (m->zall[i] && m->zall[i][me])
            ARMCI_Free(m->zall[i][me]);
        free(m->zall[i]);
    }
}

/* NPB's operation count for FT. */
static double mops(const ft_class *cls, double secs)
{
    double n = (double)cls->nx * cls->ny * cls->nz;
    return 1e-6 * n * (14.8157 + 7.19641 * log(n) +
                       (5.23518 + 7.21113 * log(n)) * cls->niter) / secs;
}

/* Initial conditions and the forward transform: layout Z in uz[0] to the
 * spectrum in layout Y (uy0). */
static void forward(ft_comm *c, const ft_plans *pl, const ft_opts *o, ft_arrays *m)
{
    const ft_class *cls = o->cls;
    int nzl = cls->nz / c->np, nyl = cls->ny / c->np;
    double t0 = ft_now();
    ft_initial_conditions(m->zptr[0][c->me], cls, o->cls->nx + o->pad, c->me * nzl, nzl);
    c->st.t_phase[FT_PH_SETUP] += ft_now() - t0;
    ft_xpose x = {cls->nz, cls->ny, cls->nx, cls->nx + o->pad, nzl, nyl, m->zptr[0][c->me],
                  m->y0ptr[c->me], m->y0ptr, NULL, NULL};
    ft_transpose_fft(c, pl, FT_FWD, &x);
}

/* Step t: evolve the spectrum into uy1, plane by plane inside the inverse
 * transform, which lands in uz[t & 1] (a rank may start step t+1 while
 * others still read step t's result); checksum. */
static ft_cplx step(ft_comm *c, const ft_plans *pl, const ft_opts *o, ft_arrays *m, int t)
{
    const ft_class *cls = o->cls;
    int nzl = cls->nz / c->np, nyl = cls->ny / c->np, ld = cls->nx + o->pad;
    ft_cplx *uz = m->zptr[t & 1][c->me];
    ft_xpose x = {cls->ny, cls->nz, cls->nx, ld, nyl, nzl, m->uy1, uz, m->zptr[t & 1],
                  m->uy0, m->tw};
    ft_transpose_fft(c, pl, FT_INV, &x);
    double *ph = c->st.t_phase, t0 = ft_now();
    ft_cplx local = ft_checksum_local(uz, cls, ld, c->me * nzl, nzl), sum = 0;
    MPI_Reduce(&local, &sum, 2, MPI_DOUBLE, MPI_SUM, 0, c->comm);
    ph[FT_PH_CHECK] += ft_now() - t0;
    return sum;
}

/* --phases: seconds per phase, mean over ranks and the slowest and fastest
 * rank, then the same per rank. */
static void report_phases(const ft_comm *c)
{
    static const char *const names[FT_NPHASE] = {"setup", "evolve", "fft-b", "send", "finish",
                                                 "fft-a", "checksum"};
    double all[64 * FT_NPHASE];
    if (c->np > 64)
        return;
    MPI_Gather(c->st.t_phase, FT_NPHASE, MPI_DOUBLE, all, FT_NPHASE, MPI_DOUBLE, 0, c->comm);
    if (c->me != 0)
        return;
    printf(" %-10s %9s %9s %9s   per rank\n", "phase (s)", "mean", "min", "max");
    for (int k = 0; k < FT_NPHASE; k++) {
        double sum = 0, lo = all[k], hi = all[k];
        for (int r = 0; r < c->np; r++) {
            double v = all[r * FT_NPHASE + k];
            sum += v;
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        printf(" %-10s %9.4f %9.4f %9.4f  ", names[k], sum / c->np, lo, hi);
        for (int r = 0; r < c->np; r++)
            printf(" %.3f", all[r * FT_NPHASE + k]);
        printf("\n");
    }
}

static void report(const ft_comm *c, const ft_opts *o, const ft_cplx *sums, int ok,
                   double secs)
{
    double st[2] = {c->st.t_init, c->st.t_wait}, sum[2], max[2];
    long nmsg = 0;
    MPI_Reduce(st, sum, 2, MPI_DOUBLE, MPI_SUM, 0, c->comm);
    MPI_Reduce(st, max, 2, MPI_DOUBLE, MPI_MAX, 0, c->comm);
    MPI_Reduce(&c->st.nmsg, &nmsg, 1, MPI_LONG, MPI_SUM, 0, c->comm);
    if (o->phases)
        report_phases(c);
    if (c->me != 0)
        return;
    const ft_class *cls = o->cls;
    for (int t = 0; t < cls->niter; t++)
        printf(" T = %2d    Checksum = %22.12e %22.12e\n", t + 1, creal(sums[t]),
               cimag(sums[t]));
    printf(" %s\n", ok ? "VERIFICATION SUCCESSFUL" : "VERIFICATION FAILED");
    printf(" Class                  = %c (%d x %d x %d, %d iterations)\n", cls->name,
           cls->nx, cls->ny, cls->nz, cls->niter);
    printf(" Variant                = %s\n", o->v->name);
    printf(" Processes              = %d\n", c->np);
    printf(" Time in seconds        = %.4f\n", secs);
    printf(" Mop/s total            = %.2f\n", mops(cls, secs));
    printf(" Comm initiation (s)    = %.4f mean, %.4f max\n", sum[0] / c->np, max[0]);
    printf(" Comm completion (s)    = %.4f mean, %.4f max\n", sum[1] / c->np, max[1]);
    printf(" Messages per process   = %.1f\n", (double)nmsg / c->np);
    printf("RESULT variant=%s class=%c np=%d time=%.6f mops=%.3f init=%.6f wait=%.6f"
           " msgs=%ld verified=%d\n",
           o->v->name, cls->name, c->np, secs, mops(cls, secs), sum[0] / c->np,
           sum[1] / c->np, nmsg, ok);
    fflush(stdout);
}

/* Plans are executed on every row and plane of the arrays, so they are made
 * for unaligned data unless every row start keeps the arrays' alignment.
 * Estimated plans always are: FFTW's estimate picks a much slower strided
 * plan when it may use aligned SIMD (7x in decision 018).  Measured plans are
 * measured once, by rank 0, and its wisdom given to the others, so that every
 * rank runs the same plans: ranks that measured for themselves could pick
 * plans of different speed, and the slowest would set everyone's pace. */
static int make_plans(ft_plans *pl, const ft_opts *o, const ft_arrays *m, int np, int me)
{
    const ft_class *cls = o->cls;
    int ld = cls->nx + o->pad;
    unsigned flags = o->plan_flags;
    int unaligned = flags == FFTW_ESTIMATE || (ld * sizeof(ft_cplx)) % FT_ALIGN != 0 ||
                    fftw_alignment_of((double *)m->zptr[0][me]) ||
                    fftw_alignment_of((double *)m->zptr[1][me]) ||
                    fftw_alignment_of((double *)m->y0ptr[me]) ||
                    fftw_alignment_of((double *)m->uy1);
    MPI_Allreduce(MPI_IN_PLACE, &unaligned, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (unaligned)
        flags |= FFTW_UNALIGNED;
    int rc = 0, len = 0;
    char *wisdom = NULL;
    if (me == 0) {
        rc = ft_plans_create(pl, cls, np, ld, m->zptr[0][me], m->uy1, flags);
        wisdom = fftw_export_wisdom_to_string();
        len = wisdom ? (int)strlen(wisdom) + 1 : 0;
    }
    MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (me != 0 && len > 0 && !(wisdom = malloc((size_t)len))) {
        fprintf(stderr, "armada-ft: rank %d: out of memory for FFTW wisdom\n", me);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (len > 0) {
        MPI_Bcast(wisdom, len, MPI_CHAR, 0, MPI_COMM_WORLD);
        if (me != 0)
            fftw_import_wisdom_from_string(wisdom);
    }
    if (me != 0)
        rc = ft_plans_create(pl, cls, np, ld, m->zptr[0][me], m->uy1, flags);
    if (me == 0)
        fftw_free(wisdom);
    else
        free(wisdom);
    return rc;
}

static int run_ft(const ft_opts *o, int me, int np)
{
    const ft_class *cls = o->cls;
    int status = 2;
    if (cls->nz % np || cls->ny % np) {
        if (me == 0)
            fprintf(stderr, "armada-ft: %d processes do not divide ny=%d and nz=%d\n", np,
                    cls->ny, cls->nz);
        return 2;
    }
    int nzl = cls->nz / np, nyl = cls->ny / np, ld = cls->nx + o->pad;
    size_t elems = (size_t)ld * cls->ny * nzl;     /* = ld * nz * nyl */
    double need = (double)elems * np * (4 * sizeof(ft_cplx) + sizeof(double));
    double have = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    if (need > 0.8 * have) {
        if (me == 0)
            fprintf(stderr, "armada-ft: class %c needs %.1f GiB, more than this node has\n",
                    cls->name, need / (1 << 30));
        return 2;
    }

    ft_arrays m;
    ft_comm c;
    ft_plans pl;
    ft_cplx sums[32];
    int ok = 0, err = alloc_arrays(&m, elems, np) != 0;
    err |= ft_comm_init(&c, o->v, MPI_COMM_WORLD, (size_t)nzl * nyl,
                        (size_t)nzl * nyl * cls->nx, o->window) != 0;
    MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (err) {
        if (me == 0)
            fprintf(stderr, "armada-ft: out of memory\n");
        goto out_arrays;
    }
    m.uy0 = m.y0ptr[me];
    if (make_plans(&pl, o, &m, np, me) != 0) {
        fprintf(stderr, "armada-ft: FFTW planning failed\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    /* untimed: touch every page, and one forward pass warms up the connections */
    memset(m.zptr[1][me], 0, elems * sizeof(ft_cplx));
    memset(m.uy1, 0, elems * sizeof(ft_cplx));
    memset(m.tw, 0, elems * sizeof(double));
    forward(&c, &pl, o, &m);
    memset(&c.st, 0, sizeof c.st);
    MPI_Barrier(MPI_COMM_WORLD);

    double t0 = ft_now();
    ft_twiddle(m.tw, cls, ld, me * nyl, nyl);
    c.st.t_phase[FT_PH_SETUP] += ft_now() - t0;
    forward(&c, &pl, o, &m);
    for (int t = 1; t <= cls->niter; t++)
        sums[t - 1] = step(&c, &pl, o, &m, t);
    double secs = ft_now() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &secs, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

    if (me == 0)
        ok = ft_verify(cls, sums, cls->niter);
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    report(&c, o, sums, ok, secs);
    status = ok ? 0 : 1;
    ft_plans_destroy(&pl);
out_arrays:
    ft_comm_fini(&c);
    free_arrays(&m, me);
    return status;
}

int main(int argc, char **argv)
{
    int me, np, status;
    ft_opts o;
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int rc = parse(argc, argv, &o, me);
    if (rc == 0)
        status = run_ft(&o, me, np);
    else
        status = rc > 0 ? 0 : 2;
    ARMCI_Finalize();
    MPI_Finalize();
    return status;
}
