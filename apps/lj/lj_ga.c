/* armada-lj on Global Arrays: force decomposition of the N x N force matrix
 * into m x m blocks; the blocks of the upper triangle (i <= j) are dealt out
 * by NGA_Read_inc on a one-element counter. Every GA call is timed into
 * t_comm, the kernels and the integration arithmetic into t_compute. */
#include <ga.h>
#include <macdecls.h>
#include <stdlib.h>
#include <string.h>
#include "lj_ga.h"

/* Charges the seconds since t0 to t_comm and to one kind of GA call. */
static void lj_comm(lj_par *p, int kind, double t0)
{
    double dt = lj_now() - t0;
    p->t_comm += dt;
    p->t_kind[kind] += dt;
}

static long block_start(const lj_par *p, long natoms, long k)
{
    return (long)((long long)k * natoms / p->nblocks);
}

/* Rows [lo, hi) of a N x 3 array to or from buf (3 doubles a row). */
static void rows_get(lj_par *p, int g, long lo, long hi, double *buf)
{
    int glo[2] = { (int)lo, 0 }, ghi[2] = { (int)hi - 1, 2 }, ld[1] = { 3 };
    double t0 = lj_now();
    NGA_Get(g, glo, ghi, buf, ld);
    lj_comm(p, LJ_GET, t0);
}

static void rows_put(lj_par *p, int g, long lo, long hi, double *buf)
{
    int glo[2] = { (int)lo, 0 }, ghi[2] = { (int)hi - 1, 2 }, ld[1] = { 3 };
    double t0 = lj_now();
    NGA_Put(g, glo, ghi, buf, ld);
    lj_comm(p, LJ_PUT, t0);
}

static void rows_acc(lj_par *p, int g, long lo, long hi, double *buf)
{
    int glo[2] = { (int)lo, 0 }, ghi[2] = { (int)hi - 1, 2 }, ld[1] = { 3 };
    double one = 1.0, t0 = lj_now();
    NGA_Acc(g, glo, ghi, buf, ld, &one);
    lj_comm(p, LJ_ACC, t0);
}

static void timed_sync(lj_par *p)
{
    double t0 = lj_now();
    GA_Sync();
    lj_comm(p, LJ_SYNC, t0);
}

static int create_array(const char *name, long natoms)
{
    int dims[2] = { (int)natoms, 3 }, chunk[2] = { -1, 3 };
    return NGA_Create(C_DBL, 2, dims, (char *)name, chunk);
}

int lj_par_create(lj_par *p, const lj_opts *o, const lj_box *b)
{
    memset(p, 0, sizeof *p);
    p->me = GA_Nodeid();
    p->np = GA_Nnodes();
    p->nblocks = o->blocks;
    p->ntasks = o->blocks * (o->blocks + 1) / 2;
    p->cached_a = -1;
    p->g_x = create_array("lj_positions", o->natoms);
    p->g_v = create_array("lj_velocities", o->natoms);
    p->g_f = create_array("lj_forces", o->natoms);
    int one = 1, cchunk = -1;
    p->g_cnt = NGA_Create(C_LONG, 1, &one, "lj_counter", &cchunk);
    if (!p->g_x || !p->g_v || !p->g_f || !p->g_cnt) {
        fprintf(stderr, "armada-lj: rank %d: NGA_Create failed\n", p->me);
        return -1;
    }
    int lo[2], hi[2];
    NGA_Distribution(p->g_x, p->me, lo, hi);
    p->lo = lo[0] >= 0 ? lo[0] : 0;
    p->hi = lo[0] >= 0 && hi[0] >= lo[0] ? hi[0] + 1 : p->lo;
    long own = p->hi - p->lo, bmax = (o->natoms + o->blocks - 1) / o->blocks + 1;
    size_t own_sz = sizeof(double) * 3 * (size_t)(own > 0 ? own : 1);
    size_t blk_sz = sizeof(double) * 3 * (size_t)bmax;
    p->xl = malloc(own_sz);
    p->vl = malloc(own_sz);
    p->fl = malloc(own_sz);
    p->xs = malloc(own_sz);
    p->fs = malloc(own_sz);
    p->xa = malloc(blk_sz);
    p->xc = malloc(blk_sz);
    p->fa = malloc(blk_sz);
    p->fc = malloc(blk_sz);
    int ok = p->xl && p->vl && p->fl && p->xs && p->fs && p->xa && p->xc && p->fa && p->fc;
    if (!ok)
        fprintf(stderr, "armada-lj: rank %d: out of memory for %ld atoms\n", p->me, own);
    if (ok && own > 0) {
        lj_init_atoms(o, b, p->lo, p->hi, p->xl, p->vl);
        rows_put(p, p->g_x, p->lo, p->hi, p->xl);
        rows_put(p, p->g_v, p->lo, p->hi, p->vl);
    }
    GA_Sync(); /* reached by every process, so a failure here hangs no one */
    return ok ? 0 : -1;
}

