/* put_get: contiguous Put/Get of 1 B .. 1 MiB to every rank, location
 * consistency, value puts/gets, ARMCI_Copy, Put_flag and PutS_flag. */
#include <armci.h>
#include "tst.h"

#define SEG (1048576 + 256)
static const int sizes[] = { 1, 2, 3, 7, 8, 15, 16, 31, 63, 64, 100, 127, 128, 255, 256,
                             511, 1000, 1023, 1024, 4095, 4096, 4097, 8191, 65535, 65536,
                             100003, 262144, 524287, 1048576 };
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

static unsigned char fill_of(int t) { return (unsigned char)(0xa0 + t); }
static int off_of(int s) { return s % 61 + (s % 3) * 64; }

/* What the segment of target t holds after source src's round on it. */
static void replay(unsigned char *shadow, int src, int t)
{
    memset(shadow, fill_of(t), SEG);
    for (int k = 0; k < NSIZES; k++) {
        int s = sizes[k], o = off_of(s);
        for (int i = 0; i < s; i++)
            shadow[o + i] = tst_byte(src * 64 + k, i);
    }
}

/* Polls a flag in this process's ARMCI memory without spinning hard. */
static int wait_flag(int *flag, int me, int value)
{
    for (int i = 0; i < 200000; i++) {
        if (ARMCI_GetValueInt(flag, me) == value)
            return 1;
        tst_nap(50);
    }
    return 0;
}

int main(int argc, char **argv)
{
    int me, np;
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);

    void **seg = malloc(sizeof(void *) * np);
    CHECK_EQ(ARMCI_Malloc(seg, SEG), 0, "ARMCI_Malloc");
    unsigned char *src = malloc(SEG), *dst = malloc(SEG), *shadow = malloc(SEG);

    /* Round r: rank me is the only writer into rank (me + r) % np. */
    for (int r = 0; r < np; r++) {
        int t = (me + r) % np, from = ((me - r) % np + np) % np;
        ARMCI_Access_begin(seg[me]);
        memset(seg[me], fill_of(me), SEG);
        ARMCI_Access_end(seg[me]);
        ARMCI_Barrier();
        memset(shadow, fill_of(t), SEG);
        for (int k = 0; k < NSIZES; k++) {
            int s = sizes[k], o = off_of(s);
            for (int i = 0; i < s; i++)
                src[i] = tst_byte(me * 64 + k, i);
            CHECK_EQ(ARMCI_Put(src, (char *)seg[t] + o, s, t), 0, "ARMCI_Put return");
            memcpy(shadow + o, src, s);
            /* Location consistency: our own get after our put sees it,
             * with a few bytes either side to catch overruns. */
            int lo = o >= 8 ? o - 8 : 0, hi = o + s + 8 <= SEG ? o + s + 8 : SEG;
            memset(dst, 0, hi - lo);
            CHECK_EQ(ARMCI_Get((char *)seg[t] + lo, dst, hi - lo, t), 0, "ARMCI_Get return");
            CHECK(memcmp(dst, shadow + lo, hi - lo) == 0,
                  "get after put: size %d to rank %d differs", s, t);
        }
        ARMCI_Barrier();
        /* The owner reads its own memory directly. */
        replay(shadow, from, me);
        ARMCI_Access_begin(seg[me]);
        CHECK(memcmp(seg[me], shadow, SEG) == 0, "local view after round %d from %d", r, from);
        ARMCI_Access_end(seg[me]);
        ARMCI_Barrier();
    }
    TST_SAY("put_get: %d sizes 1 B .. 1 MiB to every rank; get-after-put and owner view exact",
            NSIZES);


    /* A get of a piece written by another rank, at irregular offsets. */
    for (int t = 0; t < np; t++) {
        int from = ((t - (np - 1)) % np + np) % np; /* writer in last round */
        replay(shadow, from, t);
        for (int k = 0; k < 12; k++) {
            int o = (k * 98765 + me * 31) % (SEG - 5000), s = 1 + (k * 337) % 4999;
            CHECK_EQ(ARMCI_Get((char *)seg[t] + o, dst, s, t), 0, "ARMCI_Get");
            CHECK(memcmp(dst, shadow + o, s) == 0, "get [%d,+%d) of rank %d", o, s, t);
        }
    }
    ARMCI_Barrier();
    TST_SAY("put_get: gets at irregular offsets of data written by other ranks");

    /* Values: rank me writes slot me on every rank. */
    void **val = malloc(sizeof(void *) * np);
    long vbytes = (long)np * (sizeof(int) + sizeof(long) + sizeof(float) + sizeof(double)) * 2;
    CHECK_EQ(ARMCI_Malloc(val, vbytes), 0, "ARMCI_Malloc values");
