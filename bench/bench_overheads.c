/* Suite "overheads" (issue 25, decision 065): the non-data costs of the ARMCI
 * runtime, after the paper on MPI's non-data overheads. Rank 0 is the origin,
 * the last rank the target unless a row says otherwise. Groups (-o):
 *   stack     8 B put (+ ARMCI_Fence) and get against the transport floor
 *             (bench_ovh_floor.c): stack_put/get, _floor, _over (ns, cycles)
 *   nb        ARMCI_Put / Get against ARMCI_NbPut / NbGet + ARMCI_Wait (8 B)
 *   wait      NbGet + Wait of 8 B while k NbPuts are issued and not waited
 *             on (wait_one, size=k); ARMCI_WaitAll after k NbPuts (waitall);
 *             ARMCI_AllFence after k puts to one target (allfence_ops) and
 *             after one put to each of t targets (allfence_targets, size=t)
 *   server    8 B get by the last rank from rank 0 while k other ranks keep
 *             8 B gets outstanding at rank 0 (server_get, size=k), the
 *             window over all gets served in it (server_per_req), and
 *             (Armada) rank 0's server thread's processor time over them
 *             (server_cpu_req: its own work, without waits for a core)
 *   held      8 B fetch-and-add by the last rank at rank 0 while k other
 *             ranks wait at rank 0's server for a mutex it holds
 *             (server_held, size=k)
 *   noncontig 8 KiB put/get + fence contiguous (size=8192) and strided in
 *             rows of s bytes (puts/gets, size=s)
 *   align     1 KiB int and double accumulate + fence at byte offset 0..7
 *   checks    8 B put, double acc, 2x4 B strided put, fetch-and-add on the
 *             process's own memory: the argument checks are most of it
 *             (compare armada-nochk-bench-overheads, built without them)
 *   sparse    every process writes 8 B to one neighbour, then Fence,
 *             AllFence, Barrier, armci_msg_dgop (size=nproc)
 * (bench_ovh_many.c has wait, server, held and sparse.) Suite options: -K max
 * outstanding (default 1024), -S seconds per server level (default 0.2). */
#include "bench_armci.h"
#include "bench_ovh.h"
#include "bench_ovh_armci.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One paired repetition (ovh_stack_rows) of the 8 B put + fence and get. */
static void stack_rep(const bench_opts_t *one, void *arg, double *put_ns, double *get_ns)
{
    const ovh_ctx_t *c = arg;
    int t = c->target;
    char *dst = c->data[t], *loc = c->local;
    OVH_TIME(put_ns, one, one->iters, { ARMCI_Put(loc, dst, 8, t); ARMCI_Fence(t); });
    OVH_TIME(get_ns, one, one->iters, ARMCI_Get(dst, loc, 8, t));
}

static void stack_rows(const bench_opts_t *o, ovh_ctx_t *c)
{
    ovh_stack_rows(o, c->target, stack_rep, ovh_idle_barrier, c);
}

static void nb_rows(const bench_opts_t *o, ovh_ctx_t *c)
{
    int t = c->target;
    char *dst = c->data[t], *loc = c->local;
    double ns[BENCH_MAX_REPS];
    armci_hdl_t h;
    if (o->rank == 0) {
        OVH_TIME(ns, o, o->iters, ARMCI_Put(loc, dst, 8, t));
        ARMCI_Fence(t);
        ovh_report_ns(o, "nb_put_blocking", 8, ns, o->reps, o->iters, NULL);
        OVH_TIME(ns, o, o->iters, {
            ARMCI_INIT_HANDLE(&h);
            ARMCI_NbPut(loc, dst, 8, t, &h);
            ARMCI_Wait(&h);
        });
        ARMCI_Fence(t);
        ovh_report_ns(o, "nb_put_handle", 8, ns, o->reps, o->iters, NULL);
        OVH_TIME(ns, o, o->iters, ARMCI_Get(dst, loc, 8, t));
        ovh_report_ns(o, "nb_get_blocking", 8, ns, o->reps, o->iters, NULL);
        OVH_TIME(ns, o, o->iters, {
            ARMCI_INIT_HANDLE(&h);
            ARMCI_NbGet(dst, loc, 8, t, &h);
            ARMCI_Wait(&h);
        });
        ovh_report_ns(o, "nb_get_handle", 8, ns, o->reps, o->iters, NULL);
    }
    ovh_idle_barrier();   /* the others sit out meanwhile */
}

static void noncontig_rows(const bench_opts_t *o, ovh_ctx_t *c)
{
    const int total = 8192;
    int t = c->target;
    char *dst = c->data[t], *loc = c->local;
    double ns[BENCH_MAX_REPS];
    int n = o->iters / 4 > 3 ? o->iters / 4 : 3;
    if (o->rank == 0) {
        OVH_TIME(ns, o, n, { ARMCI_Put(loc, dst, total, t); ARMCI_Fence(t); });
        bench_report(o, "nc_put_contig", (size_t)total, "ns", ns, o->reps, n, NULL);
        OVH_TIME(ns, o, n, ARMCI_Get(dst, loc, total, t));
        bench_report(o, "nc_get_contig", (size_t)total, "ns", ns, o->reps, n, NULL);
        for (int row = 8; row <= 1024; row *= 8) {
            int stride[1] = { 2 * row }, count[2] = { row, total / row };
            char extra[32];
            snprintf(extra, sizeof extra, "total=%d", total);
            OVH_TIME(ns, o, n, {
                ARMCI_PutS(loc, stride, dst, stride, count, 1, t);
                ARMCI_Fence(t);
            });
            bench_report(o, "nc_puts", (size_t)row, "ns", ns, o->reps, n, extra);
            OVH_TIME(ns, o, n, ARMCI_GetS(dst, stride, loc, stride, count, 1, t));
            bench_report(o, "nc_gets", (size_t)row, "ns", ns, o->reps, n, extra);
        }
    }
    ovh_idle_barrier();   /* the others sit out meanwhile */
}