void lj_par_destroy(lj_par *p)
{
    if (p->g_cnt)
        GA_Destroy(p->g_cnt);
    if (p->g_f)
        GA_Destroy(p->g_f);
    if (p->g_v)
        GA_Destroy(p->g_v);
    if (p->g_x)
        GA_Destroy(p->g_x);
    free(p->xl);
    free(p->vl);
    free(p->fl);
    free(p->xs);
    free(p->fs);
    free(p->xa);
    free(p->xc);
    free(p->fa);
    free(p->fc);
}

/* Computes block (i, j) and accumulates its forces into the force array.
 * The fault injection drops every force of task 1 (task 0 when alone). */
static void do_task(lj_par *p, const lj_opts *o, const lj_box *b, long t, long i, long j)
{
    long ai = block_start(p, o->natoms, i), bi = block_start(p, o->natoms, i + 1);
    long aj = block_start(p, o->natoms, j), bj = block_start(p, o->natoms, j + 1);
    long ni = bi - ai, nj = bj - aj;
    if (p->cached_a != i) {
        rows_get(p, p->g_x, ai, bi, p->xa);
        p->cached_a = i;
    }
    if (i != j)
        rows_get(p, p->g_x, aj, bj, p->xc);
    double t0 = lj_now();
    memset(p->fa, 0, sizeof(double) * 3 * (size_t)ni);
    if (i == j) {
        p->pe += lj_block_self(b, p->xa, ni, p->fa);
    } else {
        memset(p->fc, 0, sizeof(double) * 3 * (size_t)nj);
        p->pe += lj_block_pair(b, p->xa, ni, p->xc, nj, p->fa, p->fc);
    }
    p->t_compute += lj_now() - t0;
    if (o->inject_fault && t == (p->ntasks > 1 ? 1 : 0))
        return;
    rows_acc(p, p->g_f, ai, bi, p->fa);
    if (i != j)
        rows_acc(p, p->g_f, aj, bj, p->fc);
}

void lj_par_forces(lj_par *p, const lj_opts *o, const lj_box *b)
{
    double t0 = lj_now();
    GA_Zero(p->g_f);
    GA_Zero(p->g_cnt);
    GA_Sync();
    lj_comm(p, LJ_SYNC, t0);
    p->pe = 0;
    p->cached_a = -1;
    /* Row i of the upper triangle holds tasks (i, i) .. (i, m - 1). A
     * process's counter values only grow, so its row cursor only advances. */
    long row = 0, row_first = 0, m = p->nblocks;
    int sub[1] = { 0 };
    for (;;) {
        t0 = lj_now();
        long t = NGA_Read_inc(p->g_cnt, sub, 1);
        lj_comm(p, LJ_COUNTER, t0);
        p->reads++;
        if (t >= p->ntasks)
            break;
        while (t >= row_first + (m - row)) {
            row_first += m - row;
            row++;
        }
        do_task(p, o, b, t, row, row + (t - row_first));
    }
    timed_sync(p);
    if (p->hi > p->lo)
        rows_get(p, p->g_f, p->lo, p->hi, p->fl);
}

void lj_par_drift(lj_par *p, const lj_opts *o, const lj_box *b)
{
    long own = p->hi - p->lo;
    if (own > 0) {
        double t0 = lj_now();
        lj_kick_drift(b, o->dt, own, p->xl, p->vl, p->fl);
        p->t_compute += lj_now() - t0;
        rows_put(p, p->g_x, p->lo, p->hi, p->xl);
        rows_put(p, p->g_v, p->lo, p->hi, p->vl);
    }
    timed_sync(p);
}

double lj_par_close(lj_par *p, const lj_opts *o, int kick)
{
    long own = p->hi - p->lo;
    double e[2] = { p->pe, 0 };
    if (own > 0) {
        double t0 = lj_now();
        if (kick)
            lj_kick(o->dt, own, p->vl, p->fl);
        e[1] = lj_kinetic(own, p->vl);
        p->t_compute += lj_now() - t0;
    }
    double t0 = lj_now();
    GA_Dgop(e, 2, "+");
    lj_comm(p, LJ_SYNC, t0);
    return e[0] + e[1];
}

void lj_par_snapshot(lj_par *p)
{
    size_t n = sizeof(double) * 3 * (size_t)(p->hi - p->lo);
    memcpy(p->xs, p->xl, n);
    memcpy(p->fs, p->fl, n);
}

void lj_par_gather(lj_par *p, long natoms, double *x, double *f)
{
    if (p->hi > p->lo) { /* untimed: not part of the run */
        int lo[2] = { (int)p->lo, 0 }, hi[2] = { (int)p->hi - 1, 2 }, ld[1] = { 3 };
        NGA_Put(p->g_x, lo, hi, p->xs, ld);
        NGA_Put(p->g_f, lo, hi, p->fs, ld);
    }
    GA_Sync();
    if (p->me == 0) {
        int lo[2] = { 0, 0 }, hi[2] = { (int)natoms - 1, 2 }, ld[1] = { 3 };
        NGA_Get(p->g_x, lo, hi, x, ld);
        NGA_Get(p->g_f, lo, hi, f, ld);
    }
    GA_Sync();
}
