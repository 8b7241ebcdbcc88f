/* amo_alloc: allocations marked for transport atomics (decision 061).
 * Every rank, same-node ones and the owner included, hits counters on rank 0
 * and on the last rank with fetch-and-adds (int, long), swaps and integer
 * accumulates (contiguous, strided, vector, alone and mixed with
 * fetch-and-adds on the same int), and compare-and-swap increments
 * (armada_cas_long). Checked: the values fetched from a
 * counter are a permutation, those fetched while accumulates interleave are
 * distinct, the finals are exact, and a double accumulate to the marked
 * allocation (the lock path) stays exact too.
 *
 * argv[1] "amo": every read-modify-write and integer accumulate of this
 * rank went by the transport's atomics (armada_stats_t by path: none by
 * shared memory or the server, exactly as many as issued by RMA). "cpu":
 * the job runs with the marking off; the owner's operations on its own
 * counter must then show on the shared-memory path (the counters tell the
 * two apart). */
#include <armci.h>
#include <armada.h>
#include "tst.h"

#define K 40
#define KC 10 /* compare-and-swap increments per rank */
#define MAT 4 /* the strided target: MAT x MAT ints */

struct cells {
    long lctr;           /* fetch-and-add long: permutation               */
    int ictr;            /* fetch-and-add int: permutation                */
    int mixed;           /* fetch-and-add +1 and accumulate +2 interleaved */
    long swp;            /* swaps: returned values and final a permutation */
    long lacc[3];        /* accumulate of 3 longs                         */
    int mat[MAT * MAT];  /* strided accumulate of a 2 x 2 block           */
    long vec[2];         /* vector accumulate                             */
    double dacc;         /* double accumulate: the lock path              */
    long cas;            /* compare-and-swap increments: permutation      */
};

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

/* Gathers n longs per rank to rank 0, sorted there (NULL elsewhere). */
static long *gather_sorted(const long *mine, int n, int me, int np)
{
    long *all = me == 0 ? malloc(sizeof(long) * (size_t)n * (size_t)np) : NULL;
    MPI_Gather((void *)mine, n, MPI_LONG, all, n, MPI_LONG, 0, MPI_COMM_WORLD);
    if (all)
        qsort(all, (size_t)n * (size_t)np, sizeof(long), cmp_long);
    return all;
}

static void check_perm(const long *all, long n, long first, const char *what)
{
    long bad = 0;
    for (long i = 0; i < n; i++)
        bad += all[i] != first + i;
    CHECK(bad == 0, "%s: %ld of %ld fetched values out of place", what, bad, n);
}

typedef struct issued { long rmw, acc, accs, accv; } issued_t;

/* Phase 1: all at once, to target t's cells. */
static void hammer(struct cells *c, int t, int me, long *fl, long *fi, long *fm, long *fs,
                   long *fc, issued_t *n)
{
    int two = 2, one_i = 1;
    long one_l = 1;
    for (int k = 0; k < K; k++) {
        long lo = 0;
        int io = 0;
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &lo, &c->lctr, 1, t);
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &io, &c->ictr, 1, t);
        fl[k] = lo;
        fi[k] = io;
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &io, &c->mixed, 1, t);
        fm[k] = io;
        ARMCI_Acc(ARMCI_ACC_INT, &two, &one_i, &c->mixed, sizeof(int), t);
        long src[3] = { 1, me, -1 };
        ARMCI_Acc(ARMCI_ACC_LNG, &one_l, src, c->lacc, sizeof src, t);
        int blk[4] = { 1, 2, 3, 4 };
        int sstride[1] = { 2 * sizeof(int) }, dstride[1] = { MAT * sizeof(int) };
        int count[2] = { 2 * sizeof(int), 2 };
        ARMCI_AccS(ARMCI_ACC_INT, &one_i, blk, sstride, &c->mat[MAT + 1], dstride, count, 1,
                   t);
        long v0 = 3, v1 = -5;
        void *vs[2] = { &v0, &v1 }, *vd[2] = { &c->vec[0], &c->vec[1] };
        armci_giov_t iov = { vs, vd, (int)sizeof(long), 2 };
        ARMCI_AccV(ARMCI_ACC_LNG, &one_l, &iov, 1, t);
        n->rmw += 3;
        n->acc += 2;
        n->accs++;
        n->accv++;
    }
    long mine = me + 1;
    ARMCI_Rmw(ARMCI_SWAP_LONG, &mine, &c->swp, 0, t);
    *fs = mine;
    n->rmw++;
    for (int k = 0; k < KC; k++) {
        long seen = 0;
        for (;;) {
            long old = armada_cas_long(&c->cas, seen, seen + 1, t);
            n->rmw++;
            if (old == seen)
                break;
            seen = old;
        }
        fc[k] = seen;
    }
}

