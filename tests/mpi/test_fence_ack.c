/* fence_ack: a fence to a node whose writes are known served sends no
 * message (decision 058), one whose writes are not known served does, and
 * the data is at the target after either.
 *
 * Run with every rank its own node (ARMADA_PPN=1), under any topology: a
 * node reached through other servers is told of the same way (decision
 * 078). Fence messages are
 * counted as ops[ARMADA_OP_FENCE][ARMADA_PATH_SERVER] (a fence request, or a
 * batch carrying one), RMA flushes as [ARMADA_PATH_RMA]. The expectations
 * follow ARMADA_FENCE_ACK_US (default 50; -1: off) and the path the puts took:
 *   - put then get from the same node: the get's reply brings the put's
 *     credit home, so the fence after it is free (any ack setting);
 *   - put then fence at once, FENCE_ACK_US=-1: one fence message each time;
 *   - put, pause, fence, FENCE_ACK_US>=0: the server returned the credit on
 *     its own, so most such fences are free (a pause can be too short on a
 *     loaded machine: at most half may still send);
 *   - AllFence after writing to every node, each acknowledged by a get:
 *     no message at all;
 *   - puts by direct RMA: every fence flushes (no server message);
 *   - small puts, which wait in an aggregation batch, then a pause: the
 *     progress agent sends the batch during the pause (decision 076), the
 *     server acknowledges it, and most fences after it are free; without
 *     the agent (ARMADA_NB_AGENT=0, or ARMADA_BATCH_IDLE_US=-1) the batch
 *     waits for the fence, which carries it: one message each; with the
 *     sweep set to 1 s (ARMADA_BATCH_IDLE_US=1000000) the agent's early
 *     look sends it (decision 081), and most fences are free again;
 *   - writes to every node, then a pause: the progress agent reads the
 *     servers' acknowledgements during the pause (decision 080), so the
 *     AllFence mostly finds nothing to read (armada_stats_t.fence_reads);
 *     without the agent it reads them itself. */
#include <armci.h>
#include <armada.h>
#include "tst.h"

