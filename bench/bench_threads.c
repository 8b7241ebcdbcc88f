/* Suite "threads" (issue 25 item 1, the Threads row): operations per second
 * of 8-byte puts (+ one fence at the end), double accumulates (+ fence) and
 * long fetch-and-adds to the last rank, issued either by k threads of rank
 * 0 under MPI_THREAD_MULTIPLE (mode=threads) or by k processes, ranks
 * 0..k-1, one thread each (mode=procs), k = 1 .. -T (default 4). The rate
 * is all operations over the span from the first origin's start to the last
 * one's end. procs needs k + 1 processes; run with -np 5 for both modes up
 * to 4. The target's counter and accumulators are checked against every
 * operation issued (CHECK lines). One node or virtual nodes (ARMADA_PPN=1). */
#define _POSIX_C_SOURCE 200809L
#include "bench_armci.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXT 16
#define PAD 64             /* doubles per origin: a 512-byte block each, so
                              each origin's accumulates take a stripe of the
                              accumulate lock of their own (decision 069) */

enum { OP_PUT, OP_ACC, OP_FADD, NOPS };
static const char *const op_name[NOPS] = { "put8", "acc8", "fadd" };

static bench_opts_t o;
static void **slots;       /* [np] MAXT * np blocks per process */
static void **counter;     /* [np] one long */
static int target;
static long issued[NOPS];  /* accs and fadds this process issued (main thread sums) */

typedef struct job {
    int op, t, iters;
    double t0, t1;
    pthread_barrier_t *bar;
} job_t;

static void loop(int op, int t, int iters)
{
    /* thread-major: the origins of one figure sit in consecutive blocks */
    double *slot = (double *)slots[target] + ((size_t)t * (size_t)o.nproc + (size_t)o.rank) * PAD;
    double v = 1.0, one = 1.0;
    long old;
    for (int i = 0; i < iters; i++) {
        if (op == OP_PUT)
            ARMCI_Put(&v, slot, 8, target);
        else if (op == OP_ACC)
            ARMCI_Acc(ARMCI_ACC_DBL, &one, &v, slot, 8, target);
        else
            ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, counter[target], 1, target);
    }
    if (op != OP_FADD)
        ARMCI_Fence(target);
}

static void *thread_main(void *arg)
{
    job_t *j = arg;
    pthread_barrier_wait(j->bar);
    j->t0 = bench_now();
    loop(j->op, j->t, j->iters);
    j->t1 = bench_now();
    return NULL;
}

/* One repetition on this process with k threads (k = 1: the caller alone);
 * returns the span, *first the earliest start. */
static double run_local(int op, int k, int iters, double *first)
{
    job_t jobs[MAXT];
    pthread_t th[MAXT];
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, (unsigned)k);
    for (int t = 0; t < k; t++) {
        jobs[t] = (job_t){ .op = op, .t = t, .iters = iters, .bar = &bar };
        if (t > 0)
            pthread_create(&th[t], NULL, thread_main, &jobs[t]);
    }
    thread_main(&jobs[0]);
    double t0 = jobs[0].t0, t1 = jobs[0].t1;
    for (int t = 1; t < k; t++) {
        pthread_join(th[t], NULL);
        t0 = jobs[t].t0 < t0 ? jobs[t].t0 : t0;
        t1 = jobs[t].t1 > t1 ? jobs[t].t1 : t1;
    }
    pthread_barrier_destroy(&bar);
    if (op != OP_PUT)
        issued[op] += (long)k * iters;
    *first = t0;
    return t1;
}

/* MPI_Reduce of one double to rank 0, waited for by sleeping: the ranks
 * that are not origins reach it at once, and a blocking MPI_Reduce would
 * poll there (sched_yield at best) on the cores the origin threads need.
 * With 2 threads on 2 cores that polling alone halved the threads' rate. */
static void reduce_sleeping(const double *in, double *out, MPI_Op op)
{
    MPI_Request r;
    MPI_Ireduce(in, out, 1, MPI_DOUBLE, op, 0, MPI_COMM_WORLD, &r);
    bench_sleep_wait(&r, 20);
}

