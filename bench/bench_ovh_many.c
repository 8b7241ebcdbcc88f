/* Suite "overheads", the groups whose cost could grow with the job: waiting
 * among many outstanding operations, a server among many clients, and
 * synchronisation after touching one target of many (bench_overheads.c). */
#define _POSIX_C_SOURCE 200809L
#include "bench_armci.h"
#include "bench_ovh.h"
#include "bench_ovh_armci.h"

#include <message.h>
#include <mpi.h>
#ifdef BENCH_ARMADA_STATS
#include <armada.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define OVH_SLOTS 4096   /* 8 B slots in OVH_BYTES / 2 */

/* k NbPuts of 8 B to t, each with its own handle, not waited on. */
static void issue(ovh_ctx_t *c, int t, int k)
{
    char *dst = c->data[t];
    for (int j = 0; j < k; j++) {
        ARMCI_INIT_HANDLE(&c->h[j]);
        ARMCI_NbPut(c->local + 8 * (j % OVH_SLOTS), dst + 8 * (j % OVH_SLOTS), 8, t, &c->h[j]);
    }
}

static void wait_level(const bench_opts_t *o, ovh_ctx_t *c, int k)
{
    int t = c->target;
    char *dst = (char *)c->data[t] + OVH_BYTES / 2, *loc = c->local + OVH_BYTES / 2;
    double ns[BENCH_MAX_REPS];
    armci_hdl_t one;
    issue(c, t, k);
    OVH_TIME(ns, o, o->iters, {
        ARMCI_INIT_HANDLE(&one);
        ARMCI_NbGet(dst, loc, 8, t, &one);
        ARMCI_Wait(&one);
    });
    for (int j = 0; j < k; j++)
        ARMCI_Wait(&c->h[j]);
    ovh_report_ns(o, "wait_one", (size_t)k, ns, o->reps, o->iters, NULL);
    int n = 20000 / (k + 1);
    n = n < 5 ? 5 : n > o->iters ? o->iters : n;
    for (int pass = 0; pass < 2; pass++) {   /* WaitAll, then AllFence */
        for (int r = 0; r < o->reps; r++) {
            double sum = 0.0;
            for (int i = 0; i < n; i++) {
                issue(c, t, k);
                double t0 = bench_now();
                if (pass == 0)
                    ARMCI_WaitAll();
                else
                    ARMCI_AllFence();
                sum += bench_now() - t0;
                if (pass == 0)
                    ARMCI_AllFence();
            }
            ns[r] = sum * 1e9 / n;
        }
        ovh_report_ns(o, pass ? "allfence_ops" : "waitall", (size_t)k, ns, o->reps, n, NULL);
    }
}

void ovh_wait_rows(const bench_opts_t *o, ovh_ctx_t *c)
{
    int lv[24];
    int nl = ovh_levels(lv, 24, 0, c->max_out);
    double ns[BENCH_MAX_REPS];
    if (o->rank == 0) {
        for (int l = 0; l < nl; l++)
            wait_level(o, c, lv[l]);
        /* AllFence after one 8 B put to each of targets 1..t */
        int tl[24];
        int nt = ovh_levels(tl, 24, 1, o->nproc - 1);
        for (int l = 0; l < nt; l++) {
            int t = tl[l];
            int n = o->iters / 4 > 3 ? o->iters / 4 : 3;
            for (int r = 0; r < o->reps; r++) {
                double sum = 0.0;
                for (int i = 0; i < n; i++) {
                    for (int p = 1; p <= t; p++)
                        ARMCI_Put(c->local, c->data[p], 8, p);
                    double t0 = bench_now();
                    ARMCI_AllFence();
                    sum += bench_now() - t0;
                }
                ns[r] = sum * 1e9 / n;
            }
            ovh_report_ns(o, "allfence_targets", (size_t)t, ns, o->reps, n, NULL);
        }
    }
    ovh_idle_barrier();   /* the targets sit out meanwhile */
}

/* Processor time of this process's server thread so far, ns (-1: not
 * known, as with ARMCI-MPI, which has no server). */
static long server_cpu_ns(void)
{
#ifdef BENCH_ARMADA_STATS
    armada_stats_t st;
    if (armada_stats_get(&st) == 0 && st.server_cpu_ns)
        return (long)st.server_cpu_ns;
#endif
    return -1;
}

