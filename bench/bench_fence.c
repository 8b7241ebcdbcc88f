/* Suite "fence" (Armada only: reads armada.h statistics): what ARMCI_Fence
 * and ARMCI_AllFence cost against the number of targets written since the
 * last fence, with every target's writes known complete or not (issue 23
 * item 4, gemini III-B4, decision 058).
 *
 * Rank 0 writes `-B` bytes (default 4096: one request each, above the
 * aggregation limit) to each of ranks 1..k, then
 *   done:    pauses `-p` microseconds (default 2000, not timed), long enough
 *            for the targets' servers to serve the writes and acknowledge
 *            (the fence then reads those acknowledgements: one per target);
 *   acked:   gets 8 bytes from each target (not timed): the replies carry
 *            the acknowledgements, so the fence has none left to read;
 *   pending: fences at once;
 * and times one AllFence (allfence) or a Fence per target (fence). k runs
 * 1, 2, 4, ... and nproc - 1. Each figure is the median over `-r`
 * repetitions of the median over `-n` rounds (default 40), in microseconds
 * (medians: on a shared host one descheduled round would rule a mean);
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
#define NV 6
enum { ST_PENDING, ST_DONE, ST_ACKED };

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
                    int state, int all, int rounds, long pause, fig_t *f)
{
    uint64_t m0, f0, c0, m1, f1, c1;
    fence_counts(&m0, &f0, &c0);
    double *t = malloc((size_t)rounds * sizeof *t);
    for (int r = 0; r < o->reps; r++) {
        for (int i = 0; i < rounds; i++) {
            for (int p = 1; p <= k; p++)
                ARMCI_Put(src, base[p], (int)bytes, p);
            if (state == ST_DONE)
                nap_us(pause);
            for (int p = 1; state == ST_ACKED && p <= k; p++)
                ARMCI_Get(base[p], src, 8, p);
            double t0 = bench_now();
            if (all)
                ARMCI_AllFence();
            else
                for (int p = 1; p <= k; p++)
                    ARMCI_Fence(p);
            t[i] = (bench_now() - t0) * 1e6;
        }
        f->us[r] = bench_median(t, rounds);
    }
    free(t);
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
    /* Variant v: AllFence for v < 3, else a Fence per target; state v % 3. */
    static const char *names[NV] = { "allfence_pending", "allfence_done", "allfence_acked",
                                      "fence_pending", "fence_done", "fence_acked" };
    static fig_t figs[KMAX][NV];
    bench_info(&o, "bytes=%zu pause_us=%ld rounds=%d nodes=%d", bytes, pause, rounds,
               armada_node_count());
    for (int i = 0; i < nk; i++) {
        for (int v = 0; v < NV; v++) {
            if (o.rank == 0) {
                /* Warm-up: endpoints to every target made, nothing dirty. */
                measure(&o, base, src, bytes, ks[i], ST_PENDING, 1, 1, 0, &figs[i][v]);
                measure(&o, base, src, bytes, ks[i], v % 3, v < 3, rounds, pause,
                        &figs[i][v]);
                report(&o, names[v], ks[i], &figs[i][v], rounds);
            }
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    if (o.rank == 0) {
        printf("\nfence time (us, median) against targets written, %d nodes, %zu B per "
               "target; msgs = fence messages per AllFence\n", o.nproc, bytes);
        printf("%8s", "targets");
        for (int v = 0; v < NV; v++)
            printf(" %16s", names[v]);
        printf(" %9s %9s %9s\n", "msgs_pend", "msgs_done", "msgs_ackd");
        for (int i = 0; i < nk; i++) {
            fig_t *f = figs[i];
            printf("%8d", ks[i]);
            for (int v = 0; v < NV; v++)
                printf(" %16.2f", bench_median(f[v].us, o.reps));
            printf(" %9.2f %9.2f %9.2f\n", f[0].msgs, f[1].msgs, f[2].msgs);
        }
        fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(src);
    bench_armci_free(base);
    return bench_armci_finalize(0);
}
