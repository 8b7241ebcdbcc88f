/* Suite "flood" (nas-ft Figs 3-4): rank 0 keeps -W non-blocking puts
 * (ARMCI_NbPut) or gets (ARMCI_NbGet) of s bytes outstanding to the target,
 * waiting on the oldest before issuing the next; a final ARMCI_Fence is
 * inside the timing. Figures per size: bandwidth (MB/s) and message rate
 * (million messages per second). */
#include "bench_armci.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { OP_PUT, OP_GET, OP_COUNT };
static const char *const op_names[OP_COUNT] = { "nbput", "nbget" };

static void flood(int op, armci_hdl_t *h, int window, char *local, char *remote,
                  size_t bytes, int n, int target)
{
    for (int i = 0; i < n; i++) {
        int slot = i % window;
        if (i >= window)
            ARMCI_Wait(&h[slot]);
        ARMCI_INIT_HANDLE(&h[slot]);
        if (op == OP_PUT)
            ARMCI_NbPut(local, remote, (int)bytes, target, &h[slot]);
        else
            ARMCI_NbGet(remote, local, (int)bytes, target, &h[slot]);
    }
    int live = n < window ? n : window;
    for (int i = n - live; i < n; i++)
        ARMCI_Wait(&h[i % window]);
    if (op == OP_PUT)
        ARMCI_Fence(target);
}

int main(int argc, char **argv)
{
    bench_opts_t o;
    bench_armci_init(&o, "flood", &argc, &argv);
    if (o.nproc < 2) {
        bench_skip(&o, "all", "needs_2_processes");
        return bench_armci_finalize(0);
    }
    int target = o.target > 0 ? o.target : o.nproc - 1;
    size_t max = o.max_size;
    void **data = bench_armci_alloc(max);
    char *local = ARMCI_Malloc_local(max);
    armci_hdl_t *h = calloc((size_t)o.window, sizeof *h);
    if (local == NULL || h == NULL)
        ARMCI_Error("bench flood: allocation failed", 1);
    bench_fill(local, max, 11);
    char extra[32];
    snprintf(extra, sizeof extra, "window=%d", o.window);

    double bw[BENCH_MAX_REPS], rate[BENCH_MAX_REPS];
    for (int op = 0; op < OP_COUNT; op++) {
        if (!bench_want(&o, op_names[op]))
            continue;
        for (size_t s = o.min_size; s <= max; s = bench_next_size(s, max)) {
            const int cap = bench_iters_for(&o, s);
            int iters = cap;   /* sized again from cap in each repetition */
            int warm = o.warmup < iters ? o.warmup : iters;
            for (int r = 0; r < o.reps; r++) {
                bench_armci_sync();
                if (o.rank != 0)
                    continue;
                double tw = bench_now();
                flood(op, h, o.window, local, data[target], s, warm, target);
                iters = bench_iters_timed(&o, cap, (bench_now() - tw) / warm);
                double t0 = bench_now();
                flood(op, h, o.window, local, data[target], s, iters, target);
                double sec = bench_now() - t0;
                bw[r] = (double)s * iters / sec / 1e6;
                rate[r] = iters / sec / 1e6;
            }
            bench_armci_sync();
            if (o.rank == 0) {
                bench_report(&o, op_names[op], s, "MB/s", bw, o.reps, iters, extra);
                bench_report(&o, op_names[op], s, "Mmsg/s", rate, o.reps, iters, extra);
            }
        }
    }
    bench_armci_sync();
    free(h);
    ARMCI_Free_local(local);
    bench_armci_free(data);
    return bench_armci_finalize(0);
}