/* One level: ranks 1..k keep 8 gets each outstanding at rank 0, the last
 * rank times its own 8 B gets from rank 0 meanwhile. The last rank's time
 * includes its turn behind up to 8k queued gets; *per_req (on the last
 * rank) is the window over every get served in it: what the server spends
 * on one request once it is saturated, waits for a core included. *cpu_req
 * is the processor time rank 0's server thread spent in the level over the
 * gets served (-1 where not known): its own work per request, without the
 * time it waited for a core. */
static double server_level(const bench_opts_t *o, ovh_ctx_t *c, int k, long *count,
                           double *per_req, double *cpu_req)
{
    const int me = o->rank, meas = o->nproc - 1;
    const double dur = c->server_ms * 1e-3;
    char *src = c->data[0];
    armci_hdl_t h[8];
    MPI_Barrier(MPI_COMM_WORLD);
    long cpu0 = me == 0 ? server_cpu_ns() : 0;
    double t0 = bench_now(), t_end = t0 + dur, ns = 0.0;
    long n = 0, served = 0;
    if (me >= 1 && me <= k && me != meas) {
        while (bench_now() < t_end) {
            for (int j = 0; j < 8; j++) {
                ARMCI_INIT_HANDLE(&h[j]);
                ARMCI_NbGet(src + 8 * j, c->local + 8 * j, 8, 0, &h[j]);
            }
            for (int j = 0; j < 8; j++)
                ARMCI_Wait(&h[j]);
            n += 8;
        }
    } else if (me == meas) {
        double t1 = bench_now();
        while ((t1 = bench_now()) < t_end) {
            ARMCI_Get(src + 512, c->local + 512, 8, 0);
            n++;
        }
        ns = n ? (t1 - t0) * 1e9 / (double)n : 0.0;
    }
    ovh_idle_barrier();   /* the idle ranks sit out meanwhile */
    long cpu = 0, cpu_all = 0;
    if (me == 0) {
        long cpu1 = server_cpu_ns();
        cpu = cpu0 < 0 || cpu1 < 0 ? -1 : cpu1 - cpu0;
    }
    MPI_Reduce(&n, &served, 1, MPI_LONG, MPI_SUM, meas, MPI_COMM_WORLD);
    MPI_Reduce(&cpu, &cpu_all, 1, MPI_LONG, MPI_SUM, meas, MPI_COMM_WORLD);
    *per_req = served ? dur * 1e9 / (double)served : 0.0;
    *cpu_req = served && cpu_all >= 0 ? (double)cpu_all / (double)served : -1.0;
    *count = me == meas ? n : 0;
    return ns;
}

