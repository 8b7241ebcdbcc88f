/* threads (ARMCI_Init_thread under MPI_THREAD_MULTIPLE): NT threads per
 * process each do, to other processes and nodes in turn, contiguous puts and
 * gets, strided and vector transfers, accumulates, fetch-and-adds and
 * mutex-protected read-modify-writes; every result is checked. Each thread
 * writes only its own region of every segment, so the expected contents are
 * known; the shared counters check atomicity and mutual exclusion. */
#include <pthread.h>
#include <armci.h>
#include "tst.h"

#define NT 4
#define ITERS 40
#define REGION 4096           /* bytes per (process, thread) in a segment */
#define NACC 16               /* doubles accumulated per (process, thread) */

static int me, np;
static void **seg;            /* [np] data regions: np * NT * REGION       */
static void **acc;            /* [np] accumulators: np * NT * NACC doubles */
static void **ctr;            /* [np] counters: [0] fetch-and-add, [1 + t] mutex t */
static long fails[NT];

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

static void contiguous(int t, int target, int it, char *buf, char *back)
{
    for (int i = 0; i < 512; i++)
        buf[i] = (char)tst_byte(me * 1000 + t * 100 + it, i);
    ARMCI_Put(buf, region(target, t), 512, target);
    ARMCI_Fence(target);
    memset(back, 0, 512);
    ARMCI_Get(region(target, t), back, 512, target);
    if (memcmp(buf, back, 512))
        FAIL(t, "put/get of 512 bytes to rank %d, iteration %d", target, it);
}

static void strided(int t, int target, int it, char *buf, char *back)
{
    int count[2] = { 64, 8 }, stride[1] = { 128 };
    for (int i = 0; i < 1024; i++)
        buf[i] = (char)tst_byte(me * 77 + t * 7 + it, i);
    char *dst = region(target, t) + 1024;
    ARMCI_PutS(buf, stride, dst, stride, count, 1, target);
    ARMCI_Fence(target);
    memset(back, 0, 1024);
    ARMCI_GetS(dst, stride, back, stride, count, 1, target);
    for (int r = 0; r < 8; r++)
        if (memcmp(buf + r * 128, back + r * 128, 64))
            FAIL(t, "strided row %d to rank %d, iteration %d", r, target, it);
}

static void vector(int t, int target, int it, char *buf, char *back)
{
    void *src[4], *dst[4], *rsrc[4], *rdst[4];
    for (int i = 0; i < 256; i++)
        buf[i] = (char)tst_byte(me * 31 + t * 3 + it, i);
    for (int k = 0; k < 4; k++) {
        src[k] = buf + k * 64;
        dst[k] = region(target, t) + 2048 + k * 256;
        rsrc[k] = dst[k];
        rdst[k] = back + k * 64;
    }
    armci_giov_t put = { src, dst, 48, 4 }, get = { rsrc, rdst, 48, 4 };
    ARMCI_PutV(&put, 1, target);
    ARMCI_Fence(target);
    memset(back, 0, 256);
    ARMCI_GetV(&get, 1, target);
    for (int k = 0; k < 4; k++)
        if (memcmp(buf + k * 64, back + k * 64, 48))
            FAIL(t, "vector piece %d to rank %d, iteration %d", k, target, it);
}

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    char *buf = malloc(2048), *back = malloc(2048);
    double ones[NACC], one = 1.0;
    for (int i = 0; i < NACC; i++)
        ones[i] = 1.0;
    for (int it = 0; it < ITERS; it++) {
        int target = (me + 1 + it + t) % np;
        contiguous(t, target, it, buf, back);
        strided(t, target, it, buf, back);
        vector(t, target, it, buf, back);
        ARMCI_Acc(ARMCI_ACC_DBL, &one, ones,
                  (double *)acc[target] + (me * NT + t) * NACC, (int)sizeof ones, target);
        long old;
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, ctr[0], 1, 0);
        long *c = (long *)ctr[target] + 1 + t, v = -1;
        ARMCI_Lock(t, target);
        ARMCI_Get(c, &v, sizeof v, target);
        v += 1;
        ARMCI_Put(&v, c, sizeof v, target);
        ARMCI_Fence(target);
        ARMCI_Unlock(t, target);
    }
    free(buf);
    free(back);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    ARMCI_Init_thread(MPI_THREAD_MULTIPLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    CHECK_EQ(provided, MPI_THREAD_MULTIPLE, "MPI thread level granted");
    seg = malloc(sizeof(void *) * (size_t)np);
    acc = malloc(sizeof(void *) * (size_t)np);
    ctr = malloc(sizeof(void *) * (size_t)np);
    CHECK_EQ(ARMCI_Malloc(seg, (size_t)np * NT * REGION), 0, "ARMCI_Malloc seg");
    CHECK_EQ(ARMCI_Malloc(acc, (size_t)np * NT * NACC * sizeof(double)), 0, "ARMCI_Malloc acc");
    CHECK_EQ(ARMCI_Malloc(ctr, (1 + NT) * sizeof(long)), 0, "ARMCI_Malloc ctr");
    CHECK_EQ(ARMCI_Create_mutexes(NT), 0, "ARMCI_Create_mutexes");
    memset(seg[me], 0, (size_t)np * NT * REGION);
    memset(acc[me], 0, (size_t)np * NT * NACC * sizeof(double));
    memset(ctr[me], 0, (1 + NT) * sizeof(long));
    ARMCI_Barrier();
    pthread_t th[NT];
    for (long t = 0; t < NT; t++)
        pthread_create(&th[t], NULL, worker, (void *)t);
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
    ARMCI_Barrier();
    for (int t = 0; t < NT; t++)
        CHECK(fails[t] == 0, "thread %d saw %ld wrong results", t, fails[t]);
    /* Accumulators here: from each (process p, thread t), one 1.0 per
     * iteration that targeted this rank. */
    for (int p = 0; p < np; p++)
        for (int t = 0; t < NT; t++) {
            int hits = 0;
            for (int it = 0; it < ITERS; it++)
                hits += (p + 1 + it + t) % np == me;
            double *a = (double *)acc[me] + (p * NT + t) * NACC;
            for (int i = 0; i < NACC; i++)
                CHECK(a[i] == hits, "acc from rank %d thread %d [%d] = %g, want %d", p, t, i,
                      a[i], hits);
        }
    long total[1 + NT];
    MPI_Allreduce(ctr[me], total, 1 + NT, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        CHECK_EQ(((long *)ctr[0])[0], (long)np * NT * ITERS, "fetch-and-add counter");
    for (int t = 0; t < NT; t++)
        CHECK_EQ(total[1 + t], (long)np * ITERS, "mutex-protected counters, summed");
    TST_SAY("threads: %d threads x %d iterations per rank: put/get, strided, vector, acc, "
            "fetch-and-add and locks checked", NT, ITERS);
    ARMCI_Barrier();
    ARMCI_Finalize();
    MPI_Finalize();
    return tst_finish("threads");
}
