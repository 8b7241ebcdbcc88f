/* Reference: the contiguous and atomic tests on OpenSHMEM (Open MPI's
 * liboshmem): shmem_getmem, shmem_putmem + shmem_quiet, and
 * shmem_int_atomic_fetch_add. Same RESULT lines as the ARMCI suites.
 * Usage: ref-shmem SUITE [options], SUITE one of ops, contig, fadd.
 * In ops, "puts" is the ARMCI suite's 2-D strided put done the OpenSHMEM
 * way: one shmem_putmem_nbi per 512-byte row, then shmem_quiet. "lock" is
 * shmem_set_lock + shmem_clear_lock on one symmetric lock: OpenSHMEM's
 * only lock, global rather than one mutex on the target, and the library
 * picks where it lives. OpenSHMEM has no floating-point accumulate: that
 * figure is reported as SKIP. MPI is used only for the option parsing's
 * rank query and the reductions of the results. */
#define _POSIX_C_SOURCE 200809L
#include "bench_common.h"

#include <mpi.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { OP_GET, OP_PUT, OP_FADD, OP_PUTS, OP_LOCK };

static char *sym;
static int *counter;
static long *lock;
static char *local;

static inline void do_op(int op, size_t bytes, int target)
{
    switch (op) {
    case OP_GET:
        shmem_getmem(local, sym, bytes, target);
        break;
    case OP_PUT:
        shmem_putmem(sym, local, bytes, target);
        shmem_quiet();
        break;
    case OP_FADD:
        (void)shmem_int_atomic_fetch_add(counter, 1, target);
        break;
    case OP_PUTS:   /* after the first MiB, as in the ARMCI suite */
        for (int i = 0; i < BENCH_ROWS; i++)
            shmem_putmem_nbi(sym + BENCH_BIG + (size_t)i * BENCH_DST_STRIDE,
                             local + (size_t)i * BENCH_ROW_BYTES, BENCH_ROW_BYTES, target);
        shmem_quiet();
        break;
    case OP_LOCK:
        shmem_set_lock(lock);
        shmem_clear_lock(lock);
        break;
    default:
        break;
    }
}

static void measure(const bench_opts_t *o, const char *name, int op, size_t bytes,
                    int target, int with_bw)
{
    double lat[BENCH_MAX_REPS], bw[BENCH_MAX_REPS];
    const int cap = bench_iters_for(o, bytes);
    int iters = cap;   /* sized again from cap in each repetition */
    int warm = o->warmup < iters ? o->warmup : iters;
    for (int r = 0; r < o->reps; r++) {
        shmem_barrier_all();
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
    shmem_barrier_all();
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
    shmem_barrier_all();
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
        shmem_barrier_all();
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
    shmem_barrier_all();
    int status = 0;
    if (o->rank == 0) {
        bench_fadd_report(o, &f, iters);
        int got = shmem_int_atomic_fetch(counter, 0);
        status = bench_check(o, "fadd_all", total, got);
    }
    return status;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    shmem_init();
    bench_opts_t o;
    const char *suite = bench_parse_ref(&o, BENCH_IMPL, argc, argv);
    size_t max = o.max_size > BENCH_OPS_BYTES ? o.max_size : BENCH_OPS_BYTES;
    sym = shmem_malloc(max);
    counter = shmem_malloc(sizeof(int));
    lock = shmem_malloc(sizeof(long));
    local = calloc(max, 1);
    if (sym == NULL || counter == NULL || lock == NULL || local == NULL) {
        fprintf(stderr, "ref-shmem: allocation failed\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(sym, 0, max);
    *counter = 0;
    *lock = 0;
    shmem_barrier_all();
    int target = o.target > 0 ? o.target : o.nproc - 1;
    int status = 0;
    if (o.nproc < 2) {
        bench_skip(&o, "all", "needs_2_processes");
    } else if (strcmp(suite, "ops") == 0) {
        if (bench_want(&o, "get")) measure(&o, "get", OP_GET, 8, target, 0);
        if (bench_want(&o, "put")) measure(&o, "put", OP_PUT, 8, target, 0);
        if (bench_want(&o, "acc") && o.rank == 0) bench_skip(&o, "acc", "no_equivalent");
        if (bench_want(&o, "lock")) measure(&o, "lock", OP_LOCK, 0, target, 0);
        if (bench_want(&o, "fadd")) measure(&o, "fadd", OP_FADD, 4, target, 0);
        if (bench_want(&o, "puts"))
            measure(&o, "puts", OP_PUTS, BENCH_ROWS * BENCH_ROW_BYTES, target, 1);
        if (bench_want(&o, "get1m")) measure(&o, "get1m", OP_GET, BENCH_BIG, target, 1);
    } else if (strcmp(suite, "contig") == 0) {
        static const char *const names[2] = { "put", "get" };
        static const int ops[2] = { OP_PUT, OP_GET };
        for (int k = 0; k < 2; k++) {
            if (!bench_want(&o, names[k]))
                continue;
            for (size_t s = o.min_size; s <= o.max_size; s = bench_next_size(s, o.max_size))
                measure(&o, names[k], ops[k], s, target, 1);
        }
        if (bench_want(&o, "acc") && o.rank == 0)
            bench_skip(&o, "acc", "no_equivalent");
    } else if (strcmp(suite, "fadd") == 0) {
        status = fadd_all(&o);
    } else if (o.rank == 0) {
        bench_skip(&o, "all", "unknown_suite");
    }
    fflush(stdout);
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    shmem_barrier_all();
    shmem_free(lock);
    shmem_free(counter);
    shmem_free(sym);
    free(local);
    /* Debian's Open MPI 4.1.4 liboshmem crashes inside shmem_finalize (even
     * in a program without MPI calls), after every result is out: finalize
     * MPI, then leave without running the OpenSHMEM tear-down. */
    fflush(stdout);
    MPI_Finalize();
    _exit(status);
}
