/* Suite "ops": the point figures of issues 2 and 3, one origin (rank 0) and
 * one target (default: the last rank).
 *   get       8-byte ARMCI_Get
 *   put       8-byte ARMCI_Put + ARMCI_Fence
 *   acc       one double ARMCI_Acc(ARMCI_ACC_DBL) + ARMCI_Fence
 *   lock      ARMCI_Lock + ARMCI_Unlock of mutex 0 on the target
 *   fadd      ARMCI_Rmw(ARMCI_FETCH_AND_ADD) on an int (final count checked)
 *   puts      2-D strided put, 64 rows x 512 B + ARMCI_Fence
 *   get1m     1 MiB ARMCI_Get (latency and bandwidth)
 *   get1m_nb  a stream of 1 MiB ARMCI_NbGet, NB_WINDOW outstanding, each
 *             issued as the oldest completes (bandwidth, the way
 *             ucx_perftest's bandwidth tests keep transfers in flight)
 *   put1m     1 MiB ARMCI_Put + ARMCI_Fence (latency and bandwidth)
 * Other ranks wait in a barrier. */
#include "bench_armci.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OP_GET, OP_PUT, OP_ACC, OP_LOCK, OP_FADD, OP_PUTS, OP_GET1M, OP_GET1M_NB, OP_PUT1M,
       OP_COUNT };

static const char *const op_names[OP_COUNT] = {
    "get", "put", "acc", "lock", "fadd", "puts", "get1m", "get1m_nb", "put1m"
};

#define NB_WINDOW 8

struct ctx {
    void **data;    /* BENCH_OPS_BYTES on each process               */
    void **counter; /* one int per process                           */
    char *local;    /* NB_WINDOW * BENCH_BIG bytes of local memory    */
    int target;
    armci_hdl_t h[NB_WINDOW];
    long issued;    /* get1m_nb: gets issued since the last drain     */
};

/* get1m_nb: one more get into its own MiB of local memory, once the one
 * issued NB_WINDOW earlier (which used that MiB) has completed. */
static void nb_get1m(struct ctx *c)
{
    int slot = (int)(c->issued % NB_WINDOW);
    if (c->issued >= NB_WINDOW)
        ARMCI_Wait(&c->h[slot]);
    ARMCI_INIT_HANDLE(&c->h[slot]);
    ARMCI_NbGet(c->data[c->target], c->local + (size_t)slot * BENCH_BIG, (int)BENCH_BIG,
                c->target, &c->h[slot]);
    c->issued++;
}

/* Completes every get1m_nb get still outstanding. */
static void nb_drain(struct ctx *c)
{
    long live = c->issued < NB_WINDOW ? c->issued : NB_WINDOW;
    for (long i = c->issued - live; i < c->issued; i++)
        ARMCI_Wait(&c->h[i % NB_WINDOW]);
    c->issued = 0;
}

static inline void do_op(int op, struct ctx *c)
{
    char *rbuf = c->data[c->target];
    switch (op) {
    case OP_GET:
        ARMCI_Get(rbuf, c->local, 8, c->target);
        break;
    case OP_PUT:
        ARMCI_Put(c->local, rbuf, 8, c->target);
        ARMCI_Fence(c->target);
        break;
    case OP_ACC: {
        double scale = 1.0;
        ARMCI_Acc(ARMCI_ACC_DBL, &scale, c->local, rbuf, (int)sizeof(double), c->target);
        ARMCI_Fence(c->target);
        break;
    }
    case OP_LOCK:
        ARMCI_Lock(0, c->target);
        ARMCI_Unlock(0, c->target);
        break;
    case OP_FADD: {
        int old = 0;
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &old, c->counter[c->target], 1, c->target);
        break;
    }
    case OP_PUTS: {
        int src_stride[1] = { BENCH_ROW_BYTES };
        int dst_stride[1] = { BENCH_DST_STRIDE };
        int count[2] = { BENCH_ROW_BYTES, BENCH_ROWS };
        ARMCI_PutS(c->local, src_stride, rbuf + BENCH_BIG, dst_stride, count, 1, c->target);
        ARMCI_Fence(c->target);
        break;
    }
    case OP_GET1M:
        ARMCI_Get(rbuf, c->local, (int)BENCH_BIG, c->target);
        break;
    case OP_GET1M_NB:
        nb_get1m(c);
        break;
    case OP_PUT1M:
        ARMCI_Put(c->local, rbuf, (int)BENCH_BIG, c->target);
        ARMCI_Fence(c->target);
        break;
    default:
        break;
    }
}

