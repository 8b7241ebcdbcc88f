/* Suite "acc": contiguous double accumulate + fence from rank 0 to the
 * target (default: the last rank), sizes -m to -M doubling, under the
 * accumulate protocol in force (ARMADA_ACC_PROTO=auto|server|origin, named
 * in every line as proto=). Latency (us per accumulate and fence) and
 * bandwidth (MB/s) per size, the figures of gemini's Figs. 14 and 15;
 * tools/bench/plot_acc.py runs it once per protocol, prints the table of
 * both and plots them. The sums are checked at the end: element 0 was
 * added to by every accumulate, the last element of -M by those of -M. */
#include "bench_armci.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct acc_run {
    long total, at_max;        /* accumulates issued, and those of max bytes */
} acc_run_t;

static double timed(char *local, char *remote, size_t bytes, int target, int n, acc_run_t *c)
{
    double scale = 1.0, t0 = bench_now();
    for (int i = 0; i < n; i++) {
        ARMCI_Acc(ARMCI_ACC_DBL, &scale, local, remote, (int)bytes, target);
        ARMCI_Fence(target);
    }
    c->total += n;
    return bench_now() - t0;
}

/* One size: o.reps repetitions, each warm-up then a timed loop; rank 0
 * reports the medians. */
static void one_size(const bench_opts_t *o, char *local, char *remote, size_t bytes,
                     int target, const char *extra, acc_run_t *c, double *lat_med,
                     double *bw_med)
{
    double lat[BENCH_MAX_REPS], bw[BENCH_MAX_REPS];
    const int cap = bench_iters_for(o, bytes);
    int iters = cap;
    int warm = o->warmup < 1 ? 1 : o->warmup < cap ? o->warmup : cap;
    long before = c->total;
    for (int r = 0; r < o->reps; r++) {
        bench_armci_sync();
        if (o->rank != 0)
            continue;
        double tw = timed(local, remote, bytes, target, warm, c);
        iters = bench_iters_timed(o, cap, tw / warm);
        double us = timed(local, remote, bytes, target, iters, c) * 1e6 / iters;
        lat[r] = us;
        bw[r] = (double)bytes / us;
    }
    bench_armci_sync();
    if (o->rank != 0)
        return;
    if (bytes == o->max_size)
        c->at_max += c->total - before;
    bench_report(o, "acc", bytes, "us", lat, o->reps, iters, extra);
    bench_report(o, "acc", bytes, "MB/s", bw, o->reps, iters, extra);
    *lat_med = bench_median(lat, o->reps);
    *bw_med = bench_median(bw, o->reps);
}

int main(int argc, char **argv)
{
    bench_opts_t o;
    bench_armci_init(&o, "acc", &argc, &argv);
    if (o.nproc < 2) {
        bench_skip(&o, "acc", "needs_2_processes");
        return bench_armci_finalize(0);
    }
    int target = o.target > 0 ? o.target : o.nproc - 1;
    o.max_size -= o.max_size % sizeof(double);
    if (o.max_size < sizeof(double))
        o.max_size = sizeof(double);
    size_t max = o.max_size;
    const char *proto = getenv("ARMADA_ACC_PROTO");
    char extra[64];
    snprintf(extra, sizeof extra, "proto=%s", proto && *proto ? proto : "auto");
    void **data = bench_armci_alloc(max);
    char *local = ARMCI_Malloc_local(max);
    if (local == NULL)
        ARMCI_Error("bench acc: ARMCI_Malloc_local failed", 1);
    for (size_t i = 0; i < max / sizeof(double); i++)
        ((double *)local)[i] = 1.0;
    bench_info(&o, "origin=0 target=%d %s", target, extra);

    acc_run_t c = { 0, 0 };
    char table[4096];
    int used = snprintf(table, sizeof table, "TABLE %s\n%12s %12s %12s\n", extra, "bytes",
                        "us", "MB/s");
    size_t min = o.min_size < sizeof(double) ? sizeof(double) : o.min_size;
    for (size_t s = min; s <= max; s = bench_next_size(s, max)) {
        size_t bytes = (s + 7) / 8 * 8;
        if (bytes > max)
            break;
        double lat = 0.0, bw = 0.0;
        one_size(&o, local, data[target], bytes, target, extra, &c, &lat, &bw);
        if (o.rank == 0 && used < (int)sizeof table)
            used += snprintf(table + used, sizeof table - (size_t)used, "%12zu %12.2f %12.1f\n",
                             bytes, lat, bw);
        if (s == max)
            break;
    }
    int status = 0;
    if (o.rank == 0) {
        fputs(table, stdout);
        double first = 0.0, last = 0.0;
        ARMCI_Get(data[target], &first, sizeof first, target);
        ARMCI_Get((char *)data[target] + max - sizeof last, &last, sizeof last, target);
        status = bench_check(&o, "acc_sum_first", c.total, (long)first) |
                 bench_check(&o, "acc_sum_last", c.at_max, (long)last);
    }
    bench_armci_sync();
    ARMCI_Free_local(local);
    bench_armci_free(data);
    return bench_armci_finalize(status);
}
