/* The hot-spot experiments (hicoo 4.2), on the simulated job.
 *
 * hotspot: the ranks not on rank 0's node take turns measuring `iters`
 * operations to rank 0 (after two not counted), while hammers issue the
 * same operation to rank 0 back to back; a turn ends when the measuring
 * rank is done and every hammer's last operation has completed. Hammers:
 * the k ranks after the measuring one (bench/bench_hotspot.c's choice,
 * k = ceil(level % of the other non-zero ranks)), or one rank in every
 * 100/level (the paper's).
 *
 * hot100: every rank issues `ops` fetch-and-adds to rank 0 between two
 * barriers, `iters` times (Fig. 12); each rank's time per operation,
 * averaged over the iterations. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim_exp.h"

#define SIM_WARM 2

typedef struct exp_state {
    int measurer;
    int stop_hammers;
} exp_state_t;

static double barrier_cost(const sim_world_t *w)
{
    return w->m.barrier_us * ceil(log2((double)w->prm.nproc));
}

/* When a rank leaves a barrier that ended at t0: within one stage of it
 * (the seed chooses). */
static double leave(sim_world_t *w, double t0)
{
    return t0 + w->m.barrier_us * (double)(sim_rand(w) % 1024) / 1024.0;
}

static void on_done(sim_world_t *w, sim_client_t *c, double t)
{
    exp_state_t *x = w->exp;
    c->ops_done++;
    if (c->ops_done == c->skip)
        c->t_first = t;
    if (c->rank == x->measurer && c->ops_done >= c->ops_left) {
        c->t_last = t;
        c->active = 0;
        x->stop_hammers = 1;
        return;
    }
    if (c->ops_left >= 0 && c->ops_done >= c->ops_left) {
        c->t_last = t;
        c->active = 0;
        return;
    }
    if (c->ops_left < 0 && x->stop_hammers)
        c->active = 0;
    if (c->active)
        sim_client_start(w, c, c->op, c->target, t);
}

static void arm_client(sim_client_t *c, long ops, int skip)
{
    c->active = 1;
    c->ops_left = ops;
    c->ops_done = 0;
    c->skip = skip;
    c->t_first = c->t_last = 0.0;
}

static int is_hammer(const sim_world_t *w, int r, int m, int k, int spread_every)
{
    int n = w->prm.nproc;
    if (r == 0 || r == m)
        return 0;
    if (spread_every > 0)
        return r % spread_every == 0;
    if (k <= 0)
        return 0;
    int others = n - 1;
    int dist = (r - m + others) % others;
    return dist >= 1 && dist <= k;
}

/* Measuring ranks: every rank off rank 0's node, or `measure` of them, one
 * drawn (seeded) from each of `measure` equal stretches of the ranks, so
 * that a sample never lines up with the topology's strides. */
static int measuring_ranks(sim_world_t *w, int measure, int *out)
{
    int first = w->prm.ppn < w->prm.nproc ? w->prm.ppn : 1, all = w->prm.nproc - first, n = 0;
    if (all <= 0)
        return 0;
    int want = measure > 0 && measure < all ? measure : all;
    for (int i = 0; i < want; i++) {
        long long lo = (long long)i * all / want, hi = (long long)(i + 1) * all / want;
        long long pick = want == all ? lo : lo + (long long)(sim_rand(w) % (uint64_t)(hi - lo));
        out[n++] = first + (int)pick;
    }
    return n;
}

