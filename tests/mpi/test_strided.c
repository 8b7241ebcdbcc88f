/* strided: PutS/GetS/AccS for stride levels 0..7 with random shapes checked
 * against a reference loop; armci_read_strided / armci_write_strided. */
#include <armci.h>
#include "strided.h"

#define REG 131072L   /* bytes of a (source, target) region */
#define TRIALS 3

/* Runs (do_ops) or only replays on `shadow` the sequence of source s on
 * target t. region: the remote address of the region (do_ops only). */
static void sequence(int s, int t, unsigned char *shadow, int do_ops, void *region,
                     unsigned char *sbuf, unsigned char *lbuf, unsigned char *full)
{
    unsigned long long rng = 1000003ULL * (s + 1) + 7919ULL * (t + 1);
    unsigned long long crng = rng ^ 0xabcdefULL;   /* for checks only */
    for (int L = 0; L <= SHP_MAXL; L++) {
        for (int trial = 0; trial < TRIALS; trial++) {
            shape_t sh;
            int op = trial == 0 ? SHP_COPY : trial == 1 ? ARMCI_ACC_DBL : ARMCI_ACC_INT;
            int elem = op == SHP_COPY ? 1 : op == ARMCI_ACC_INT ? 4 : 8;
            shp_random(&rng, &sh, L, elem, REG / 2);
            long doff = elem * tst_range(&rng, 0, (int)((REG - sh.dext) / elem));
            long scale = tst_range(&rng, -3, 4);
            shp_fill(sbuf, sh.sext, op, &rng);
            shp_apply(sbuf, sh.sst, shadow + doff, sh.dst, sh.count, L, op, scale);
            if (!do_ops)
                continue;
            unsigned char *rdst = (unsigned char *)region + doff;
            int rc;
            if (op == SHP_COPY) {
                rc = ARMCI_PutS(sbuf, sh.sst, rdst, sh.dst, sh.count, L, t);
                CHECK_EQ(rc, 0, "ARMCI_PutS return");
            } else if (op == ARMCI_ACC_DBL) {
                double sc = (double)scale;
                rc = ARMCI_AccS(op, &sc, sbuf, sh.sst, rdst, sh.dst, sh.count, L, t);
                CHECK_EQ(rc, 0, "ARMCI_AccS(DBL) return");
            } else {
                int sc = (int)scale;
                rc = ARMCI_AccS(op, &sc, sbuf, sh.sst, rdst, sh.dst, sh.count, L, t);
                CHECK_EQ(rc, 0, "ARMCI_AccS(INT) return");
            }
            /* GetS of the same remote shape into a local shape of its own. */
            int lst[SHP_MAXL];
            shp_strides(&crng, lst, sh.count, L, 1);
            long lext = shp_extent(lst, sh.count, L);
            memset(lbuf, 0xee, lext + 16);
            rc = ARMCI_GetS(rdst, sh.dst, lbuf, lst, sh.count, L, t);
            CHECK_EQ(rc, 0, "ARMCI_GetS return");
            /* expected: the shadow gathered into the same local shape */
            memset(full, 0xee, lext + 16);
            shp_apply(shadow + doff, sh.dst, full, lst, sh.count, L, SHP_COPY, 0);
            CHECK(memcmp(lbuf, full, lext + 16) == 0,
                  "GetS after %s level %d (count0 %d) from rank %d differs",
                  op == SHP_COPY ? "PutS" : "AccS", L, sh.count[0], t);
        }
        if (do_ops) {
            ARMCI_Get(region, full, REG, t);
            CHECK(memcmp(full, shadow, REG) == 0,
                  "region on rank %d after level %d differs from reference", t, L);
        }
    }
}

/* ARMCI's convention (GA's ghost-cell update depends on it): write_strided
 * packs the strided region at ptr into buf, read_strided unpacks buf into
 * the strided region at ptr. Each expectation is computed from untouched
 * copies, and the side that is only read must come back unchanged, so that
 * swapped directions fail. */
static void local_strided(void)
{
    unsigned long long rng = 42 + tst_me();
    unsigned char *a = malloc(REG), *a0 = malloc(REG), *b = malloc(REG), *b0 = malloc(REG);
    unsigned char *c = malloc(REG), *e = malloc(REG);
    for (int L = 0; L <= SHP_MAXL; L++) {
        shape_t sh;
        shp_random(&rng, &sh, L, 1, REG / 2);
        long n = sh.count[0];
        for (int i = 1; i <= L; i++)
            n *= sh.count[i];
        /* contiguous strides describe the packed layout */
        int cst[SHP_MAXL];
        long prev = sh.count[0];
        for (int i = 0; i < L; i++) {
            cst[i] = (int)prev;
            prev *= sh.count[i + 1];
        }

        shp_fill(a, sh.sext, SHP_COPY, &rng);
        memcpy(a0, a, sh.sext + 8);
        memset(b, 0, n + 8);
        armci_write_strided(a, L, sh.sst, sh.count, (char *)b);
        memset(e, 0, n + 8);
        shp_apply(a0, sh.sst, e, cst, sh.count, L, SHP_COPY, 0);
        CHECK(memcmp(b, e, n + 8) == 0, "armci_write_strided level %d: buf is not the packed region", L);
        CHECK(memcmp(a, a0, sh.sext + 8) == 0, "armci_write_strided level %d changed the region", L);

        shp_fill(b, n, SHP_COPY, &rng);
        memcpy(b0, b, n + 8);
        memset(c, 0x11, sh.sext + 8);
        memcpy(e, c, sh.sext + 8);
        armci_read_strided(c, L, sh.sst, sh.count, (char *)b);
        shp_apply(b0, cst, e, sh.sst, sh.count, L, SHP_COPY, 0);
        CHECK(memcmp(c, e, sh.sext + 8) == 0, "armci_read_strided level %d: region is not buf unpacked", L);
        CHECK(memcmp(b, b0, n + 8) == 0, "armci_read_strided level %d changed buf", L);
    }
    free(a); free(a0); free(b); free(b0); free(c); free(e);
}

