/* vnode_map (decision 068): puts and gets between virtual nodes of one host,
 * where UCX itself goes through shared memory, are done by memcpy on the
 * other node's mapped segment. Every rank writes to and reads from every
 * other rank, contiguous (8 B to 1 MiB, blocking and non-blocking) and
 * strided, each checked byte by byte; a get that follows a put of the same
 * bytes (and an accumulate, which takes the server) sees them. Then the
 * count of mapped copies must be what argv[1] says: "mapped" (> 0 where
 * another node is on this host) or "unmapped" (0: ARMADA_VNODE_MAP=0, or a
 * transport that is not shared memory, UCX_TLS=tcp,self). */
#include <armci.h>
#include <armada.h>
#include "tst.h"

#define BIG (1 << 20)

static void contiguous(void **seg, char *buf, char *back, int me, int np)
{
    static const size_t sizes[] = { 8, 1000, 4096, 65536, BIG };
    for (int d = 1; d < np; d++) {
        int peer = (me + d) % np;
        /* My region of the peer's segment: ranks write disjoint halves. */
        char *dst = (char *)seg[peer] + (size_t)me * BIG;
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            size_t n = sizes[k];
            int tag = (int)(me * 16 + k + d * 3);
            for (size_t i = 0; i < n; i++)
                buf[i] = (char)tst_byte(tag, (long)i);
            if (k & 1) {
                armci_hdl_t h;
                ARMCI_INIT_HANDLE(&h);
                ARMCI_NbPut(buf, dst, (int)n, peer, &h);
                ARMCI_Wait(&h);
            } else {
                ARMCI_Put(buf, dst, (int)n, peer);
            }
            memset(back, 0, n);
            ARMCI_Get(dst, back, (int)n, peer);
            size_t bad = 0;
            while (bad < n && back[bad] == buf[bad])
                bad++;
            CHECK(bad == n, "rank %d: %zu bytes put to and read back from rank %d differ at %zu",
                  me, n, peer, bad);
        }
        /* An accumulate (the server's path) then a get of the same doubles. */
        double *acc = (double *)dst, one[4] = { 1, 1, 1, 1 }, scale = 2.0, got[4];
        double before[4] = { me, d, 3, 4 };
        ARMCI_Put(before, acc, (int)sizeof before, peer);
        ARMCI_Acc(ARMCI_ACC_DBL, &scale, one, acc, (int)sizeof one, peer);
        ARMCI_Get(acc, got, (int)sizeof got, peer);
        for (int i = 0; i < 4; i++)
            CHECK(got[i] == before[i] + 2.0, "rank %d: get after accumulate at rank %d: "
                  "element %d is %g, expected %g", me, peer, i, got[i], before[i] + 2.0);
    }
}

static int row_bad(const char *p, int tag)
{
    for (long r = 0; r < 64; r++)
        for (long c = 0; c < 3000; c++)
            if ((unsigned char)p[r * 4096 + c] != tst_byte(tag, r * 4096 + c))
                return (int)(r * 4096 + c);
    return -1;
}

/* Strided puts to every other rank, then each rank reads what landed in its
 * own memory (a copy to the wrong place shows here even if the get made the
 * same mistake), then strided gets back. 64 rows of 3000 bytes, 4096 apart. */
static void strided(void **seg, char *buf, char *back, int me, int np)
{
    int count[2] = { 3000, 64 }, stride[1] = { 4096 };
    for (int d = 1; d < np; d++) {
        int peer = (me + d) % np;
        for (long i = 0; i < 64 * 4096; i++)
            buf[i] = (char)tst_byte(me + 40 * d, i);
        ARMCI_PutS(buf, stride, (char *)seg[peer] + (size_t)me * BIG, stride, count, 1, peer);
    }
    ARMCI_Barrier();
    for (int w = 0; w < np; w++) {
        if (w == me)
            continue;
        int d = (me - w + np) % np;
        int bad = row_bad((char *)seg[me] + (size_t)w * BIG, w + 40 * d);
        CHECK(bad < 0, "rank %d: the strided put of rank %d landed wrong at byte %d", me, w, bad);
    }
    ARMCI_Barrier();
    for (int d = 1; d < np; d++) {
        int peer = (me + d) % np;
        memset(back, 0, 64 * 4096);
        ARMCI_GetS((char *)seg[peer] + (size_t)me * BIG, stride, back, stride, count, 1, peer);
        int bad = row_bad(back, me + 40 * d);
        CHECK(bad < 0, "rank %d: strided get from rank %d differs at byte %d", me, peer, bad);
    }
}

int main(int argc, char **argv)
{
    int me, np;
    TST_START(&argc, &argv, &me, &np);
    int want_mapped = argc > 1 && !strcmp(argv[1], "mapped");
    void **seg = malloc(sizeof(void *) * (size_t)np);
    char *buf = malloc(BIG), *back = malloc(BIG);
    CHECK(ARMCI_Malloc(seg, (armci_size_t)np * BIG) == 0, "ARMCI_Malloc failed");
    ARMCI_Barrier();
    contiguous(seg, buf, back, me, np);
    strided(seg, buf, back, me, np);
    ARMCI_Barrier();

    armada_stats_t st;
    armada_stats_get(&st);
    int other_node = 0;
    for (int r = 0; r < np; r++)
        other_node |= armada_node_of(r) != armada_node_of(me);
    if (want_mapped && other_node)
        CHECK(st.mapped_copies > 0, "rank %d: no put or get was a mapped copy", me);
    else
        CHECK_EQ(st.mapped_copies, 0, "mapped copies");
    TST_SAY("vnode_map: %d ranks on %d nodes; rank 0 made %llu mapped copies", np,
            armada_node_count(), (unsigned long long)st.mapped_copies);
    ARMCI_Free(seg[me]);
    free(seg);
    free(buf);
    free(back);
    ARMCI_Finalize();
    MPI_Finalize();
    return tst_finish("vnode_map");
}
