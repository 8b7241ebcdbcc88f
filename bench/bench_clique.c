/* Suite "clique" (issue 22 item 5; the on-demand connection paper's STOMP
 * tables): a kernel in which every process talks to a few neighbours only.
 * Its neighbours are the processes with its local index on the next k/2 and
 * the previous k/2 nodes (-k K, default 4; fewer when the ring of nodes is
 * short; processes stand in for nodes when all share one node). Each of -i
 * iterations (default 10):
 *   1. every process writes its own block (-B bytes, default 1 KiB) locally;
 *      ARMCI_Barrier
 *   2. to each neighbour: ARMCI_Get of the neighbour's block (checked at
 *      once), ARMCI_Put of a block into the neighbour's inbox slot of this
 *      process, ARMCI_Acc (doubles) into the neighbour's shared sum;
 *      ARMCI_AllFence, ARMCI_Barrier
 *   3. every process checks the blocks its in-neighbours put.
 * At the end each checks the sums. CHECK lines op=get, op=put, op=acc
 * (exit status 3 when any word is wrong). Figures (us, max over processes
 * per iteration): first_iter (the first iteration, where connections are
 * made under lazy), iter (median of the others; stat=median), and Armada's
 * eps_c2s, eps_s2c, connect_us at the end (mean and max over processes;
 * the server's counts during the run, ARMADA_STATS=1 prints the final ones),
 * with neighbours=<mean neighbours per process>. */
#include "bench_armci.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_eps.h"

#define MAX_NB 64

struct clique {
    int nproc, me, k, iters;
    size_t elems;     /* doubles per block                          */
    int nunits;       /* nodes, or processes on a single node       */
    int *unit_of;     /* unit of each rank                          */
    int *local_of;    /* index of each rank within its unit         */
    int *unit_size;   /* processes per unit                         */
    int **units;      /* ranks of each unit, in order               */
    void **data;      /* own block | inbox[nproc] | sum, per process */
};

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (p == NULL)
        ARMCI_Error("bench clique: out of memory", 1);
    return p;
}

static void layout(struct clique *c)
{
    int nnodes = armci_domain_count(ARMCI_DOMAIN_SMP);
    c->nunits = nnodes > 1 ? nnodes : c->nproc;
    c->unit_of = xcalloc((size_t)c->nproc, sizeof(int));
    c->local_of = xcalloc((size_t)c->nproc, sizeof(int));
    c->unit_size = xcalloc((size_t)c->nunits, sizeof(int));
    c->units = xcalloc((size_t)c->nunits, sizeof(int *));
    for (int r = 0; r < c->nproc; r++) {
        int u = nnodes > 1 ? armci_domain_id(ARMCI_DOMAIN_SMP, r) : r;
        c->unit_of[r] = u;
        c->local_of[r] = c->unit_size[u]++;
    }
    for (int u = 0; u < c->nunits; u++)
        c->units[u] = xcalloc((size_t)c->unit_size[u], sizeof(int));
    for (int r = 0; r < c->nproc; r++)
        c->units[c->unit_of[r]][c->local_of[r]] = r;
}

/* The neighbours of rank r (distinct, never on r's own unit); returns how
 * many. */
static int neighbours(const struct clique *c, int r, int *out)
{
    int n = 0, u = c->unit_of[r];
    for (int d = 1; d <= c->k / 2 + c->k % 2; d++) {
        for (int sign = 1; sign >= -1; sign -= 2) {
            if (sign < 0 && d > c->k / 2)
                continue;
            int v = ((u + sign * d) % c->nunits + c->nunits) % c->nunits;
            if (v == u)
                continue;
            int peer = c->units[v][c->local_of[r] % c->unit_size[v]];
            int dup = 0;
            for (int i = 0; i < n; i++)
                dup |= out[i] == peer;
            if (!dup && n < MAX_NB)
                out[n++] = peer;
        }
    }
    return n;
}

static double *own_block(const struct clique *c, int r) { return c->data[r]; }
static double *inbox(const struct clique *c, int r, int from)
{
    return (double *)c->data[r] + c->elems * (size_t)(1 + from);
}
static double *sum_block(const struct clique *c, int r)
{
    return (double *)c->data[r] + c->elems * (size_t)(1 + c->nproc);
}

/* Exact small integers in doubles. */
static double own_word(int it, int r, size_t i) { return 1e6 * (r + 1) + 1e3 * it + (double)i; }
static double put_word(int it, int r, size_t i) { return -own_word(it, r, i); }
static double acc_word(int it, int r) { return (double)(r + 1 + it); }

struct bad { long get, put, acc; };

static void exchange(struct clique *c, int it, const int *nb, int nnb, double *buf,
                     struct bad *bad)
{
    size_t bytes = c->elems * sizeof(double);
    double scale = 1.0;
    for (int j = 0; j < nnb; j++) {
        int p = nb[j];
        ARMCI_Get(own_block(c, p), buf, (int)bytes, p);
        for (size_t i = 0; i < c->elems; i++)
            bad->get += buf[i] != own_word(it, p, i);
        for (size_t i = 0; i < c->elems; i++)
            buf[i] = put_word(it, c->me, i);
        ARMCI_Put(buf, inbox(c, p, c->me), (int)bytes, p);
        for (size_t i = 0; i < c->elems; i++)
            buf[i] = acc_word(it, c->me);
        ARMCI_Acc(ARMCI_ACC_DBL, &scale, buf, sum_block(c, p), (int)bytes, p);
    }
    ARMCI_AllFence();
}