static void check_finals(struct cells *c, int t, int np, const long *fl, const long *fi,
                         const long *fm, long fs, const long *fc, int me)
{
    long *all = gather_sorted(fl, K, me, np);
    if (me == 0)
        check_perm(all, (long)np * K, 0, "fetch-and-add long");
    free(all);
    all = gather_sorted(fi, K, me, np);
    if (me == 0)
        check_perm(all, (long)np * K, 0, "fetch-and-add int");
    free(all);
    all = gather_sorted(fc, KC, me, np);
    if (me == 0)
        check_perm(all, (long)np * KC, 0, "compare-and-swap increments");
    free(all);
    all = gather_sorted(fm, K, me, np);
    if (me == 0) {
        long dup = 0;
        for (long i = 1; i < (long)np * K; i++)
            dup += all[i] == all[i - 1];
        CHECK(dup == 0, "fetch-and-add mixed with accumulates: %ld repeated values", dup);
    }
    free(all);
    all = gather_sorted(&fs, 1, me, np);
    if (me == 0) {
        long fin = ARMCI_GetValueLong(&c->swp, t);
        long *set = malloc(sizeof(long) * (size_t)(np + 1));
        memcpy(set, all, sizeof(long) * (size_t)np);
        set[np] = fin;
        qsort(set, (size_t)np + 1, sizeof(long), cmp_long);
        check_perm(set, np + 1, 0, "swap: fetched values and the final");
        free(set);
    }
    free(all);
    if (me != 0)
        return;
    long nk = (long)np * K, ranks = (long)np * (np - 1) / 2;
    CHECK_EQ(ARMCI_GetValueLong(&c->lctr, t), nk, "final long counter");
    CHECK_EQ(ARMCI_GetValueInt(&c->ictr, t), nk, "final int counter");
    CHECK_EQ(ARMCI_GetValueLong(&c->cas, t), (long)np * KC, "final compare-and-swap counter");
    CHECK_EQ(ARMCI_GetValueInt(&c->mixed, t), 3 * nk, "final mixed counter");
    CHECK_EQ(ARMCI_GetValueLong(&c->lacc[0], t), nk, "long accumulate [0]");
    CHECK_EQ(ARMCI_GetValueLong(&c->lacc[1], t), K * ranks, "long accumulate [1]");
    CHECK_EQ(ARMCI_GetValueLong(&c->lacc[2], t), -nk, "long accumulate [2]");
    int mat[MAT * MAT];
    ARMCI_Get(c->mat, mat, (int)sizeof mat, t);
    for (int i = 0; i < MAT * MAT; i++) {
        int r = i / MAT, q = i % MAT;
        long want = (r == 1 || r == 2) && (q == 1 || q == 2) ? nk * ((r - 1) * 2 + q) : 0;
        CHECK_EQ(mat[i], want, "strided accumulate");
    }
    CHECK_EQ(ARMCI_GetValueLong(&c->vec[0], t), 3 * nk, "vector accumulate [0]");
    CHECK_EQ(ARMCI_GetValueLong(&c->vec[1], t), -5 * nk, "vector accumulate [1]");
}

static void check_paths(int amo, int me, const issued_t *n)
{
    armada_stats_t st;
    armada_stats_get(&st);
    if (amo) {
        CHECK_EQ(st.ops[ARMADA_OP_RMW][ARMADA_PATH_SHM], 0, "rmw by CPU atomics");
        CHECK_EQ(st.ops[ARMADA_OP_RMW][ARMADA_PATH_SERVER], 0, "rmw by a server");
        CHECK_EQ(st.ops[ARMADA_OP_RMW][ARMADA_PATH_RMA], n->rmw, "rmw by transport atomics");
        CHECK_EQ(st.ops[ARMADA_OP_ACC][ARMADA_PATH_SHM] + st.ops[ARMADA_OP_ACC][ARMADA_PATH_SERVER],
                 0, "integer accumulates by the lock path");
        CHECK_EQ(st.ops[ARMADA_OP_ACC][ARMADA_PATH_RMA], n->acc, "accumulates by atomics");
        CHECK_EQ(st.ops[ARMADA_OP_ACCS][ARMADA_PATH_RMA], n->accs, "strided acc by atomics");
        CHECK_EQ(st.ops[ARMADA_OP_ACCV][ARMADA_PATH_RMA], n->accv, "vector acc by atomics");
    } else if (me == 0) {
        CHECK(st.ops[ARMADA_OP_RMW][ARMADA_PATH_SHM] > 0,
              "marking off: the owner's fetch-and-adds on its own counter use CPU atomics");
    }
}

int main(int argc, char **argv)
{
    int me, np;
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int amo = argc > 1 && strcmp(argv[1], "amo") == 0;

    void **base = malloc(sizeof(void *) * (size_t)np);
    CHECK_EQ(ARMCI_Malloc(base, (int)sizeof(struct cells)), 0, "ARMCI_Malloc");
    ARMCI_Access_begin(base[me]);
    memset(base[me], 0, sizeof(struct cells));
    ARMCI_Access_end(base[me]);
    ARMCI_Barrier();
    armada_stats_reset();

    int targets[2] = { 0, np - 1 };
    issued_t n = { 0, 0, 0, 0 };
    for (int i = 0; i < (np > 1 ? 2 : 1); i++) {
        int t = targets[i];
        long fl[K], fi[K], fm[K], fc[KC], fs = 0;
        hammer(base[t], t, me, fl, fi, fm, &fs, fc, &n);
        ARMCI_Barrier();
        check_finals(base[t], t, np, fl, fi, fm, fs, fc, me);
        TST_SAY("amo_alloc: fetch-and-adds, swaps, compare-and-swaps and integer accumulates from %d ranks "
                "to rank %d", np, t);
    }
    check_paths(amo, me, &n);
    TST_SAY("amo_alloc: operations by path as expected (%s)", amo ? "amo" : "cpu");

    /* Floating point has no transport atomic: the lock path, still exact. */
    double half = 0.5, scale = 1.0;
    struct cells *c0 = base[0];
    for (int k = 0; k < K; k++)
        ARMCI_Acc(ARMCI_ACC_DBL, &scale, &half, &c0->dacc, sizeof(double), 0);
    ARMCI_Barrier();
    if (me == 0) {
        double d;
        ARMCI_Get(&c0->dacc, &d, sizeof d, 0);
        CHECK(d == 0.5 * K * np, "double accumulate: got %g, expected %g", d, 0.5 * K * np);
    }
    TST_SAY("amo_alloc: double accumulates to the same allocation");

    ARMCI_Barrier();
    ARMCI_Free(base[me]);
    free(base);
    ARMCI_Finalize();
    MPI_Finalize();
    return tst_finish("amo_alloc");
}