void ovh_server_rows(const bench_opts_t *o, ovh_ctx_t *c)
{
    if (o->nproc < 3) {
        if (o->rank == 0)
            bench_skip(o, "server_get", "needs_3_processes");
        return;
    }
    int lv[16];
    int nl = ovh_levels(lv, 16, 0, o->nproc - 2);
    for (int l = 0; l < nl; l++) {
        double ns[BENCH_MAX_REPS], per[BENCH_MAX_REPS], cpu[BENCH_MAX_REPS];
        long n = 0;
        for (int r = 0; r < o->reps; r++)
            ns[r] = server_level(o, c, lv[l], &n, &per[r], &cpu[r]);
        if (o->rank == o->nproc - 1) {
            char extra[48];
            snprintf(extra, sizeof extra, "clients=%d", lv[l] + 1);
            ovh_report_ns(o, "server_get", (size_t)lv[l], ns, o->reps, (int)n, extra);
            ovh_report_ns(o, "server_per_req", (size_t)lv[l], per, o->reps, (int)n, extra);
            if (cpu[0] >= 0.0)
                ovh_report_ns(o, "server_cpu_req", (size_t)lv[l], cpu, o->reps, (int)n, extra);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

/* One level: rank 0 holds mutex 0, ranks 1..k ask for it and wait at rank
 * 0's server, and the last rank times 8 B fetch-and-adds at rank 0
 * meanwhile: serving one request while k others are held there, not
 * queued ahead of it (a search that grows would show here). */
static double held_level(const bench_opts_t *o, ovh_ctx_t *c, int k, long *count)
{
    const int me = o->rank, meas = o->nproc - 1;
    const double dur = c->server_ms * 1e-3;
    double ns = 0.0;
    long n = 0, old = 0;
    if (me == 0)
        ARMCI_Lock(0, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me >= 1 && me <= k && me != meas) {
        ARMCI_Lock(0, 0);        /* waits at rank 0's server until released */
        ARMCI_Unlock(0, 0);
    } else if (me == meas) {
        struct timespec nap = { 0, 50 * 1000 * 1000 };
        nanosleep(&nap, NULL);   /* the k lock requests reach the server */
        for (int i = 0; i < 100; i++)   /* warm-up */
            ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, c->counter[0], 1, 0);
        double t0 = bench_now(), t1 = t0, t_end = t0 + dur;
        while ((t1 = bench_now()) < t_end) {
            ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, c->counter[0], 1, 0);
            n++;
        }
        ns = n ? (t1 - t0) * 1e9 / (double)n : 0.0;
        MPI_Send(&n, 1, MPI_LONG, 0, 77, MPI_COMM_WORLD);
    }
    if (me == 0) {
        long got;
        MPI_Request rq;
        MPI_Irecv(&got, 1, MPI_LONG, meas, 77, MPI_COMM_WORLD, &rq);
        ovh_idle_wait(&rq);
        ARMCI_Unlock(0, 0);
    }
    ovh_idle_barrier();
    *count = n;
    return ns;
}

void ovh_held_rows(const bench_opts_t *o, ovh_ctx_t *c)
{
    if (o->nproc < 3) {
        if (o->rank == 0)
            bench_skip(o, "server_held", "needs_3_processes");
        return;
    }
    if (ARMCI_Create_mutexes(1) != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    int lv[16];
    int nl = ovh_levels(lv, 16, 0, o->nproc - 2);
    for (int l = 0; l < nl; l++) {
        double ns[BENCH_MAX_REPS];
        long n = 0;
        for (int r = 0; r < o->reps; r++)
            ns[r] = held_level(o, c, lv[l], &n);
        if (o->rank == o->nproc - 1) {
            char extra[48];
            snprintf(extra, sizeof extra, "held=%d", lv[l]);
            ovh_report_ns(o, "server_held", (size_t)lv[l], ns, o->reps, (int)n, extra);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    ARMCI_Destroy_mutexes();
}

enum { SP_FENCE, SP_ALLFENCE, SP_BARRIER, SP_DGOP, SP_COUNT };
static const char *const sp_names[SP_COUNT] = {
    "sparse_fence", "sparse_allfence", "sparse_barrier", "sparse_dgop"
};

/* Every process writes 8 B to its right neighbour, then times the call. */
void ovh_sparse_rows(const bench_opts_t *o, ovh_ctx_t *c)
{
    const int me = o->rank, nb = (me + 1) % o->nproc;
    const int n = o->iters / 10 > 3 ? o->iters / 10 : 3;
    char *dst = (char *)c->data[nb] + 8 * (me % OVH_SLOTS);
    for (int k = 0; k < SP_COUNT; k++) {
        double ns[BENCH_MAX_REPS];
        for (int r = 0; r < o->reps; r++) {
            double sum = 0.0, x = 1.0;
            ARMCI_Barrier();
            for (int i = 0; i < n; i++) {
                ARMCI_Put(c->local, dst, 8, nb);
                double t0 = bench_now();
                switch (k) {
                case SP_FENCE: ARMCI_Fence(nb); break;
                case SP_ALLFENCE: ARMCI_AllFence(); break;
                case SP_BARRIER: ARMCI_Barrier(); break;
                default: armci_msg_dgop(&x, 1, "+"); break;
                }
                sum += bench_now() - t0;
            }
            ns[r] = sum * 1e9 / n;
        }
        ARMCI_Barrier();
        if (me == 0) {
            char extra[48];
            snprintf(extra, sizeof extra, "touched=1 nodes=%d", o->nproc);
            ovh_report_ns(o, sp_names[k], (size_t)o->nproc, ns, o->reps, n, extra);
        }
    }
}