static void align_rows(const bench_opts_t *o, ovh_ctx_t *c)
{
    const int bytes = 1024;
    int t = c->target;
    double ns[BENCH_MAX_REPS];
    int n = o->iters / 4 > 3 ? o->iters / 4 : 3;
    if (o->rank == 0) {
        int ione = 1;
        double done = 1.0;
        memset(c->local, 0, 2 * (size_t)bytes);
        for (int off = 0; off < 8; off++) {
            char *dst = (char *)c->data[t] + off, *src = c->local + off;
            OVH_TIME(ns, o, n, {
                ARMCI_Acc(ARMCI_ACC_INT, &ione, src, dst, bytes, t);
                ARMCI_Fence(t);
            });
            bench_report(o, "acc_int_off", (size_t)off, "ns", ns, o->reps, n, "bytes=1024");
            OVH_TIME(ns, o, n, {
                ARMCI_Acc(ARMCI_ACC_DBL, &done, src, dst, bytes, t);
                ARMCI_Fence(t);
            });
            bench_report(o, "acc_dbl_off", (size_t)off, "ns", ns, o->reps, n, "bytes=1024");
        }
    }
    ovh_idle_barrier();   /* the others sit out meanwhile */
}

/* Operations on the process's own memory: the shortest path, so that the
 * checks at the API are a visible part of it. */
static void checks_rows(const bench_opts_t *o, ovh_ctx_t *c)
{
    int me = o->rank;
    char *dst = c->data[me], *loc = c->local;
    double ns[BENCH_MAX_REPS], one = 1.0;
    if (me == 0) {
        OVH_TIME(ns, o, o->iters, ARMCI_Put(loc, dst, 8, me));
        ovh_report_ns(o, "chk_put", 8, ns, o->reps, o->iters, NULL);
        OVH_TIME(ns, o, o->iters, ARMCI_Acc(ARMCI_ACC_DBL, &one, loc, dst, 8, me));
        ovh_report_ns(o, "chk_acc", 8, ns, o->reps, o->iters, NULL);
        int stride[1] = { 16 }, count[2] = { 4, 2 };
        OVH_TIME(ns, o, o->iters, ARMCI_PutS(loc, stride, dst, stride, count, 1, me));
        ovh_report_ns(o, "chk_puts", 8, ns, o->reps, o->iters, NULL);
        int old = 0;
        OVH_TIME(ns, o, o->iters,
                 ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &old, c->counter[me], 1, me));
        ovh_report_ns(o, "chk_fadd", 4, ns, o->reps, o->iters, NULL);
    }
    ovh_idle_barrier();   /* the others sit out meanwhile */
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (ARMCI_Init() != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    ovh_ctx_t c;
    memset(&c, 0, sizeof c);
    c.max_out = bench_take_opt(&argc, argv, "-K", 1024);
    c.server_ms = bench_take_opt(&argc, argv, "-S", 200);
    bench_opts_t o;
    bench_parse(&o, BENCH_IMPL, "overheads", argc, argv);
    if (o.nproc < 2) {
        bench_skip(&o, "all", "needs_2_processes");
        return bench_armci_finalize(0);
    }
    if (c.max_out < 1)
        c.max_out = 1;
    c.target = o.target >= 0 ? o.target : o.nproc - 1;
    c.data = bench_armci_alloc(OVH_BYTES);
    c.counter = bench_armci_alloc(sizeof(long));
    c.local = ARMCI_Malloc_local(OVH_BYTES);
    c.h = calloc((size_t)c.max_out, sizeof *c.h);
    if (!c.local || !c.h)
        MPI_Abort(MPI_COMM_WORLD, 1);
    memset(c.local, 0, OVH_BYTES);
    bench_info(&o, "origin=0 target=%d same_node=%d ghz=%.3f", c.target,
               ovh_same_node(0, c.target), ovh_ghz());
    if (bench_want(&o, "stack"))
        stack_rows(&o, &c);
    if (bench_want(&o, "nb"))
        nb_rows(&o, &c);
    if (bench_want(&o, "wait"))
        ovh_wait_rows(&o, &c);
    if (bench_want(&o, "server"))
        ovh_server_rows(&o, &c);
    if (bench_want(&o, "held"))
        ovh_held_rows(&o, &c);
    if (bench_want(&o, "noncontig"))
        noncontig_rows(&o, &c);
    if (bench_want(&o, "align"))
        align_rows(&o, &c);
    if (bench_want(&o, "checks"))
        checks_rows(&o, &c);
    if (bench_want(&o, "sparse"))
        ovh_sparse_rows(&o, &c);
    bench_armci_sync();
    ARMCI_Free_local(c.local);
    free(c.h);
    bench_armci_free(c.counter);
    bench_armci_free(c.data);
    return bench_armci_finalize(0);
}
