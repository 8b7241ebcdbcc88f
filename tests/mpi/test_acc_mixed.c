/* acc_mixed: accumulates that take different protocols into the same bytes
 * at the same time stay atomic (issue 23 item 3, decision 060). Unless the
 * environment sets ARMADA_ACC_PROTO, even ranks set it to origin and odd
 * ranks to server before ARMCI_Init (settings are per process): even ranks
 * add whole 64 KiB regions at once, done at the origin under the target
 * rank's accumulate lock; odd ranks add the same regions in 256-byte pieces
 * (aggregated server requests), 8 KiB pieces (one server request each)
 * and 768-byte pieces that straddle the accumulate lock's stripes;
 * ranks on the target's node add by shared memory. Every rank does this
 * into every rank, in int and long; the sums are integers and must be
 * exact. */
#include <stdlib.h>
#include <armci.h>
#include "tst.h"

#define ITERS 4
#define REGION 65536                     /* bytes per region            */
#define SMALL 256
#define MID 8192
#define STRADDLE 768                     /* (REGION - SMALL) / 85        */

static long src_val(int r, int i) { return (long)((i * 7 + r * 3) % 23 - 11); }

static void fill(int type, int r, void *buf, int n)
{
    for (int i = 0; i < n; i++) {
        if (type == ARMCI_ACC_INT)
            ((int *)buf)[i] = (int)src_val(r, i);
        else
            ((long *)buf)[i] = src_val(r, i) * 1000000007L;
    }
}

/* Adds rank me's source into dst on rank t, in pieces of `piece` bytes. */
static void add(int type, void *scale, char *src, char *dst, size_t piece, int t)
{
    for (size_t off = 0; off < REGION; off += piece)
        CHECK(ARMCI_Acc(type, scale, src + off, dst + off, (int)piece, t) == 0,
              "ARMCI_Acc of %zu bytes returned non-zero", piece);
}

/* The same once more in other pieces: a first one of SMALL bytes, then
 * pieces of STRADDLE bytes, each spanning two 512-byte blocks, so two
 * stripes of the accumulate lock (decision 069) that it must hold together. */
static void add_straddle(int type, void *scale, char *src, char *dst, int t)
{
    CHECK(ARMCI_Acc(type, scale, src, dst, SMALL, t) == 0, "ARMCI_Acc returned non-zero");
    for (size_t off = SMALL; off < REGION; off += STRADDLE)
        CHECK(ARMCI_Acc(type, scale, src + off, dst + off, STRADDLE, t) == 0,
              "ARMCI_Acc of %d bytes returned non-zero", STRADDLE);
}

int main(int argc, char **argv)
{
    int me, np;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    setenv("ARMADA_ACC_PROTO", me % 2 == 0 ? "origin" : "server", 0);
    ARMCI_Init();
    MPI_Comm_size(MPI_COMM_WORLD, &np);

    void **base = malloc(sizeof(void *) * (size_t)np);
    CHECK_EQ(ARMCI_Malloc(base, 2 * REGION), 0, "ARMCI_Malloc");
    ARMCI_Access_begin(base[me]);
    memset(base[me], 0, 2 * REGION);
    ARMCI_Access_end(base[me]);
    ARMCI_Barrier();

    static const int types[2] = { ARMCI_ACC_INT, ARMCI_ACC_LNG };
    char *src = malloc(REGION);
    for (int it = 0; it < ITERS; it++) {
        for (int k = 0; k < 2; k++) {
            int type = types[k];
            int esz = type == ARMCI_ACC_INT ? (int)sizeof(int) : (int)sizeof(long);
            fill(type, me, src, REGION / esz);
            int si = me + 1;
            long sl = me + 1;
            void *scale = type == ARMCI_ACC_INT ? (void *)&si : (void *)&sl;
            for (int j = 0; j < np; j++) {
                int t = (me + j) % np;
                char *dst = (char *)base[t] + (size_t)k * REGION;
                if (me % 2 == 0)
                    add(type, scale, src, dst, REGION, t);
                else if (it % 3 == 2)
                    add_straddle(type, scale, src, dst, t);
                else
                    add(type, scale, src, dst, it % 3 ? MID : SMALL, t);
            }
        }
    }
    ARMCI_AllFence();
    ARMCI_Barrier();

    char *got = malloc(REGION);
    for (int k = 0; k < 2; k++) {
        int type = types[k];
        int esz = type == ARMCI_ACC_INT ? (int)sizeof(int) : (int)sizeof(long);
        for (int j = 0; j < np; j++) {
            int t = (me + j) % np;
            ARMCI_Get((char *)base[t] + (size_t)k * REGION, got, REGION, t);
            int bad = -1;
            long want = 0, have = 0;
            for (int i = 0; i < REGION / esz && bad < 0; i++) {
                want = 0;
                for (int r = 0; r < np; r++)
                    want += ITERS * (long)(r + 1) * src_val(r, i) *
                            (type == ARMCI_ACC_INT ? 1 : 1000000007L);
                have = type == ARMCI_ACC_INT ? ((int *)got)[i] : ((long *)got)[i];
                if (have != want)
                    bad = i;
            }
            CHECK(bad < 0, "%s sums on rank %d: element %d is %ld, want %ld",
                  type == ARMCI_ACC_INT ? "int" : "long", t, bad, have, want);
        }
    }
    TST_SAY("acc_mixed: %d ranks x %d rounds into every rank, whole 64 KiB regions (origin) "
            "against 256 B, 8 KiB and block-straddling 768 B pieces (server), int and long sums "
            "exact", np, ITERS);
    ARMCI_Barrier();
    ARMCI_Free(base[me]);
    free(base);
    free(src);
    free(got);
    ARMCI_Finalize();
    MPI_Finalize();
    return tst_finish("acc_mixed");
}
