#define _POSIX_C_SOURCE 200809L
#include "bench_common.h"

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <getopt.h>

static void bench_usage(const char *prog, const char *suite)
{
    fprintf(stderr,
            "usage: %s [options]   (suite %s)\n"
            "  -n N    timed operations per repetition (small sizes)\n"
            "  -w N    warm-up operations per repetition\n"
            "  -r N    repetitions; each figure is their median (max %d)\n"
            "  -m SZ   smallest message of a sweep (k, M suffixes)\n"
            "  -M SZ   largest message of a sweep\n"
            "  -t SZ   fixed total for strided / vector suites\n"
            "  -b SZ   byte budget per repetition for large messages\n"
            "  -W N    outstanding non-blocking operations (flood)\n"
            "  -T R    target rank\n"
            "  -s SEC  hammering time budget per hot-spot figure\n"
            "  -R SEC  target length of one repetition\n"
            "  -o LIST comma-separated operations to run\n"
            "  -c LIST contention levels in percent (hot-spot)\n",
            prog, suite, BENCH_MAX_REPS);
}

size_t bench_parse_size(const char *s)
{
    char *end = NULL;
    double v = strtod(s, &end);
    size_t mult = 1;
    if (end && *end) {
        switch (*end) {
        case 'k': case 'K': mult = (size_t)1 << 10; break;
        case 'm': case 'M': mult = (size_t)1 << 20; break;
        case 'g': case 'G': mult = (size_t)1 << 30; break;
        default: mult = 1; break;
        }
    }
    if (v < 0)
        v = 0;
    return (size_t)(v * (double)mult);
}

void bench_parse(bench_opts_t *o, const char *impl, const char *suite, int argc,
                 char **argv)
{
    memset(o, 0, sizeof *o);
    o->impl = impl;
    MPI_Comm_rank(MPI_COMM_WORLD, &o->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &o->nproc);
    o->suite = suite;
    o->iters = 1000;
    o->warmup = 50;
    o->reps = 5;
    o->min_size = 8;
    o->max_size = (size_t)4 << 20;
    o->total = (size_t)1 << 20;
    o->byte_budget = (size_t)64 << 20;
    o->window = 64;
    o->target = -1;
    o->seconds = 2.0;
    o->levels = "0,11,20,100";
    o->rep_seconds = 0.2;

    int c;
    while ((c = getopt(argc, argv, "n:w:r:m:M:t:b:W:T:s:R:o:c:h")) != -1) {
        switch (c) {
        case 'n': o->iters = atoi(optarg); break;
        case 'w': o->warmup = atoi(optarg); break;
        case 'r': o->reps = atoi(optarg); break;
        case 'm': o->min_size = bench_parse_size(optarg); break;
        case 'M': o->max_size = bench_parse_size(optarg); break;
        case 't': o->total = bench_parse_size(optarg); break;
        case 'b': o->byte_budget = bench_parse_size(optarg); break;
        case 'W': o->window = atoi(optarg); break;
        case 'T': o->target = atoi(optarg); break;
        case 's': o->seconds = atof(optarg); break;
        case 'R': o->rep_seconds = atof(optarg); break;
        case 'o': o->ops = optarg; break;
        case 'c': o->levels = optarg; break;
        default:
            if (o->rank == 0)
                bench_usage(argv[0], suite);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (o->iters < 1) o->iters = 1;
    if (o->warmup < 1) o->warmup = 1;
    if (o->reps < 1) o->reps = 1;
    if (o->reps > BENCH_MAX_REPS) o->reps = BENCH_MAX_REPS;
    if (o->min_size < 1) o->min_size = 1;
    if (o->max_size < o->min_size) o->max_size = o->min_size;
    if (o->window < 1) o->window = 1;
    if (o->target >= o->nproc) o->target = o->nproc - 1;
}

int bench_want(const bench_opts_t *o, const char *op)
{
    if (o->ops == NULL || o->ops[0] == '\0')
        return 1;
    size_t n = strlen(op);
    const char *p = o->ops;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == n && strncmp(p, op, n) == 0)
            return 1;
        if (!comma)
            break;
        p = comma + 1;
    }
    return 0;
}

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void bench_sleep_wait(MPI_Request *r, long nap_us)
{
    const char *e = getenv("BENCH_NAP_US");
    if (e && atol(e) > 0)
        nap_us = atol(e);
    if (nap_us < 1)
        nap_us = 1;
    if (nap_us > 999999)
        nap_us = 999999;
    int done = 0;
    MPI_Test(r, &done, MPI_STATUS_IGNORE);
    while (!done) {
        struct timespec ts = { 0, nap_us * 1000L };
        nanosleep(&ts, NULL);
        MPI_Test(r, &done, MPI_STATUS_IGNORE);
    }
}

