/* Suite "vector": ARMCI_PutV (+ fence) and ARMCI_GetV of a fixed total (-t)
 * split into segments of s bytes (s from -m up to the total), one
 * descriptor; remote segments lie 2s apart. Time per call and bandwidth. */
#include "bench_armci.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { OP_PUTV, OP_GETV, OP_COUNT };
static const char *const op_names[OP_COUNT] = { "putv", "getv" };

int main(int argc, char **argv)
{
    bench_opts_t o;
    bench_armci_init(&o, "vector", &argc, &argv);
    if (o.nproc < 2) {
        bench_skip(&o, "all", "needs_2_processes");
        return bench_armci_finalize(0);
    }
    int target = o.target > 0 ? o.target : o.nproc - 1;
    size_t total = o.total;
    size_t min_seg = o.min_size;
    size_t max_segs = total / min_seg;
    void **data = bench_armci_alloc(2 * total);
    char *local = ARMCI_Malloc_local(total);
    void **lptr = malloc(max_segs * sizeof *lptr);
    void **rptr = malloc(max_segs * sizeof *rptr);
    if (local == NULL || lptr == NULL || rptr == NULL)
        ARMCI_Error("bench vector: allocation failed", 1);
    bench_fill(local, total, 5);
    bench_info(&o, "origin=0 target=%d total=%zu", target, total);

    double lat[BENCH_MAX_REPS], bw[BENCH_MAX_REPS];
    char extra[64];
    snprintf(extra, sizeof extra, "total=%zu", total);
    for (int op = 0; op < OP_COUNT; op++) {
        if (!bench_want(&o, op_names[op]))
            continue;
        for (size_t s = min_seg; s <= total; s = bench_next_size(s, total)) {
            int nseg = (int)(total / s);
            char *rbase = data[target];
            for (int k = 0; k < nseg; k++) {
                lptr[k] = local + (size_t)k * s;
                rptr[k] = rbase + (size_t)k * 2 * s;
            }
            armci_giov_t iov;
            iov.ptr_array_len = nseg;
            iov.bytes = (int)s;
            iov.src_ptr_array = op == OP_PUTV ? lptr : rptr;
            iov.dst_ptr_array = op == OP_PUTV ? rptr : lptr;
            const int cap = bench_iters_for(&o, total);
            int iters = cap;   /* sized again from cap in each repetition */
            int warm = o.warmup < 2 ? o.warmup : 2;
            for (int r = 0; r < o.reps; r++) {
                bench_armci_sync();
                if (o.rank != 0)
                    continue;
                double tw = bench_now();
                for (int i = 0; i < warm + iters; i++) {
                    if (i == warm) {
                        iters = bench_iters_timed(&o, cap, (bench_now() - tw) / warm);
                        tw = bench_now();
                        if (i == warm + iters)
                            break;
                    }
                    if (op == OP_PUTV) {
                        ARMCI_PutV(&iov, 1, target);
                        ARMCI_Fence(target);
                    } else {
                        ARMCI_GetV(&iov, 1, target);
                    }
                }
                double us = (bench_now() - tw) * 1e6 / iters;
                lat[r] = us;
                bw[r] = (double)total / us;
            }
            bench_armci_sync();
            if (o.rank == 0) {
                bench_report(&o, op_names[op], s, "us", lat, o.reps, iters, extra);
                bench_report(&o, op_names[op], s, "MB/s", bw, o.reps, iters, extra);
            }
        }
    }
    bench_armci_sync();
    free(rptr);
    free(lptr);
    ARMCI_Free_local(local);
    bench_armci_free(data);
    return bench_armci_finalize(0);
}
