/* random: a random sequence of operations checked against a model (issue 23
 * item 7). Every rank owns a private region of REG bytes in every rank's
 * allocation and keeps a shadow of it; it puts, gets, accumulates
 * (integers, so sums are exact), in every form (contiguous, strided,
 * vector, blocking and non-blocking with up to RING outstanding), fences,
 * and checks every get against the shadow. Besides, all ranks add into a
 * shared counter and a shared accumulate area on every rank, whose final
 * values are checked against what everyone added. Run it under each forced
 * path: the model does not change, only the path. Arguments: [ops] [seed]. */
#include <armci.h>
#include <stdlib.h>
#include <string.h>
#include "strided.h"

#define REG 65536L
#define SHARED 64            /* longs in each rank's shared accumulate area */
#define RING 4

static int me, np;
static void **base;
static unsigned char **shadow;
static unsigned long long rng;

static unsigned char *region(int t) { return (unsigned char *)base[t] + REG * me; }
static long *counter(int t) { return (long *)((char *)base[t] + REG * np); }
static long *shared_area(int t) { return counter(t) + 1; }

typedef struct nbslot {
    armci_hdl_t h;
    int busy, is_get, t;
    const char *what;        /* get: its form, for the failure message */
    unsigned char *buf;      /* put source or get destination */
    unsigned char *expect;   /* get: what the destination must hold */
    long len;
} nbslot_t;

static nbslot_t ring[RING];
static int nb_gets[1024];    /* outstanding non-blocking gets per target */

static void slot_done(nbslot_t *s)
{
    if (!s->busy)
        return;
    ARMCI_Wait(&s->h);
    if (s->is_get) {
        long bad = 0;
        while (bad < s->len && s->buf[bad] == s->expect[bad])
            bad++;
        CHECK(bad == s->len, "non-blocking %s get of %ld bytes from %d: byte %ld is %#x, "
              "expected %#x", s->what, s->len, s->t, bad, bad < s->len ? s->buf[bad] : 0,
              bad < s->len ? s->expect[bad] : 0);
        nb_gets[s->t]--;
    }
    s->busy = 0;
}

/* Before writing to t, a non-blocking get from t completes: ARMCI leaves
 * the bytes of a get in flight undefined under a concurrent write. */
static void quiet_gets(int t)
{
    for (int i = 0; i < RING && nb_gets[t]; i++)
        if (ring[i].busy && ring[i].is_get && ring[i].t == t)
            slot_done(&ring[i]);
}

/* A slot for a new call. Its last call's fields are cleared: a put that
 * took a slot last used by a get must not look like a get from that target
 * to quiet_gets, which would mark it done (and its buffer free) unwaited. */
static nbslot_t *slot_take(void)
{
    nbslot_t *s = &ring[tst_range(&rng, 0, RING - 1)];
    slot_done(s);
    ARMCI_INIT_HANDLE(&s->h);
    s->is_get = 0;
    s->t = -1;
    s->busy = 1;
    return s;
}

static void op_contig(int t, int nb, int get)
{
    long len = tst_range(&rng, 1, (int)REG), off = tst_range(&rng, 0, (int)(REG - len));
    nbslot_t *s = nb ? slot_take() : NULL;
    unsigned char *buf = s ? s->buf : malloc(REG);
    if (get) {
        if (s) {
            memcpy(s->expect, shadow[t] + off, len);
            s->is_get = 1, s->t = t, s->len = len, s->what = "contiguous";
            nb_gets[t]++;
            ARMCI_NbGet(region(t) + off, buf, (int)len, t, &s->h);
        } else {
            ARMCI_Get(region(t) + off, buf, (int)len, t);
            CHECK(memcmp(buf, shadow[t] + off, len) == 0, "get %ld at %ld from %d", len, off, t);
        }
    } else {
        quiet_gets(t);
        shp_fill(buf, len, SHP_COPY, &rng);
        memcpy(shadow[t] + off, buf, len);
        if (s) {
            s->is_get = 0, s->t = t;
            ARMCI_NbPut(buf, region(t) + off, (int)len, t, &s->h);
        } else {
            ARMCI_Put(buf, region(t) + off, (int)len, t);
        }
    }
    if (!s)
        free(buf);
}

