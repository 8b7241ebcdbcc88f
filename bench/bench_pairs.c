/* Suite "pairs" (hicoo Fig 15): rank i < P/2 is paired with i + P/2; all
 * pairs run at once, the first of each pair is the origin.
 *   lock  ARMCI_Lock + ARMCI_Unlock of mutex 0 on the partner
 *   acc   one double ARMCI_Acc + ARMCI_Fence
 *   fadd  ARMCI_Rmw fetch-and-add on the partner's counter
 * Figure: time per operation, median over repetitions of the mean over
 * pairs (and the slowest pair). */
#include "bench_armci.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { OP_LOCK, OP_ACC, OP_FADD, OP_COUNT };
static const char *const op_names[OP_COUNT] = { "lock", "acc", "fadd" };

static inline void do_op(int op, void **data, double *local, int partner)
{
    double scale = 1.0;
    int old = 0;
    switch (op) {
    case OP_LOCK:
        ARMCI_Lock(0, partner);
        ARMCI_Unlock(0, partner);
        break;
    case OP_ACC:
        ARMCI_Acc(ARMCI_ACC_DBL, &scale, local, (char *)data[partner] + 8,
                  (int)sizeof(double), partner);
        ARMCI_Fence(partner);
        break;
    case OP_FADD:
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &old, data[partner], 1, partner);
        break;
    default:
        break;
    }
}

int main(int argc, char **argv)
{
    bench_opts_t o;
    bench_armci_init(&o, "pairs", &argc, &argv);
    if (o.nproc < 2) {
        bench_skip(&o, "all", "needs_2_processes");
        return bench_armci_finalize(0);
    }
    int half = o.nproc / 2;
    int origin = o.rank < half;
    int partner = origin ? o.rank + half : o.rank - half;
    if (o.rank >= 2 * half)
        partner = -1; /* odd process count: the last rank idles */
    origin = origin && partner >= 0;
    void **data = bench_armci_alloc(64);
    double local = 1.0;
    ARMCI_Create_mutexes(1);

    char extra[32];
    snprintf(extra, sizeof extra, "pairs=%d", half);
    for (int op = 0; op < OP_COUNT; op++) {
        if (!bench_want(&o, op_names[op]))
            continue;
        double per_op = 0.0, worst = 0.0;
        bench_armci_sync();
        if (origin) {
            double t = bench_now();
            for (int i = 0; i < o.warmup; i++)
                do_op(op, data, &local, partner);
            per_op = (bench_now() - t) / o.warmup;
        }
        MPI_Allreduce(&per_op, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        int iters = bench_iters_timed(&o, o.iters, worst);
        double mean[BENCH_MAX_REPS], slow[BENCH_MAX_REPS];
        for (int r = 0; r < o.reps; r++) {
            bench_armci_sync();
            double us = 0.0;
            if (origin) {
                double t0 = bench_now();
                for (int i = 0; i < iters; i++)
                    do_op(op, data, &local, partner);
                us = (bench_now() - t0) * 1e6 / iters;
            }
            double sum = 0.0, max = 0.0;
            MPI_Reduce(&us, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
            MPI_Reduce(&us, &max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            mean[r] = sum / half;
            slow[r] = max;
        }
        if (o.rank == 0) {
            bench_report(&o, op_names[op], 8, "us", mean, o.reps, iters, extra);
            char name[32];
            snprintf(name, sizeof name, "%s_slowest", op_names[op]);
            bench_report(&o, name, 8, "us", slow, o.reps, iters, extra);
        }
    }
    bench_armci_sync();
    ARMCI_Destroy_mutexes();
    bench_armci_free(data);
    return bench_armci_finalize(0);
}
