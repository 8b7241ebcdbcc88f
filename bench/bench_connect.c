/* Suite "connect" (issue 22 items 5 and 6; the on-demand connection paper's
 * Fig. 12): what making connections costs, reported apart from steady-state
 * latency.
 *   init        ARMCI_Init, timed on every process between MPI barriers:
 *               stat=max and stat=mean over processes (us)
 *   first_put   8-byte ARMCI_Put + ARMCI_Fence to a process on a node this
 *               process has not touched yet (the node's first rank)
 *   first_get   8-byte ARMCI_Get from such a process
 *               Origins (-O, default 4: the first ranks of nodes 0..O-1) take
 *               turns; each touches -F fresh nodes (default 4) once, put and
 *               get alternating, so no node is touched twice by one origin.
 *               value = mean over those touches, min and max beside it.
 *   steady_put  the same put + fence repeated to a node the origin touched
 *   steady_get  the same get repeated: per origin the median over -r
 *               repetitions of -n operations; value = median over origins
 *   eps_c2s, eps_s2c, connect_us   (Armada only, armada_stats_get) mean and
 *               max over processes, phase=init (after ARMCI_Init), phase=first
 *               (after every origin's first touches) and phase=end. The
 *               server-to-client count is the one armada_stats_get gives
 *               during the run; ARMADA_STATS=1 prints the final ones.
 * Between phases only MPI barriers run, so that nothing but the measured
 * operations touches another node. The puts land in the target's slot of
 * the origin and the gets read a word the target wrote: both are checked
 * (CHECK op=data, exit status 3 when wrong). When all processes share one
 * node (ARMCI-MPI, or Armada without virtual nodes) processes stand in for
 * nodes (INFO units=process). */
#include "bench_armci.h"

#include <float.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_eps.h"

enum { K_PUT, K_GET, K_COUNT };
static const char *const kind_names[K_COUNT] = { "put", "get" };

struct plan {
    int nunits;      /* nodes, or processes when there is one node   */
    int *unit_of;    /* unit of each rank                             */
    int *first_rank; /* lowest rank of each unit                      */
    int norigins;
    int fresh;       /* fresh units each origin touches               */
};

static void plan_init(struct plan *p, int nproc, int origins, int fresh)
{
    int nnodes = armci_domain_count(ARMCI_DOMAIN_SMP);
    p->unit_of = malloc((size_t)nproc * sizeof *p->unit_of);
    p->first_rank = malloc((size_t)nproc * sizeof *p->first_rank);
    if (p->unit_of == NULL || p->first_rank == NULL)
        ARMCI_Error("bench connect: out of memory", 1);
    p->nunits = nnodes > 1 ? nnodes : nproc;
    for (int u = 0; u < p->nunits; u++)
        p->first_rank[u] = -1;
    for (int r = 0; r < nproc; r++) {
        int u = nnodes > 1 ? armci_domain_id(ARMCI_DOMAIN_SMP, r) : r;
        p->unit_of[r] = u;
        if (p->first_rank[u] < 0)
            p->first_rank[u] = r;
    }
    p->norigins = origins <= 0 || origins > p->nunits ? p->nunits : origins;
    p->fresh = fresh < 1 ? 1 : fresh;
    if (p->fresh > p->nunits - 1)
        p->fresh = p->nunits - 1;
}

/* The k-th unit origin i touches first, and the kind of that touch: units
 * after its own in order, put and get alternating (starting with get for odd
 * origins, so that 2 units still give one first touch of each kind). */
static int touch_unit(const struct plan *p, int i, int k)
{
    return (i + 1 + k) % p->nunits;
}

static int touch_kind(int i, int k)
{
    return (i + k) % 2 ? K_GET : K_PUT;
}

/* Word values: what origin o puts (slot o of the put area) and what rank t
 * holds for gets (slot o of the get area, read by origin o). */
static long put_word(int o) { return 1000003L * (o + 1); }
static long get_word(int t, int o) { return 7919L * (t + 1) + o; }

static double touch(int kind, long *local, void **data, int nproc, int me, int t)
{
    long *remote = data[t];
    double t0 = bench_now();
    if (kind == K_PUT) {
        ARMCI_Put(local, remote + me, (int)sizeof(long), t);
        ARMCI_Fence(t);
    } else {
        ARMCI_Get(remote + nproc + me, local, (int)sizeof(long), t);
    }
    return (bench_now() - t0) * 1e6;
}

