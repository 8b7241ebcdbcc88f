/* Reference for suite "overheads" (decision 065): the nearest MPI
 * equivalent of each ARMCI row, with the same op names so that the report
 * puts them side by side.
 *   stack     MPI_Put + MPI_Win_flush, MPI_Get + flush (8 B) against the
 *             transport floor (bench_ovh_floor.c)
 *   nb        MPI_Put + flush_local against MPI_Rput + MPI_Wait, the same
 *             for gets (mpi-rma); MPI_Send/Recv against MPI_Isend/Irecv/
 *             Waitall, 8 B ping-pong round trips (mpi-p2p)
 *   wait      (ref_ovh_mpi_many.c) MPI_Waitany / MPI_Wait with k receives
 *             posted that never match; flush after k puts, flush_all after
 *             puts to t targets
 *   queue     matching receive with d non-matching receives posted
 *   noncontig 8 KiB contiguous against MPI_Type_vector rows of s bytes,
 *             MPI_Put/Get + flush and MPI_Send (one way, 0-byte ack)
 *   align     1 KiB MPI_Accumulate of int / double at byte offset 0..7
 *   checks    MPI_Put, MPI_Accumulate, vector MPI_Put, MPI_Fetch_and_op of
 *             8 B on the process's own window (run again with
 *             OMPI_MCA_mpi_param_check=0 for checks out)
 *   sparse    (ref_ovh_mpi_many.c) flush, flush_all, MPI_Barrier,
 *             MPI_Allreduce after one 8 B put to the right neighbour
 * Option -K: most receives outstanding (default 1024); -S (the ARMCI
 * suite's server time) is accepted and ignored. */
#include "bench_ovh.h"
#include "ref_ovh_mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One paired repetition (ovh_stack_rows) of the 8 B put + flush and get. */
static void stack_rep(const bench_opts_t *one, void *arg, double *put_ns, double *get_ns)
{
    const rovh_t *c = arg;
    int t = c->target;
    OVH_TIME(put_ns, one, one->iters, {
        MPI_Put(c->local, 8, MPI_BYTE, t, 0, 8, MPI_BYTE, c->win);
        MPI_Win_flush(t, c->win);
    });
    OVH_TIME(get_ns, one, one->iters, {
        MPI_Get(c->local, 8, MPI_BYTE, t, 0, 8, MPI_BYTE, c->win);
        MPI_Win_flush(t, c->win);
    });
}

static void world_barrier(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
}

static void stack_rows(rovh_t *c)
{
    ovh_stack_rows(&c->rma, c->target, stack_rep, world_barrier, c);
}

