/* threads_ops (issue 25 item 4): NT threads per process under
 * MPI_THREAD_MULTIPLE, each, every iteration, to every process in turn
 * (itself included, so both the shared-memory and the inter-node paths run
 * concurrently): blocking put and get; non-blocking put, get and
 * accumulate through explicit handles (Wait), implicit ones (WaitAll) and a
 * transfer large enough for the progress agent; blocking accumulates;
 * fetch-and-adds of int and long; a lock-protected read-modify-write.
 * Every result is checked exactly: data read back, accumulators and
 * counters against the totals of all threads' adds, and the values the
 * fetch-and-adds on rank 0 returned form exactly 0, 3, 6, ...; and the
 * statistics, counted per thread (decision 067), add up to every put and
 * read-modify-write the threads issued. */
#include <pthread.h>
#include <armci.h>
#include <armada.h>
#include "tst.h"

#define NT 4
#define ITERS 12
#define SMALL 8
#define MID 2048
#define BIG (32 * 1024)        /* past ARMADA_NB_AGENT_MIN: the agent's */
#define REGION (2 * MID + BIG) /* bytes per (process, thread) in a segment */
#define NACC 8                 /* elements accumulated per (process, thread) */
#define LSTEP 3                /* long fetch-and-add increment */

static int me, np;
static void **seg, **dacc, **iacc, **ctr;   /* ctr: [0] int fadd, [1] long fadd, [2 + t] mutex t */
static long fails[NT];
static long *olds[NT];                      /* old values of rank 0's long counter */
static int nolds[NT];

#define FAIL(t, ...)                                                    \
    do {                                                                \
        if (fails[t]++ < 5) {                                           \
            fprintf(stderr, "FAIL rank %d thread %d: ", me, t);         \
            fprintf(stderr, __VA_ARGS__);                               \
            fprintf(stderr, "\n");                                      \
        }                                                               \
    } while (0)

static char *region(int target, int t)
{
    return (char *)seg[target] + (size_t)(me * NT + t) * REGION;
}

static void fill(char *b, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (char)tst_byte(seed, (int)i);
}

/* Blocking put of 8 bytes and of MID bytes, fence, gets back. */
static void blocking(int t, int target, int it, char *buf, char *back)
{
    int seed = me * 1000 + t * 100 + it;
    fill(buf, MID, seed);
    ARMCI_Put(buf, region(target, t), SMALL, target);
    ARMCI_Put(buf + SMALL, region(target, t) + SMALL, MID - SMALL, target);
    ARMCI_Fence(target);
    memset(back, 0, MID);
    ARMCI_Get(region(target, t), back, SMALL, target);
    ARMCI_Get(region(target, t) + SMALL, back + SMALL, MID - SMALL, target);
    if (memcmp(buf, back, MID))
        FAIL(t, "blocking put/get to rank %d, iteration %d", target, it);
}

/* Non-blocking put (explicit handle) of MID and BIG bytes, accumulate with
 * an implicit handle; Wait, fence, non-blocking gets back, Wait each. */
static void nonblocking(int t, int target, int it, char *buf, char *back)
{
    int seed = me * 977 + t * 13 + it;
    char *dst = region(target, t) + MID;
    fill(buf, MID + BIG, seed);
    armci_hdl_t h[4];
    for (int k = 0; k < 4; k++)
        ARMCI_INIT_HANDLE(&h[k]);
    ARMCI_NbPut(buf, dst, MID, target, &h[0]);
    ARMCI_NbPut(buf + MID, dst + MID, BIG, target, &h[1]);
    int two = 2, twos[NACC];
    for (int i = 0; i < NACC; i++)
        twos[i] = i + 1;
    ARMCI_NbAcc(ARMCI_ACC_INT, &two, twos, (int *)iacc[target] + (me * NT + t) * NACC,
                (int)sizeof twos, target, NULL);
    ARMCI_Wait(&h[0]);
    ARMCI_Wait(&h[1]);
    ARMCI_Fence(target);
    memset(back, 0, MID + BIG);
    ARMCI_NbGet(dst, back, MID, target, &h[2]);
    ARMCI_NbGet(dst + MID, back + MID, BIG, target, &h[3]);
    ARMCI_Wait(&h[3]);
    ARMCI_Wait(&h[2]);
    if (memcmp(buf, back, MID + BIG))
        FAIL(t, "non-blocking put/get to rank %d, iteration %d", target, it);
}