struct firsts {
    double sum[K_COUNT], min[K_COUNT], max[K_COUNT], n[K_COUNT];
    long bad;
};

/* Origin i (this process) touches its fresh units, one operation each. */
static void first_touches(const struct plan *p, int i, void **data, int nproc, int me,
                          struct firsts *f)
{
    for (int k = 0; k < p->fresh; k++) {
        int kind = touch_kind(i, k);
        int t = p->first_rank[touch_unit(p, i, k)];
        long word = kind == K_PUT ? put_word(me) : 0;
        double us = touch(kind, &word, data, nproc, me, t);
        f->sum[kind] += us;
        f->n[kind] += 1.0;
        if (us < f->min[kind]) f->min[kind] = us;
        if (us > f->max[kind]) f->max[kind] = us;
        if (kind == K_GET && word != get_word(t, me))
            f->bad++;
    }
}

/* Median over repetitions of one kind of operation repeated to unit target. */
static double steady(const bench_opts_t *o, int kind, void **data, int me, int t, long *bad)
{
    double samples[BENCH_MAX_REPS];
    long word = put_word(me);
    for (int i = 0; i < o->warmup; i++)
        touch(kind, &word, data, o->nproc, me, t);
    for (int r = 0; r < o->reps; r++) {
        double t0 = bench_now();
        for (int i = 0; i < o->iters; i++) {
            word = kind == K_PUT ? put_word(me) : 0;
            touch(kind, &word, data, o->nproc, me, t);
        }
        samples[r] = (bench_now() - t0) * 1e6 / o->iters;
    }
    if (kind == K_GET && word != get_word(t, me))
        (*bad)++;
    return bench_median(samples, o->reps);
}

static void result(const bench_opts_t *o, const char *op, size_t size, double value,
                   double min, double max, int reps, int iters, const char *extra)
{
    printf("RESULT impl=%s suite=%s op=%s size=%zu nproc=%d value=%.6g unit=us min=%.6g "
           "max=%.6g reps=%d iters=%d %s\n", o->impl, o->suite, op, size, o->nproc, value,
           min, max, reps, iters, extra);
    fflush(stdout);
}



