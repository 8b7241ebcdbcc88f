/* fence_nb: Fence, AllFence, Barrier; every non-blocking form with explicit
 * handles (Wait, Test), aggregate handles, and implicit handles completed by
 * WaitProc and WaitAll. */
#include <armci.h>
#include "strided.h"

#define REG 32768L

static int me, np;
static void **base;
static unsigned char **shadow;   /* expected content of my region on each rank */
static unsigned char *tmp;

static unsigned char *region(int t) { return (unsigned char *)base[t] + REG * me; }

static void verify(int t, const char *what)
{
    memset(tmp, 0, REG);
    ARMCI_Get(region(t), tmp, REG, t);
    CHECK(memcmp(tmp, shadow[t], REG) == 0, "%s: region on rank %d differs", what, t);
}

static void fill(unsigned char *p, long n, int tag)
{
    for (long i = 0; i < n; i++)
        p[i] = tst_byte(tag, i);
}

/* The owner checks the regions written by every rank against the shadows
 * those ranks hold: each source sends its shadow with MPI. */
static void owner_check(const char *what)
{
    unsigned char *exp = malloc(REG);
    for (int s = 0; s < np; s++) {
        for (int t = 0; t < np; t++) {
            if (s == me && t == me)
                memcpy(exp, shadow[me], REG);
            else if (s == me)
                MPI_Send(shadow[t], REG, MPI_BYTE, t, 7, MPI_COMM_WORLD);
            else if (t == me)
                MPI_Recv(exp, REG, MPI_BYTE, s, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        ARMCI_Access_begin(base[me]);
        CHECK(memcmp((unsigned char *)base[me] + REG * s, exp, REG) == 0,
              "%s: owner's view of region of rank %d", what, s);
        ARMCI_Access_end(base[me]);
    }
    free(exp);
}

static int test_until_done(armci_hdl_t *h)
{
    for (int i = 0; i < 200000; i++) {
        if (ARMCI_Test(h) == 0)
            return 1;
        tst_nap(20);
    }
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    base = malloc(sizeof(void *) * np);
    shadow = malloc(sizeof(void *) * np);
    tmp = malloc(REG);
    /* src holds one 4000-byte NbPut source per target at once (below). */
    size_t src_len = 4000 * (size_t)np > (size_t)REG ? 4000 * (size_t)np : (size_t)REG;
    unsigned char *src = malloc(src_len), *dst = malloc(REG);
    CHECK_EQ(ARMCI_Malloc(base, REG * np), 0, "ARMCI_Malloc");
    for (int t = 0; t < np; t++)
        shadow[t] = calloc(REG, 1);
    ARMCI_Access_begin(base[me]);
    memset(base[me], 0, REG * np);
    ARMCI_Access_end(base[me]);
    ARMCI_Barrier();

    /* --- Fence, AllFence, Barrier ------------------------------------- */
    for (int t = 0; t < np; t++) {
        fill(src, 5000, 10 + me + t);
        ARMCI_Put(src, region(t) + 100, 5000, t);
        memcpy(shadow[t] + 100, src, 5000);
        ARMCI_Fence(t);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    owner_check("Put + Fence + MPI_Barrier");
    MPI_Barrier(MPI_COMM_WORLD);
    for (int t = 0; t < np; t++) {
        fill(src, 777, 20 + me + t);
        ARMCI_Put(src, region(t) + 6000, 777, t);
        memcpy(shadow[t] + 6000, src, 777);
    }
    ARMCI_AllFence();
    MPI_Barrier(MPI_COMM_WORLD);
    owner_check("Put + AllFence + MPI_Barrier");
    MPI_Barrier(MPI_COMM_WORLD);
    for (int t = 0; t < np; t++) {
        fill(src, 3333, 30 + me + t);
        ARMCI_Put(src, region(t) + 7000, 3333, t);
        memcpy(shadow[t] + 7000, src, 3333);
    }
    ARMCI_Barrier();
    owner_check("Put + ARMCI_Barrier");
    ARMCI_Barrier();
    TST_SAY("fence_nb: Fence, AllFence, ARMCI_Barrier make puts visible to the owner");

    /* --- explicit handles ---------------------------------------------- */
    armci_hdl_t *h = malloc(sizeof(armci_hdl_t) * np);
    armci_hdl_t one;
    ARMCI_INIT_HANDLE(&one);
    CHECK_EQ(ARMCI_Wait(&one), 0, "Wait on a fresh handle");
    for (int t = 0; t < np; t++) {
        ARMCI_INIT_HANDLE(&h[t]);
        /* a source buffer of its own per target: all stay in flight */
        unsigned char *b = src + 4000 * t;
        fill(b, 4000, 40 + t);
        CHECK_EQ(ARMCI_NbPut(b, region(t) + 11000, 4000, t, &h[t]), 0, "NbPut return");
        memcpy(shadow[t] + 11000, b, 4000);
    }
    for (int t = np - 1; t >= 0; t--)
        CHECK_EQ(ARMCI_Wait(&h[t]), 0, "Wait NbPut");
    for (int t = 0; t < np; t++)
        verify(t, "NbPut + Wait");
    for (int t = 0; t < np; t++) {
        ARMCI_INIT_HANDLE(&one);
        memset(dst, 0, 9000);
        CHECK_EQ(ARMCI_NbGet(region(t) + 100, dst, 9000, t, &one), 0, "NbGet return");
        CHECK(test_until_done(&one), "ARMCI_Test never reported completion");
        CHECK(memcmp(dst, shadow[t] + 100, 9000) == 0, "NbGet + Test data from %d", t);
    }
    for (int t = 0; t < np; t++) {
        double d[50], sc = 3.0;
        for (int i = 0; i < 50; i++)
            d[i] = i - 20 + me;
        ARMCI_INIT_HANDLE(&one);
        CHECK_EQ(ARMCI_NbAcc(ARMCI_ACC_DBL, &sc, d, region(t) + 16000, sizeof d, t, &one), 0,
                 "NbAcc return");
        int cnt[1] = { sizeof d };
        shp_apply((unsigned char *)d, NULL, shadow[t] + 16000, NULL, cnt, 0, ARMCI_ACC_DBL, 3);
        CHECK_EQ(ARMCI_Wait(&one), 0, "Wait NbAcc");
        verify(t, "NbAcc + Wait");
    }
    TST_SAY("fence_nb: NbPut (all outstanding, waited in reverse), NbGet + Test, NbAcc + Wait");

    /* strided and vector forms with explicit handles */
    unsigned long long rng = 77 + me;
    for (int t = 0; t < np; t++) {
        for (int L = 0; L <= 3; L++) {
            shape_t sh;
            for (int op = 0; op < 2; op++) {
                int aop = op == 0 ? SHP_COPY : ARMCI_ACC_DBL;
                shp_random(&rng, &sh, L, op ? 8 : 1, 4000);
                long doff = 17000 + 8 * tst_range(&rng, 0, 100);
                shp_fill(src, sh.sext, aop, &rng);
                ARMCI_INIT_HANDLE(&one);
                if (op == 0) {
                    CHECK_EQ(ARMCI_NbPutS(src, sh.sst, region(t) + doff, sh.dst, sh.count, L, t,
                                          &one), 0, "NbPutS");
                } else {
                    double sc = -2.0;
                    CHECK_EQ(ARMCI_NbAccS(ARMCI_ACC_DBL, &sc, src, sh.sst, region(t) + doff, sh.dst,
                                          sh.count, L, t, &one), 0, "NbAccS");
                }
                shp_apply(src, sh.sst, shadow[t] + doff, sh.dst, sh.count, L, aop, -2);
                CHECK_EQ(ARMCI_Wait(&one), 0, "Wait strided");
                verify(t, op ? "NbAccS + Wait" : "NbPutS + Wait");
                memset(dst, 0xee, sh.sext + 8);
                memset(tmp, 0xee, sh.sext + 8);
                shp_apply(shadow[t] + doff, sh.dst, tmp, sh.sst, sh.count, L, SHP_COPY, 0);
                ARMCI_INIT_HANDLE(&one);
                CHECK_EQ(ARMCI_NbGetS(region(t) + doff, sh.dst, dst, sh.sst, sh.count, L, t, &one),
                         0, "NbGetS");
                CHECK_EQ(ARMCI_Wait(&one), 0, "Wait NbGetS");
                CHECK(memcmp(dst, tmp, sh.sext + 8) == 0, "NbGetS level %d from %d", L, t);
            }
        }
        /* vector: two descriptors, 3 x 40 B and 5 x 8 B, scattered */
        void *s1[3], *d1[3], *s2[5], *d2[5];
        armci_giov_t iov[2] = { { s1, d1, 40, 3 }, { s2, d2, 8, 5 } };
        long o1[3] = { 25000, 25200, 25100 }, o2[5] = { 25400, 25300, 25480, 25320, 25440 };
        for (int pass = 0; pass < 2; pass++) {
            int aop = pass == 0 ? SHP_COPY : ARMCI_ACC_DBL;
            shp_fill(src, 400, aop, &rng);
            for (int i = 0; i < 3; i++) { s1[i] = src + 40 * i; d1[i] = region(t) + o1[i]; }
            for (int i = 0; i < 5; i++) { s2[i] = src + 200 + 8 * i; d2[i] = region(t) + o2[i]; }
            ARMCI_INIT_HANDLE(&one);
            double sc = 5.0;
            if (pass == 0)
                CHECK_EQ(ARMCI_NbPutV(iov, 2, t, &one), 0, "NbPutV");
            else
                CHECK_EQ(ARMCI_NbAccV(ARMCI_ACC_DBL, &sc, iov, 2, t, &one), 0, "NbAccV");
            int c40[1] = { 40 }, c8[1] = { 8 };
            for (int i = 0; i < 3; i++)
                shp_apply(src + 40 * i, NULL, shadow[t] + o1[i], NULL, c40, 0, aop, 5);
            for (int i = 0; i < 5; i++)
                shp_apply(src + 200 + 8 * i, NULL, shadow[t] + o2[i], NULL, c8, 0, aop, 5);
            CHECK_EQ(ARMCI_Wait(&one), 0, "Wait vector");
            verify(t, pass ? "NbAccV + Wait" : "NbPutV + Wait");
        }
        memset(dst, 0, 400);
        for (int i = 0; i < 3; i++) { s1[i] = region(t) + o1[i]; d1[i] = dst + 40 * i; }
        for (int i = 0; i < 5; i++) { s2[i] = region(t) + o2[i]; d2[i] = dst + 200 + 8 * i; }
        ARMCI_INIT_HANDLE(&one);
        CHECK_EQ(ARMCI_NbGetV(iov, 2, t, &one), 0, "NbGetV");
        CHECK_EQ(ARMCI_Wait(&one), 0, "Wait NbGetV");
        int ok = 1;
        for (int i = 0; i < 3; i++)
            ok &= memcmp(dst + 40 * i, shadow[t] + o1[i], 40) == 0;
        for (int i = 0; i < 5; i++)
            ok &= memcmp(dst + 200 + 8 * i, shadow[t] + o2[i], 8) == 0;
        CHECK(ok, "NbGetV data from %d", t);
    }
    TST_SAY("fence_nb: NbPutS/NbGetS/NbAccS levels 0..3, NbPutV/NbGetV/NbAccV with handles");

    /* --- aggregate handles --------------------------------------------- */
    for (int t = 0; t < np; t++) {
        armci_hdl_t agg;
        ARMCI_INIT_HANDLE(&agg);
        ARMCI_SET_AGGREGATE_HANDLE(&agg);
        unsigned char *bufs = src;
        for (int k = 0; k < 6; k++) {
            int n = 100 + 37 * k;
            fill(bufs + 512 * k, n, 60 + k + t);
            CHECK_EQ(ARMCI_NbPut(bufs + 512 * k, region(t) + 26000 + 512 * k, n, t, &agg), 0,
                     "NbPut aggregate");
            memcpy(shadow[t] + 26000 + 512 * k, bufs + 512 * k, n);
        }
        double d[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, sc = 2.0;
        CHECK_EQ(ARMCI_NbAcc(ARMCI_ACC_DBL, &sc, d, region(t) + 30000, sizeof d, t, &agg), 0,
                 "NbAcc aggregate");
        int c[1] = { sizeof d };
        shp_apply((unsigned char *)d, NULL, shadow[t] + 30000, NULL, c, 0, ARMCI_ACC_DBL, 2);
        CHECK_EQ(ARMCI_Wait(&agg), 0, "Wait aggregate");
        ARMCI_UNSET_AGGREGATE_HANDLE(&agg);
        verify(t, "aggregate handle");
    }
    TST_SAY("fence_nb: aggregate handle: 7 operations completed by one Wait");

    /* --- implicit handles ---------------------------------------------- */
    /* One source per target: a source is the caller's until it is waited
     * on, and the progress agent may still be reading it. */
    for (int t = 0; t < np; t++) {
        fill(src + 1000 * t, 999, 80 + t);
        CHECK_EQ(ARMCI_NbPut(src + 1000 * t, region(t) + 31000, 999, t, NULL), 0,
                 "NbPut implicit");
        memcpy(shadow[t] + 31000, src + 1000 * t, 999);
    }
    CHECK_EQ(ARMCI_WaitProc(me), 0, "WaitProc");
    verify(me, "implicit NbPut + WaitProc");
    CHECK_EQ(ARMCI_WaitAll(), 0, "WaitAll");
    for (int t = 0; t < np; t++)
        verify(t, "implicit NbPut + WaitAll");
    unsigned char *gets = malloc((size_t)np * 2000);
    for (int t = 0; t < np; t++)
        CHECK_EQ(ARMCI_NbGet(region(t) + 30500, gets + 2000 * t, 2000, t, NULL), 0,
                 "NbGet implicit");
    CHECK_EQ(ARMCI_WaitAll(), 0, "WaitAll gets");
    for (int t = 0; t < np; t++)
        CHECK(memcmp(gets + 2000 * t, shadow[t] + 30500, 2000) == 0, "implicit NbGet from %d", t);
    for (int t = 0; t < np; t++) {
        int v = 1000 + me;
        ARMCI_NbPutValueInt(v, region(t) + 32000, t, NULL);
        memcpy(shadow[t] + 32000, &v, sizeof v);
        CHECK_EQ(ARMCI_WaitProc(t), 0, "WaitProc per target");
    }
    for (int t = 0; t < np; t++)
        verify(t, "implicit NbPutValueInt + WaitProc");
    free(gets);
    TST_SAY("fence_nb: implicit (NULL) handles completed by WaitProc and WaitAll");

    ARMCI_Barrier();
    owner_check("end of test");
    ARMCI_Barrier();
    ARMCI_Free(base[me]);
    for (int t = 0; t < np; t++)
        free(shadow[t]);
    free(shadow); free(base); free(tmp); free(src); free(dst); free(h);
    ARMCI_Finalize();
    MPI_Finalize();
    return tst_finish("fence_nb");
}