/* kind: 0 put, 1 get, 2 long accumulate. */
static void op_strided(int t, int nb, int kind)
{
    shape_t sh;
    int L = tst_range(&rng, 0, 3), elem = kind == 2 ? 8 : 1;
    shp_random(&rng, &sh, L, elem, REG / 2);
    long doff = elem * tst_range(&rng, 0, (int)((REG - sh.dext) / elem));
    nbslot_t *s = nb ? slot_take() : NULL;
    unsigned char *buf = s ? s->buf : malloc(REG);
    if (kind == 1) {
        unsigned char *exp = s ? s->expect : malloc(REG);
        memset(buf, 0xA5, sh.sext);
        memset(exp, 0xA5, sh.sext);
        shp_apply(shadow[t] + doff, sh.dst, exp, sh.sst, sh.count, L, SHP_COPY, 0);
        if (s) {
            s->is_get = 1, s->t = t, s->len = sh.sext, s->what = "strided";
            nb_gets[t]++;
            ARMCI_NbGetS(region(t) + doff, sh.dst, buf, sh.sst, sh.count, L, t, &s->h);
        } else {
            ARMCI_GetS(region(t) + doff, sh.dst, buf, sh.sst, sh.count, L, t);
            CHECK(memcmp(buf, exp, sh.sext) == 0, "strided get level %d from %d", L, t);
            free(exp);
        }
    } else {
        quiet_gets(t);
        int aop = kind == 2 ? 1 /* ARMCI_ACC_LNG */ : SHP_COPY;
        long scale = kind == 2 ? tst_range(&rng, -3, 3) : 0;
        shp_fill(buf, sh.sext, aop, &rng);
        shp_apply(buf, sh.sst, shadow[t] + doff, sh.dst, sh.count, L, aop, scale);
        if (s)
            s->is_get = 0, s->t = t;
        if (kind == 0 && s)
            ARMCI_NbPutS(buf, sh.sst, region(t) + doff, sh.dst, sh.count, L, t, &s->h);
        else if (kind == 0)
            ARMCI_PutS(buf, sh.sst, region(t) + doff, sh.dst, sh.count, L, t);
        else if (s)
            ARMCI_NbAccS(ARMCI_ACC_LNG, &scale, buf, sh.sst, region(t) + doff, sh.dst, sh.count,
                         L, t, &s->h);
        else
            ARMCI_AccS(ARMCI_ACC_LNG, &scale, buf, sh.sst, region(t) + doff, sh.dst, sh.count,
                       L, t);
    }
    if (!s)
        free(buf);
}