/* Fetch-and-adds, accumulate, and a read-modify-write under mutex t. */
static void atomics(int t, int target, int it)
{
    double one = 1.0, ones[NACC];
    for (int i = 0; i < NACC; i++)
        ones[i] = 1.0;
    ARMCI_Acc(ARMCI_ACC_DBL, &one, ones, (double *)dacc[target] + (me * NT + t) * NACC,
              (int)sizeof ones, target);
    int iold = -1;
    long lold = -1;
    ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &iold, ctr[target], 1, target);
    ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &lold, (long *)ctr[target] + 1, LSTEP, target);
    if (iold < 0 || iold >= np * NT * ITERS || lold < 0 || lold % LSTEP ||
        lold >= (long)LSTEP * np * NT * ITERS)
        FAIL(t, "fetch-and-add on rank %d returned %d / %ld, iteration %d", target, iold,
             lold, it);
    if (target == 0)
        olds[t][nolds[t]++] = lold;
    long *c = (long *)ctr[target] + 2 + t, v = -1;
    ARMCI_Lock(t, target);
    ARMCI_Get(c, &v, sizeof v, target);
    v += 1;
    ARMCI_Put(&v, c, sizeof v, target);
    ARMCI_Fence(target);
    ARMCI_Unlock(t, target);
}

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    char *buf = malloc(MID + BIG), *back = malloc(MID + BIG);
    for (int it = 0; it < ITERS; it++) {
        for (int k = 0; k < np; k++) {
            int target = (me + t + k) % np;
            blocking(t, target, it, buf, back);
            nonblocking(t, target, it, buf, back);
            atomics(t, target, it);
        }
        ARMCI_WaitAll();
    }
    free(buf);
    free(back);
    return NULL;
}

/* Small puts from every thread to the right neighbour, overwriting and
 * not: batched per thread (decision 075). Only the main thread fences,
 * after the workers ended, so the fence must send the batches of threads
 * other than its own. The target then reads its own memory, with no ARMCI
 * call in between that would send them anyway. */
#define FB_PUTS 64
static void *fence_writer(void *arg)
{
    int t = (int)(long)arg, right = (me + 1) % np;
    long *dst = (long *)(void *)region(right, t);
    for (long k = 0; k < FB_PUTS; k++) {
        long v = ((long)me << 32) | ((long)t << 16) | k;
        ARMCI_Put(&v, dst + 1 + k, sizeof v, right);   /* one word each  */
        ARMCI_Put(&v, dst, sizeof v, right);           /* the last wins  */
    }
    return NULL;
}

