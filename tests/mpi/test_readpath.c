/* Reads across nodes take one of two paths (decision 009): UCX's own get and
 * atomics when the target node has no writes of ours outstanding, else a
 * request to the node's server queued behind those writes. Whatever the
 * path, a read sees this process's earlier writes (location consistency).
 *
 *   tmpi_readpath          values only (any layout, any path setting)
 *   tmpi_readpath strict   also the path each read took, from the armada.h
 *                          counters; for a run where UCX emulates RMA and the
 *                          path settings are auto (UCX_TLS=tcp,self)
 *   tmpi_readpath zcopy    the same where UCX also has a zero-copy put/get
 *                          between the nodes (cma between virtual nodes):
 *                          larger gets and puts take it (decision 017)
 *
 * Each rank works on its own words at the next rank, so that the checks do
 * not depend on other ranks' timing. */
#include <armci.h>
#include <armada.h>
#include <string.h>
#include "tst.h"

#define WORDS 64
#define BIG (64 * 1024)

static int strict, zcopy, me, nproc, remote;

static long count(int op, int path)
{
    armada_stats_t st;
    CHECK(armada_stats_get(&st) == 0, "armada_stats_get");
    return (long)st.ops[op][path];
}

/* The read just done took `path` (strict runs across nodes only). */
static void expect_path(int op, int path, const char *what)
{
    if (!strict || !remote)
        return;
    CHECK(count(op, path) == 1, "%s: expected 1 operation on path %d, counted %ld (shm %ld, "
          "rma %ld, server %ld)", what, path, count(op, path), count(op, ARMADA_PATH_SHM),
          count(op, ARMADA_PATH_RMA), count(op, ARMADA_PATH_SERVER));
    armada_stats_reset();
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    zcopy = argc > 1 && strcmp(argv[1], "zcopy") == 0;
    strict = zcopy || (argc > 1 && strcmp(argv[1], "strict") == 0);
    int peer = (me + 1) % nproc;
    remote = armada_node_of(peer) != armada_node_of(me);

    /* Per rank: WORDS longs of counters and values, then a big block. */
    size_t bytes = (size_t)nproc * (WORDS * sizeof(long) + BIG);
    void **base = malloc((size_t)nproc * sizeof *base);
    CHECK(ARMCI_Malloc(base, (armci_size_t)bytes) == 0, "ARMCI_Malloc");
    memset(base[me], 0, bytes);
    ARMCI_Barrier();
    /* My region at the peer: the part indexed by my rank. */
    long *words = (long *)((char *)base[peer] + (size_t)me * WORDS * sizeof(long));
    char *block = (char *)base[peer] + (size_t)nproc * WORDS * sizeof(long) + (size_t)me * BIG;
    int *counter = (int *)&words[0];
    long got = 0, val = 0;
    armada_stats_reset();

    TST_SAY("readpath: a clean small get reads with UCX's get");
    ARMCI_Get(&words[1], &got, sizeof got, peer);
    CHECK_EQ(got, 0, "clean get");
    expect_path(ARMADA_OP_GET, ARMADA_PATH_RMA, "clean get");

    TST_SAY("readpath: a get right after a put (no fence) goes behind it, via the server");
    val = 1000 + me;
    ARMCI_Put(&val, &words[1], sizeof val, peer);
    armada_stats_reset();
    ARMCI_Get(&words[1], &got, sizeof got, peer);
    CHECK_EQ(got, val, "get after put");
    expect_path(ARMADA_OP_GET, ARMADA_PATH_SERVER, "get after put");

    TST_SAY("readpath: after a fence the node is clean again");
    ARMCI_Fence(peer);
    ARMCI_Get(&words[1], &got, sizeof got, peer);
    CHECK_EQ(got, val, "get after fence");
    expect_path(ARMADA_OP_GET, ARMADA_PATH_RMA, "get after fence");

    TST_SAY("readpath: a large clean get: the server, or a zero-copy UCX get where there is one");
    char *pattern = malloc(BIG), *back = malloc(BIG);
    CHECK(pattern && back, "malloc");
    for (long i = 0; i < BIG; i++)
        pattern[i] = (char)tst_byte(me, i);
    ARMCI_Put(pattern, block, BIG, peer);
    ARMCI_Fence(peer);
    armada_stats_reset();
    ARMCI_Get(block, back, BIG, peer);
    CHECK(memcmp(pattern, back, BIG) == 0, "large get returns what was put");
    expect_path(ARMADA_OP_GET, zcopy ? ARMADA_PATH_RMA : ARMADA_PATH_SERVER, "large clean get");

    TST_SAY("readpath: a large get right after a put sees the put, whatever its path");
    for (long i = 0; i < BIG; i++)
        pattern[i] = (char)tst_byte(me + 7, i);
    ARMCI_Put(pattern, block, BIG, peer);
    armada_stats_reset();
    memset(back, 0, BIG);
    ARMCI_Get(block, back, BIG, peer);
    CHECK(memcmp(pattern, back, BIG) == 0, "large get right after a put returns the put");
    expect_path(ARMADA_OP_GET, zcopy ? ARMADA_PATH_RMA : ARMADA_PATH_SERVER,
                "large get after put");

    TST_SAY("readpath: a mid-size get right after a small put goes behind it, via the server");
    long mark = 4242 + me;
    memcpy(pattern, &mark, sizeof mark);
    ARMCI_Put(&mark, block, sizeof mark, peer);
    armada_stats_reset();
    ARMCI_Get(block, back, 8192, peer);
    CHECK(memcmp(pattern, back, 8192) == 0, "mid-size get after a small put returns the put");
    expect_path(ARMADA_OP_GET, ARMADA_PATH_SERVER, "mid-size get after a small put");
    ARMCI_Fence(peer);
    ARMCI_Get(block, back, 8192, peer);
    expect_path(ARMADA_OP_GET, zcopy ? ARMADA_PATH_RMA : ARMADA_PATH_SERVER,
                "mid-size clean get");

    TST_SAY("readpath: a put too large to aggregate: UCX's zero-copy put when clean (zcopy), "
            "and an accumulate and a get after it see it");
    for (long i = 0; i < 8192; i++)
        pattern[i] = (char)tst_byte(me + 11, i);
    armada_stats_reset();
    ARMCI_Put(pattern, block, 8192, peer);
    expect_path(ARMADA_OP_PUT, zcopy ? ARMADA_PATH_RMA : ARMADA_PATH_SERVER, "clean mid-size put");
    long first = 0, add = 3, two = 2;
    memcpy(&first, pattern, sizeof first);
    ARMCI_Acc(ARMCI_ACC_LNG, &two, &add, block, sizeof add, peer);
    first += 6;
    memcpy(pattern, &first, sizeof first);
    memset(back, 0, 8192);
    armada_stats_reset();
    ARMCI_Get(block, back, 8192, peer);
    CHECK(memcmp(pattern, back, 8192) == 0, "get after a put and an accumulate sees both");
    expect_path(ARMADA_OP_GET, ARMADA_PATH_SERVER, "mid-size get after an accumulate");
    ARMCI_Fence(peer);

    TST_SAY("readpath: fetch-and-add, clean and right after a put");
    int old = -1;
    ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &old, counter, 5, peer);
    CHECK_EQ(old, 0, "clean fetch-and-add returns the old value");
    expect_path(ARMADA_OP_RMW, ARMADA_PATH_RMA, "clean fetch-and-add");
    int seven = 7;
    ARMCI_Put(&seven, counter, sizeof seven, peer);
    armada_stats_reset();
    ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &old, counter, 1, peer);
    CHECK_EQ(old, 7, "fetch-and-add after a put sees the put");
    expect_path(ARMADA_OP_RMW, ARMADA_PATH_SERVER, "fetch-and-add after put");
    long lold = 0;
    ARMCI_Put(&val, &words[2], sizeof val, peer);
    ARMCI_Rmw(ARMCI_SWAP_LONG, &lold, &words[2], 0, peer);
    CHECK_EQ(lold, val, "swap after a put sees the put");

    TST_SAY("readpath: random mix of put, acc, get and fetch-and-add against a model");
    long model[WORDS];
    for (int i = 0; i < WORDS; i++)
        model[i] = 0;
    ARMCI_Put(model, words, sizeof model, peer);   /* counters become 0 too */
    unsigned long long seed = 12345 + (unsigned long long)me;
    for (int step = 0; step < 2000; step++) {
        int w = tst_range(&seed, 1, WORDS - 1);
        switch (tst_range(&seed, 0, 5)) {
        case 0:
            val = (long)tst_rand(&seed) % 100000;
            ARMCI_Put(&val, &words[w], sizeof val, peer);
            model[w] = val;
            break;
        case 1: {
            long one = 3, scale = 2;
            ARMCI_Acc(ARMCI_ACC_LNG, &scale, &one, &words[w], sizeof one, peer);
            model[w] += 6;
            break;
        }
        case 2:
            ARMCI_Get(&words[w], &got, sizeof got, peer);
            CHECK(got == model[w], "step %d: get of word %d gave %ld, expected %ld", step, w,
                  got, model[w]);
            break;
        case 3:
            ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &lold, &words[w], 2, peer);
            CHECK(lold == model[w], "step %d: fetch-and-add on word %d gave %ld, expected %ld",
                  step, w, lold, model[w]);
            model[w] += 2;
            break;
        case 4:
            ARMCI_Fence(peer);
            break;
        default: {
            long all[WORDS];
            ARMCI_Get(words, all, sizeof all, peer);
            for (int i = 1; i < WORDS; i++)
                if (all[i] != model[i]) {
                    CHECK(all[i] == model[i], "step %d: word %d reads %ld, expected %ld", step,
                          i, all[i], model[i]);
                    break;
                }
            break;
        }
        }
    }
    ARMCI_Barrier();
    long final[WORDS];
    ARMCI_Get(words, final, sizeof final, peer);
    int same = 1;
    for (int i = 1; i < WORDS; i++)
        same &= final[i] == model[i];
    CHECK(same, "final values at the peer match the model");

    free(pattern);
    free(back);
    ARMCI_Barrier();
    ARMCI_Free(base[me]);
    free(base);
    ARMCI_Finalize();
    MPI_Finalize();
    return tst_finish("readpath");
}
