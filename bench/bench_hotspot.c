/* Suite "hotspot" (hicoo section 4.2, Figs 10-12): ranks 1..P-1 take turns
 * measuring their operation to rank 0 while a share (-c levels, percent) of
 * the other non-zero ranks hammer rank 0 with the same operation.
 *   putv  vector put of 16 segments x 64 B (+ fence) into rank 0
 *   fadd  ARMCI_Rmw fetch-and-add on one counter of rank 0
 * Figures per level: every measuring rank's time per operation (rank=r),
 * their mean (rank=mean), and the aggregate rate (unit Mops/s, origins=n):
 * each turn, the sum over the measuring rank and its hammers of operations
 * over seconds, each counted over its own loop; the figure is the mean over
 * turns. Hammers stop when the measuring rank is done (a non-blocking
 * barrier tells them). The counter's final value is checked against the
 * fetch-and-adds issued (CHECK op=fadd_hot): combining on the way (issue 20)
 * must hand every increment through exactly once. */
#include "bench_armci.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define SEGS 16
#define SEG_BYTES 64
#define NGATHER 4 /* per rank and turn: median us, iters, operations, seconds */

enum { OP_PUTV, OP_FADD, OP_COUNT };

static long fadds_issued; /* every fetch-and-add this process issued */
static const char *const op_names[OP_COUNT] = { "putv", "fadd" };

struct ctx {
    void **data;
    void **counter;
    char *local;
    void *lptr[SEGS];
    void *rptr[SEGS];
    armci_giov_t iov;
};

static inline void do_op(int op, struct ctx *c)
{
    if (op == OP_PUTV) {
        ARMCI_PutV(&c->iov, 1, 0);
        ARMCI_Fence(0);
    } else {
        int old = 0;
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &old, c->counter[0], 1, 0);
        fadds_issued++;
    }
}

/* Whether rank r hammers while m measures: the first k non-zero ranks after
 * m, cyclically. */
static int is_hammer(int r, int m, int k, int nproc)
{
    if (r == 0 || r == m || k <= 0)
        return 0;
    int others = nproc - 1;               /* ranks 1..nproc-1           */
    int dist = (r - m + others) % others; /* 1..others-1 after m        */
    return dist >= 1 && dist <= k;
}

