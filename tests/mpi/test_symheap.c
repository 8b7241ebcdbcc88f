/* symheap (ARMADA_SYMMETRIC=1 only, decision 059): collective allocations
 * sit at one offset of every process's heap, even when the members ask for
 * different sizes; the whole of each member's request is reachable; a freed
 * range is taken again by the next allocation of its size and reads zeros.
 * Mode "overflow" (ARMADA_SYMMETRIC_HEAP=1m): rank 1 asks for more than the
 * heap holds, which must stop the job naming ARMCI_Malloc and 'bytes'. */
#include <armci.h>
#include "tst.h"

static int me, np;

static long size_of(int r) { return 1000L * (r + 1) + 7; }

/* Every rank writes its signature into the first and last bytes of every
 * rank's slice of a (that rank asked for size_of(rank) bytes). */
static void touch_all(void **a)
{
    for (int p = 0; p < np; p++) {
        char sig = (char)(me + 1);
        ARMCI_Put(&sig, (char *)a[p] + me, 1, p);
        ARMCI_Put(&sig, (char *)a[p] + size_of(p) - 1 - me, 1, p);
    }
    ARMCI_AllFence();
    MPI_Barrier(MPI_COMM_WORLD);
    const char *mine = a[me];
    for (int r = 0; r < np; r++) {
        CHECK(mine[r] == (char)(r + 1), "byte %d of rank %d's slice: %d", r, me, mine[r]);
        CHECK(mine[size_of(me) - 1 - r] == (char)(r + 1), "byte %ld of rank %d's slice",
              size_of(me) - 1 - r, me);
    }
}

/* Blocks smaller than a page share it: freeing one clears its own bytes
 * and leaves its neighbours' data alone; the next block there reads zeros. */
static void small_blocks(void)
{
    enum { N = 5, LEN = 200 };
    void **e[N];
    for (int k = 0; k < N; k++) {
        e[k] = malloc(sizeof(void *) * np);
        ARMCI_Malloc(e[k], LEN);
        memset(e[k][me], 0x40 + k, LEN);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    ARMCI_Free(e[1][me]);
    ARMCI_Free(e[3][me]);
    for (int k = 0; k < N; k += 2) {
        long bad = 0;
        for (int i = 0; i < LEN; i++)
            bad += ((unsigned char *)e[k][me])[i] != 0x40 + k;
        CHECK(bad == 0, "block %d: %ld bytes changed by freeing its neighbours", k, bad);
    }
    void **f = malloc(sizeof(void *) * np);
    ARMCI_Malloc(f, LEN);
    CHECK(f[me] == e[1][me], "the first freed small block is not taken again");
    long nonzero = 0;
    for (int i = 0; i < LEN; i++)
        nonzero += ((char *)f[me])[i] != 0;
    CHECK(nonzero == 0, "%ld bytes of a reused small block are not zero", nonzero);
    ARMCI_Free(f[me]);
    for (int k = 0; k < N; k += 2)
        ARMCI_Free(e[k][me]);
    for (int k = 0; k < N; k++)
        free(e[k]);
    free(f);
}

static void layout(void)
{
    void **a = malloc(sizeof(void *) * np), **b = malloc(sizeof(void *) * np);
    void **c = malloc(sizeof(void *) * np), **d = malloc(sizeof(void *) * np);
    CHECK_EQ(ARMCI_Malloc(a, size_of(me)), 0, "ARMCI_Malloc(a)");
    CHECK_EQ(ARMCI_Malloc(b, me == 0 ? 0 : 5000), 0, "ARMCI_Malloc(b)");
    CHECK_EQ(ARMCI_Malloc(c, 4096), 0, "ARMCI_Malloc(c)");
    /* One offset in every heap: b and c stand at the same distance from a
     * on every process, though the processes sit on different nodes. */
    for (int p = 0; p < np; p++) {
        CHECK((char *)b[p] - (char *)a[p] == (char *)b[0] - (char *)a[0],
              "b - a at rank %d: %td, at rank 0: %td", p, (char *)b[p] - (char *)a[p],
              (char *)b[0] - (char *)a[0]);
        CHECK((char *)c[p] - (char *)a[p] == (char *)c[0] - (char *)a[0],
              "c - a at rank %d", p);
        /* a's range holds the largest request, so b starts past all of it */
        CHECK((char *)b[p] - (char *)a[p] >= size_of(np - 1), "b overlaps a at rank %d", p);
    }
    touch_all(a);
    ARMCI_Free(a[me]);
    /* the same size again: the freed range, zeroed */
    CHECK_EQ(ARMCI_Malloc(d, size_of(me)), 0, "ARMCI_Malloc(d)");
    for (int p = 0; p < np; p++)
        CHECK(d[p] == a[p], "rank %d: the freed range is not taken again", p);
    const char *z = d[me];
    long nonzero = 0;
    for (long i = 0; i < size_of(me); i++)
        nonzero += z[i] != 0;
    CHECK(nonzero == 0, "%ld bytes of a reused range are not zero", nonzero);
    MPI_Barrier(MPI_COMM_WORLD);
    touch_all(d);
    small_blocks();
    ARMCI_Free(me == 0 ? NULL : b[me]);
    ARMCI_Free(c[me]);
    ARMCI_Free(d[me]);
    TST_SAY("symheap: one offset on every process, whole requests reachable, ranges reused");
    free(a);
    free(b);
    free(c);
    free(d);
}

static void overflow(void)
{
    void **a = malloc(sizeof(void *) * np), **b = malloc(sizeof(void *) * np);
    CHECK_EQ(ARMCI_Malloc(a, 512 * 1024), 0, "ARMCI_Malloc of half the heap");
    ARMCI_Malloc(b, me == 1 ? 2L << 20 : 4096);   /* must stop the job */
    CHECK(0, "an allocation past the symmetric heap returned");
    free(a);
    free(b);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc > 1 && strcmp(argv[1], "overflow") == 0)
        overflow();
    else
        layout();
    ARMCI_Finalize();
    MPI_Finalize();
    return tst_finish("symheap");
}
