/* nbagent: non-blocking transfers to other nodes carried by the progress
 * agent (decision 056). Every rank puts a large strided block to the next
 * node's rank, gets one from the previous node's, and checks:
 *  - the data, after Wait (get) and after Fence (put);
 *  - order: a large non-blocking put followed by a small put to the same
 *    bytes (blocking, then non-blocking) leaves the later value;
 *  - the source may be reused after Wait, not before: the put's source is
 *    overwritten right after Wait and the target still holds the old data;
 *  - with the agent on (ARMADA_NB_AGENT unset or 1) and another node, the
 *    agent carried the large calls (armada_stats_t.agent_jobs). */
#include <armci.h>
#include <armada.h>
#include <stdlib.h>
#include <string.h>
#include "tst.h"

#define ROW 16384
#define ROWS 32
#define BLOCK ((long)ROW * ROWS)

static int me, np;

static void fill(unsigned char *p, long n, int tag)
{
    for (long i = 0; i < n; i++)
        p[i] = tst_byte(tag, i);
}

static int check_rows(const unsigned char *p, int stride, int tag)
{
    for (int r = 0; r < ROWS; r++)
        for (long i = 0; i < ROW; i++)
            if (p[(long)r * stride + i] != tst_byte(tag, (long)r * ROW + i))
                return 0;
    return 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int ppn = getenv("ARMADA_PPN") ? atoi(getenv("ARMADA_PPN")) : np;
    if (ppn < 1 || ppn > np)
        ppn = np;
    int next = (me + ppn) % np, prev = (me - ppn + np) % np;
    void **base = malloc((size_t)np * sizeof *base);
    ARMCI_Malloc(base, 2 * BLOCK + 64);
    unsigned char *src = malloc(BLOCK), *dst = malloc(2 * BLOCK);
    ARMCI_Access_begin(base[me]);
    fill(base[me], 2 * BLOCK, 100 + me);      /* what others get from me */
    ARMCI_Access_end(base[me]);
    ARMCI_Barrier();

    /* A strided put (rows 2 apart at the target) and a strided get. */
    fill(src, BLOCK, me);
    int sst[1] = { ROW }, dstr[1] = { 2 * ROW }, cnt[2] = { ROW, ROWS };
    armci_hdl_t hp, hg;
    ARMCI_INIT_HANDLE(&hp);
    ARMCI_INIT_HANDLE(&hg);
    ARMCI_NbPutS(src, sst, base[next], dstr, cnt, 1, next, &hp);
    ARMCI_NbGetS((char *)base[prev] + ROW, dstr, dst, sst, cnt, 1, prev, &hg);
    ARMCI_Wait(&hp);
    memset(src, 0xEE, BLOCK);                 /* reusable after Wait */
    ARMCI_Wait(&hg);
    {
        /* I get rows 1, 3, 5, ... of prev's block (the puts write the even
         * ones), tagged 100 + prev. */
        int ok = 1;
        for (int r = 0; r < ROWS && ok; r++)
            for (long i = 0; i < ROW; i++)
                if (dst[(long)r * ROW + i] != tst_byte(100 + prev, (2L * r + 1) * ROW + i)) {
                    ok = 0;
                    break;
                }
        CHECK(ok, "strided get from rank %d", prev);
    }
    ARMCI_AllFence();
    MPI_Barrier(MPI_COMM_WORLD);
    ARMCI_Access_begin(base[me]);
    {
        int from = (me - ppn + np) % np;
        CHECK(check_rows(base[me], 2 * ROW, from), "strided put from rank %d", from);
    }
    ARMCI_Access_end(base[me]);
    ARMCI_Barrier();

    /* Order: large non-blocking put, then small puts to its first bytes. */
    fill(src, BLOCK, 50 + me);
    armci_hdl_t h1, h2;
    ARMCI_INIT_HANDLE(&h1);
    ARMCI_INIT_HANDLE(&h2);
    long one = 1000 + me, two = 2000 + me;
    ARMCI_NbPut(src, base[next], (int)BLOCK, next, &h1);
    ARMCI_Put(&one, base[next], sizeof one, next);
    ARMCI_NbPut(src, (char *)base[next] + BLOCK, (int)BLOCK, next, &h1);
    ARMCI_NbPut(&two, (char *)base[next] + BLOCK, sizeof two, next, &h2);
    ARMCI_Wait(&h1);
    ARMCI_Wait(&h2);
    ARMCI_Fence(next);
    MPI_Barrier(MPI_COMM_WORLD);
    {
        long got[2];
        int from = (me - ppn + np) % np;
        ARMCI_Access_begin(base[me]);
        memcpy(&got[0], base[me], sizeof got[0]);
        memcpy(&got[1], (char *)base[me] + BLOCK, sizeof got[1]);
        CHECK_EQ(got[0], 1000L + from, "blocking put after a non-blocking one");
        CHECK_EQ(got[1], 2000L + from, "non-blocking put after a non-blocking one");
        unsigned char *b = (unsigned char *)base[me];
        CHECK(b[BLOCK - 1] == tst_byte(50 + from, BLOCK - 1) &&
              b[2 * BLOCK - 1] == tst_byte(50 + from, BLOCK - 1),
              "the large puts' data from rank %d", from);
        ARMCI_Access_end(base[me]);
    }

    armada_stats_t st;
    CHECK(armada_stats_get(&st) == 0, "armada_stats_get");
    const char *on = getenv("ARMADA_NB_AGENT");
    const char *min = getenv("ARMADA_NB_AGENT_MIN");
    int agent = !on || strcmp(on, "0") != 0;
    if (agent && next / ppn != me / ppn && (!min || atol(min) <= BLOCK))
        CHECK(st.agent_jobs >= 4, "the agent carried %llu calls, want >= 4",
              (unsigned long long)st.agent_jobs);
    if (!agent)
        CHECK_EQ(st.agent_jobs, 0ULL, "no agent, no jobs");
    ARMCI_Barrier();
    ARMCI_Free(base[me]);
    free(base);
    free(src);
    free(dst);
    int rc = tst_finish("nbagent");
    ARMCI_Finalize();
    MPI_Finalize();
    return rc;
}
