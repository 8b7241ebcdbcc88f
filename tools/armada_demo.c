/* armada-demo: a short tour of Armada through the ARMCI interface. Every
 * rank allocates global memory, then the job does one-sided puts, gets,
 * strided transfers, accumulates, fetch-and-add and mutexes, checks every
 * result, and prints what it did, how long it took and which path each
 * operation took. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "armada.h"
#include "armci.h"

#define ITERS 2000

static int me, np;
static int failures;

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "armada-demo: rank %d: CHECK FAILED: %s\n", me, what);
        failures++;
    }
}

static double per_op_us(double t0, int n)
{
    return (MPI_Wtime() - t0) * 1e6 / n;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    me = armci_msg_me();
    np = armci_msg_nproc();
    int peer = (me + np / 2) % np;   /* on another node when there are two */
    const char *where = armada_node_of(peer) == armada_node_of(me) ? "same node" : "other node";

    /* 1. Global memory: 1 MiB per rank. */
    void **base = malloc((size_t)np * sizeof *base);
    ARMCI_Malloc(base, 1 << 20);
    long *mine = base[me];
    memset(mine, 0, 1 << 20);
    ARMCI_Barrier();

    /* 2. Put to the next rank, get it back. */
    long val = 1000 + me, got = 0;
    double t0 = MPI_Wtime();
    for (int i = 0; i < ITERS; i++)
        ARMCI_Put(&val, base[peer], sizeof val, peer);
    ARMCI_Fence(peer);
    double put_us = per_op_us(t0, ITERS);
    t0 = MPI_Wtime();
    for (int i = 0; i < ITERS; i++)
        ARMCI_Get(base[peer], &got, sizeof got, peer);
    double get_us = per_op_us(t0, ITERS);
    check(got == val, "get returns the value put");

    /* 3. A 64 x 512-byte strided patch. */
    static char patch[64 * 512];
    for (size_t i = 0; i < sizeof patch; i++)
        patch[i] = (char)(i * 7 + me);
    int stride = 1024, count[2] = { 512, 64 };
    t0 = MPI_Wtime();
    ARMCI_PutS(patch, &count[0], (char *)base[peer] + 8192, &stride, count, 1, peer);
    ARMCI_Fence(peer);
    double puts_us = per_op_us(t0, 1);
    static char back[64 * 512];
    ARMCI_GetS((char *)base[peer] + 8192, &stride, back, &count[0], count, 1, peer);
    check(memcmp(back, patch, sizeof patch) == 0, "strided get returns the strided put");
    ARMCI_Barrier();

    /* 4. Everyone accumulates into rank 0, atomically. */
    double one = 1.0, scale = 2.0;
    double *acc = (double *)((char *)base[0] + 65536);
    t0 = MPI_Wtime();
    for (int i = 0; i < ITERS; i++)
        ARMCI_Acc(ARMCI_ACC_DBL, &scale, &one, acc, sizeof one, 0);
    ARMCI_Fence(0);
    double acc_us = per_op_us(t0, ITERS);
    ARMCI_Barrier();
    if (me == 0)
        check(*(double *)((char *)mine + 65536) == 2.0 * ITERS * np, "accumulated sum is exact");

    /* 5. A shared counter: fetch-and-add hands out every value once. */
    long *counter = (long *)((char *)base[0] + 131072);
    long prev = -1, dummy;
    int ok = 1;
    t0 = MPI_Wtime();
    for (int i = 0; i < ITERS; i++) {
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &dummy, counter, 1, 0);
        ok &= dummy > prev;
        prev = dummy;
    }
    double fadd_us = per_op_us(t0, ITERS);
    check(ok, "fetch-and-add values increase");
    ARMCI_Barrier();
    if (me == 0)
        check(*(long *)((char *)mine + 131072) == (long)ITERS * np, "counter is exact");

    /* 6. Mutexes: a read-modify-write under a lock on rank 0. */
    ARMCI_Create_mutexes(1);
    long *shared = (long *)((char *)base[0] + 196608);
    t0 = MPI_Wtime();
    for (int i = 0; i < ITERS / 10; i++) {
        long v;
        ARMCI_Lock(0, 0);
        ARMCI_Get(shared, &v, sizeof v, 0);
        v++;
        ARMCI_Put(&v, shared, sizeof v, 0);
        ARMCI_Fence(0);
        ARMCI_Unlock(0, 0);
    }
    double lock_us = per_op_us(t0, ITERS / 10);
    ARMCI_Barrier();
    if (me == 0)
        check(*(long *)((char *)mine + 196608) == (long)(ITERS / 10) * np,
              "no update lost under the mutex");
    ARMCI_Destroy_mutexes();

    /* Slowest rank's figures, and the paths all ranks took. */
    double t[6] = { put_us, get_us, puts_us, acc_us, fadd_us, lock_us };
    MPI_Allreduce(MPI_IN_PLACE, t, 6, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    put_us = t[0]; get_us = t[1]; puts_us = t[2]; acc_us = t[3]; fadd_us = t[4]; lock_us = t[5];
    armada_stats_t st;
    armada_stats_get(&st);
    unsigned long long paths[ARMADA_PATH_COUNT] = { 0 };
    for (int o = 0; o < ARMADA_OP_FENCE; o++)
        for (int p = 0; p < ARMADA_PATH_COUNT; p++)
            paths[p] += st.ops[o][p];
    MPI_Allreduce(MPI_IN_PLACE, paths, ARMADA_PATH_COUNT, MPI_UNSIGNED_LONG_LONG, MPI_SUM,
                  MPI_COMM_WORLD);
    int total_fail = 0;
    MPI_Allreduce(&failures, &total_fail, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) {
        printf("Armada %s demo: %d processes on %d node(s); rank 0 puts to and gets from rank %d (%s)\n",
               armada_version(NULL, NULL, NULL), np, armada_node_count(), peer, where);
        printf("  %-44s %10.2f us/op\n", "8-byte put (then one fence)", put_us);
        printf("  %-44s %10.2f us/op\n", "8-byte get", get_us);
        printf("  %-44s %10.2f us\n", "strided put 64 x 512 B + fence", puts_us);
        printf("  %-44s %10.2f us/op\n", "double accumulate into rank 0 (all ranks)", acc_us);
        printf("  %-44s %10.2f us/op\n", "fetch-and-add on rank 0 (all ranks)", fadd_us);
        printf("  %-44s %10.2f us/op\n", "lock + get + put + fence + unlock", lock_us);
        printf("  operations by path, all ranks: shared memory %llu, server %llu, direct RMA %llu\n",
               paths[ARMADA_PATH_SHM], paths[ARMADA_PATH_SERVER], paths[ARMADA_PATH_RMA]);
        printf("  (times: the slowest rank's)\n");
        printf("  every result checked: %s\n", total_fail ? "FAILURES (see above)" : "all correct");
    }
    ARMCI_Free(mine);
    free(base);
    ARMCI_Finalize();
    MPI_Finalize();
    return total_fail ? 1 : 0;
}
