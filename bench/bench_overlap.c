/* Suite "overlap": how much of a non-blocking strided transfer to another
 * process is hidden behind computation (issue 23 item 1; the overlap
 * measure of Bell et al.'s NAS FT paper). Rank 0 moves a fixed total (-t,
 * default 1 MiB) as a 2-D strided put or get of rows of -m bytes (default
 * 16 KiB; the remote stride is twice the row) to the last rank:
 *   t_comm   issue + Wait, nothing between;
 *   t_issue  the non-blocking call alone;
 *   t_total  issue + compute for c seconds + Wait, for c = f x t_comm with
 *            f in 0.5, 1, 2 (the computation polls the clock, never ARMCI);
 * and reports hidden = (t_comm + c - t_total) / t_comm, the share of the
 * transfer that the computation hid (1: all of it), clamped to [0, 1].
 * Medians over -r repetitions of a few transfers each. The other ranks wait
 * in a barrier that sleeps, as passive targets.
 *
 * Op "lone": one small contiguous ARMCI_NbPut (4 KiB, or -m), Wait, then
 * computation of a fixed 50 us to 3 ms, then a fence. Small puts are
 * aggregated, so without the progress agent's sweep (decision 076) such a
 * put waits through the computation and the fence carries it. Reports
 * t_comm (put + Wait + fence), the fence alone after each computation
 * (what=fence), and the share hidden as above. */
#define _POSIX_C_SOURCE 200809L
#include "bench_armci.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { OP_PUTS, OP_GETS, OP_LONE, OP_COUNT };
static const char *const op_names[OP_COUNT] = { "puts", "gets", "lone" };

typedef struct shape {
    int lstride[1], rstride[1], count[2];
} shape_t;

static void issue(int op, char *local, char *remote, shape_t *sh, int target,
                  armci_hdl_t *h)
{
    ARMCI_INIT_HANDLE(h);
    if (op == OP_PUTS)
        ARMCI_NbPutS(local, sh->lstride, remote, sh->rstride, sh->count, 1, target, h);
    else
        ARMCI_NbGetS(remote, sh->rstride, local, sh->lstride, sh->count, 1, target, h);
}

/* Work that touches no ARMCI state: a dependent floating-point chain. */
static volatile double sink;
static void compute(double seconds)
{
    double t0 = bench_now(), x = 1.0;
    while (bench_now() - t0 < seconds)
        for (int i = 0; i < 256; i++)
            x = x * 1.0000001 + 1e-9;
    sink = x;
}

/* A barrier that sleeps while it waits: the ranks other than 0 are passive
 * targets, and a rank spinning in MPI_Barrier would take the processor the
 * transfer's progress needs on a machine with fewer cores than threads. */
static void passive_sync(void)
{
    ARMCI_AllFence();
    bench_sleep_barrier(MPI_COMM_WORLD, 50);
}

/* One lone small put, Wait, compute c seconds, fence: the whole time and
 * the fence's. */
static void one_lone(char *local, char *remote, size_t n, int target, double c,
                     double *t_fence, double *t_total)
{
    armci_hdl_t h;
    ARMCI_INIT_HANDLE(&h);
    double t0 = bench_now();
    ARMCI_NbPut(local, remote, (int)n, target, &h);
    ARMCI_Wait(&h);
    if (c > 0.0)
        compute(c);
    double t1 = bench_now();
    ARMCI_Fence(target);
    double t2 = bench_now();
    *t_fence = t2 - t1;
    *t_total = t2 - t0;
}

static void lone(const bench_opts_t *o, char *local, char *remote, size_t n, int target)
{
    static const double cs[] = { 50e-6, 200e-6, 1e-3, 3e-3 };
    const int nc = (int)(sizeof cs / sizeof cs[0]);
    const int per = 16;
    double comm[BENCH_MAX_REPS], hid[4][BENCH_MAX_REPS], fen[4][BENCH_MAX_REPS];
    for (int r = 0; r < o->reps; r++) {
        passive_sync();
        if (o->rank != 0)
            continue;
        double tf[16], tt[16];
        for (int i = 0; i < per; i++)
            one_lone(local, remote, n, target, 0.0, &tf[i], &tt[i]);
        double tc = bench_median(tt, per);
        comm[r] = tc * 1e6;
        for (int k = 0; k < nc; k++) {
            for (int i = 0; i < per; i++)
                one_lone(local, remote, n, target, cs[k], &tf[i], &tt[i]);
            double t = bench_median(tt, per), h = (tc + cs[k] - t) / tc;
            hid[k][r] = 100.0 * (h < 0.0 ? 0.0 : h > 1.0 ? 1.0 : h);
            fen[k][r] = bench_median(tf, per) * 1e6;
        }
    }
    passive_sync();
    if (o->rank != 0)
        return;
    char extra[96];
    snprintf(extra, sizeof extra, "total=%zu", n);
    bench_report(o, "lone", n, "us", comm, o->reps, per, extra);
    for (int k = 0; k < nc; k++) {
        snprintf(extra, sizeof extra, "total=%zu compute_us=%.0f what=fence", n, cs[k] * 1e6);
        bench_report(o, "lone", n, "us", fen[k], o->reps, per, extra);
        snprintf(extra, sizeof extra, "total=%zu compute_us=%.0f what=hidden", n, cs[k] * 1e6);
        bench_report(o, "lone", n, "%", hid[k], o->reps, per, extra);
    }
}

