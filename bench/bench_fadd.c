/* Suite "fadd": fetch-and-add from every process except 0 to one int counter
 * on rank 0, all at once (gemini's all-to-rank-0 experiment; the issue-3
 * 4-process figure). Each rank does the same number of ARMCI_Rmw
 * (ARMCI_FETCH_AND_ADD, +1); figures: per-operation latency (median over
 * repetitions of the mean over ranks), the slowest rank's latency, and the
 * aggregate rate (all increments / slowest rank's time). The final counter
 * must equal the number of increments exactly. */
#include "bench_armci.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void fadd_loop(int *counter0, int n)
{
    for (int i = 0; i < n; i++) {
        int old = 0;
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &old, counter0, 1, 0);
    }
}

int main(int argc, char **argv)
{
    bench_opts_t o;
    bench_armci_init(&o, "fadd", &argc, &argv);
    if (o.nproc < 2) {
        bench_skip(&o, "fadd_all", "needs_2_processes");
        return bench_armci_finalize(0);
    }
    void **counter = bench_armci_alloc(sizeof(int));
    int *c0 = counter[0];
    int origin = o.rank != 0;
    long done = 0;

    /* Warm-up, and a common count sized from the slowest origin. */
    double per_op = 0.0;
    int warm = o.warmup;
    bench_armci_sync();
    if (origin) {
        double t = bench_now();
        fadd_loop(c0, warm);
        per_op = (bench_now() - t) / warm;
        done += warm;
    }
    double worst = 0.0;
    MPI_Allreduce(&per_op, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int iters = bench_iters_timed(&o, o.iters, worst);

    bench_fadd_t f = { .origins = o.nproc - 1 };
    for (int r = 0; r < o.reps; r++) {
        bench_armci_sync();
        double mine = 0.0;
        if (origin) {
            double t0 = bench_now();
            fadd_loop(c0, iters);
            mine = bench_now() - t0;
            done += iters;
        }
        /* The target waits in the ARMCI barrier, as an ARMCI program would
         * (GA_Sync), not in an MPI collective of the bench's own. */
        bench_armci_sync();
        bench_fadd_rep(&f, r, mine, iters, MPI_COMM_WORLD);
    }
    bench_armci_sync();

    long total = 0;
    MPI_Reduce(&done, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    int status = 0;
    if (o.rank == 0) {
        bench_fadd_report(&o, &f, iters);
        ARMCI_Access_begin(c0);
        long got = *c0;
        ARMCI_Access_end(c0);
        status = bench_check(&o, "fadd_all", total, got);
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    bench_armci_free(counter);
    return bench_armci_finalize(status);
}