#define BIG 4096L     /* above the aggregation limit: one request per put */
#define ROUNDS 20
/* The pause in which servers, the agent's sweep and its reads act. A
 * sanitized build on a loaded 2-core machine is several times slower: 20 ms
 * was sometimes not enough there (the sanitizer CI stage, beside a
 * 16-process test, 11-12 of 20 lone writes still went with their fence). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PAUSE_US 100000
#else
#define PAUSE_US 20000
#endif

static int me, np, right, left;
static void **base;
static long *src, *chk;

static uint64_t fence_count(int path)
{
    armada_stats_t st;
    armada_stats_get(&st);
    return st.ops[ARMADA_OP_FENCE][path];
}

static uint64_t put_count(int path)
{
    armada_stats_t st;
    armada_stats_get(&st);
    return st.ops[ARMADA_OP_PUT][path];
}

static void fill(long tag)
{
    for (long i = 0; i < BIG / (long)sizeof(long); i++)
        src[i] = tag * 1000003L + i;
}

/* After the writer's fence: my region holds what my left neighbour wrote. */
static void check_from_left(long tag, const char *what)
{
    MPI_Barrier(MPI_COMM_WORLD);
    ARMCI_Access_begin(base[me]);
    const long *mine = base[me];
    long bad = 0;
    for (long i = 0; i < BIG / (long)sizeof(long); i++)
        bad += mine[i] != tag * 1000003L + i + left;
    ARMCI_Access_end(base[me]);
    CHECK(bad == 0, "%s: %ld words from rank %d missing after its fence", what, bad, left);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void put_right(long tag)
{
    fill(tag);
    for (long i = 0; i < BIG / (long)sizeof(long); i++)
        src[i] += me;
    ARMCI_Put(src, base[right], (int)BIG, right);
}

/* Returns the fence messages of one round of put (+ what), fence. */
static uint64_t round_trip(long tag, int mode)
{
    put_right(tag);
    if (mode == 1)
        ARMCI_Get((char *)base[right] + BIG, chk, (int)sizeof(long), right);
    else if (mode == 2)
        tst_nap(PAUSE_US);
    uint64_t before = fence_count(ARMADA_PATH_SERVER);
    ARMCI_Fence(right);
    return fence_count(ARMADA_PATH_SERVER) - before;
}

static uint64_t fence_reads(void)
{
    armada_stats_t st;
    armada_stats_get(&st);
    return st.fence_reads;
}

static void server_path(int ack, int agent)
{
    uint64_t msgs = 0;
    for (int r = 0; r < ROUNDS; r++) {
        msgs += round_trip(100 + r, 1);
        check_from_left(100 + r, "put, get, fence");
    }
    CHECK_EQ(msgs, 0, "fence messages after writes a get acknowledged");
    TST_SAY("put+get+fence: %llu fence messages in %d rounds", (unsigned long long)msgs, ROUNDS);

    msgs = 0;
    for (int r = 0; r < ROUNDS; r++) {
        msgs += round_trip(200 + r, ack ? 2 : 0);
        check_from_left(200 + r, ack ? "put, pause, fence" : "put, fence");
    }
    if (ack)
        CHECK(msgs <= ROUNDS / 2, "%llu of %d fences after a pause sent a message",
              (unsigned long long)msgs, ROUNDS);
    else
        CHECK_EQ(msgs, ROUNDS, "fence messages after unacknowledged writes");
    TST_SAY("put+%s+fence (acknowledgements %d): %llu fence messages in %d rounds",
            ack ? "pause" : "nothing", ack, (unsigned long long)msgs, ROUNDS);

    /* AllFence after writing to every other node, each write acknowledged. */
    fill(300);
    for (long i = 0; i < BIG / (long)sizeof(long); i++)
        src[i] += me;
    for (int t = 0; t < np; t++)
        if (t != me) {
            ARMCI_Put(src, (char *)base[t] + (2 + me) * BIG, (int)BIG, t);
            ARMCI_Get((char *)base[t] + BIG, chk, (int)sizeof(long), t);
        }
    uint64_t before = fence_count(ARMADA_PATH_SERVER);
    ARMCI_AllFence();
    CHECK_EQ(fence_count(ARMADA_PATH_SERVER) - before, 0,
             "AllFence messages after acknowledged writes to every node");
    /* Written, then left alone: every server tells of its writes when idle,
     * also those that reached it through another server under a topology
     * (decision 078), so the AllFence mostly sends nothing. */
    if (ack) {
        uint64_t sum = 0, reads = 0;
        int read_rounds = 0;
        for (int r = 0; r < 8; r++) {
            for (int t = 0; t < np; t++)
                if (t != me)
                    ARMCI_Put(src, (char *)base[t] + (2 + me) * BIG, (int)BIG, t);
            tst_nap(PAUSE_US);
            before = fence_count(ARMADA_PATH_SERVER);
            uint64_t r0 = fence_reads();
            ARMCI_AllFence();
            sum += fence_count(ARMADA_PATH_SERVER) - before;
            reads += fence_reads() - r0;
            read_rounds += fence_reads() > r0;
        }
        CHECK(sum <= (uint64_t)(8 * (np - 1)) / 2, "%llu AllFence messages after writes to %d "
              "nodes and a pause, 8 times", (unsigned long long)sum, np - 1);
        TST_SAY("put to every node+pause+AllFence (agent %d): %llu fence messages, %llu "
                "answers read by the fence, in %d of 8 rounds", agent, (unsigned long long)sum,
                (unsigned long long)reads, read_rounds);
        /* The agent read the acknowledgements during the pause; a loaded
         * machine may delay a server past it now and then (3 of 8 rounds
         * once, under ASan beside a 16-process test), so at most half may
         * still read. Without the agent the fence reads in every round. */
        if (agent)
            CHECK(read_rounds <= 4, "the AllFence read answers itself in %d of 8 rounds "
                  "after a pause (%llu passes)", read_rounds, (unsigned long long)reads);
        else
            CHECK_EQ(read_rounds, 8, "rounds whose AllFence read the answers (no agent)");
    }
    /* And unacknowledged (FENCE_ACK_US=-1): one message per node written. */
    if (!ack) {
        for (int t = 0; t < np; t++)
            if (t != me)
                ARMCI_Put(src, (char *)base[t] + (2 + me) * BIG, (int)BIG, t);
        before = fence_count(ARMADA_PATH_SERVER);
        ARMCI_AllFence();
        CHECK_EQ(fence_count(ARMADA_PATH_SERVER) - before, np - 1,
                 "AllFence messages after unacknowledged writes to every node");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    ARMCI_Access_begin(base[me]);
    for (int s = 0; s < np; s++) {
        if (s == me)
            continue;
        const long *w = (const long *)((char *)base[me] + (2 + s) * BIG);
        long bad = 0;
        for (long i = 0; i < BIG / (long)sizeof(long); i++)
            bad += w[i] != 300 * 1000003L + i + s;
        CHECK(bad == 0, "AllFence: %ld words from rank %d missing", bad, s);
    }
    ARMCI_Access_end(base[me]);
}

/* A lone small write (blocking put, then non-blocking put and accumulate,
 * in turn) left in a batch, a pause, a fence. */
#define SMALL 8   /* longs */
static void lone_small(int ack, int swept)
{
    uint64_t msgs = 0;
    armada_stats_t s0, s1;
    armada_stats_get(&s0);
    for (int r = 0; r < ROUNDS; r++) {
        long tag = 500 + r;
        fill(tag);
        for (long i = 0; i < SMALL; i++)
            src[i] += me;
        char *dst = (char *)base[right] + (2 + np) * BIG;
        if (r % 3 == 0) {
            ARMCI_Put(src, dst, (int)(SMALL * sizeof(long)), right);
        } else {
            armci_hdl_t h;
            ARMCI_INIT_HANDLE(&h);
            if (r % 3 == 1) {
                ARMCI_NbPut(src, dst, (int)(SMALL * sizeof(long)), right, &h);
            } else {
                /* onto zeros: the accumulate leaves the put's values */
                long one = 1;
                ARMCI_NbAcc(ARMCI_ACC_LNG, &one, src, dst, (int)(SMALL * sizeof(long)), right,
                            &h);
            }
            ARMCI_Wait(&h);
        }
        tst_nap(PAUSE_US);
        uint64_t before = fence_count(ARMADA_PATH_SERVER);
        ARMCI_Fence(right);
        msgs += fence_count(ARMADA_PATH_SERVER) - before;
        MPI_Barrier(MPI_COMM_WORLD);
        long *mine = (long *)((char *)base[me] + (2 + np) * BIG);
        ARMCI_Access_begin(base[me]);
        long bad = 0;
        for (long i = 0; i < SMALL; i++)
            bad += mine[i] != tag * 1000003L + i + left;
        if (r % 3 == 1)
            memset(mine, 0, SMALL * sizeof(long));   /* the next round accumulates */
        ARMCI_Access_end(base[me]);
        CHECK(bad == 0, "lone small write %d: %ld words from rank %d missing after its fence",
              r, bad, left);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    armada_stats_get(&s1);
    uint64_t sw = s1.batches_swept - s0.batches_swept;
    TST_SAY("lone small write+pause+fence (agent sweep %d, acknowledgements %d): %llu fence "
            "messages in %d rounds, %llu batches swept", swept, ack, (unsigned long long)msgs,
            ROUNDS, (unsigned long long)sw);
    if (swept && ack) {
        CHECK(msgs <= ROUNDS / 2, "%llu of %d fences after a lone small write and a pause "
              "sent a message", (unsigned long long)msgs, ROUNDS);
        CHECK(sw >= ROUNDS / 2, "the agent swept %llu of %d lone batches",
              (unsigned long long)sw, ROUNDS);
    } else if (!swept) {
        CHECK_EQ(msgs, ROUNDS, "fence messages carrying a held batch");
        CHECK_EQ(sw, 0ULL, "batches swept without the sweep");
    }
}

static void rma_path(void)
{
    uint64_t rma0 = fence_count(ARMADA_PATH_RMA), srv0 = fence_count(ARMADA_PATH_SERVER);
    for (int r = 0; r < ROUNDS; r++) {
        put_right(400 + r);
        ARMCI_Fence(right);
        check_from_left(400 + r, "RMA put, fence");
    }
    CHECK_EQ(fence_count(ARMADA_PATH_RMA) - rma0, ROUNDS, "RMA flushes by fences");
    CHECK_EQ(fence_count(ARMADA_PATH_SERVER) - srv0, 0, "server fence messages (RMA puts)");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    right = (me + 1) % np;
    left = (me + np - 1) % np;
    const char *e = getenv("ARMADA_FENCE_ACK_US");
    int ack = !(e && atoi(e) < 0);
    base = malloc(sizeof(void *) * (size_t)np);
    src = malloc(BIG);
    chk = malloc(sizeof(long));
    const char *ag = getenv("ARMADA_NB_AGENT"), *iu = getenv("ARMADA_BATCH_IDLE_US");
    const char *ap = getenv("ARMADA_AGGREGATE");
    int swept = !(ag && atoi(ag) == 0) && !(iu && atoi(iu) < 0);
    int batched = !(ap && atoi(ap) == 0);
    CHECK_EQ(ARMCI_Malloc(base, (3 + np) * BIG), 0, "ARMCI_Malloc");
    CHECK(np >= 2 && armada_node_count() == np, "needs >= 2 ranks, each its own node "
          "(ARMADA_PPN=1): %d ranks on %d nodes", np, armada_node_count());
    if (np >= 2 && armada_node_count() == np) {
        /* Which path do puts of BIG bytes take? One put tells. */
        uint64_t rma0 = put_count(ARMADA_PATH_RMA);
        put_right(0);
        ARMCI_AllFence();
        check_from_left(0, "first put");
        if (put_count(ARMADA_PATH_RMA) > rma0) {
            TST_SAY("puts go by direct RMA: every fence flushes");
            rma_path();
        } else {
            server_path(ack, !(ag && atoi(ag) == 0));
            if (batched)
                lone_small(ack, swept);
        }
    }
    if (np >= 2 && armada_node_count() == np) {
        /* The server thread's processor time is readable while it runs
         * (decision 100): it served the left neighbour's writes. */
        armada_stats_t c0, c1;
        armada_stats_get(&c0);
        ARMCI_Barrier();
        armada_stats_get(&c1);
        CHECK(c0.server_cpu_ns > 0 && c1.server_cpu_ns >= c0.server_cpu_ns,
              "server_cpu_ns while the server runs: %llu, then %llu",
              (unsigned long long)c0.server_cpu_ns, (unsigned long long)c1.server_cpu_ns);
    }
    ARMCI_Free(base[me]);
    ARMCI_Finalize();
    MPI_Finalize();
    return tst_finish("fence_ack");
}
