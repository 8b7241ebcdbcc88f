/* ref-overheads-mpi, the rows whose cost could grow with the job: waiting
 * among many requests, the posted-receive queue, and synchronisation after
 * touching one target of many (ref_overheads_mpi.c). */
#include "bench_ovh.h"
#include "ref_ovh_mpi.h"

#include <stdio.h>
#include <stdlib.h>

/* Posts k receives from peer that never match (tags base..base+k-1). */
static void post_unmatched(rovh_t *c, int peer, int k, int base)
{
    for (int j = 0; j < k; j++)
        MPI_Irecv(c->local + 8 * (j % 4096), 8, MPI_BYTE, peer, base + j, MPI_COMM_WORLD,
                  &c->req[j]);
}

static void cancel_unmatched(rovh_t *c, int k)
{
    for (int j = 0; j < k; j++) {
        MPI_Cancel(&c->req[j]);
        MPI_Wait(&c->req[j], MPI_STATUS_IGNORE);
    }
}

/* 8 B round trips 0 -> t -> 0 with k unmatched receives posted at 0;
 * how: 0 waits with MPI_Wait, 1 with MPI_Waitany over all k + 1. */
static void rtt_level(rovh_t *c, int k, int how, const char *op)
{
    const bench_opts_t *o = &c->p2p;
    int me = o->rank, t = c->target, idx = 0;
    double ns[BENCH_MAX_REPS];
    if (me == 0)
        post_unmatched(c, t, k, 2000);
    if (me == 0 || me == t) {
        OVH_TIME(ns, o, o->iters, {
            if (me == 0) {
                MPI_Irecv(c->local + 32768, 8, MPI_BYTE, t, 9, MPI_COMM_WORLD, &c->req[k]);
                MPI_Send(c->local, 8, MPI_BYTE, t, 10, MPI_COMM_WORLD);
                if (how)
                    MPI_Waitany(k + 1, c->req, &idx, MPI_STATUS_IGNORE);
                else
                    MPI_Wait(&c->req[k], MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(c->local, 8, MPI_BYTE, 0, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(c->local, 8, MPI_BYTE, 0, 9, MPI_COMM_WORLD);
            }
        });
    }
    if (me == 0) {
        cancel_unmatched(c, k);
        ovh_report_ns(o, op, (size_t)k, ns, o->reps, o->iters, "rtt=1");
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* k puts then the flush timed (allfence_ops), k MPI_Rput then MPI_Waitall
 * timed (waitall). */
static void rma_level(rovh_t *c, int k)
{
    const bench_opts_t *o = &c->rma;
    int t = c->target, n = 20000 / (k + 1);
    n = n < 5 ? 5 : n > o->iters ? o->iters : n;
    double ns[BENCH_MAX_REPS];
    for (int pass = 0; pass < 2; pass++) {
        for (int r = 0; r < o->reps; r++) {
            double sum = 0.0;
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < k; j++) {
                    MPI_Aint d = 8 * (j % 4096);
                    if (pass)
                        MPI_Put(c->local + d, 8, MPI_BYTE, t, d, 8, MPI_BYTE, c->win);
                    else
                        MPI_Rput(c->local + d, 8, MPI_BYTE, t, d, 8, MPI_BYTE, c->win,
                                 &c->req[j]);
                }
                double t0 = bench_now();
                if (pass)
                    MPI_Win_flush(t, c->win);
                else
                    MPI_Waitall(k, c->req, MPI_STATUSES_IGNORE);
                sum += bench_now() - t0;
                if (!pass)
                    MPI_Win_flush(t, c->win);
            }
            ns[r] = sum * 1e9 / n;
        }
        ovh_report_ns(o, pass ? "allfence_ops" : "waitall", (size_t)k, ns, o->reps, n, NULL);
    }
}

void rovh_wait_rows(rovh_t *c)
{
    int lv[24];
    int nl = ovh_levels(lv, 24, 0, c->max_out);
    for (int l = 0; l < nl; l++) {
        rtt_level(c, lv[l], 0, "wait_one");
        rtt_level(c, lv[l], 1, "waitany");
    }
    const bench_opts_t *o = &c->rma;
    double ns[BENCH_MAX_REPS];
    if (o->rank == 0) {
        for (int l = 0; l < nl; l++)
            rma_level(c, lv[l]);
        int tl[24];
        int nt = ovh_levels(tl, 24, 1, o->nproc - 1);
        int n = o->iters / 4 > 3 ? o->iters / 4 : 3;
        for (int l = 0; l < nt; l++) {
            for (int r = 0; r < o->reps; r++) {
                double sum = 0.0;
                for (int i = 0; i < n; i++) {
                    for (int p = 1; p <= tl[l]; p++)
                        MPI_Put(c->local, 8, MPI_BYTE, p, 0, 8, MPI_BYTE, c->win);
                    double t0 = bench_now();
                    MPI_Win_flush_all(c->win);
                    sum += bench_now() - t0;
                }
                ns[r] = sum * 1e9 / n;
            }
            ovh_report_ns(o, "allfence_targets", (size_t)tl[l], ns, o->reps, n, NULL);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* The posted-receive queue: an 8 B round trip whose receive at 0 is
 * matched behind d receives posted before it that do not match. */
void rovh_queue_rows(rovh_t *c)
{
    int lv[24];
    int nl = ovh_levels(lv, 24, 0, c->max_out);
    for (int l = 0; l < nl; l++)
        rtt_level(c, lv[l], 0, "queue_match");
}

enum { SP_FENCE, SP_ALLFENCE, SP_BARRIER, SP_DGOP, SP_COUNT };
static const char *const sp_names[SP_COUNT] = {
    "sparse_fence", "sparse_allfence", "sparse_barrier", "sparse_dgop"
};

void rovh_sparse_rows(rovh_t *c)
{
    const bench_opts_t *o = &c->rma;
    const int me = o->rank, nb = (me + 1) % o->nproc;
    const int n = o->iters / 10 > 3 ? o->iters / 10 : 3;
    for (int k = 0; k < SP_COUNT; k++) {
        double ns[BENCH_MAX_REPS];
        for (int r = 0; r < o->reps; r++) {
            double sum = 0.0, x = 1.0, y = 0.0;
            MPI_Barrier(MPI_COMM_WORLD);
            for (int i = 0; i < n; i++) {
                MPI_Put(c->local, 8, MPI_BYTE, nb, 8 * (me % 4096), 8, MPI_BYTE, c->win);
                double t0 = bench_now();
                switch (k) {
                case SP_FENCE: MPI_Win_flush(nb, c->win); break;
                case SP_ALLFENCE: MPI_Win_flush_all(c->win); break;
                case SP_BARRIER: MPI_Barrier(MPI_COMM_WORLD); break;
                default: MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); break;
                }
                sum += bench_now() - t0;
            }
            ns[r] = sum * 1e9 / n;
        }
        MPI_Win_flush_all(c->win);
        MPI_Barrier(MPI_COMM_WORLD);
        if (me == 0) {
            char extra[48];
            snprintf(extra, sizeof extra, "touched=1 nodes=%d", o->nproc);
            ovh_report_ns(o, sp_names[k], (size_t)o->nproc, ns, o->reps, n, extra);
        }
    }
}
