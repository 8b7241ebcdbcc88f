/* Suite "barrier": the cost of ARMCI_Barrier with nothing to fence, against
 * MPI_Barrier in the same program (issue 26, item 11). Each repetition times
 * a loop of each, in alternating order, so that both see the same load on a
 * shared host. Figures, per call (median over repetitions, as measured on
 * rank 0): barrier_armci us, barrier_mpi us, and their ratio (the median of
 * the per-repetition ratios). */
#include "bench_armci.h"

#include <mpi.h>
#include <stdio.h>

static double loop_armci(int n)
{
    double t0 = bench_now();
    for (int i = 0; i < n; i++)
        ARMCI_Barrier();
    return (bench_now() - t0) / n;
}

static double loop_mpi(int n)
{
    double t0 = bench_now();
    for (int i = 0; i < n; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    return (bench_now() - t0) / n;
}

int main(int argc, char **argv)
{
    bench_opts_t o;
    bench_armci_init(&o, "barrier", &argc, &argv);
    int iters = o.iters;
    double armci[BENCH_MAX_REPS], mpi[BENCH_MAX_REPS], ratio[BENCH_MAX_REPS];

    loop_armci(o.warmup);
    loop_mpi(o.warmup);
    for (int r = 0; r < o.reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (r % 2 == 0) {
            armci[r] = loop_armci(iters);
            mpi[r] = loop_mpi(iters);
        } else {
            mpi[r] = loop_mpi(iters);
            armci[r] = loop_armci(iters);
        }
        ratio[r] = armci[r] / mpi[r];
        armci[r] *= 1e6;
        mpi[r] *= 1e6;
    }
    if (o.rank == 0) {
        bench_report(&o, "barrier_armci", 0, "us", armci, o.reps, iters, NULL);
        bench_report(&o, "barrier_mpi", 0, "us", mpi, o.reps, iters, NULL);
        bench_report(&o, "barrier_ratio", 0, "x", ratio, o.reps, iters, NULL);
    }
    return bench_armci_finalize(0);
}