static void report_firsts(const bench_opts_t *o, const struct plan *p, struct firsts *f)
{
    struct firsts all;
    MPI_Reduce(f->sum, all.sum, K_COUNT, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(f->n, all.n, K_COUNT, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(f->min, all.min, K_COUNT, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(f->max, all.max, K_COUNT, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (o->rank != 0)
        return;
    for (int k = 0; k < K_COUNT; k++) {
        char op[32], extra[96];
        snprintf(op, sizeof op, "first_%s", kind_names[k]);
        if (all.n[k] < 1.0) {
            bench_skip(o, op, "no_fresh_node");
            continue;
        }
        snprintf(extra, sizeof extra, "stat=mean origins=%d fresh=%d units=%d", p->norigins,
                 p->fresh, p->nunits);
        result(o, op, 8, all.sum[k] / all.n[k], all.min[k], all.max[k], (int)all.n[k], 1,
               extra);
    }
}

/* Per origin (slot i of v) the steady-state median of each kind; rank 0
 * prints the median over origins. */
static void report_steady(const bench_opts_t *o, const struct plan *p, double *v)
{
    int n = p->norigins;
    double *all = calloc((size_t)(K_COUNT * n), sizeof *all);
    if (all == NULL)
        ARMCI_Error("bench connect: out of memory", 1);
    MPI_Reduce(v, all, K_COUNT * n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    for (int k = 0; o->rank == 0 && k < K_COUNT; k++) {
        char op[32], extra[64];
        double *s = all + k * n;
        snprintf(op, sizeof op, "steady_%s", kind_names[k]);
        snprintf(extra, sizeof extra, "stat=median origins=%d units=%d", n, p->nunits);
        double med = bench_median(s, n);
        result(o, op, 8, med, s[0], s[n - 1], o->reps, o->iters, extra);
    }
    free(all);
}

/* The words every origin put here (by a first touch, or the steady puts to
 * its first unit) must be there, and nothing else. */
static long check_puts(const struct plan *p, const long *mine, int nproc, int me)
{
    long bad = 0;
    for (int r = 0; r < nproc; r++) {
        long expect = 0;
        for (int i = 0; i < p->norigins; i++)
            for (int k = 0; k < p->fresh && p->first_rank[i] == r; k++)
                if (p->first_rank[touch_unit(p, i, k)] == me &&
                    (touch_kind(i, k) == K_PUT || k == 0))
                    expect = put_word(r);
        if (mine[r] != expect)
            bad++;
    }
    return bad;
}

static void timed_init(bench_opts_t *o, int *argc, char ***argv, double *init_us)
{
    MPI_Init(argc, argv);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = bench_now();
    if (ARMCI_Init() != 0) {
        fprintf(stderr, "connect: ARMCI_Init failed\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    *init_us = (bench_now() - t0) * 1e6;
    bench_parse(o, BENCH_IMPL, "connect", *argc, *argv);
}

int main(int argc, char **argv)
{
    /* Our own options first: bench_parse stops at options it does not know. */
    int origins = bench_take_opt(&argc, argv, "-O", 4);
    int fresh = bench_take_opt(&argc, argv, "-F", 4);
    bench_opts_t o;
    double init_us = 0.0;
    timed_init(&o, &argc, &argv, &init_us);
    bench_report_spread(&o, "init", "us", init_us, "");
    bench_report_eps(&o, "phase=init");

    struct plan p;
    plan_init(&p, o.nproc, origins, fresh);
    bench_info(&o, "units=%s nunits=%d origins=%d fresh=%d",
               armci_domain_count(ARMCI_DOMAIN_SMP) > 1 ? "node" : "process", p.nunits,
               p.norigins, p.fresh);
    if (p.nunits < 2) {
        bench_skip(&o, "first", "needs_2_processes");
        return bench_armci_finalize(0);
    }
    /* nproc words the origins put into, nproc words they read. */
    void **data = bench_armci_alloc(2 * (size_t)o.nproc * sizeof(long));
    long *mine = data[o.rank];
    ARMCI_Access_begin(mine);
    for (int r = 0; r < o.nproc; r++)
        mine[o.nproc + r] = get_word(o.rank, r);
    ARMCI_Access_end(mine);
    MPI_Barrier(MPI_COMM_WORLD);

    struct firsts f;
    memset(&f, 0, sizeof f);
    for (int k = 0; k < K_COUNT; k++) {
        f.min[k] = DBL_MAX;
        f.max[k] = 0.0;
    }
    int my_origin = -1;
    for (int i = 0; i < p.norigins; i++) {
        if (p.first_rank[i] == o.rank)
            my_origin = i;
        MPI_Barrier(MPI_COMM_WORLD);   /* one origin at a time */
        if (p.first_rank[i] == o.rank)
            first_touches(&p, i, data, o.nproc, o.rank, &f);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    report_firsts(&o, &p, &f);
    bench_report_eps(&o, "phase=first");

    double *st = calloc((size_t)(K_COUNT * p.norigins), sizeof *st);
    if (st == NULL)
        ARMCI_Error("bench connect: out of memory", 1);
    for (int i = 0; i < p.norigins; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (i != my_origin)
            continue;
        /* Its first touch (put or get): a unit this origin has connected to. */
        int t = p.first_rank[touch_unit(&p, i, 0)];
        for (int k = 0; k < K_COUNT; k++)
            st[k * p.norigins + i] = steady(&o, k, data, o.rank, t, &f.bad);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    report_steady(&o, &p, st);
    bench_report_eps(&o, "phase=end");

    ARMCI_Access_begin(mine);
    long bad = f.bad + check_puts(&p, mine, o.nproc, o.rank);
    ARMCI_Access_end(mine);
    long bad_all = 0;
    MPI_Reduce(&bad, &bad_all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    int status = o.rank == 0 ? bench_check(&o, "data", 0, bad_all) : 0;
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(st);
    bench_armci_sync();
    bench_armci_free(data);
    free(p.unit_of);
    free(p.first_rank);
    return bench_armci_finalize(status);
}
