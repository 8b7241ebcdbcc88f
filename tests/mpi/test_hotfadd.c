/* hotfadd: every rank but 0 hammers one int and one long counter of rank 0
 * with fetch-and-adds of its own increment (1, 2 or 3), then accumulates
 * into a third int N times its rank-dependent value with a scale. Under a virtual
 * topology the forwarding servers combine the ones that meet (issue 20,
 * item 4); each origin must still get the value of some serial order: the
 * fetched values, sorted, with their increments, tile [0, final) with no
 * gap and no overlap, and each rank's own values increase.
 *   tmpi_hotfadd [N]   N fetch-and-adds per rank and counter (default 300) */
#include <armci.h>
#include "tst.h"

typedef struct { long v; long inc; } got_t;

static int cmp_got(const void *a, const void *b)
{
    long x = ((const got_t *)a)->v, y = ((const got_t *)b)->v;
    return x < y ? -1 : x > y;
}

/* Gathers every rank's n (value, increment) pairs at rank 0 and checks that
 * they tile [base, final). */
static void check_tiling(const char *what, got_t *mine, int n, long base, long final, int me,
                         int np)
{
    got_t *all = me == 0 ? malloc(sizeof *all * (size_t)n * (size_t)np) : NULL;
    MPI_Gather(mine, 2 * n, MPI_LONG, all, 2 * n, MPI_LONG, 0, MPI_COMM_WORLD);
    if (me != 0)
        return;
    qsort(all, (size_t)n * (size_t)np, sizeof *all, cmp_got);
    long at = base;
    int bad = 0, total = 0;
    for (long i = 0; i < (long)n * np; i++) {
        if (all[i].inc == 0)
            continue;          /* rank 0 adds nothing */
        total++;
        if (all[i].v != at && bad++ < 5)
            fprintf(stderr, "%s: value %ld fetched where %ld was due\n", what, all[i].v, at);
        at = all[i].v + all[i].inc;
    }
    CHECK(bad == 0, "%s: %d of %d fetched values out of place", what, bad, total);
    CHECK(at == final, "%s: the values end at %ld, the counter at %ld", what, at, final);
    free(all);
}

int main(int argc, char **argv)
{
    int me, np;
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int n = argc > 1 ? atoi(argv[1]) : 300;
    if (n < 1)
        n = 1;
    struct cells { int ctr; int acc; long lctr; };
    void **base = malloc(sizeof(void *) * (size_t)np);
    CHECK_EQ(ARMCI_Malloc(base, (int)sizeof(struct cells)), 0, "ARMCI_Malloc");
    struct cells *mine = base[me];
    ARMCI_Access_begin(mine);
    mine->ctr = 0;
    mine->acc = 0;
    mine->lctr = 5L << 33;
    ARMCI_Access_end(mine);
    ARMCI_Barrier();

    struct cells *c0 = base[0];
    long inc = me == 0 ? 0 : 1 + me % 3;
    got_t *gi = calloc((size_t)n, sizeof *gi), *gl = calloc((size_t)n, sizeof *gl);
    int mono = 1;
    for (int k = 0; k < n && me != 0; k++) {
        int old;
        long lold;
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &old, &c0->ctr, (int)inc, 0);
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &lold, &c0->lctr, inc, 0);
        gi[k].v = old;
        gi[k].inc = inc;
        gl[k].v = lold;
        gl[k].inc = inc;
        mono &= k == 0 || (gi[k].v > gi[k - 1].v && gl[k].v > gl[k - 1].v);
    }
    CHECK(mono, "rank %d: its own fetched values increase", me);
    /* Accumulates of one int (combined on the way when they travel as
     * single requests, ARMADA_AGGREGATE=0): the total must be exact. */
    int one = me, scale = 1 + me % 2;
    for (int k = 0; k < n && me != 0; k++)
        ARMCI_Acc(ARMCI_ACC_INT, &scale, &one, &c0->acc, (int)sizeof one, 0);
    ARMCI_AllFence();
    ARMCI_Barrier();
    long fi = 0, fl = 0;
    if (me == 0) {
        ARMCI_Access_begin(mine);
        fi = mine->ctr;
        fl = mine->lctr;
        long want = 0;
        for (int r = 1; r < np; r++)
            want += (long)n * r * (1 + r % 2);
        CHECK(mine->acc == want, "accumulated %d, want %ld", mine->acc, want);
        ARMCI_Access_end(mine);
    }
    check_tiling("int counter", gi, n, 0, fi, me, np);
    check_tiling("long counter", gl, n, 5L << 33, fl, me, np);
    if (me == 0)
        TST_SAY("hotfadd: %d ranks x %d fetch-and-adds on two counters of rank 0: every value "
                "handed out once", np - 1, n);
    free(gi);
    free(gl);
    ARMCI_Barrier();
    ARMCI_Free(base[me]);
    free(base);
    ARMCI_Finalize();
    MPI_Finalize();
    return tst_finish("hotfadd");
}
