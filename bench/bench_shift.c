/* Suite "shift" (gemini Figs 16-17): every process moves -m bytes (default
 * 512 B in the harness) at once.
 *   shift_put / shift_get          to rank (r + 1) mod P
 *   transpose_put / transpose_get  ranks on a sqrt(P) x sqrt(P) grid swap
 *                                  with their mirror (r <-> P-1-r when P is
 *                                  not a square); the diagonal idles
 * Puts are followed by ARMCI_Fence. Figures: time per operation (mean over
 * the active ranks) and aggregate bandwidth. */
#include "bench_armci.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { OP_SHIFT_PUT, OP_SHIFT_GET, OP_TRANS_PUT, OP_TRANS_GET, OP_COUNT };
static const char *const op_names[OP_COUNT] = {
    "shift_put", "shift_get", "transpose_put", "transpose_get"
};

static int transpose_partner(int r, int p)
{
    int q = (int)lround(sqrt((double)p));
    if (q * q == p) {
        int row = r / q, col = r % q;
        return col * q + row;
    }
    return p - 1 - r;
}

int main(int argc, char **argv)
{
    bench_opts_t o;
    bench_armci_init(&o, "shift", &argc, &argv);
    if (o.nproc < 2) {
        bench_skip(&o, "all", "needs_2_processes");
        return bench_armci_finalize(0);
    }
    size_t bytes = o.min_size;
    void **data = bench_armci_alloc(bytes);
    char *local = ARMCI_Malloc_local(bytes);
    if (local == NULL)
        ARMCI_Error("bench shift: ARMCI_Malloc_local failed", 1);
    bench_fill(local, bytes, (unsigned)o.rank);

    for (int op = 0; op < OP_COUNT; op++) {
        if (!bench_want(&o, op_names[op]))
            continue;
        int shift = op == OP_SHIFT_PUT || op == OP_SHIFT_GET;
        int put = op == OP_SHIFT_PUT || op == OP_TRANS_PUT;
        int peer = shift ? (o.rank + 1) % o.nproc : transpose_partner(o.rank, o.nproc);
        int active = peer != o.rank;
        int nactive = 0;
        MPI_Allreduce(&active, &nactive, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        double per_op = 0.0, worst = 0.0;
        bench_armci_sync();
        if (active) {
            double t = bench_now();
            for (int i = 0; i < o.warmup; i++) {
                if (put) {
                    ARMCI_Put(local, data[peer], (int)bytes, peer);
                    ARMCI_Fence(peer);
                } else {
                    ARMCI_Get(data[peer], local, (int)bytes, peer);
                }
            }
            per_op = (bench_now() - t) / o.warmup;
        }
        MPI_Allreduce(&per_op, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        int iters = bench_iters_timed(&o, bench_iters_for(&o, bytes), worst);
        double lat[BENCH_MAX_REPS], bw[BENCH_MAX_REPS];
        for (int r = 0; r < o.reps; r++) {
            bench_armci_sync();
            double us = 0.0;
            if (active) {
                double t0 = bench_now();
                for (int i = 0; i < iters; i++) {
                    if (put) {
                        ARMCI_Put(local, data[peer], (int)bytes, peer);
                        ARMCI_Fence(peer);
                    } else {
                        ARMCI_Get(data[peer], local, (int)bytes, peer);
                    }
                }
                us = (bench_now() - t0) * 1e6 / iters;
            }
            double sum = 0.0;
            MPI_Reduce(&us, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
            lat[r] = nactive ? sum / nactive : 0.0;
            bw[r] = lat[r] > 0 ? (double)bytes * nactive / lat[r] : 0.0;
        }
        if (o.rank == 0) {
            char extra[32];
            snprintf(extra, sizeof extra, "active=%d", nactive);
            bench_report(&o, op_names[op], bytes, "us", lat, o.reps, iters, extra);
            bench_report(&o, op_names[op], bytes, "MB/s", bw, o.reps, iters, extra);
        }
    }
    bench_armci_sync();
    ARMCI_Free_local(local);
    bench_armci_free(data);
    return bench_armci_finalize(0);
}
