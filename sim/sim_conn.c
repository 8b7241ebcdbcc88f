/* Connections on demand (issue 22 item 5), counted from what a simulated
 * run sends: every client-to-server, server-to-client and server-to-server
 * pair that carried a message, recorded by the transport (sim_xport.c) and
 * the clients (sim_client.c), once each, in one open-addressing hash set of
 * the pairs, so memory follows the pairs used.
 *
 * The connect experiment: every process issues vector puts (each followed
 * by a fence) by a pattern, one at a time, and the run prints the
 * endpoints per process and per server that the pattern needs under
 *   eager  every client to every other node's server, every server to every
 *          client of other nodes (computed: made at start whatever is used);
 *   lazy   what the run used: a client connects to the first hop its
 *          requests go to and to the node they are for, whose server then
 *          answers it straight (decisions 050 and 070; a server answers a
 *          client that never connected to it back along its route, which
 *          under lazy happens only before the hello arrives, taken here to
 *          be never);
 *   edges  the same, with every answer kept on the topology's edges.
 * Server-to-server endpoints are made on use under every mode (the net
 * layer's eager start makes none), so all three report the recorded ones. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim_exp.h"

/* ---- the pairs ---------------------------------------------------------------------- */
static uint64_t conn_key(int kind, int a, int b)
{
    return (uint64_t)kind << 60 | (uint64_t)(uint32_t)a << 30 | (uint64_t)(uint32_t)b;
}

static size_t conn_slot(uint64_t key, size_t cap)
{
    uint64_t h = key * UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(h >> 17) & (cap - 1);
}

/* Inserts key; 1 when it was new. */
static int conn_insert(sim_conn_t *c, uint64_t key)
{
    if (2 * (c->n + 1) > c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 1024;
        uint64_t *keys = calloc(cap, sizeof *keys);
        if (!keys) {
            fprintf(stderr, "armada-sim: out of memory for %zu connections\n", c->n);
            exit(3);
        }
        for (size_t i = 0; i < c->cap; i++) {
            if (!c->keys[i])
                continue;
            size_t j = conn_slot(c->keys[i], cap);
            while (keys[j])
                j = (j + 1) & (cap - 1);
            keys[j] = c->keys[i];
        }
        free(c->keys);
        c->keys = keys;
        c->cap = cap;
    }
    size_t j = conn_slot(key, c->cap);
    while (c->keys[j]) {
        if (c->keys[j] == key)
            return 0;
        j = (j + 1) & (c->cap - 1);
    }
    c->keys[j] = key;
    c->n++;
    return 1;
}

void sim_conn_use(sim_world_t *w, int kind, int a, int b)
{
    sim_conn_t *c = &w->conn;
    if (!c->on)
        return;
    int from = kind == SIM_CONN_C2S ? w->node_of[a] : a;
    int to = kind == SIM_CONN_S2C ? w->node_of[b] : b;
    if (from == to || !conn_insert(c, conn_key(kind, a, b)))
        return;
    if (kind == SIM_CONN_C2S)
        c->c2s[a]++;
    else if (kind == SIM_CONN_S2C)
        c->s2c[a]++;
    else
        c->s2s[a]++;
    if (w->use_topo && arm_topo_neighbour_index(&w->topo, from, to) < 0)
        c->off_edge[kind]++;
}

int sim_conn_has(const sim_world_t *w, int kind, int a, int b)
{
    const sim_conn_t *c = &w->conn;
    if (!c->cap)
        return 0;
    uint64_t key = conn_key(kind, a, b);
    for (size_t j = conn_slot(key, c->cap); c->keys[j]; j = (j + 1) & (c->cap - 1))
        if (c->keys[j] == key)
            return 1;
    return 0;
}

int sim_conn_init(sim_world_t *w)
{
    sim_conn_t *c = &w->conn;
    memset(c, 0, sizeof *c);
    c->c2s = calloc((size_t)w->prm.nproc, sizeof *c->c2s);
    c->s2c = calloc((size_t)w->nnodes, sizeof *c->s2c);
    c->s2s = calloc((size_t)w->nnodes, sizeof *c->s2s);
    if (!c->c2s || !c->s2c || !c->s2s)
        return -1;
    c->on = 1;
    return 0;
}

