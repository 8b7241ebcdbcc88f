/* msg_barrier: after armci_msg_group_barrier (and armci_msg_barrier) the
 * writes each participant made before it are visible to every other
 * participant, whatever process they wrote to (decision 086).
 *
 * Global Arrays relies on it: GA_Pgroup_sync fences only the members of the
 * group and then calls armci_msg_group_barrier, so GA_Copy from an array on
 * a subgroup into one on the world group (GA's own pg2test) reads back, on
 * another member, blocks whose writes to processes outside the group had
 * not landed yet. Under the hypercube over TCP that happened every time.
 *
 * Group G is the upper half of the ranks. Each round every member writes a
 * block (above the aggregation limit: one request each) to every process
 * outside G, enters the group barrier, and then reads back, from every
 * process outside G, the block its neighbour in G wrote. The same with the
 * world barrier: every rank writes to its right neighbour and, after the
 * barrier, reads what its right neighbour wrote to the next. At least 3
 * ranks; meant for every rank its own node, under any topology. */
#include <armci.h>
#include <message.h>
#include <armada.h>
#include "tst.h"

#define BLOCK 4096L
#define ROUNDS 20
#define WORDS (BLOCK / (long)sizeof(long))

static int me, np;
static void **base;
static long *src, *chk;

static long value(int round, int writer, long i)
{
    return (long)round * 1000003L + (long)writer * 7919L + i;
}

static void write_block(int round, int target, int slot)
{
    for (long i = 0; i < WORDS; i++)
        src[i] = value(round, me, i);
    ARMCI_Put(src, (char *)base[target] + (long)slot * BLOCK, (int)BLOCK, target);
}

static long bad_words(int round, int writer, int target, int slot)
{
    ARMCI_Get((char *)base[target] + (long)slot * BLOCK, chk, (int)BLOCK, target);
    long bad = 0;
    for (long i = 0; i < WORDS; i++)
        bad += chk[i] != value(round, writer, i);
    return bad;
}

static void group_rounds(void)
{
    int lo = np / 2, n = np - lo;
    int *members = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        members[i] = lo + i;
    ARMCI_Group g;
    ARMCI_Group_create(n, members, &g);
    long bad = 0;
    if (me >= lo) {
        int mine = me - lo, prev = lo + (mine + n - 1) % n;
        for (int r = 0; r < ROUNDS; r++) {
            for (int t = 0; t < lo; t++)
                write_block(r, t, me);
            armci_msg_group_barrier(&g);
            for (int t = 0; t < lo; t++)
                bad += bad_words(r, prev, t, prev);
            armci_msg_group_barrier(&g);   /* reads done before the next writes */
        }
        CHECK(bad == 0, "group barrier: %ld words written by rank %d to ranks outside the "
              "group not there after it", bad, prev);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    ARMCI_Group_free(&g);
    free(members);
}

static void world_rounds(void)
{
    /* each rank writes to its right neighbour; after the barrier it reads,
     * two to its right, what its right neighbour wrote there */
    int right = (me + 1) % np, far = (me + 2) % np;
    long bad = 0;
    for (int r = 0; r < ROUNDS; r++) {
        write_block(r, right, np + me);
        armci_msg_barrier();
        bad += bad_words(r, right, far, np + right);
        armci_msg_barrier();
    }
    CHECK(bad == 0, "world barrier: %ld words written by rank %d to rank %d missing after it",
          bad, right, far);
}

int main(int argc, char **argv)
{
    TST_START(&argc, &argv, &me, &np);
    base = malloc(sizeof(void *) * (size_t)np);
    src = malloc(BLOCK);
    chk = malloc(BLOCK);
    CHECK_EQ(ARMCI_Malloc(base, 2 * (long)np * BLOCK), 0, "ARMCI_Malloc");
    CHECK(np >= 3, "needs at least 3 ranks (a group of 2 and a process outside it)");
    if (np >= 3) {
        group_rounds();
        TST_SAY("group barrier: writes outside the group visible after it, %d rounds", ROUNDS);
        world_rounds();
        TST_SAY("world barrier: writes visible to the other ranks after it, %d rounds", ROUNDS);
    }
    ARMCI_Free(base[me]);
    ARMCI_Finalize();
    MPI_Finalize();
    return tst_finish("msg_barrier");
}