#define VI(p) ((int *)(p))
#define VL(p) ((long *)((char *)(p) + 2 * np * sizeof(int)))
#define VF(p) ((float *)((char *)(p) + 2 * np * (sizeof(int) + sizeof(long))))
#define VD(p) ((double *)((char *)(p) + 2 * np * (sizeof(int) + sizeof(long) + sizeof(float))))
    for (int t = 0; t < np; t++) {
        armci_hdl_t h[4];
        CHECK_EQ(ARMCI_PutValueInt(-7 * me - 1, &VI(val[t])[me], t), 0, "PutValueInt");
        CHECK_EQ(ARMCI_PutValueLong(0x100000000L * (me + 1) + 5, &VL(val[t])[me], t), 0, "PutValueLong");
        CHECK_EQ(ARMCI_PutValueFloat(1.5f * me + 0.25f, &VF(val[t])[me], t), 0, "PutValueFloat");
        CHECK_EQ(ARMCI_PutValueDouble(1e300 / (me + 1), &VD(val[t])[me], t), 0, "PutValueDouble");
        for (int i = 0; i < 4; i++)
            ARMCI_INIT_HANDLE(&h[i]);
        ARMCI_NbPutValueInt(me * 3 + 1, &VI(val[t])[np + me], t, &h[0]);
        ARMCI_NbPutValueLong(-0x200000000L * (me + 1), &VL(val[t])[np + me], t, &h[1]);
        ARMCI_NbPutValueFloat(-0.5f * me, &VF(val[t])[np + me], t, &h[2]);
        ARMCI_NbPutValueDouble(3.0e-200 * (me + 1), &VD(val[t])[np + me], t, &h[3]);
        for (int i = 0; i < 4; i++)
            CHECK_EQ(ARMCI_Wait(&h[i]), 0, "Wait on value put");
    }
    ARMCI_Barrier();
    for (int t = 0; t < np; t++)
        for (int s = 0; s < np; s++) {
            CHECK_EQ(ARMCI_GetValueInt(&VI(val[t])[s], t), -7 * s - 1, "GetValueInt");
            CHECK_EQ(ARMCI_GetValueLong(&VL(val[t])[s], t), 0x100000000L * (s + 1) + 5, "GetValueLong");
            CHECK(ARMCI_GetValueFloat(&VF(val[t])[s], t) == 1.5f * s + 0.25f, "GetValueFloat %d@%d", s, t);
            CHECK(ARMCI_GetValueDouble(&VD(val[t])[s], t) == 1e300 / (s + 1), "GetValueDouble %d@%d", s, t);
            CHECK_EQ(ARMCI_GetValueInt(&VI(val[t])[np + s], t), s * 3 + 1, "NbPutValueInt");
            CHECK_EQ(ARMCI_GetValueLong(&VL(val[t])[np + s], t), -0x200000000L * (s + 1), "NbPutValueLong");
            CHECK(ARMCI_GetValueFloat(&VF(val[t])[np + s], t) == -0.5f * s, "NbPutValueFloat %d@%d", s, t);
            CHECK(ARMCI_GetValueDouble(&VD(val[t])[np + s], t) == 3.0e-200 * (s + 1),
                  "NbPutValueDouble %d@%d", s, t);
        }
    ARMCI_Access_begin(val[me]);
    for (int s = 0; s < np; s++) {
        CHECK_EQ(VI(val[me])[s], -7 * s - 1, "local int slot");
        CHECK_EQ(VL(val[me])[np + s], -0x200000000L * (s + 1), "local long slot");
        CHECK(VD(val[me])[s] == 1e300 / (s + 1), "local double slot %d", s);
    }
    ARMCI_Access_end(val[me]);
    ARMCI_Barrier();
    TST_SAY("put_get: PutValue/NbPutValue/GetValue int, long, float, double on every rank");

    /* ARMCI_Copy: local copies, including into and out of ARMCI memory. */
    for (int s = 1; s < 100000; s = s * 5 + 3) {
        for (int i = 0; i < s; i++)
            src[i] = tst_byte(s, i);
        memset(dst, 0, s + 1);
        ARMCI_Copy(src, dst, s);
        CHECK(memcmp(src, dst, s) == 0 && dst[s] == 0, "ARMCI_Copy %d bytes", s);
        ARMCI_Access_begin(seg[me]);
        ARMCI_Copy(src, (char *)seg[me] + 3, s);
        memset(dst, 0, s);
        ARMCI_Copy((char *)seg[me] + 3, dst, s);
        ARMCI_Access_end(seg[me]);
        CHECK(memcmp(src, dst, s) == 0, "ARMCI_Copy via ARMCI memory %d bytes", s);
    }
    ARMCI_Barrier();
    TST_SAY("put_get: ARMCI_Copy local copies");

    /* Put_flag / PutS_flag: rank me sends to its right neighbour, which
     * waits for the flag and then checks the data. */
    void **fl = malloc(sizeof(void *) * np);
    CHECK_EQ(ARMCI_Malloc(fl, 4 * sizeof(int)), 0, "ARMCI_Malloc flags");
    ARMCI_Access_begin(fl[me]);
    memset(fl[me], 0, 4 * sizeof(int));
    ARMCI_Access_end(fl[me]);
    ARMCI_Access_begin(seg[me]);
    memset(seg[me], 0, 8192);
    ARMCI_Access_end(seg[me]);
    ARMCI_Barrier();
    int right = (me + 1) % np, left = (me + np - 1) % np;
    for (int i = 0; i < 3000; i++)
        src[i] = tst_byte(500 + me, i);
    CHECK_EQ(ARMCI_Put_flag(src, seg[right], 3000, &((int *)fl[right])[0], 11 + me, right), 0,
             "ARMCI_Put_flag");
    /* strided: 7 rows of 100 bytes, source stride 130, destination 300 */
    int ss[1] = { 130 }, ds[1] = { 300 }, cnt[2] = { 100, 7 };
    /* (ARMCI-MPI 0.3 returns 1 from PutS_flag, so its value is not checked) */
    ARMCI_PutS_flag(src, ss, (char *)seg[right] + 4000, ds, cnt, 1, &((int *)fl[right])[1],
                    21 + me, right);
    CHECK(wait_flag(&((int *)fl[me])[0], me, 11 + left), "Put_flag flag never arrived");
    ARMCI_Access_begin(seg[me]);
    int ok = 1;
    for (int i = 0; i < 3000; i++)
        ok &= ((unsigned char *)seg[me])[i] == tst_byte(500 + left, i);
    ARMCI_Access_end(seg[me]);
    CHECK(ok, "data of Put_flag not there when flag set");
    CHECK(wait_flag(&((int *)fl[me])[1], me, 21 + left), "PutS_flag flag never arrived");
    ARMCI_Access_begin(seg[me]);
    ok = 1;
    for (int r = 0; r < 7; r++)
        for (int i = 0; i < 100; i++)
            ok &= ((unsigned char *)seg[me])[4000 + r * 300 + i] == tst_byte(500 + left, r * 130 + i);
    for (int r = 0; r < 6; r++)
        ok &= ((unsigned char *)seg[me])[4000 + r * 300 + 100] == 0;
    ARMCI_Access_end(seg[me]);
    CHECK(ok, "data of PutS_flag not there (or gaps written) when flag set");
    ARMCI_Barrier();
    TST_SAY("put_get: Put_flag and PutS_flag: data complete when the flag is seen");

    /* Overlapping puts back to back, each protocol after each other: a
     * big one (a rendezvous between nodes) still being received while
     * eager ones arrive behind it, and the reverse. The last write of
     * every byte must win. */
    {
        static const int bsz[] = { 1048576, 200000, 70000, 20000, 5, 300000, 65536 };
        static const int boff[] = { 0, 1000, 50000, 60000, 60010, 40000, 45000 };
        int t = (me + 1) % np;
        ARMCI_Barrier();
        memset(shadow, 0, SEG);
        for (int rep = 0; rep < 4; rep++) {
            for (int k = 0; k < (int)(sizeof bsz / sizeof bsz[0]); k++) {
                for (int i = 0; i < bsz[k]; i++)
                    src[i] = tst_byte(rep * 16 + k + 100, i);
                CHECK_EQ(ARMCI_Put(src, (char *)seg[t] + boff[k], bsz[k], t), 0, "ARMCI_Put");
                memcpy(shadow + boff[k], src, bsz[k]);
            }
            ARMCI_Fence(t);
            memset(dst, 0, SEG);
            CHECK_EQ(ARMCI_Get(seg[t], dst, 1048576, t), 0, "ARMCI_Get");
            CHECK(memcmp(dst, shadow, 1048576) == 0,
                  "overlapping puts of every protocol to rank %d, pass %d: last write lost", t, rep);
        }
        ARMCI_Barrier();
        TST_SAY("put_get: overlapping back-to-back puts of 5 B .. 1 MiB, last write wins");
    }

    ARMCI_Free(fl[me]);
    ARMCI_Free(val[me]);
    ARMCI_Free(seg[me]);
    free(fl); free(val); free(seg); free(src); free(dst); free(shadow);
    ARMCI_Finalize();
    MPI_Finalize();
    return tst_finish("put_get");
}
