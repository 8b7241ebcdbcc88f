/* Suite "fence" (Armada only: reads armada.h statistics): what ARMCI_Fence
 * and ARMCI_AllFence cost against the number of targets written since the
 * last fence, with every target's writes known complete or not (issue 23
 * item 4, gemini III-B4, decision 058).
 *
 * Rank 0 writes `-B` bytes (default 4096: one request each, above the
 * aggregation limit) to each of ranks 1..k, then
 *   done:    pauses `-p` microseconds (default 2000, not timed), long enough
 *            for the targets' servers to serve the writes and acknowledge;
 *   pending: fences at once;
 * and times one AllFence (allfence) or a Fence per target (fence). k runs
 * 1, 2, 4, ... and nproc - 1. Each figure is the median over `-r`
 * repetitions of the mean over `-n` rounds (default 40), in microseconds;
 * `msgs=` is the fence messages per round (ops[FENCE][server]: fence
 * requests, or batches carrying one), `flushes=` the RMA flushes and
 * `credit_replies=` the answers with credits only it received. The
 * other ranks wait in MPI_Barrier. Run with every rank its own node
 * (ARMADA_PPN=1); tools/bench/plot_fence.py plots the RESULT lines. */
#define _POSIX_C_SOURCE 200809L
#include "bench_armci.h"

#include <armada.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KMAX 64

typedef struct fig {
    double us[BENCH_MAX_REPS];
    double msgs, flushes, credits;
} fig_t;

static void nap_us(long us)
{
    struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
    nanosleep(&ts, NULL);
}

static void fence_counts(uint64_t *msgs, uint64_t *flushes, uint64_t *credits)
{
    armada_stats_t st;
    armada_stats_get(&st);
    *msgs = st.ops[ARMADA_OP_FENCE][ARMADA_PATH_SERVER];
    *flushes = st.ops[ARMADA_OP_FENCE][ARMADA_PATH_RMA];
    *credits = st.credit_replies;
}

/* One figure at rank 0: rounds of write to 1..k, (pause), fence. */
static void measure(const bench_opts_t *o, void **base, char *src, size_t bytes, int k,
                    int done, int all, int rounds, long pause, fig_t *f)
{
    uint64_t m0, f0, c0, m1, f1, c1;
    fence_counts(&m0, &f0, &c0);
    for (int r = 0; r < o->reps; r++) {
        double t = 0.0;
        for (int i = 0; i < rounds; i++) {
            for (int p = 1; p <= k; p++)
                ARMCI_Put(src, base[p], (int)bytes, p);
            if (done)
                nap_us(pause);
            double t0 = bench_now();
            if (all)
                ARMCI_AllFence();
            else
                for (int p = 1; p <= k; p++)
                    ARMCI_Fence(p);
            t += bench_now() - t0;
        }
        f->us[r] = t / rounds * 1e6;
    }
    fence_counts(&m1, &f1, &c1);
    double n = (double)o->reps * rounds;
    f->msgs = (double)(m1 - m0) / n;
    f->flushes = (double)(f1 - f0) / n;
    f->credits = (double)(c1 - c0) / n;
}

static void report(const bench_opts_t *o, const char *op, int k, fig_t *f, int rounds)
{
    char extra[128];
    snprintf(extra, sizeof extra, "msgs=%.3g flushes=%.3g credit_replies=%.3g nodes=%d",
             f->msgs, f->flushes, f->credits, armada_node_count());
    bench_report(o, op, (size_t)k, "us", f->us, o->reps, rounds, extra);
}

int main(int argc, char **argv)
{
    int rounds = bench_take_opt(&argc, argv, "-n", 40);
    long pause = bench_take_opt(&argc, argv, "-p", 2000);
    size_t bytes = (size_t)bench_take_opt(&argc, argv, "-B", 4096);
    bench_opts_t o;
    bench_armci_init(&o, "fence", &argc, &argv);
    if (rounds < 1)
        rounds = 1;
    if (o.nproc < 2 || armada_node_count() != o.nproc) {
        bench_skip(&o, "fence", "needs >= 2 ranks, each its own node (ARMADA_PPN=1)");
        return bench_armci_finalize(0);
    }
    void **base = bench_armci_alloc(bytes);
    char *src = malloc(bytes);
    bench_fill(src, bytes, 1);
    int ks[KMAX], nk = 0;
    for (int k = 1; k < o.nproc && nk < KMAX - 1; k *= 2)
        ks[nk++] = k;
    if (ks[nk - 1] != o.nproc - 1)
        ks[nk++] = o.nproc - 1;
    static const char *names[4] = { "allfence_done", "allfence_pending", "fence_done",
                                     "fence_pending" };
    static fig_t figs[KMAX][4];
    bench_info(&o, "bytes=%zu pause_us=%ld rounds=%d nodes=%d", bytes, pause, rounds,
               armada_node_count());
    for (int i = 0; i < nk; i++) {
        for (int v = 0; v < 4; v++) {
            if (o.rank == 0) {
                /* Warm-up: endpoints to every target made, nothing dirty. */
                measure(&o, base, src, bytes, ks[i], 0, 1, 1, 0, &figs[i][v]);
                measure(&o, base, src, bytes, ks[i], v % 2 == 0, v < 2, rounds, pause,
                        &figs[i][v]);
                report(&o, names[v], ks[i], &figs[i][v], rounds);
            }
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    if (o.rank == 0) {
        printf("\nfence time (us, median) against targets written, %d nodes, %zu B per "
               "target; msgs = fence messages per round\n", o.nproc, bytes);
        printf("%8s %14s %16s %12s %14s %10s %10s\n", "targets", "allfence_done",
               "allfence_pending", "fence_done", "fence_pending", "msgs_done", "msgs_pend");
        for (int i = 0; i < nk; i++) {
            fig_t *f = figs[i];
            printf("%8d %14.2f %16.2f %12.2f %14.2f %10.2f %10.2f\n", ks[i],
                   bench_median(f[0].us, o.reps), bench_median(f[1].us, o.reps),
                   bench_median(f[2].us, o.reps), bench_median(f[3].us, o.reps),
                   f[0].msgs, f[1].msgs);
        }
        fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(src);
    bench_armci_free(base);
    return bench_armci_finalize(0);
}