int main(int argc, char **argv)
{
    bench_opts_t o;
    bench_armci_init(&o, "hotspot", &argc, &argv);
    if (o.nproc < 2) {
        bench_skip(&o, "all", "needs_2_processes");
        return bench_armci_finalize(0);
    }
    struct ctx c;
    c.data = bench_armci_alloc((size_t)SEGS * SEG_BYTES * 2);
    c.counter = bench_armci_alloc(sizeof(int));
    c.local = ARMCI_Malloc_local((size_t)SEGS * SEG_BYTES);
    if (c.local == NULL)
        ARMCI_Error("bench hotspot: ARMCI_Malloc_local failed", 1);
    bench_fill(c.local, (size_t)SEGS * SEG_BYTES, 9);
    for (int k = 0; k < SEGS; k++) {
        c.lptr[k] = c.local + (size_t)k * SEG_BYTES;
        c.rptr[k] = (char *)c.data[0] + (size_t)k * 2 * SEG_BYTES;
    }
    c.iov.src_ptr_array = c.lptr;
    c.iov.dst_ptr_array = c.rptr;
    c.iov.ptr_array_len = SEGS;
    c.iov.bytes = SEG_BYTES;

    int others = o.nproc - 2; /* non-zero ranks besides the measuring one */
    double *gathered = calloc(NGATHER * (size_t)o.nproc, sizeof *gathered);
    double *per_rank = calloc((size_t)o.nproc, sizeof *per_rank);
    if (gathered == NULL || per_rank == NULL)
        ARMCI_Error("bench hotspot: allocation failed", 1);
    double samples[BENCH_MAX_REPS];
    int levels[16];
    int nlevels = bench_parse_ints(o.levels, levels, 16);

    for (int op = 0; op < OP_COUNT; op++) {
        if (!bench_want(&o, op_names[op]))
            continue;
        size_t size = op == OP_PUTV ? (size_t)SEGS * SEG_BYTES : sizeof(int);
        for (int li = 0; li < nlevels; li++) {
            int level = levels[li];
            int k = (int)ceil(level / 100.0 * others - 1e-9);
            if (k > others) k = others;
            if (k < 0) k = 0;
            double rate_sum = 0.0;
            for (int m = 1; m < o.nproc; m++) {
                double med = 0.0, nops = 0.0, secs = 0.0;
                const int cap = o.iters;
                int iters = cap;   /* sized again from cap in each repetition */
                bench_armci_sync();
                MPI_Request req;
                if (o.rank == m) {
                    double tw = bench_now();
                    for (int i = 0; i < o.warmup; i++)
                        do_op(op, &c);
                    iters = bench_iters_timed(&o, cap, (bench_now() - tw) / o.warmup);
                    for (int r = 0; r < o.reps; r++) {
                        double t0 = bench_now();
                        for (int i = 0; i < iters; i++)
                            do_op(op, &c);
                        double dt = bench_now() - t0;
                        samples[r] = dt * 1e6 / iters;
                        nops += iters;
                        secs += dt;
                    }
                    med = bench_median(samples, o.reps);
                    MPI_Ibarrier(MPI_COMM_WORLD, &req);
                    MPI_Wait(&req, MPI_STATUS_IGNORE);
                } else if (is_hammer(o.rank, m, k, o.nproc)) {
                    int flag = 0;
                    MPI_Ibarrier(MPI_COMM_WORLD, &req);
                    double start = bench_now();
                    while (!flag) {
                        for (int i = 0; i < 8; i++)
                            do_op(op, &c);
                        nops += 8;
                        MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
                        if (!flag && bench_now() - start > o.seconds + 10 * o.rep_seconds * o.reps) {
                            MPI_Wait(&req, MPI_STATUS_IGNORE);
                            flag = 1;
                        }
                    }
                    secs = bench_now() - start;
                } else {
                    MPI_Ibarrier(MPI_COMM_WORLD, &req);
                    MPI_Wait(&req, MPI_STATUS_IGNORE);
                }
                double mine[NGATHER] = { med, (double)iters, nops, secs };
                MPI_Gather(mine, NGATHER, MPI_DOUBLE, gathered, NGATHER, MPI_DOUBLE, 0,
                           MPI_COMM_WORLD);
                if (o.rank == 0) {
                    char extra[96];
                    snprintf(extra, sizeof extra, "level=%d hammers=%d rank=%d", level, k, m);
                    per_rank[m] = gathered[NGATHER * m];
                    double one[1] = { per_rank[m] };
                    bench_report(&o, op_names[op], size, "us", one, 1,
                                 (int)gathered[NGATHER * m + 1], extra);
                    for (int r = 1; r < o.nproc; r++)
                        if (gathered[NGATHER * r + 3] > 0)
                            rate_sum += gathered[NGATHER * r + 2] / gathered[NGATHER * r + 3];
                }
            }
            if (o.rank == 0) {
                double sum = 0.0;
                for (int m = 1; m < o.nproc; m++)
                    sum += per_rank[m];
                double mean[1] = { sum / (o.nproc - 1) };
                char extra[96];
                snprintf(extra, sizeof extra, "level=%d hammers=%d rank=mean", level, k);
                bench_report(&o, op_names[op], size, "us", mean, 1, o.iters, extra);
                double rate[1] = { rate_sum / (o.nproc - 1) / 1e6 };
                snprintf(extra, sizeof extra, "level=%d hammers=%d origins=%d", level, k, k + 1);
                bench_report(&o, op_names[op], size, "Mops/s", rate, 1, o.iters, extra);
            }
        }
    }
    bench_armci_sync();
    int status = 0;
    if (bench_want(&o, "fadd")) {
        long total = 0;
        MPI_Reduce(&fadds_issued, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        if (o.rank == 0) {
            int *c0 = c.counter[0];
            ARMCI_Access_begin(c0);
            long got = *c0;
            ARMCI_Access_end(c0);
            status = bench_check(&o, "fadd_hot", total, got);
        }
        MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    free(per_rank);
    free(gathered);
    ARMCI_Free_local(c.local);
    bench_armci_free(c.counter);
    bench_armci_free(c.data);
    return bench_armci_finalize(status);
}