/* Layouts the destination-overlap check (decision 031) must accept: rows
 * that interleave without sharing a byte, and a source row read thrice. */
static void legal_layouts(void **base, int me, int np)
{
    int t = (me + 1) % np;
    unsigned char *dst = (unsigned char *)base[t] + REG * me, src[64], got[64], want[64];
    for (int i = 0; i < 64; i++)
        src[i] = (unsigned char)(i + 1 + me);
    memset(want, 0, sizeof want);
    ARMCI_Put(want, dst, 64, t);
    /* rows of 8 at 0, 32, 8, 40: the level-2 stride is under the level-1 extent */
    int cnt[3] = { 8, 2, 2 }, sst[2] = { 8, 16 }, dst_st[2] = { 32, 8 };
    CHECK_EQ(ARMCI_PutS(src, sst, dst, dst_st, cnt, 2, t), 0, "PutS interleaved");
    for (int i2 = 0; i2 < 2; i2++)
        for (int i1 = 0; i1 < 2; i1++)
            memcpy(want + 32 * i1 + 8 * i2, src + 8 * i1 + 16 * i2, 8);
    ARMCI_Get(dst, got, 64, t);
    CHECK(memcmp(got, want, 64) == 0, "interleaved rows landed where they belong");
    /* one 16-byte source row (stride 0) into three destination rows */
    int cnt2[2] = { 16, 3 }, zero[1] = { 0 }, d16[1] = { 16 };
    CHECK_EQ(ARMCI_PutS(src, zero, dst, d16, cnt2, 1, t), 0, "PutS with source stride 0");
    for (int k = 0; k < 3; k++)
        memcpy(want + 16 * k, src, 16);
    ARMCI_Get(dst, got, 64, t);
    CHECK(memcmp(got, want, 64) == 0, "a source row read thrice");
}

int main(int argc, char **argv)
{
    int me, np;
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);

    void **base = malloc(sizeof(void *) * np);
    CHECK_EQ(ARMCI_Malloc(base, REG * np), 0, "ARMCI_Malloc");
    ARMCI_Access_begin(base[me]);
    memset(base[me], 0, REG * np);
    ARMCI_Access_end(base[me]);
    ARMCI_Barrier();

    unsigned char *shadow = malloc(REG), *sbuf = malloc(REG), *lbuf = malloc(REG + 64),
                  *full = malloc(REG + 64);
    /* Region `me` of every rank belongs to us; visit targets in a rotated order. */
    for (int k = 0; k < np; k++) {
        int t = (me + k) % np;
        memset(shadow, 0, REG);
        sequence(me, t, shadow, 1, (char *)base[t] + REG * me, sbuf, lbuf, full);
    }
    ARMCI_Barrier();
    TST_SAY("strided: PutS, AccS(DBL, INT), GetS at levels 0..%d, %d shapes each, to every rank",
            SHP_MAXL, TRIALS);
    /* The owner checks every region against a replay of its writer. */
    ARMCI_Access_begin(base[me]);
    for (int s = 0; s < np; s++) {
        memset(shadow, 0, REG);
        sequence(s, me, shadow, 0, NULL, sbuf, lbuf, full);
        CHECK(memcmp((char *)base[me] + REG * s, shadow, REG) == 0,
              "owner's view of region of rank %d differs", s);
    }
    ARMCI_Access_end(base[me]);
    TST_SAY("strided: owners' direct view equals the reference");

    ARMCI_Barrier();   /* every owner has checked before the regions change */
    legal_layouts(base, me, np);
    TST_SAY("strided: interleaved destination rows and overlapping source rows are accepted");

    local_strided();
    TST_SAY("strided: armci_write_strided packs, armci_read_strided unpacks, levels 0..%d",
            SHP_MAXL);

    ARMCI_Barrier();
    ARMCI_Free(base[me]);
    free(base); free(shadow); free(sbuf); free(lbuf); free(full);
    ARMCI_Finalize();
    MPI_Finalize();
    return tst_finish("strided");
}
