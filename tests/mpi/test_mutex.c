/* mutex: ARMCI_Create_mutexes / Lock / Unlock / Destroy_mutexes; mutual
 * exclusion shown by a non-atomic read-modify-write of shared counters. */
#include <armci.h>
#include "tst.h"

#define NMUTEX 3
#define ITERS 30

/* Which mutex and rank iteration i of rank r uses. */
static int pick_proc(int r, int i, int np) { return (r + i * 3 + i / 2) % np; }
static int pick_mutex(int r, int i) { return (i + r) % NMUTEX; }

int main(int argc, char **argv)
{
    int me, np;
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);

    CHECK_EQ(ARMCI_Create_mutexes(NMUTEX), 0, "ARMCI_Create_mutexes");
    void **base = malloc(sizeof(void *) * np);
    CHECK_EQ(ARMCI_Malloc(base, NMUTEX * sizeof(long)), 0, "ARMCI_Malloc");
    ARMCI_Access_begin(base[me]);
    memset(base[me], 0, NMUTEX * sizeof(long));
    ARMCI_Access_end(base[me]);
    ARMCI_Barrier();

    /* All ranks first hammer mutex 0 of rank 0, then spread out. */
    for (int i = 0; i < ITERS; i++) {
        int p = i < ITERS / 3 ? 0 : pick_proc(me, i, np);
        int m = i < ITERS / 3 ? 0 : pick_mutex(me, i);
        long *ctr = (long *)base[p] + m;
        long v = -1;
        ARMCI_Lock(m, p);
        ARMCI_Get(ctr, &v, sizeof v, p);
        v += 1;
        ARMCI_Put(&v, ctr, sizeof v, p);
        ARMCI_Fence(p);
        ARMCI_Unlock(m, p);
    }
    ARMCI_Barrier();

    long want[NMUTEX] = { 0 };
    for (int r = 0; r < np; r++)
        for (int i = 0; i < ITERS; i++) {
            int p = i < ITERS / 3 ? 0 : pick_proc(r, i, np);
            int m = i < ITERS / 3 ? 0 : pick_mutex(r, i);
            if (p == me)
                want[m]++;
        }
    ARMCI_Access_begin(base[me]);
    for (int m = 0; m < NMUTEX; m++)
        CHECK_EQ(((long *)base[me])[m], want[m], "counter under mutex (lost update?)");
    ARMCI_Access_end(base[me]);
    long total = 0, all = 0;
    for (int m = 0; m < NMUTEX; m++)
        total += ((long *)base[me])[m];
    MPI_Allreduce(&total, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK_EQ(all, (long)np * ITERS, "sum of all counters");
    TST_SAY("mutex: %d ranks x %d locked Get/+1/Put/Fence on %d mutexes of every rank: no lost update",
            np, ITERS, NMUTEX);

    /* A lock taken and released twice in a row by the same rank. */
    ARMCI_Lock(NMUTEX - 1, (me + 1) % np);
    ARMCI_Unlock(NMUTEX - 1, (me + 1) % np);
    ARMCI_Lock(NMUTEX - 1, (me + 1) % np);
    ARMCI_Unlock(NMUTEX - 1, (me + 1) % np);
    ARMCI_Barrier();

    ARMCI_Free(base[me]);
    CHECK_EQ(ARMCI_Destroy_mutexes(), 0, "ARMCI_Destroy_mutexes");
    /* mutexes can be created again after destruction */
    CHECK_EQ(ARMCI_Create_mutexes(1), 0, "ARMCI_Create_mutexes again");
    ARMCI_Lock(0, 0);
    ARMCI_Unlock(0, 0);
    ARMCI_Barrier();
    CHECK_EQ(ARMCI_Destroy_mutexes(), 0, "ARMCI_Destroy_mutexes again");
    TST_SAY("mutex: re-lock, destroy and re-create");
    free(base);
    ARMCI_Finalize();
    MPI_Finalize();
    return tst_finish("mutex");
}