void sim_conn_fini(sim_world_t *w)
{
    sim_conn_t *c = &w->conn;
    free(c->keys);
    free(c->c2s);
    free(c->s2c);
    free(c->s2s);
    memset(c, 0, sizeof *c);
}

/* ---- the experiment ------------------------------------------------------------------ */
static const char *const pattern_names[] = { "all", "clique", "hotspot", "random" };
static const char *const mode_names[] = { "lazy", "eager", "edges" };

const char *sim_conn_pattern_name(int p)
{
    return p >= 0 && p < 4 ? pattern_names[p] : "?";
}

const char *sim_conn_mode_name(int m)
{
    return m >= 0 && m < 3 ? mode_names[m] : "?";
}

typedef struct conn_exp {
    const sim_hot_opts_t *o;
    long issued;
} conn_exp_t;

/* Ranks of node k: first and count. */
static int node_first(const sim_world_t *w, int k, int *count)
{
    int first = k * w->prm.ppn, last = first + w->prm.ppn;
    *count = (last > w->prm.nproc ? w->prm.nproc : last) - first;
    return first;
}

/* Operations client c issues under the pattern. */
static long ops_of(const sim_world_t *w, const sim_hot_opts_t *o)
{
    switch (o->pattern) {
    case SIM_PAT_ALL: return w->nnodes - 1;
    case SIM_PAT_CLIQUE: return o->k < w->nnodes - 1 ? o->k : w->nnodes - 1;
    default: return o->ops;
    }
}

/* The rank that operation i of client c goes to. all: every other node
 * once, from the next node on; clique: the k nearest nodes on the ring of
 * nodes (+1, -1, +2, -2, ...); hotspot: rank 0; random: any rank (seeded). */
static int target_of(sim_world_t *w, const sim_hot_opts_t *o, const sim_client_t *c, long i)
{
    int node, cnt;
    switch (o->pattern) {
    case SIM_PAT_ALL:
        node = (int)((c->node + 1 + i) % w->nnodes);
        break;
    case SIM_PAT_CLIQUE: {
        long d = i / 2 + 1;
        node = (int)(((c->node + (i % 2 ? -d : d)) % w->nnodes + w->nnodes) % w->nnodes);
        break;
    }
    case SIM_PAT_HOTSPOT:
        return 0;
    default:
        return (int)(sim_rand(w) % (uint64_t)w->prm.nproc);
    }
    int first = node_first(w, node, &cnt);
    return first + (c->rank % w->prm.ppn) % cnt;
}

static void conn_done(sim_world_t *w, sim_client_t *c, double t)
{
    conn_exp_t *x = w->exp;
    c->ops_done++;
    if (c->ops_done >= c->ops_left) {
        c->t_last = t;
        c->active = 0;
        return;
    }
    x->issued++;
    sim_client_start(w, c, x->o->op, target_of(w, x->o, c, c->ops_done), t);
}

typedef struct conn_fig {
    double c2s_mean, s2c_mean, s2s_mean, s2c_per_proc;
    int c2s_max, s2c_max, s2s_max;
} conn_fig_t;

static void figures(const sim_world_t *w, int eager, conn_fig_t *f)
{
    const sim_conn_t *c = &w->conn;
    double sc = 0.0, ss = 0.0, s2 = 0.0;
    memset(f, 0, sizeof *f);
    for (int r = 0; r < w->prm.nproc; r++) {
        int v = eager ? w->nnodes - 1 : c->c2s[r];
        sc += v;
        f->c2s_max = v > f->c2s_max ? v : f->c2s_max;
    }
    for (int k = 0; k < w->nnodes; k++) {
        int own, v = eager ? w->prm.nproc - (node_first(w, k, &own), own) : c->s2c[k];
        s2 += v;
        f->s2c_max = v > f->s2c_max ? v : f->s2c_max;
        ss += c->s2s[k];
        f->s2s_max = c->s2s[k] > f->s2s_max ? c->s2s[k] : f->s2s_max;
    }
    f->c2s_mean = sc / w->prm.nproc;
    f->s2c_mean = s2 / w->nnodes;
    f->s2c_per_proc = s2 / w->prm.nproc;
    f->s2s_mean = ss / w->nnodes;
}