void bench_sleep_barrier(MPI_Comm comm, long nap_us)
{
    MPI_Request r;
    MPI_Ibarrier(comm, &r);
    bench_sleep_wait(&r, nap_us);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    if (n % 2)
        return v[n / 2];
    return 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int bench_iters_for(const bench_opts_t *o, size_t size)
{
    size_t it = (size_t)o->iters;
    if (size > 0 && it * size > o->byte_budget)
        it = o->byte_budget / size;
    if (it < 4)
        it = 4;
    return (int)it;
}

int bench_iters_timed(const bench_opts_t *o, int iters, double sec_per_op)
{
    int floor_iters = iters < 3 ? iters : 3;
    if (sec_per_op > 0 && o->rep_seconds > 0) {
        double cap = o->rep_seconds / sec_per_op;
        if (cap < (double)iters)
            iters = (int)cap;
    }
    return iters < floor_iters ? floor_iters : iters;
}

void bench_report(const bench_opts_t *o, const char *op, size_t size,
                  const char *unit, double *samples, int n, int iters,
                  const char *extra)
{
    double med = bench_median(samples, n);
    printf("RESULT impl=%s suite=%s op=%s size=%zu nproc=%d value=%.6g unit=%s "
           "min=%.6g max=%.6g reps=%d iters=%d%s%s\n",
           o->impl, o->suite, op, size, o->nproc, med, unit, samples[0],
           samples[n - 1], n, iters, extra ? " " : "", extra ? extra : "");
    fflush(stdout);
}

void bench_fadd_rep(bench_fadd_t *f, int r, double mine, int iters, MPI_Comm comm)
{
    double sum = 0.0, max = 0.0;
    MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
    MPI_Reduce(&mine, &max, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
    f->mean[r] = sum / f->origins * 1e6 / iters;
    f->slow[r] = max * 1e6 / iters;
    f->rate[r] = max > 0 ? (double)f->origins * iters / max / 1e6 : 0.0;
}

void bench_fadd_report(const bench_opts_t *o, bench_fadd_t *f, int iters)
{
    char extra[32];
    snprintf(extra, sizeof extra, "origins=%d", f->origins);
    bench_report(o, "fadd_all", sizeof(int), "us", f->mean, o->reps, iters, extra);
    bench_report(o, "fadd_all_slowest", sizeof(int), "us", f->slow, o->reps, iters, extra);
    bench_report(o, "fadd_all", sizeof(int), "Mops/s", f->rate, o->reps, iters, extra);
}

const char *bench_parse_ref(bench_opts_t *o, const char *impl, int argc, char **argv)
{
    int named = argc > 1 && argv[1][0] != '-';
    bench_parse(o, impl, named ? argv[1] : "ops", argc - named, argv + named);
    return o->suite;
}

int bench_check(const bench_opts_t *o, const char *op, long expected, long got)
{
    printf("CHECK impl=%s suite=%s op=%s expected=%ld got=%ld ok=%d\n", o->impl, o->suite,
           op, expected, got, got == expected);
    fflush(stdout);
    return got == expected ? 0 : 3;
}

void bench_skip(const bench_opts_t *o, const char *op, const char *reason)
{
    printf("SKIP impl=%s suite=%s op=%s nproc=%d reason=%s\n", o->impl,
           o->suite, op, o->nproc, reason);
    fflush(stdout);
}

void bench_info(const bench_opts_t *o, const char *fmt, ...)
{
    if (o->rank != 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    printf("INFO impl=%s suite=%s ", o->impl, o->suite);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
}

void bench_fill(void *buf, size_t n, unsigned seed)
{
    unsigned char *p = buf;
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(seed * 131u + i * 7u);
}

size_t bench_next_size(size_t s, size_t max)
{
    if (s >= max)
        return max + 1;
    s *= 2;
    return s > max ? max : s;
}

int bench_parse_ints(const char *s, int *out, int max)
{
    int n = 0;
    while (s && *s && n < max) {
        char *end = NULL;
        long v = strtol(s, &end, 10);
        if (end == s)
            break;
        out[n++] = (int)v;
        s = *end == ',' ? end + 1 : end;
    }
    return n;
}

void bench_report_spread(const bench_opts_t *o, const char *op, const char *unit, double v,
                         const char *extra)
{
    double sum = 0.0, max = 0.0;
    MPI_Reduce(&v, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&v, &max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (o->rank != 0)
        return;
    const char *stats[2] = { "mean", "max" };
    double vals[2] = { sum / o->nproc, max };
    for (int s = 0; s < 2; s++)
        printf("RESULT impl=%s suite=%s op=%s size=0 nproc=%d value=%.6g unit=%s min=%.6g "
               "max=%.6g reps=1 iters=1 stat=%s%s%s\n", o->impl, o->suite, op, o->nproc,
               vals[s], unit, vals[s], vals[s], stats[s], extra && *extra ? " " : "",
               extra ? extra : "");
    fflush(stdout);
}

int bench_take_opt(int *argc, char **argv, const char *flag, int def)
{
    for (int i = 1; i + 1 < *argc; i++) {
        if (strcmp(argv[i], flag) != 0)
            continue;
        int v = atoi(argv[i + 1]);
        for (int j = i; j + 2 <= *argc; j++)
            argv[j] = argv[j + 2];
        *argc -= 2;
        return v;
    }
    return def;
}