int main(int argc, char **argv)
{
    bench_opts_t o;
    bench_armci_init(&o, "ops", &argc, &argv);
    if (o.nproc < 2) {
        bench_skip(&o, "all", "needs_2_processes");
        return bench_armci_finalize(0);
    }
    struct ctx c;
    c.target = o.target >= 0 ? o.target : o.nproc - 1;
    if (c.target == 0)
        c.target = 1;
    c.data = bench_armci_alloc(BENCH_OPS_BYTES);
    c.counter = bench_armci_alloc(sizeof(int));
    c.local = ARMCI_Malloc_local(NB_WINDOW * BENCH_BIG);
    c.issued = 0;
    if (c.local == NULL)
        ARMCI_Error("bench ops: ARMCI_Malloc_local failed", 1);
    bench_fill(c.local, BENCH_BIG, 1);
    ARMCI_Create_mutexes(1);
    bench_info(&o, "origin=0 target=%d", c.target);

    long fadd_done = 0;
    int status = 0;
    double samples[BENCH_MAX_REPS];
    for (int op = 0; op < OP_COUNT; op++) {
        if (!bench_want(&o, op_names[op]))
            continue;
        size_t size = op == OP_GET1M || op == OP_GET1M_NB || op == OP_PUT1M ? BENCH_BIG
                    : op == OP_PUTS ? (size_t)BENCH_ROWS * BENCH_ROW_BYTES
                    : op == OP_LOCK ? 0
                    : op == OP_FADD ? sizeof(int) : 8;
        const int cap = bench_iters_for(&o, size);
        int iters = cap;   /* sized again from cap in each repetition */
        int warm = o.warmup < iters ? o.warmup : iters;
        for (int r = 0; r < o.reps; r++) {
            bench_armci_sync();
            if (o.rank == 0) {
                double tw = bench_now();
                for (int i = 0; i < warm; i++)
                    do_op(op, &c);
                if (op == OP_GET1M_NB)
                    nb_drain(&c);
                iters = bench_iters_timed(&o, cap, (bench_now() - tw) / warm);
                double t0 = bench_now();
                for (int i = 0; i < iters; i++)
                    do_op(op, &c);
                if (op == OP_GET1M_NB)
                    nb_drain(&c);   /* every get timed is complete */
                double t1 = bench_now();
                samples[r] = (t1 - t0) * 1e6 / iters;
                if (op == OP_FADD)
                    fadd_done += warm + iters;
            }
            bench_armci_sync();
        }
        if (o.rank == 0) {
            double bw[BENCH_MAX_REPS];
            for (int r = 0; r < o.reps; r++)
                bw[r] = samples[r] > 0 ? (double)size / samples[r] : 0.0;
            bench_report(&o, op_names[op], size, "us", samples, o.reps, iters, NULL);
            if (op == OP_GET1M || op == OP_GET1M_NB || op == OP_PUT1M || op == OP_PUTS)
                bench_report(&o, op_names[op], size, "MB/s", bw, o.reps, iters, NULL);
        }
    }

    if (bench_want(&o, "fadd")) {
        /* The counter must hold exactly the number of increments. */
        int *mine = c.counter[o.rank];
        MPI_Barrier(MPI_COMM_WORLD);
        if (o.rank == c.target) {
            ARMCI_Access_begin(mine);
            long got = *mine;
            ARMCI_Access_end(mine);
            MPI_Send(&got, 1, MPI_LONG, 0, 7, MPI_COMM_WORLD);
        }
        if (o.rank == 0) {
            long got = 0;
            MPI_Recv(&got, 1, MPI_LONG, c.target, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (bench_check(&o, "fadd", fadd_done, got))
                status = 3;
        }
    }

    bench_armci_sync();
    ARMCI_Destroy_mutexes();
    ARMCI_Free_local(c.local);
    bench_armci_free(c.counter);
    bench_armci_free(c.data);
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return bench_armci_finalize(status);
}
