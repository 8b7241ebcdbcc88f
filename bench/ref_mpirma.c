/* Reference: the contiguous and atomic tests on MPI-3 RMA (passive target,
 * MPI_Win_lock_all, completion by MPI_Win_flush), printing the same RESULT
 * lines as the ARMCI suites so the harness can put them side by side.
 * Usage: ref-mpirma SUITE [options], SUITE one of ops, contig, fadd.
 *   ops:    get (8 B), put (8 B), acc (one double), fadd, puts (64 rows of
 *           512 B into rows 1 KiB apart: one MPI_Put with a vector
 *           datatype at the target), get1m
 *   contig: put, get, acc from -m to -M bytes
 *   fadd:   fetch-and-add by ranks 1..P-1 to one counter on rank 0 */
#include "bench_common.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OP_GET, OP_PUT, OP_ACC, OP_FADD, OP_PUTS };

static MPI_Win win;
static char *local;
static MPI_Datatype rows;   /* BENCH_ROWS x BENCH_ROW_BYTES, BENCH_DST_STRIDE apart */

static inline void do_op(int op, size_t bytes, int target)
{
    int one = 1, old = 0;
    switch (op) {
    case OP_GET:
        MPI_Get(local, (int)bytes, MPI_BYTE, target, 0, (int)bytes, MPI_BYTE, win);
        break;
    case OP_PUT:
        MPI_Put(local, (int)bytes, MPI_BYTE, target, 0, (int)bytes, MPI_BYTE, win);
        break;
    case OP_ACC:
        MPI_Accumulate(local, (int)(bytes / 8), MPI_DOUBLE, target, 0,
                       (int)(bytes / 8), MPI_DOUBLE, MPI_SUM, win);
        break;
    case OP_FADD:
        MPI_Fetch_and_op(&one, &old, MPI_INT, target, 0, MPI_SUM, win);
        break;
    case OP_PUTS:   /* after the first MiB, as in the ARMCI suite */
        MPI_Put(local, (int)bytes, MPI_BYTE, target, (MPI_Aint)BENCH_BIG, 1, rows, win);
        break;
    default:
        break;
    }
    MPI_Win_flush(target, win);
}

static void measure(const bench_opts_t *o, const char *name, int op, size_t bytes,
                    int target, int with_bw)
{
    double lat[BENCH_MAX_REPS], bw[BENCH_MAX_REPS];
    const int cap = bench_iters_for(o, bytes);
    int iters = cap;   /* sized again from cap in each repetition */
    int warm = o->warmup < iters ? o->warmup : iters;
    for (int r = 0; r < o->reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (o->rank != 0)
            continue;
        double tw = bench_now();
        for (int i = 0; i < warm; i++)
            do_op(op, bytes, target);
        iters = bench_iters_timed(o, cap, (bench_now() - tw) / warm);
        double t0 = bench_now();
        for (int i = 0; i < iters; i++)
            do_op(op, bytes, target);
        lat[r] = (bench_now() - t0) * 1e6 / iters;
        bw[r] = (double)bytes / lat[r];
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (o->rank == 0) {
        bench_report(o, name, bytes, "us", lat, o->reps, iters, NULL);
        if (with_bw)
            bench_report(o, name, bytes, "MB/s", bw, o->reps, iters, NULL);
    }
}

static int fadd_all(const bench_opts_t *o)
{
    int origin = o->rank != 0;
    long done = 0;
    double per = 0.0, worst = 0.0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (origin) {
        double t = bench_now();
        for (int i = 0; i < o->warmup; i++)
            do_op(OP_FADD, 4, 0);
        per = (bench_now() - t) / o->warmup;
        done += o->warmup;
    }
    MPI_Allreduce(&per, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int iters = bench_iters_timed(o, o->iters, worst);
    bench_fadd_t f = { .origins = o->nproc - 1 };
    for (int r = 0; r < o->reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double mine = 0.0;
        if (origin) {
            double t0 = bench_now();
            for (int i = 0; i < iters; i++)
                do_op(OP_FADD, 4, 0);
            mine = bench_now() - t0;
            done += iters;
        }
        bench_fadd_rep(&f, r, mine, iters, MPI_COMM_WORLD);
    }
    long total = 0;
    MPI_Reduce(&done, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Win_flush_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    int status = 0;
    if (o->rank == 0) {
        bench_fadd_report(o, &f, iters);
        int got = 0;
        MPI_Win_sync(win);
        MPI_Get(&got, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_flush(0, win);
        status = bench_check(o, "fadd_all", total, got);
    }
    return status;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    bench_opts_t o;
    const char *suite = bench_parse_ref(&o, BENCH_IMPL, argc, argv);
    size_t max = o.max_size > BENCH_OPS_BYTES ? o.max_size : BENCH_OPS_BYTES;
    MPI_Type_vector(BENCH_ROWS, BENCH_ROW_BYTES, BENCH_DST_STRIDE, MPI_BYTE, &rows);
    MPI_Type_commit(&rows);
    char *base = NULL;
    MPI_Win_allocate((MPI_Aint)max, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    memset(base, 0, max);
    local = calloc(max, 1);
    for (size_t i = 0; i < max / 8; i++)
        ((double *)local)[i] = 1.0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    int target = o.target > 0 ? o.target : o.nproc - 1;
    int status = 0;
    if (o.nproc < 2) {
        bench_skip(&o, "all", "needs_2_processes");
    } else if (strcmp(suite, "ops") == 0) {
        if (bench_want(&o, "get")) measure(&o, "get", OP_GET, 8, target, 0);
        if (bench_want(&o, "put")) measure(&o, "put", OP_PUT, 8, target, 0);
        if (bench_want(&o, "acc")) measure(&o, "acc", OP_ACC, 8, target, 0);
        if (bench_want(&o, "lock") && o.rank == 0) bench_skip(&o, "lock", "no_equivalent");
        if (bench_want(&o, "fadd")) measure(&o, "fadd", OP_FADD, 4, target, 0);
        if (bench_want(&o, "puts"))
            measure(&o, "puts", OP_PUTS, BENCH_ROWS * BENCH_ROW_BYTES, target, 1);
        if (bench_want(&o, "get1m")) measure(&o, "get1m", OP_GET, BENCH_BIG, target, 1);
    } else if (strcmp(suite, "contig") == 0) {
        static const char *const names[3] = { "put", "get", "acc" };
        static const int ops[3] = { OP_PUT, OP_GET, OP_ACC };
        for (int k = 0; k < 3; k++) {
            if (!bench_want(&o, names[k]))
                continue;
            for (size_t s = o.min_size; s <= o.max_size; s = bench_next_size(s, o.max_size))
                measure(&o, names[k], ops[k], ops[k] == OP_ACC ? (s + 7) / 8 * 8 : s, target, 1);
        }
    } else if (strcmp(suite, "fadd") == 0) {
        status = fadd_all(&o);
    } else if (o.rank == 0) {
        bench_skip(&o, "all", "unknown_suite");
    }
    fflush(stdout);
    MPI_Win_unlock_all(win);
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Type_free(&rows);
    free(local);
    MPI_Finalize();
    return status;
}