/* Checks the blocks the in-neighbours (ranks that list this one) put. */
static void check_inbox(struct clique *c, int it, const int *in, int nin, struct bad *bad)
{
    ARMCI_Access_begin(c->data[c->me]);
    for (int j = 0; j < nin; j++) {
        const double *b = inbox(c, c->me, in[j]);
        for (size_t i = 0; i < c->elems; i++)
            bad->put += b[i] != put_word(it, in[j], i);
    }
    ARMCI_Access_end(c->data[c->me]);
}

static void check_sums(struct clique *c, const int *in, int nin, struct bad *bad)
{
    double expect = 0.0;
    for (int j = 0; j < nin; j++)
        for (int it = 0; it < c->iters; it++)
            expect += acc_word(it, in[j]);
    ARMCI_Access_begin(c->data[c->me]);
    const double *s = sum_block(c, c->me);
    for (size_t i = 0; i < c->elems; i++)
        bad->acc += s[i] != expect;
    ARMCI_Access_end(c->data[c->me]);
}

static void report_times(const bench_opts_t *o, const struct clique *c, double *t,
                         const char *extra)
{
    double *max = xcalloc((size_t)c->iters, sizeof *max);
    MPI_Reduce(t, max, c->iters, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (o->rank == 0) {
        char ex[160];
        snprintf(ex, sizeof ex, "stat=max %s", extra);
        bench_report(o, "first_iter", c->elems * sizeof(double), "us", max, 1, 1, ex);
        if (c->iters > 1) {
            snprintf(ex, sizeof ex, "stat=median %s", extra);
            bench_report(o, "iter", c->elems * sizeof(double), "us", max + 1, c->iters - 1,
                         1, ex);
        }
    }
    free(max);
}


static int checks(const bench_opts_t *o, const struct bad *bad)
{
    long mine[3] = { bad->get, bad->put, bad->acc }, all[3] = { 0, 0, 0 };
    MPI_Reduce(mine, all, 3, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    int status = 0;
    if (o->rank == 0) {
        status |= bench_check(o, "get", 0, all[0]);
        status |= bench_check(o, "put", 0, all[1]);
        status |= bench_check(o, "acc", 0, all[2]);
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return status;
}

/* The ranks that list this one among their neighbours. */
static int in_neighbours(const struct clique *c, int *in)
{
    int nin = 0, nb[MAX_NB];
    for (int r = 0; r < c->nproc; r++) {
        int n = neighbours(c, r, nb);
        for (int j = 0; j < n; j++)
            if (nb[j] == c->me && nin < c->nproc)
                in[nin++] = r;
    }
    return nin;
}

static void run(struct clique *c, const int *nb, int nnb, const int *in, int nin, double *t,
                struct bad *bad)
{
    double *buf = xcalloc(c->elems, sizeof(double));
    for (int it = 0; it < c->iters; it++) {
        double *mine = own_block(c, c->me);
        ARMCI_Access_begin(mine);
        for (size_t i = 0; i < c->elems; i++)
            mine[i] = own_word(it, c->me, i);
        ARMCI_Access_end(mine);
        ARMCI_Barrier();
        double t0 = bench_now();
        exchange(c, it, nb, nnb, buf, bad);
        ARMCI_Barrier();
        t[it] = (bench_now() - t0) * 1e6;
        check_inbox(c, it, in, nin, bad);
    }
    free(buf);
}

int main(int argc, char **argv)
{
    int k = bench_take_opt(&argc, argv, "-k", 4);
    int iters = bench_take_opt(&argc, argv, "-i", 10);
    int block = bench_take_opt(&argc, argv, "-B", 1024);
    bench_opts_t o;
    bench_armci_init(&o, "clique", &argc, &argv);
    struct clique c;
    memset(&c, 0, sizeof c);
    c.nproc = o.nproc;
    c.me = o.rank;
    c.k = k < 1 ? 1 : (k > MAX_NB ? MAX_NB : k);
    c.iters = iters < 1 ? 1 : iters;
    c.elems = block < 8 ? 1 : (size_t)block / sizeof(double);
    layout(&c);
    int nb[MAX_NB], *in = xcalloc((size_t)c.nproc, sizeof(int));
    int nnb = neighbours(&c, c.me, nb), nin = in_neighbours(&c, in);
    c.data = bench_armci_alloc(c.elems * sizeof(double) * (size_t)(2 + c.nproc));

    double *t = xcalloc((size_t)c.iters, sizeof *t);
    struct bad bad = { 0, 0, 0 };
    run(&c, nb, nnb, in, nin, t, &bad);
    check_sums(&c, in, nin, &bad);

    double nbsum = 0.0, mynb = nnb;
    MPI_Reduce(&mynb, &nbsum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    char extra[128];
    snprintf(extra, sizeof extra, "k=%d neighbours=%.2f units=%d iterations=%d", c.k,
             nbsum / o.nproc, c.nunits, c.iters);
    MPI_Bcast(extra, (int)sizeof extra, MPI_CHAR, 0, MPI_COMM_WORLD);
    bench_info(&o, "%s unit=%s", extra,
               armci_domain_count(ARMCI_DOMAIN_SMP) > 1 ? "node" : "process");
    report_times(&o, &c, t, extra);
    bench_report_eps(&o, extra);
    int status = checks(&o, &bad);

    bench_armci_sync();
    bench_armci_free(c.data);
    for (int u = 0; u < c.nunits; u++)
        free(c.units[u]);
    free(c.units);
    free(c.unit_size);
    free(c.local_of);
    free(c.unit_of);
    free(in);
    free(t);
    return bench_armci_finalize(status);
}