int sim_hotspot(sim_world_t *w, const sim_hot_opts_t *o, FILE *out)
{
    if (o->lazy_answers && !w->conn.on && sim_conn_init(w) != 0)
        return -1;
    int *ms = malloc((size_t)w->prm.nproc * sizeof *ms);
    if (!ms)
        return -1;
    int nm = measuring_ranks(w, o->measure, ms);
    int others = w->prm.nproc - 2;
    int k = (int)ceil(o->level / 100.0 * others - 1e-9);
    k = k > others ? others : k < 0 ? 0 : k;
    int every = o->spread && o->level > 0 ? (int)lround(100.0 / o->level) : 0;
    exp_state_t x = { 0, 0 };
    w->exp = &x;
    w->on_done = on_done;
    double sum = 0.0, max = 0.0;
    int nh = 0;
    for (int i = 0; i < nm; i++) {
        int m = ms[i];
        double t0 = w->now + barrier_cost(w);
        x.measurer = m;
        x.stop_hammers = 0;
        nh = 0;
        for (int r = 0; r < w->prm.nproc && (k > 0 || every > 0); r++) {
            if (!is_hammer(w, r, m, k, every))
                continue;
            sim_client_t *h = &w->cl[r];
            arm_client(h, -1, 0);
            sim_client_start(w, h, o->op, 0, leave(w, t0));
            nh++;
        }
        sim_set_idle(w, w->prm.nproc - 1 - nh);
        sim_client_t *c = &w->cl[m];
        arm_client(c, SIM_WARM + o->iters, SIM_WARM);
        sim_client_start(w, c, o->op, 0, leave(w, t0));
        sim_run(w, NULL);
        double us = (c->t_last - c->t_first) / o->iters;
        sum += us;
        max = us > max ? us : max;
        fprintf(out, "SIM exp=hotspot topo=%s procs=%d ppn=%d op=%s level=%g hammers=%d "
                "rank=%d us=%.4f\n", o->topo_name, w->prm.nproc, w->prm.ppn,
                o->op == SIM_OP_FADD ? "fadd" : "putv", o->level, nh, m, us);
    }
    const char *opn = o->op == SIM_OP_FADD ? "fadd" : "putv";
    fprintf(out, "SIM exp=hotspot topo=%s procs=%d ppn=%d op=%s level=%g hammers=%d rank=mean "
            "us=%.4f\n", o->topo_name, w->prm.nproc, w->prm.ppn, opn, o->level, nh,
            nm ? sum / nm : 0.0);
    fprintf(out, "SIM exp=hotspot topo=%s procs=%d ppn=%d op=%s level=%g hammers=%d rank=max "
            "us=%.4f\n", o->topo_name, w->prm.nproc, w->prm.ppn, opn, o->level, nh, max);
    free(ms);
    return nm > 0 ? 0 : -1;
}

int sim_hot100(sim_world_t *w, const sim_hot_opts_t *o, FILE *out)
{
    int n = w->prm.nproc;
    double *acc = calloc((size_t)n, sizeof *acc);
    if (!acc)
        return -1;
    exp_state_t x = { -1, 0 };
    w->exp = &x;
    w->on_done = on_done;
    sim_set_idle(w, 0);
    for (int it = 0; it < o->iters; it++) {
        double t0 = w->now + barrier_cost(w);
        for (int r = 0; r < n; r++) {
            sim_client_t *c = &w->cl[r];
            arm_client(c, o->ops, 0);
            c->t_first = leave(w, t0);
            sim_client_start(w, c, SIM_OP_FADD, 0, c->t_first);
        }
        sim_run(w, NULL);
        for (int r = 0; r < n; r++)
            acc[r] += (w->cl[r].t_last - w->cl[r].t_first) / o->ops;
    }
    double sum = 0.0, max = 0.0;
    int cnt = 0;
    for (int r = 0; r < n; r++) {
        if (w->node_of[r] == 0)
            continue;   /* rank 0's node: shared memory, not the servers */
        double us = acc[r] / o->iters;
        sum += us;
        max = us > max ? us : max;
        cnt++;
        if (o->per_rank)
            fprintf(out, "SIM exp=hot100 topo=%s procs=%d ppn=%d rank=%d us=%.4f\n",
                    o->topo_name, n, w->prm.ppn, r, us);
    }
    fprintf(out, "SIM exp=hot100 topo=%s procs=%d ppn=%d rank=mean us=%.4f\n", o->topo_name, n,
            w->prm.ppn, cnt ? sum / cnt : 0.0);
    fprintf(out, "SIM exp=hot100 topo=%s procs=%d ppn=%d rank=max us=%.4f\n", o->topo_name, n,
            w->prm.ppn, max);
    free(acc);
    return cnt > 0 ? 0 : -1;
}