/* One transfer: issue, compute c seconds, wait; returns the time of each part. */
static void one(int op, char *local, char *remote, shape_t *sh, int target, double c,
                double *t_issue, double *t_total)
{
    armci_hdl_t h;
    double t0 = bench_now();
    issue(op, local, remote, sh, target, &h);
    double t1 = bench_now();
    if (c > 0.0)
        compute(c);
    ARMCI_Wait(&h);
    if (op == OP_PUTS)
        ARMCI_Fence(target);
    double t2 = bench_now();
    *t_issue = t1 - t0;
    *t_total = t2 - t0;
}

static double median_of(int op, char *local, char *remote, shape_t *sh, int target, double c,
                        int n, double *issue_med)
{
    double tot[64], iss[64];
    if (n > 64)
        n = 64;
    for (int i = 0; i < n; i++)
        one(op, local, remote, sh, target, c, &iss[i], &tot[i]);
    *issue_med = bench_median(iss, n);
    return bench_median(tot, n);
}

int main(int argc, char **argv)
{
    bench_opts_t o;
    bench_armci_init(&o, "overlap", &argc, &argv);
    if (o.nproc < 2) {
        bench_skip(&o, "all", "needs_2_processes");
        return bench_armci_finalize(0);
    }
    int target = o.target > 0 ? o.target : o.nproc - 1;
    size_t total = o.total;
    size_t row = o.min_size > 8 ? o.min_size : 16384;
    if (row > total)
        row = total;
    shape_t sh = { { (int)row }, { (int)(2 * row) }, { (int)row, (int)(total / row) } };
    void **data = bench_armci_alloc(2 * total);
    char *local = ARMCI_Malloc_local(total);
    if (local == NULL)
        ARMCI_Error("bench overlap: ARMCI_Malloc_local failed", 1);
    bench_fill(local, total, 5);
    bench_info(&o, "origin=0 target=%d total=%zu row=%zu", target, total, row);

    static const double factors[] = { 0.5, 1.0, 2.0 };
    const int nf = (int)(sizeof factors / sizeof factors[0]);
    const int per = 8;       /* transfers per repetition */
    for (int op = 0; op < OP_COUNT; op++) {
        if (!bench_want(&o, op_names[op]))
            continue;
        if (op == OP_LONE) {
            size_t n = o.min_size > 8 && o.min_size <= total ? o.min_size : 4096;
            lone(&o, local, data[target], n > total ? total : n, target);
            continue;
        }
        double comm[BENCH_MAX_REPS], iss[BENCH_MAX_REPS];
        double hid[3][BENCH_MAX_REPS], tot[3][BENCH_MAX_REPS];
        for (int r = 0; r < o.reps; r++) {
            passive_sync();
            if (o.rank != 0)
                continue;
            double dummy;
            median_of(op, local, data[target], &sh, target, 0.0, 2, &dummy);   /* warm */
            double tc = median_of(op, local, data[target], &sh, target, 0.0, per, &iss[r]);
            comm[r] = tc * 1e6;
            iss[r] *= 1e6;
            for (int f = 0; f < nf; f++) {
                double c = factors[f] * tc;
                double t = median_of(op, local, data[target], &sh, target, c, per, &dummy);
                double h = (tc + c - t) / tc;
                hid[f][r] = 100.0 * (h < 0.0 ? 0.0 : h > 1.0 ? 1.0 : h);
                tot[f][r] = t * 1e6;
            }
        }
        passive_sync();
        if (o.rank != 0)
            continue;
        char extra[96];
        snprintf(extra, sizeof extra, "total=%zu row=%zu", total, row);
        bench_report(&o, op_names[op], total, "us", comm, o.reps, per, extra);
        snprintf(extra, sizeof extra, "total=%zu row=%zu what=issue", total, row);
        bench_report(&o, op_names[op], total, "us", iss, o.reps, per, extra);
        for (int f = 0; f < nf; f++) {
            snprintf(extra, sizeof extra, "total=%zu row=%zu compute=%.1fx what=total", total,
                     row, factors[f]);
            bench_report(&o, op_names[op], total, "us", tot[f], o.reps, per, extra);
            snprintf(extra, sizeof extra, "total=%zu row=%zu compute=%.1fx what=hidden", total,
                     row, factors[f]);
            bench_report(&o, op_names[op], total, "%", hid[f], o.reps, per, extra);
        }
    }
    bench_armci_sync();
    ARMCI_Free_local(local);
    bench_armci_free(data);
    return bench_armci_finalize(0);
}