/* A vector put or get of n segments of len bytes at distinct offsets. */
static void op_vector(int t, int get)
{
    int n = tst_range(&rng, 1, 8);
    long len = tst_range(&rng, 1, (int)(REG / 8));
    unsigned char *buf = malloc((size_t)n * len);
    void *src[8], *dst[8];
    for (int i = 0; i < n; i++) {
        long off = (long)i * (REG / 8) + tst_range(&rng, 0, (int)(REG / 8 - len));
        unsigned char *r = region(t) + off;
        src[i] = get ? (void *)r : buf + i * len;
        dst[i] = get ? buf + i * len : (void *)r;
        if (!get) {
            shp_fill(buf + i * len, len, SHP_COPY, &rng);
            memcpy(shadow[t] + off, buf + i * len, len);
        }
    }
    armci_giov_t iov = { src, dst, (int)len, n };
    if (get) {
        ARMCI_GetV(&iov, 1, t);
        for (int i = 0; i < n; i++)
            CHECK(memcmp(dst[i], shadow[t] + ((unsigned char *)src[i] - region(t)), len) == 0,
                  "vector get segment %d from %d", i, t);
    } else {
        quiet_gets(t);
        ARMCI_PutV(&iov, 1, t);
    }
    free(buf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int nops = argc > 1 ? atoi(argv[1]) : 600;
    unsigned long long seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 12345;
    rng = seed * 1000003ULL + (unsigned long long)me * 7919ULL + 1;
    if (np > 1024) {
        TST_SAY("random: more than 1024 ranks, skipped");
        ARMCI_Finalize();
        MPI_Finalize();
        return 0;
    }
    base = malloc((size_t)np * sizeof *base);
    shadow = malloc((size_t)np * sizeof *shadow);
    long bytes = REG * np + (long)sizeof(long) * (SHARED + 1);
    CHECK_EQ(ARMCI_Malloc(base, bytes), 0, "ARMCI_Malloc");
    ARMCI_Access_begin(base[me]);
    memset(base[me], 0, (size_t)bytes);
    ARMCI_Access_end(base[me]);
    for (int t = 0; t < np; t++)
        shadow[t] = calloc(REG, 1);
    for (int i = 0; i < RING; i++) {
        ring[i].buf = malloc(REG);
        ring[i].expect = malloc(REG);
    }
    long *fadds = calloc((size_t)np, sizeof *fadds);
    long *added = calloc((size_t)np * SHARED, sizeof *added);
    long *last_old = malloc((size_t)np * sizeof *last_old);
    for (int t = 0; t < np; t++)
        last_old[t] = -1;
    ARMCI_Barrier();

    for (int k = 0; k < nops; k++) {
        int t = tst_range(&rng, 0, np - 1);
        int c = tst_range(&rng, 0, 13);
        switch (c) {
        case 0: case 1: op_contig(t, c == 1, 0); break;
        case 2: case 3: op_contig(t, c == 3, 1); break;
        case 4: case 5: op_strided(t, c == 5, 0); break;
        case 6: case 7: op_strided(t, c == 7, 1); break;
        case 8: op_strided(t, tst_range(&rng, 0, 1), 2); break;
        case 9: op_vector(t, tst_range(&rng, 0, 1)); break;
        case 10: {
            long old = -1;
            ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, counter(t), 1, t);
            CHECK(old > last_old[t], "fetch-and-add on %d returned %ld after %ld", t, old,
                  last_old[t]);
            last_old[t] = old;
            fadds[t]++;
            break;
        }
        case 11: {
            int e = tst_range(&rng, 0, SHARED - 1), n = tst_range(&rng, 1, SHARED - e);
            long v[SHARED], scale = 1;
            for (int i = 0; i < n; i++) {
                v[i] = tst_range(&rng, -50, 50);
                added[t * SHARED + e + i] += v[i];
            }
            ARMCI_Acc(ARMCI_ACC_LNG, &scale, v, shared_area(t) + e, n * (int)sizeof(long), t);
            break;
        }
        case 12: if (tst_range(&rng, 0, 3)) ARMCI_Fence(t); else ARMCI_AllFence(); break;
        default: slot_done(&ring[tst_range(&rng, 0, RING - 1)]); break;
        }
    }
    for (int i = 0; i < RING; i++)
        slot_done(&ring[i]);
    ARMCI_WaitAll();
    ARMCI_AllFence();
    /* Final state: my private regions everywhere, read back. */
    unsigned char *tmp = malloc(REG);
    for (int t = 0; t < np; t++) {
        ARMCI_Get(region(t), tmp, (int)REG, t);
        CHECK(memcmp(tmp, shadow[t], REG) == 0, "final region on rank %d", t);
    }
    ARMCI_Barrier();
    /* Shared counter and accumulate area: what everyone added. */
    long *fsum = calloc((size_t)np, sizeof *fsum), *asum = calloc((size_t)np * SHARED, sizeof *asum);
    MPI_Allreduce(fadds, fsum, np, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(added, asum, np * SHARED, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    ARMCI_Access_begin(base[me]);
    CHECK_EQ(*counter(me), fsum[me], "shared counter");
    int ok = 1;
    for (int e = 0; e < SHARED; e++)
        ok &= shared_area(me)[e] == asum[me * SHARED + e];
    CHECK(ok, "shared accumulate area");
    ARMCI_Access_end(base[me]);
    TST_SAY("random: %d operations per rank against the model", nops);
    ARMCI_Barrier();
    ARMCI_Free(base[me]);
    for (int t = 0; t < np; t++)
        free(shadow[t]);
    for (int i = 0; i < RING; i++) {
        free(ring[i].buf);
        free(ring[i].expect);
    }
    free(shadow); free(base); free(tmp); free(fadds); free(added); free(last_old);
    free(fsum); free(asum);
    int rc = tst_finish("random");
    ARMCI_Finalize();
    MPI_Finalize();
    return rc;
}
