/* Suite "strided": a fixed total (-t, default 1 MiB) moved as a 2-D strided
 * put (+ fence) or get from rank 0 to the target, split into chunks of s bytes
 * (s from -m up to the total). The remote side has stride 2s (so chunks are
 * never adjacent there), the local side is packed. Bandwidth in MB/s and time
 * per transfer in us. */
#include "bench_armci.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { OP_PUTS, OP_GETS, OP_COUNT };
static const char *const op_names[OP_COUNT] = { "puts", "gets" };

static inline void do_op(int op, char *local, char *remote, size_t chunk,
                         size_t total, int target)
{
    int lstride[1] = { (int)chunk };
    int rstride[1] = { (int)(2 * chunk) };
    int count[2] = { (int)chunk, (int)(total / chunk) };
    if (count[1] == 1) {
        /* One chunk: a 0-level (contiguous) strided call. */
        if (op == OP_PUTS) {
            ARMCI_PutS(local, lstride, remote, rstride, count, 0, target);
            ARMCI_Fence(target);
        } else {
            ARMCI_GetS(remote, rstride, local, lstride, count, 0, target);
        }
        return;
    }
    if (op == OP_PUTS) {
        ARMCI_PutS(local, lstride, remote, rstride, count, 1, target);
        ARMCI_Fence(target);
    } else {
        ARMCI_GetS(remote, rstride, local, lstride, count, 1, target);
    }
}

int main(int argc, char **argv)
{
    bench_opts_t o;
    bench_armci_init(&o, "strided", &argc, &argv);
    if (o.nproc < 2) {
        bench_skip(&o, "all", "needs_2_processes");
        return bench_armci_finalize(0);
    }
    int target = o.target > 0 ? o.target : o.nproc - 1;
    size_t total = o.total;
    void **data = bench_armci_alloc(2 * total);
    char *local = ARMCI_Malloc_local(total);
    if (local == NULL)
        ARMCI_Error("bench strided: ARMCI_Malloc_local failed", 1);
    bench_fill(local, total, 3);
    bench_info(&o, "origin=0 target=%d total=%zu", target, total);

    double lat[BENCH_MAX_REPS], bw[BENCH_MAX_REPS];
    char extra[64];
    snprintf(extra, sizeof extra, "total=%zu", total);
    for (int op = 0; op < OP_COUNT; op++) {
        if (!bench_want(&o, op_names[op]))
            continue;
        for (size_t s = o.min_size; s <= total; s = bench_next_size(s, total)) {
            const int cap = bench_iters_for(&o, total);
            int iters = cap;   /* sized again from cap in each repetition */
            int warm = o.warmup < iters ? o.warmup : iters;
            if (warm > 2)
                warm = 2;
            for (int r = 0; r < o.reps; r++) {
                bench_armci_sync();
                if (o.rank == 0) {
                    double tw = bench_now();
                    for (int i = 0; i < warm; i++)
                        do_op(op, local, data[target], s, total, target);
                    iters = bench_iters_timed(&o, cap, (bench_now() - tw) / warm);
                    double t0 = bench_now();
                    for (int i = 0; i < iters; i++)
                        do_op(op, local, data[target], s, total, target);
                    double us = (bench_now() - t0) * 1e6 / iters;
                    lat[r] = us;
                    bw[r] = (double)total / us;
                }
            }
            bench_armci_sync();
            if (o.rank == 0) {
                bench_report(&o, op_names[op], s, "us", lat, o.reps, iters, extra);
                bench_report(&o, op_names[op], s, "MB/s", bw, o.reps, iters, extra);
            }
        }
    }
    bench_armci_sync();
    ARMCI_Free_local(local);
    bench_armci_free(data);
    return bench_armci_finalize(0);
}
