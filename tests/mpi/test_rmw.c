/* rmw: ARMCI_Rmw FETCH_AND_ADD(_LONG) and SWAP(_LONG), alone and under
 * contention: fetched values are a permutation, final values exact. */
#include <armci.h>
#include "tst.h"

#define K 40

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

/* Gathers n longs from every rank to rank 0 and sorts them there. */
static long *gather_sorted(long *mine, int n, int me, int np)
{
    long *all = me == 0 ? malloc(sizeof(long) * n * np) : NULL;
    MPI_Gather(mine, n, MPI_LONG, all, n, MPI_LONG, 0, MPI_COMM_WORLD);
    if (all)
        qsort(all, (size_t)n * np, sizeof(long), cmp_long);
    return all;
}

int main(int argc, char **argv)
{
    int me, np;
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);

    /* layout: int ctr, int swp, long lctr, long lswp, int priv[np] */
    struct cells { int ctr; int swp; long lctr; long lswp; int priv[]; };
    size_t cells_len = sizeof(struct cells) + (size_t)np * sizeof(int);
    void **base = malloc(sizeof(void *) * np);
    CHECK_EQ(ARMCI_Malloc(base, (int)cells_len), 0, "ARMCI_Malloc");
    struct cells *mine = base[me];
    ARMCI_Access_begin(mine);
    memset(mine, 0, cells_len);
    mine->swp = -1;
    mine->lswp = -1;
    mine->lctr = 3L << 40;
    ARMCI_Access_end(mine);
    ARMCI_Barrier();

    /* Uncontended on every rank: own slot priv[me] of each target. */
    for (int t = 0; t < np; t++) {
        struct cells *c = base[t];
        int old = -5;
        CHECK_EQ(ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &old, &c->priv[me], 7, t), 0, "Rmw return");
        CHECK_EQ(old, 0, "first fetch-and-add returns 0");
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &old, &c->priv[me], -3, t);
        CHECK_EQ(old, 7, "second fetch-and-add returns 7");
        old = 0;
        ARMCI_Rmw(ARMCI_SWAP, &old, &c->priv[me], 0, t);
        /* ARMCI_SWAP: *ploc holds the value to store and receives the old one */
        CHECK_EQ(old, 4, "swap returns 4");
        CHECK_EQ(ARMCI_GetValueInt(&c->priv[me], t), 0, "after swap of 0");
    }
    TST_SAY("rmw: fetch-and-add with positive and negative increments, swap, on every rank");

    /* Contended fetch-and-add on rank 0's int counter. */
    int t0 = 0, tl = np - 1;
    struct cells *c0 = base[t0], *cl = base[tl];
    long got[K], lgot[K], sgot[K], lsgot[K];
    for (int k = 0; k < K; k++) {
        int old;
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &old, &c0->ctr, 1, t0);
        got[k] = old;
        long lold;
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &lold, &cl->lctr, 1, tl);
        lgot[k] = lold - (3L << 40);
        CHECK(k == 0 || got[k] > got[k - 1], "fetched values of one rank increase");
    }
    /* Contended swaps: each value written exactly once. */
    for (int k = 0; k < K; k++) {
        int v = me * K + k;
        ARMCI_Rmw(ARMCI_SWAP, &v, &c0->swp, 0, t0);
        sgot[k] = v;
        long lv = ((long)(me * K + k) << 33) + 1;
        ARMCI_Rmw(ARMCI_SWAP_LONG, &lv, &cl->lswp, 0, tl);
        lsgot[k] = lv;
    }
    ARMCI_Barrier();
    long *a = gather_sorted(got, K, me, np), *b = gather_sorted(lgot, K, me, np);
    long *s = gather_sorted(sgot, K, me, np), *ls = gather_sorted(lsgot, K, me, np);
    if (me == 0) {
        int perm = 1, lperm = 1;
        for (long i = 0; i < (long)np * K; i++) {
            perm &= a[i] == i;
            lperm &= b[i] == i;
        }
        CHECK(perm, "FETCH_AND_ADD values are not a permutation of 0..%d", np * K - 1);
        CHECK(lperm, "FETCH_AND_ADD_LONG values are not a permutation of 0..%d", np * K - 1);
        CHECK_EQ(ARMCI_GetValueInt(&c0->ctr, t0), np * K, "final int counter");
        CHECK_EQ(ARMCI_GetValueLong(&cl->lctr, tl), (3L << 40) + np * K, "final long counter");
        /* swapped-out values plus the final value = initial -1 plus all written */
        int fin = ARMCI_GetValueInt(&c0->swp, t0);
        long lfin = ARMCI_GetValueLong(&cl->lswp, tl);
        int ok = 1, lok = 1, nfound = 0;
        /* s holds np*K values from {-1} U written \ {fin} */
        long expect_i = -1;
        long idx = 0;
        for (long w = -1; w < (long)np * K; w++) {
            if (w == fin) { nfound++; continue; }
            ok &= idx < (long)np * K && s[idx] == w;
            idx++;
        }
        (void)expect_i;
        CHECK(ok && nfound == 1, "SWAP: every value must come back exactly once (final %d)", fin);
        idx = 0;
        nfound = 0;
        for (long w = -1; w < (long)np * K; w++) {
            long val = w < 0 ? -1 : (w << 33) + 1;
            if (val == lfin) { nfound++; continue; }
            lok &= idx < (long)np * K && ls[idx] == val;
            idx++;
        }
        CHECK(lok && nfound == 1, "SWAP_LONG: every value must come back exactly once");
    }
    free(a); free(b); free(s); free(ls);
    TST_SAY("rmw: %d ranks x %d contended FETCH_AND_ADD(_LONG): permutation and exact final;"
            " SWAP(_LONG) conserve every value", np, K);

    ARMCI_Barrier();
    ARMCI_Free(base[me]);
    free(base);
    ARMCI_Finalize();
    MPI_Finalize();
    return tst_finish("rmw");
}