/* One figure: reps repetitions of k origins (threads of rank 0, or ranks
 * 0..k-1), the rate in Mops/s from rank 0. Collective. */
static void figure(int op, int k, int procs, int iters)
{
    double rate[BENCH_MAX_REPS];
    int origin = procs ? o.rank < k : o.rank == 0;
    int nthreads = procs ? 1 : k;
    double first = 0.0, last = 0.0;
    if (origin)
        run_local(op, nthreads, o.warmup, &first);
    for (int r = 0; r < o.reps; r++) {
        bench_armci_sync();
        double s = 1e300, e = 0.0;
        if (origin)
            last = run_local(op, nthreads, iters, &first);
        else
            first = 1e300, last = 0.0;
        /* Clocks of one host (virtual nodes included): spans compare. */
        reduce_sleeping(&first, &s, MPI_MIN);
        reduce_sleeping(&last, &e, MPI_MAX);
        rate[r] = (double)k * iters / (e - s) / 1e6;
    }
    if (o.rank == 0) {
        char extra[64];
        snprintf(extra, sizeof extra, "mode=%s origins=%d", procs ? "procs" : "threads", k);
        bench_report(&o, op_name[op], 8, "Mops/s", rate, o.reps, iters, extra);
    }
}

static void zero_slots(void)
{
    bench_armci_sync();
    if (o.rank == target) {
        ARMCI_Access_begin(slots[target]);
        memset(slots[target], 0, sizeof(double) * PAD * MAXT * (size_t)o.nproc);
        ARMCI_Access_end(slots[target]);
    }
    bench_armci_sync();
}

static int check_totals(void)
{
    long tot[NOPS] = { 0 };
    MPI_Reduce(issued, tot, NOPS, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    bench_armci_sync();
    int st = 0;
    if (o.rank == target) {
        double sum = 0.0;
        ARMCI_Access_begin(slots[target]);
        for (int i = 0; i < PAD * MAXT * o.nproc; i++)
            sum += ((double *)slots[target])[i];
        ARMCI_Access_end(slots[target]);
        long got = *(long *)counter[target];
        MPI_Send(&sum, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
        MPI_Send(&got, 1, MPI_LONG, 0, 2, MPI_COMM_WORLD);
    }
    if (o.rank == 0) {
        double sum;
        long got;
        MPI_Recv(&sum, 1, MPI_DOUBLE, target, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&got, 1, MPI_LONG, target, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (bench_want(&o, op_name[OP_FADD]))
            st |= bench_check(&o, "fadd", tot[OP_FADD], got);
        if (bench_want(&o, op_name[OP_ACC]))   /* the puts land in the same slots */
            st |= bench_check(&o, "acc8", tot[OP_ACC], (long)sum);
    }
    MPI_Bcast(&st, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return st;
}

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    ARMCI_Init_thread(MPI_THREAD_MULTIPLE);
    int maxt = bench_take_opt(&argc, argv, "-T", 4);
    bench_parse(&o, BENCH_IMPL, "threads", argc, argv);
    if (maxt < 1 || maxt > MAXT)
        maxt = maxt < 1 ? 1 : MAXT;
    if (o.nproc < 2 || provided < MPI_THREAD_MULTIPLE) {
        if (o.rank == 0)
            bench_skip(&o, "threads", o.nproc < 2 ? "needs_2_processes" : "no_thread_multiple");
        return bench_armci_finalize(0);
    }
    target = o.nproc - 1;
    slots = bench_armci_alloc(sizeof(double) * PAD * MAXT * (size_t)o.nproc);
    counter = bench_armci_alloc(sizeof(long));
    for (int op = 0; op < NOPS; op++) {
        if (!bench_want(&o, op_name[op]))
            continue;
        if (op == OP_ACC)
            zero_slots();   /* the accumulators then sum to the accs issued */
        for (int k = 1; k <= maxt; k++) {
            figure(op, k, 0, o.iters);
            if (k < o.nproc)
                figure(op, k, 1, o.iters);
            else if (o.rank == 0)
                bench_skip(&o, op_name[op], "procs_needs_more_processes");
        }
    }
    int st = check_totals();
    bench_armci_free(counter);
    bench_armci_free(slots);
    return bench_armci_finalize(st);
}
