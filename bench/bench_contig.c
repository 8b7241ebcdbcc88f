/* Suite "contig": contiguous put (+ fence), get and double accumulate
 * (+ fence) from rank 0 to the target (default: the last rank), sizes from
 * -m to -M doubling. Each size gives a latency (us per operation) and a
 * bandwidth (MB/s) figure; accumulate covers gemini's small and large
 * accumulate experiments. */
#include "bench_armci.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { OP_PUT, OP_GET, OP_ACC, OP_COUNT };
static const char *const op_names[OP_COUNT] = { "put", "get", "acc" };

static inline void do_op(int op, char *local, char *remote, int bytes, int target)
{
    double scale = 1.0;
    switch (op) {
    case OP_PUT:
        ARMCI_Put(local, remote, bytes, target);
        ARMCI_Fence(target);
        break;
    case OP_GET:
        ARMCI_Get(remote, local, bytes, target);
        break;
    case OP_ACC:
        ARMCI_Acc(ARMCI_ACC_DBL, &scale, local, remote, bytes, target);
        ARMCI_Fence(target);
        break;
    default:
        break;
    }
}

int main(int argc, char **argv)
{
    bench_opts_t o;
    bench_armci_init(&o, "contig", &argc, &argv);
    if (o.nproc < 2) {
        bench_skip(&o, "all", "needs_2_processes");
        return bench_armci_finalize(0);
    }
    int target = o.target > 0 ? o.target : o.nproc - 1;
    size_t max = o.max_size;
    void **data = bench_armci_alloc(max);
    char *local = ARMCI_Malloc_local(max);
    if (local == NULL)
        ARMCI_Error("bench contig: ARMCI_Malloc_local failed", 1);
    for (size_t i = 0; i < max / sizeof(double); i++)
        ((double *)local)[i] = 1.0;
    bench_info(&o, "origin=0 target=%d", target);

    double lat[BENCH_MAX_REPS], bw[BENCH_MAX_REPS];
    for (int op = 0; op < OP_COUNT; op++) {
        if (!bench_want(&o, op_names[op]))
            continue;
        for (size_t s = o.min_size; s <= max; s = bench_next_size(s, max)) {
            size_t bytes = op == OP_ACC ? (s + 7) / 8 * 8 : s;
            if (bytes > max)
                break;
            const int cap = bench_iters_for(&o, bytes);
            int iters = cap;   /* sized again from cap in each repetition */
            int warm = o.warmup < iters ? o.warmup : iters;
            for (int r = 0; r < o.reps; r++) {
                bench_armci_sync();
                if (o.rank == 0) {
                    double tw = bench_now();
                    for (int i = 0; i < warm; i++)
                        do_op(op, local, data[target], (int)bytes, target);
                    iters = bench_iters_timed(&o, cap, (bench_now() - tw) / warm);
                    double t0 = bench_now();
                    for (int i = 0; i < iters; i++)
                        do_op(op, local, data[target], (int)bytes, target);
                    double us = (bench_now() - t0) * 1e6 / iters;
                    lat[r] = us;
                    bw[r] = (double)bytes / us;
                }
            }
            bench_armci_sync();
            if (o.rank == 0) {
                bench_report(&o, op_names[op], bytes, "us", lat, o.reps, iters, NULL);
                bench_report(&o, op_names[op], bytes, "MB/s", bw, o.reps, iters, NULL);
            }
        }
    }
    bench_armci_sync();
    ARMCI_Free_local(local);
    bench_armci_free(data);
    return bench_armci_finalize(0);
}