/* The connect invariants: no end holds more than eager would make; under
 * edges and a topology every client and server endpoint is an edge; every
 * operation was issued and completed. */
static int conn_check(const sim_world_t *w, const conn_exp_t *x, long want, FILE *out)
{
    const sim_conn_t *c = &w->conn;
    long over = 0, done = 0;
    for (int r = 0; r < w->prm.nproc; r++) {
        over += c->c2s[r] > w->nnodes - 1;
        done += w->cl[r].ops_done;
    }
    for (int k = 0; k < w->nnodes; k++) {
        int own;
        node_first(w, k, &own);
        over += c->s2c[k] > w->prm.nproc - own;
        over += c->s2s[k] > (w->use_topo ? arm_topo_degree(&w->topo, k) : 0);
    }
    uint64_t edge_bad = x->o->mode == SIM_MODE_EDGES
                            ? c->off_edge[SIM_CONN_C2S] + c->off_edge[SIM_CONN_S2S] +
                                  c->off_edge[SIM_CONN_S2C] : 0;
    int ok = over == 0 && edge_bad == 0 && done == want && x->issued == want;
    fprintf(out, "SIMCHECK exp=connect over_eager=%ld edge_bad=%llu ops_want=%ld ops_issued=%ld "
            "ops_done=%ld ok=%d\n", over, (unsigned long long)edge_bad, want, x->issued, done,
            ok);
    return ok;
}

int sim_connect(sim_world_t *w, const sim_hot_opts_t *o, FILE *out)
{
    if (sim_conn_init(w) != 0)
        return -1;
    conn_exp_t x = { o, 0 };
    w->exp = &x;
    w->on_done = conn_done;
    sim_set_idle(w, 0);
    long per = ops_of(w, o), want = 0;
    double t0 = w->now + w->m.barrier_us * ceil(log2((double)w->prm.nproc));
    for (int r = 0; r < w->prm.nproc && per > 0; r++) {
        sim_client_t *c = &w->cl[r];
        c->active = 1;
        c->ops_left = per;
        c->ops_done = 0;
        want += per;
        x.issued++;
        double t = t0 + w->m.barrier_us * (double)(sim_rand(w) % 1024) / 1024.0;
        sim_client_start(w, c, o->op, target_of(w, o, c, 0), t);
    }
    sim_run(w, NULL);
    conn_fig_t f;
    figures(w, o->mode == SIM_MODE_EAGER, &f);
    const sim_conn_t *c = &w->conn;
    fprintf(out, "SIM exp=connect topo=%s procs=%d ppn=%d nodes=%d pattern=%s k=%d ops=%ld "
            "op=%s mode=%s c2s_mean=%.4f c2s_max=%d s2c_mean=%.4f s2c_max=%d s2s_mean=%.4f "
            "s2s_max=%d s2c_per_proc=%.4f c2s_off_edge=%llu s2c_off_edge=%llu "
            "s2s_off_edge=%llu pairs=%zu\n", o->topo_name, w->prm.nproc, w->prm.ppn,
            w->nnodes, sim_conn_pattern_name(o->pattern), o->k, per,
            o->op == SIM_OP_FADD ? "fadd" : "putv", sim_conn_mode_name(o->mode), f.c2s_mean,
            f.c2s_max, f.s2c_mean, f.s2c_max, f.s2s_mean, f.s2s_max, f.s2c_per_proc,
            (unsigned long long)c->off_edge[SIM_CONN_C2S],
            (unsigned long long)c->off_edge[SIM_CONN_S2C],
            (unsigned long long)c->off_edge[SIM_CONN_S2S], c->n);
    return conn_check(w, &x, want, out) ? 0 : 1;
}