static void nb_rows(rovh_t *c)
{
    const bench_opts_t *o = &c->rma;
    int t = c->target;
    double ns[BENCH_MAX_REPS];
    MPI_Request r;
    if (o->rank == 0) {
        OVH_TIME(ns, o, o->iters, {
            MPI_Put(c->local, 8, MPI_BYTE, t, 0, 8, MPI_BYTE, c->win);
            MPI_Win_flush_local(t, c->win);
        });
        ovh_report_ns(o, "nb_put_blocking", 8, ns, o->reps, o->iters, NULL);
        OVH_TIME(ns, o, o->iters, {
            MPI_Rput(c->local, 8, MPI_BYTE, t, 0, 8, MPI_BYTE, c->win, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        });
        ovh_report_ns(o, "nb_put_handle", 8, ns, o->reps, o->iters, NULL);
        OVH_TIME(ns, o, o->iters, {
            MPI_Get(c->local, 8, MPI_BYTE, t, 0, 8, MPI_BYTE, c->win);
            MPI_Win_flush_local(t, c->win);
        });
        ovh_report_ns(o, "nb_get_blocking", 8, ns, o->reps, o->iters, NULL);
        OVH_TIME(ns, o, o->iters, {
            MPI_Rget(c->local, 8, MPI_BYTE, t, 0, 8, MPI_BYTE, c->win, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        });
        ovh_report_ns(o, "nb_get_handle", 8, ns, o->reps, o->iters, NULL);
        MPI_Win_flush_all(c->win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* two-sided: 8 B ping-pong between 0 and t */
    o = &c->p2p;
    int me = o->rank, peer = me == 0 ? t : 0, part = me == 0 || me == t;
    MPI_Request rr[2];
    if (part) {
        OVH_TIME(ns, o, o->iters, {
            if (me == 0) {
                MPI_Send(c->local, 8, MPI_BYTE, peer, 5, MPI_COMM_WORLD);
                MPI_Recv(c->local + 8, 8, MPI_BYTE, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(c->local + 8, 8, MPI_BYTE, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(c->local, 8, MPI_BYTE, peer, 5, MPI_COMM_WORLD);
            }
        });
        if (me == 0)
            ovh_report_ns(o, "nb_p2p_blocking", 8, ns, o->reps, o->iters, "rtt=1");
        OVH_TIME(ns, o, o->iters, {
            MPI_Irecv(c->local + 8, 8, MPI_BYTE, peer, 6, MPI_COMM_WORLD, &rr[0]);
            if (me == 0) {
                MPI_Isend(c->local, 8, MPI_BYTE, peer, 6, MPI_COMM_WORLD, &rr[1]);
                MPI_Waitall(2, rr, MPI_STATUSES_IGNORE);
            } else {
                MPI_Wait(&rr[0], MPI_STATUS_IGNORE);
                MPI_Isend(c->local, 8, MPI_BYTE, peer, 6, MPI_COMM_WORLD, &rr[1]);
                MPI_Wait(&rr[1], MPI_STATUS_IGNORE);
            }
        });
        if (me == 0)
            ovh_report_ns(o, "nb_p2p_handle", 8, ns, o->reps, o->iters, "rtt=1");
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void noncontig_rows(rovh_t *c)
{
    const int total = 8192;
    const bench_opts_t *o = &c->rma;
    int t = c->target, me = o->rank;
    int n = o->iters / 4 > 3 ? o->iters / 4 : 3;
    double ns[BENCH_MAX_REPS];
    if (me == 0) {
        OVH_TIME(ns, o, n, {
            MPI_Put(c->local, total, MPI_BYTE, t, 0, total, MPI_BYTE, c->win);
            MPI_Win_flush(t, c->win);
        });
        bench_report(o, "nc_put_contig", (size_t)total, "ns", ns, o->reps, n, NULL);
        OVH_TIME(ns, o, n, {
            MPI_Get(c->local, total, MPI_BYTE, t, 0, total, MPI_BYTE, c->win);
            MPI_Win_flush(t, c->win);
        });
        bench_report(o, "nc_get_contig", (size_t)total, "ns", ns, o->reps, n, NULL);
    }
    for (int row = 8; row <= 1024; row *= 8) {
        MPI_Datatype vec;
        MPI_Type_vector(total / row, row, 2 * row, MPI_BYTE, &vec);
        MPI_Type_commit(&vec);
        char extra[32];
        snprintf(extra, sizeof extra, "total=%d", total);
        if (me == 0) {
            OVH_TIME(ns, o, n, {
                MPI_Put(c->local, 1, vec, t, 0, 1, vec, c->win);
                MPI_Win_flush(t, c->win);
            });
            bench_report(o, "nc_puts", (size_t)row, "ns", ns, o->reps, n, extra);
            OVH_TIME(ns, o, n, {
                MPI_Get(c->local, 1, vec, t, 0, 1, vec, c->win);
                MPI_Win_flush(t, c->win);
            });
            bench_report(o, "nc_gets", (size_t)row, "ns", ns, o->reps, n, extra);
        }
        /* two-sided: one way, then a 0-byte acknowledgement */
        for (int v = row == 8 ? 0 : 1; v < 2 && (me == 0 || me == t); v++) {
            MPI_Datatype ty = v ? vec : MPI_BYTE;
            int cnt = v ? 1 : total;
            OVH_TIME(ns, o, n, {
                if (me == 0) {
                    MPI_Send(c->local, cnt, ty, t, 7, MPI_COMM_WORLD);
                    MPI_Recv(NULL, 0, MPI_BYTE, t, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(c->local, cnt, ty, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(NULL, 0, MPI_BYTE, 0, 8, MPI_COMM_WORLD);
                }
            });
            if (me == 0)
                bench_report(&c->p2p, v ? "nc_send_vector" : "nc_send_contig",
                             v ? (size_t)row : (size_t)total, "ns", ns, o->reps, n, extra);
        }
        MPI_Type_free(&vec);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void align_rows(rovh_t *c)
{
    const bench_opts_t *o = &c->rma;
    const int bytes = 1024;
    int t = c->target, n = o->iters / 4 > 3 ? o->iters / 4 : 3;
    double ns[BENCH_MAX_REPS];
    if (o->rank == 0) {
        memset(c->local, 0, 2 * (size_t)bytes);
        for (int off = 0; off < 8; off++) {
            OVH_TIME(ns, o, n, {
                MPI_Accumulate(c->local + off, bytes / 4, MPI_INT, t, off, bytes / 4, MPI_INT,
                               MPI_SUM, c->win);
                MPI_Win_flush(t, c->win);
            });
            bench_report(o, "acc_int_off", (size_t)off, "ns", ns, o->reps, n, "bytes=1024");
            OVH_TIME(ns, o, n, {
                MPI_Accumulate(c->local + off, bytes / 8, MPI_DOUBLE, t, off, bytes / 8,
                               MPI_DOUBLE, MPI_SUM, c->win);
                MPI_Win_flush(t, c->win);
            });
            bench_report(o, "acc_dbl_off", (size_t)off, "ns", ns, o->reps, n, "bytes=1024");
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void checks_rows(rovh_t *c)
{
    const bench_opts_t *o = &c->rma;
    int me = o->rank, one = 1, old = 0;
    double ns[BENCH_MAX_REPS];
    if (me == 0) {
        OVH_TIME(ns, o, o->iters, {
            MPI_Put(c->local, 8, MPI_BYTE, me, 0, 8, MPI_BYTE, c->win);
            MPI_Win_flush_local(me, c->win);
        });
        ovh_report_ns(o, "chk_put", 8, ns, o->reps, o->iters, NULL);
        OVH_TIME(ns, o, o->iters, {
            MPI_Accumulate(c->local, 1, MPI_DOUBLE, me, 0, 1, MPI_DOUBLE, MPI_SUM, c->win);
            MPI_Win_flush_local(me, c->win);
        });
        ovh_report_ns(o, "chk_acc", 8, ns, o->reps, o->iters, NULL);
        MPI_Datatype vec;
        MPI_Type_vector(2, 4, 16, MPI_BYTE, &vec);
        MPI_Type_commit(&vec);
        OVH_TIME(ns, o, o->iters, {
            MPI_Put(c->local, 1, vec, me, 0, 1, vec, c->win);
            MPI_Win_flush_local(me, c->win);
        });
        MPI_Type_free(&vec);
        ovh_report_ns(o, "chk_puts", 8, ns, o->reps, o->iters, NULL);
        OVH_TIME(ns, o, o->iters, {
            MPI_Fetch_and_op(&one, &old, MPI_INT, me, 64, MPI_SUM, c->win);
            MPI_Win_flush(me, c->win);
        });
        ovh_report_ns(o, "chk_fadd", 4, ns, o->reps, o->iters, NULL);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    rovh_t c;
    memset(&c, 0, sizeof c);
    c.max_out = bench_take_opt(&argc, argv, "-K", 1024);
    (void)bench_take_opt(&argc, argv, "-S", 0);   /* the ARMCI suite's; no server here */
    if (c.max_out < 1)
        c.max_out = 1;
    const char *pc = getenv("OMPI_MCA_mpi_param_check");
    int nochk = pc && strcmp(pc, "0") == 0;
    bench_parse(&c.rma, nochk ? "mpi-rma-nochk" : "mpi-rma", "overheads", argc, argv);
    c.p2p = c.rma;
    c.p2p.impl = nochk ? "mpi-p2p-nochk" : "mpi-p2p";
    if (c.rma.nproc < 2) {
        bench_skip(&c.rma, "all", "needs_2_processes");
        MPI_Finalize();
        return 0;
    }
    c.target = c.rma.target >= 0 ? c.rma.target : c.rma.nproc - 1;
    MPI_Win_allocate((MPI_Aint)ROVH_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &c.base, &c.win);
    memset(c.base, 0, ROVH_BYTES);
    MPI_Win_lock_all(0, c.win);
    c.local = calloc(1, ROVH_BYTES);
    c.req = calloc((size_t)c.max_out + 1, sizeof *c.req);
    if (!c.local || !c.req)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    const bench_opts_t *o = &c.rma;
    if (bench_want(o, "stack"))
        stack_rows(&c);
    if (bench_want(o, "nb"))
        nb_rows(&c);
    if (bench_want(o, "wait"))
        rovh_wait_rows(&c);
    if (bench_want(o, "server") || bench_want(o, "queue"))
        rovh_queue_rows(&c);
    if (bench_want(o, "noncontig"))
        noncontig_rows(&c);
    if (bench_want(o, "align"))
        align_rows(&c);
    if (bench_want(o, "checks"))
        checks_rows(&c);
    if (bench_want(o, "sparse"))
        rovh_sparse_rows(&c);
    MPI_Win_unlock_all(c.win);
    MPI_Win_free(&c.win);
    free(c.local);
    free(c.req);
    MPI_Finalize();
    return 0;
}
