/* vector: PutV/GetV/AccV with several giov descriptors of different byte
 * lengths, segments scattered in shuffled order. */
#include <armci.h>
#include "strided.h"

#define REG 65536L
#define ROUNDS 6
#define MAXSEG 24
#define MAXIOV 4

typedef struct {
    int n;                       /* descriptors          */
    int bytes[MAXIOV], len[MAXIOV];
    long soff[MAXIOV][MAXSEG];   /* offsets in the local buffer */
    long doff[MAXIOV][MAXSEG];   /* offsets in the remote region */
} vshape_t;

static void shuffle(long *a, int n, unsigned long long *rng)
{
    for (int i = n - 1; i > 0; i--) {
        int j = tst_range(rng, 0, i);
        long x = a[i]; a[i] = a[j]; a[j] = x;
    }
}

static void vrandom(unsigned long long *rng, vshape_t *v, int elem)
{
    static const int choice[] = { 1, 3, 8, 24, 100, 1000, 4096 };
    long scur = 0, dcur = 0;
    v->n = tst_range(rng, 2, MAXIOV);
    for (int d = 0; d < v->n; d++) {
        int b;
        do
            b = choice[tst_range(rng, 0, 6)];
        while (b % elem);
        v->bytes[d] = b;
        v->len[d] = tst_range(rng, 1, b >= 1000 ? 3 : MAXSEG);
        for (int i = 0; i < v->len[d]; i++) {
            scur += elem * tst_range(rng, 0, 3);
            dcur += elem * tst_range(rng, 0, 5);
            v->soff[d][i] = scur;
            v->doff[d][i] = dcur;
            scur += b;
            dcur += b;
        }
        shuffle(v->doff[d], v->len[d], rng);
    }
}

static void vapply(const vshape_t *v, const unsigned char *src, unsigned char *dst, int op,
                   long scale)
{
    for (int d = 0; d < v->n; d++)
        for (int i = 0; i < v->len[d]; i++) {
            int cnt[1] = { v->bytes[d] };
            shp_apply(src + v->soff[d][i], NULL, dst + v->doff[d][i], NULL, cnt, 0, op, scale);
        }
}

/* Builds giov descriptors; src or dst side is remote depending on dir. */
static void vbuild(const vshape_t *v, armci_giov_t *iov, void **ptrs, unsigned char *local,
                   unsigned char *remote, int put)
{
    for (int d = 0; d < v->n; d++) {
        void **s = ptrs + 2 * d * MAXSEG, **t = s + MAXSEG;
        for (int i = 0; i < v->len[d]; i++) {
            s[i] = put ? (void *)(local + v->soff[d][i]) : (void *)(remote + v->doff[d][i]);
            t[i] = put ? (void *)(remote + v->doff[d][i]) : (void *)(local + v->soff[d][i]);
        }
        iov[d].src_ptr_array = s;
        iov[d].dst_ptr_array = t;
        iov[d].bytes = v->bytes[d];
        iov[d].ptr_array_len = v->len[d];
    }
}

static void sequence(int s, int t, unsigned char *shadow, int do_ops, unsigned char *region,
                     unsigned char *sbuf, unsigned char *lbuf, unsigned char *exp)
{
    unsigned long long rng = 99991ULL * (s + 3) + 31ULL * (t + 1);
    armci_giov_t iov[MAXIOV];
    void *ptrs[2 * MAXIOV * MAXSEG];
    for (int r = 0; r < ROUNDS; r++) {
        int op = r % 3 == 0 ? SHP_COPY : r % 3 == 1 ? ARMCI_ACC_DBL : ARMCI_ACC_INT;
        int elem = op == SHP_COPY ? 1 : op == ARMCI_ACC_INT ? 4 : 8;
        vshape_t v;
        vrandom(&rng, &v, elem);
        long scale = tst_range(&rng, -2, 5);
        shp_fill(sbuf, REG, op, &rng);
        vapply(&v, sbuf, shadow, op, scale);
        if (!do_ops)
            continue;
        vbuild(&v, iov, ptrs, sbuf, region, 1);
        if (op == SHP_COPY) {
            CHECK_EQ(ARMCI_PutV(iov, v.n, t), 0, "ARMCI_PutV return");
        } else if (op == ARMCI_ACC_DBL) {
            double sc = (double)scale;
            CHECK_EQ(ARMCI_AccV(op, &sc, iov, v.n, t), 0, "ARMCI_AccV(DBL) return");
        } else {
            int sc = (int)scale;
            CHECK_EQ(ARMCI_AccV(op, &sc, iov, v.n, t), 0, "ARMCI_AccV(INT) return");
        }
        /* GetV the same segments back to where they came from locally */
        memset(lbuf, 0xee, REG);
        memset(exp, 0xee, REG);
        vbuild(&v, iov, ptrs, lbuf, region, 0);
        CHECK_EQ(ARMCI_GetV(iov, v.n, t), 0, "ARMCI_GetV return");
        for (int d = 0; d < v.n; d++)
            for (int i = 0; i < v.len[d]; i++)
                memcpy(exp + v.soff[d][i], shadow + v.doff[d][i], v.bytes[d]);
        CHECK(memcmp(lbuf, exp, REG) == 0, "GetV after round %d (%d descriptors) from rank %d",
              r, v.n, t);
        ARMCI_Get(region, lbuf, REG, t);
        CHECK(memcmp(lbuf, shadow, REG) == 0, "region on rank %d after round %d", t, r);
    }
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
    unsigned char *shadow = malloc(REG), *sbuf = malloc(REG), *lbuf = malloc(REG),
                  *exp = malloc(REG);
    for (int k = 0; k < np; k++) {
        int t = (me + k) % np;
        memset(shadow, 0, REG);
        sequence(me, t, shadow, 1, (unsigned char *)base[t] + REG * me, sbuf, lbuf, exp);
    }
    ARMCI_Barrier();
    TST_SAY("vector: PutV, AccV(DBL, INT), GetV with 2..%d descriptors of 1..4096 B to every rank",
            MAXIOV);
    ARMCI_Access_begin(base[me]);
    for (int s = 0; s < np; s++) {
        memset(shadow, 0, REG);
        sequence(s, me, shadow, 0, NULL, sbuf, lbuf, exp);
        CHECK(memcmp((char *)base[me] + REG * s, shadow, REG) == 0,
              "owner's view of region of rank %d", s);
    }
    ARMCI_Access_end(base[me]);
    TST_SAY("vector: owners' direct view equals the reference");
    ARMCI_Barrier();
    ARMCI_Free(base[me]);
    free(base); free(shadow); free(sbuf); free(lbuf); free(exp);
    ARMCI_Finalize();
    MPI_Finalize();
    return tst_finish("vector");
}