static void fence_by_one(void)
{
    int right = (me + 1) % np, left = (me + np - 1) % np;
    pthread_t th[NT];
    for (long t = 0; t < NT; t++)
        pthread_create(&th[t], NULL, fence_writer, (void *)t);
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
    ARMCI_Fence(right);
    MPI_Barrier(MPI_COMM_WORLD);
    long bad = 0;
    for (int t = 0; t < NT; t++) {
        const long *got = (const long *)(void *)((char *)seg[me] +
                                                 (size_t)(left * NT + t) * REGION);
        long base = ((long)left << 32) | ((long)t << 16);
        bad += got[0] != (base | (FB_PUTS - 1));
        for (long k = 0; k < FB_PUTS; k++)
            bad += got[1 + k] != (base | k);
    }
    CHECK(bad == 0, "%ld of %d words from rank %d's threads missing after its main thread's "
          "fence", bad, NT * (FB_PUTS + 1), left);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void check_counters(void)
{
    const long total = (long)np * NT * ITERS;
    for (int p = 0; p < np; p++)
        for (int t = 0; t < NT; t++) {
            const double *d = (const double *)dacc[me] + (p * NT + t) * NACC;
            const int *a = (const int *)iacc[me] + (p * NT + t) * NACC;
            for (int i = 0; i < NACC; i++) {
                CHECK(d[i] == ITERS, "double acc from rank %d thread %d [%d] = %g, want %d",
                      p, t, i, d[i], ITERS);
                CHECK(a[i] == 2 * (i + 1) * ITERS, "int acc from rank %d thread %d [%d] = %d, "
                      "want %d", p, t, i, a[i], 2 * (i + 1) * ITERS);
            }
        }
    CHECK_EQ(((int *)ctr[me])[0], total, "int fetch-and-add counter");
    CHECK_EQ(((long *)ctr[me])[1], LSTEP * total, "long fetch-and-add counter");
    for (int t = 0; t < NT; t++)
        CHECK_EQ(((long *)ctr[me])[2 + t], (long)np * ITERS, "mutex-protected counter");
}

/* The values rank 0's long counter returned, from every thread of every
 * process: each of 0, LSTEP, ..., LSTEP * (total - 1) exactly once. */
static void check_olds(void)
{
    const int per = NT * ITERS;
    long *mine = malloc(sizeof(long) * (size_t)per);
    for (int t = 0; t < NT; t++) {
        CHECK_EQ(nolds[t], ITERS, "fetch-and-adds on rank 0 recorded");
        memcpy(mine + t * ITERS, olds[t], sizeof(long) * ITERS);
    }
    long *all = me == 0 ? malloc(sizeof(long) * (size_t)per * (size_t)np) : NULL;
    MPI_Gather(mine, per, MPI_LONG, all, per, MPI_LONG, 0, MPI_COMM_WORLD);
    if (me == 0) {
        const int n = per * np;
        char *seen = calloc((size_t)n, 1);
        int bad = 0;
        for (int i = 0; i < n; i++) {
            long k = all[i] / LSTEP;
            if (all[i] % LSTEP || k < 0 || k >= n || seen[k]++)
                bad++;
        }
        CHECK(bad == 0, "%d of %d fetch-and-add results on rank 0 repeated or out of range",
              bad, n);
        free(seen);
        free(all);
    }
    free(mine);
}

/* Puts per thread: per target and iteration, two blocking, two non-blocking
 * and one under the mutex; read-modify-writes: two. */
static void check_stats(void)
{
    armada_stats_t st;
    CHECK_EQ(armada_stats_get(&st), 0, "armada_stats_get");
    uint64_t puts = 0, rmws = 0;
    for (int p = 0; p < ARMADA_PATH_COUNT; p++) {
        puts += st.ops[ARMADA_OP_PUT][p];
        rmws += st.ops[ARMADA_OP_RMW][p];
    }
    CHECK_EQ(puts, (long)NT * ITERS * np * 5, "puts counted over the threads");
    CHECK_EQ(rmws, (long)NT * ITERS * np * 2, "read-modify-writes counted over the threads");
}

static void alloc_all(void)
{
    seg = malloc(sizeof(void *) * (size_t)np);
    dacc = malloc(sizeof(void *) * (size_t)np);
    iacc = malloc(sizeof(void *) * (size_t)np);
    ctr = malloc(sizeof(void *) * (size_t)np);
    size_t nseg = (size_t)np * NT * REGION, nacc = (size_t)np * NT * NACC;
    CHECK_EQ(ARMCI_Malloc(seg, nseg), 0, "ARMCI_Malloc seg");
    CHECK_EQ(ARMCI_Malloc(dacc, nacc * sizeof(double)), 0, "ARMCI_Malloc dacc");
    CHECK_EQ(ARMCI_Malloc(iacc, nacc * sizeof(int)), 0, "ARMCI_Malloc iacc");
    CHECK_EQ(ARMCI_Malloc(ctr, (2 + NT) * sizeof(long)), 0, "ARMCI_Malloc ctr");
    CHECK_EQ(ARMCI_Create_mutexes(NT), 0, "ARMCI_Create_mutexes");
    memset(seg[me], 0, nseg);
    memset(dacc[me], 0, nacc * sizeof(double));
    memset(iacc[me], 0, nacc * sizeof(int));
    memset(ctr[me], 0, (2 + NT) * sizeof(long));
    for (int t = 0; t < NT; t++)
        olds[t] = malloc(sizeof(long) * ITERS);
}

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    ARMCI_Init_thread(MPI_THREAD_MULTIPLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    CHECK_EQ(provided, MPI_THREAD_MULTIPLE, "MPI thread level granted");
    alloc_all();
    ARMCI_Barrier();
    pthread_t th[NT];
    for (long t = 0; t < NT; t++)
        pthread_create(&th[t], NULL, worker, (void *)t);
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
    ARMCI_Barrier();
    check_stats();
    fence_by_one();
    for (int t = 0; t < NT; t++)
        CHECK(fails[t] == 0, "thread %d saw %ld wrong results", t, fails[t]);
    check_counters();
    check_olds();
    TST_SAY("threads_ops: %d threads x %d iterations x %d targets: blocking and non-blocking "
            "put/get/acc, fetch-and-adds and locks checked", NT, ITERS, np);
    ARMCI_Barrier();
    ARMCI_Destroy_mutexes();
    ARMCI_Free(seg[me]);
    ARMCI_Free(dacc[me]);
    ARMCI_Free(iacc[me]);
    ARMCI_Free(ctr[me]);
    ARMCI_Finalize();
    MPI_Finalize();
    return tst_finish("threads_ops");
}
