/* net layer test: every rank is its own (virtual) node, with a client worker
 * and a server worker driven by a blocking server thread. Checks put/flush/
 * get, fetch-add/swap/compare-swap exactness under contention to rank 0, an
 * AM request answered by the server on its server->client endpoint (eager
 * and rendezvous), and a clean finalize. MPI is used only as the bootstrap.
 * "--bench" also times 8 B and 1 MiB gets from rank 0 to rank 1. */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "net/arm_net.h"

#define DATA_LEN   (1u << 20)
#define CTR_OFF    DATA_LEN            /* counters after the data area */
#define WIN_LEN    (DATA_LEN + 64)
#define ITERS      200
#define AM_REQ     1
#define AM_REP     2
#define WAIT_MS    30000

static int rank, nproc;
static int failures;

#define CHECK(cond, ...)                                                         \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "[rank %d] FAIL %s:%d: ", rank, __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                                        \
            fprintf(stderr, "\n");                                               \
            failures++;                                                          \
        }                                                                        \
    } while (0)

#define OK(call)                                                                 \
    do {                                                                         \
        arm_status_t st_ = (call);                                               \
        if (st_ < 0) {                                                           \
            fprintf(stderr, "[rank %d] %s: %s\n", rank, #call, arm_status_str(st_)); \
            MPI_Abort(MPI_COMM_WORLD, 2);                                        \
        }                                                                        \
    } while (0)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int mpi_allgather(void *ctx, const void *send, void *recv, size_t len)
{
    return MPI_Allgather(send, (int)len, MPI_BYTE, recv, (int)len, MPI_BYTE,
                         *(MPI_Comm *)ctx) == MPI_SUCCESS ? 0 : -1;
}

static MPI_Request fin_req = MPI_REQUEST_NULL;

static int mpi_ibarrier_start(void *ctx)
{
    return MPI_Ibarrier(*(MPI_Comm *)ctx, &fin_req) == MPI_SUCCESS ? 0 : -1;
}

static int mpi_ibarrier_test(void *ctx)
{
    int done = 0;
    (void)ctx;
    return MPI_Test(&fin_req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS ? done : -1;
}

static arm_net_t *net;

/* ---- server side (runs in the server thread) ----------------------------- */

typedef struct { int32_t src; uint32_t seq; uint64_t len; } req_hdr_t;
typedef struct { uint32_t seq; uint32_t pad; uint64_t sum; } rep_hdr_t;

typedef struct srv_slot {
    req_hdr_t req;
    rep_hdr_t rep;
    unsigned char *buf;
    arm_net_comp_t recv_comp, send_comp;
} srv_slot_t;

static srv_slot_t *slots;              /* one per client rank */
static atomic_int server_stop;

static uint64_t checksum(const unsigned char *p, size_t n)
{
    uint64_t s = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        s = (s ^ p[i]) * 1099511628211ull;
    return s;
}

static void server_reply(srv_slot_t *s)
{
    arm_net_ep_t *ep = arm_net_client_ep(net, s->req.src);
    s->rep.seq = s->req.seq;
    s->rep.sum = checksum(s->buf, s->req.len);
    arm_net_comp_init(&s->send_comp, NULL, NULL);
    OK(arm_net_am_send(ep, AM_REP, &s->rep, sizeof s->rep, s->buf, s->req.len, 0,
                       &s->send_comp));
}

static void server_data_arrived(arm_net_comp_t *c) { server_reply(c->arg); }

static arm_status_t server_on_request(void *arg, const arm_net_am_msg_t *msg)
{
    req_hdr_t h;
    memcpy(&h, msg->hdr, sizeof h);
    srv_slot_t *s = &slots[h.src];
    s->req = h;
    if (msg->rndv) {
        arm_net_comp_init(&s->recv_comp, server_data_arrived, s);
        if (arm_net_am_recv_data(msg, s->buf, DATA_LEN, &s->recv_comp) == ARM_OK)
            server_reply(s);
    } else {
        memcpy(s->buf, msg->data, msg->data_len);
        server_reply(s);
    }
    return ARM_OK;
}

static void *server_main(void *arg)
{
    arm_net_worker_t *w = arg;
    while (!atomic_load(&server_stop)) {
        if (!arm_net_progress(w))
            arm_net_wait(w, 1000);   /* block mode: sleeps until an event */
    }
    return NULL;
}

/* ---- client side --------------------------------------------------------- */

static struct {
    int got;
    rep_hdr_t rep;
    unsigned char *buf;
    arm_net_comp_t comp;
} reply;

static arm_status_t client_on_reply(void *arg, const arm_net_am_msg_t *msg)
{
    memcpy(&reply.rep, msg->hdr, sizeof reply.rep);
    arm_net_comp_init(&reply.comp, NULL, NULL);
    if (msg->rndv)
        arm_net_am_recv_data(msg, reply.buf, DATA_LEN, &reply.comp);
    else
        memcpy(reply.buf, msg->data, msg->data_len);
    reply.got = 1;
    return ARM_OK;
}

static void test_am(arm_net_worker_t *cw)
{
    const size_t sizes[] = { 0, 8, 4096, 100000, DATA_LEN };
    int target = (rank + 1) % nproc;
    arm_net_ep_t *ep = arm_net_server_ep(net, target);
    unsigned char *payload = malloc(DATA_LEN);

    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t len = sizes[k];
        for (size_t i = 0; i < len; i++)
            payload[i] = (unsigned char)(i * 7 + rank + k);
        req_hdr_t h = { rank, (uint32_t)k, len };
        arm_net_comp_t sc;
        arm_net_comp_init(&sc, NULL, NULL);
        reply.got = 0;
        memset(reply.buf, 0, len);
        OK(arm_net_am_send(ep, AM_REQ, &h, sizeof h, payload, len,
                           len == DATA_LEN ? ARM_NET_AM_RNDV : 0, &sc));
        OK(arm_net_comp_wait(cw, &sc, 100, WAIT_MS));
        double t0 = now();
        while (!reply.got && now() - t0 < 30)
            if (!arm_net_progress(cw))
                arm_net_wait(cw, 10);
        CHECK(reply.got, "no AM reply for size %zu", len);
        OK(arm_net_comp_wait(cw, &reply.comp, 100, WAIT_MS));
        CHECK(reply.rep.seq == k, "reply seq %u != %zu", reply.rep.seq, k);
        CHECK(reply.rep.sum == checksum(payload, len), "server checksum wrong, size %zu", len);
        CHECK(memcmp(reply.buf, payload, len) == 0, "echoed payload differs, size %zu", len);
    }
    free(payload);
}

/* ---- RMA and atomics ----------------------------------------------------- */

static unsigned char *win;
static uint64_t *bases;
static arm_net_rkey_t **rkeys;

static void test_put_get(arm_net_worker_t *cw)
{
    int t = (rank + 1) % nproc;
    unsigned char *src = malloc(DATA_LEN), *dst = malloc(DATA_LEN);
    arm_net_comp_t c;

    for (size_t i = 0; i < DATA_LEN; i++)
        src[i] = (unsigned char)(i * 13 + rank);
    arm_net_comp_init(&c, NULL, NULL);
    OK(arm_net_put(rkeys[t], src, DATA_LEN, bases[t], &c));
    OK(arm_net_put(rkeys[t], src, 8, bases[t] + 8, NULL));   /* untracked: by flush */
    OK(arm_net_ep_flush(arm_net_rkey_ep(rkeys[t]), &c));
    OK(arm_net_comp_wait(cw, &c, 100, WAIT_MS));
    memset(dst, 0, DATA_LEN);
    OK(arm_net_get(rkeys[t], dst, DATA_LEN, bases[t], &c));
    OK(arm_net_comp_wait(cw, &c, 100, WAIT_MS));
    memcpy(src + 8, src, 8);
    CHECK(memcmp(src, dst, DATA_LEN) == 0, "get after put+flush returned other data");
    uint64_t small = 0;
    OK(arm_net_get(rkeys[t], &small, 8, bases[t] + 16, &c));
    OK(arm_net_comp_wait(cw, &c, 100, WAIT_MS));
    CHECK(memcmp(&small, src + 16, 8) == 0, "8-byte get differs");

    MPI_Barrier(MPI_COMM_WORLD);
    int from = (rank + nproc - 1) % nproc;
    for (size_t i = 16; i < DATA_LEN; i++)
        if (win[i] != (unsigned char)(i * 13 + from)) {
            CHECK(0, "my window byte %zu not written by rank %d", i, from);
            break;
        }
    free(src);
    free(dst);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* All ranks (rank 0 through its loopback endpoint) hammer rank 0. */
static void test_atomics(arm_net_worker_t *cw)
{
    arm_net_rkey_t *rk = rkeys[0];
    uint64_t base = bases[0] + CTR_OFF;
    uint64_t *got32 = malloc(sizeof(uint64_t) * ITERS), *got64 = malloc(sizeof(uint64_t) * ITERS);
    uint64_t *gotsw = malloc(sizeof(uint64_t) * (ITERS + 1));
    arm_net_comp_t c;
    arm_net_comp_init(&c, NULL, NULL);

    for (int i = 0; i < ITERS; i++) {
        uint32_t one = 1, r32;
        uint64_t inc = 1 + (1ull << 32), r64, sw = ((uint64_t)rank + 1) * 1000000 + (uint64_t)i;
        uint64_t old_sw;
        OK(arm_net_amo(rk, ARM_NET_AMO_FADD, 4, &one, NULL, &r32, base + 0, &c));
        OK(arm_net_amo(rk, ARM_NET_AMO_FADD, 8, &inc, NULL, &r64, base + 8, &c));
        OK(arm_net_amo(rk, ARM_NET_AMO_SWAP, 8, &sw, NULL, &old_sw, base + 16, &c));
        OK(arm_net_comp_wait(cw, &c, 100, WAIT_MS));
        got32[i] = r32;
        got64[i] = r64;
        gotsw[i] = old_sw;
    }
    /* Compare-and-swap increments, 32 and 64 bit. */
    for (int size = 4; size <= 8; size += 4) {
        uint64_t addr = base + (size == 4 ? 4 : 24);
        for (int i = 0; i < ITERS / 4; i++) {
            uint64_t guess = 0;
            for (;;) {
                union { uint32_t u32; uint64_t u64; } cmpv, newv, old;
                if (size == 4) { cmpv.u32 = (uint32_t)guess; newv.u32 = (uint32_t)guess + 1; }
                else           { cmpv.u64 = guess;           newv.u64 = guess + 1; }
                OK(arm_net_amo(rk, ARM_NET_AMO_CSWAP, (size_t)size, &newv, &cmpv, &old, addr, &c));
                OK(arm_net_comp_wait(cw, &c, 100, WAIT_MS));
                uint64_t o = size == 4 ? old.u32 : old.u64;
                if (o == guess)
                    break;
                guess = o;
            }
        }
    }
    /* Posted adds, completed by a flush. */
    uint64_t two = 2;
    for (int i = 0; i < 10; i++)
        OK(arm_net_amo(rk, ARM_NET_AMO_ADD, 8, &two, NULL, NULL, base + 32, NULL));
    OK(arm_net_ep_flush(arm_net_rkey_ep(rk), &c));
    OK(arm_net_comp_wait(cw, &c, 100, WAIT_MS));

    /* Every fetched value must be distinct and cover 0..N-1 exactly. */
    int n = ITERS * nproc;
    uint64_t *all32 = rank == 0 ? malloc(sizeof(uint64_t) * n) : NULL;
    uint64_t *all64 = rank == 0 ? malloc(sizeof(uint64_t) * n) : NULL;
    uint64_t *allsw = rank == 0 ? malloc(sizeof(uint64_t) * (n + 1)) : NULL;
    MPI_Gather(got32, ITERS, MPI_UINT64_T, all32, ITERS, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    MPI_Gather(got64, ITERS, MPI_UINT64_T, all64, ITERS, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    MPI_Gather(gotsw, ITERS, MPI_UINT64_T, allsw, ITERS, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        uint32_t c32, cas32;
        uint64_t c64, last, cas64, adds;
        memcpy(&c32, win + CTR_OFF, 4);
        memcpy(&cas32, win + CTR_OFF + 4, 4);
        memcpy(&c64, win + CTR_OFF + 8, 8);
        memcpy(&last, win + CTR_OFF + 16, 8);
        memcpy(&cas64, win + CTR_OFF + 24, 8);
        memcpy(&adds, win + CTR_OFF + 32, 8);
        CHECK(c32 == (uint32_t)n, "fetch-add32 total %u != %d", c32, n);
        CHECK(c64 == (uint64_t)n * (1 + (1ull << 32)), "fetch-add64 total %llu",
              (unsigned long long)c64);
        CHECK(cas32 == (uint32_t)(nproc * (ITERS / 4)), "cswap32 total %u", cas32);
        CHECK(cas64 == (uint64_t)(nproc * (ITERS / 4)), "cswap64 total %llu",
              (unsigned long long)cas64);
        CHECK(adds == (uint64_t)nproc * 20, "posted add total %llu", (unsigned long long)adds);
        qsort(all32, n, sizeof *all32, cmp_u64);
        qsort(all64, n, sizeof *all64, cmp_u64);
        for (int i = 0; i < n; i++) {
            if (all32[i] != (uint64_t)i || all64[i] != (uint64_t)i * (1 + (1ull << 32))) {
                CHECK(0, "fetched values not a permutation at %d", i);
                break;
            }
        }
        /* swap: old values + final == initial 0 + every value written */
        allsw[n] = last;
        qsort(allsw, n + 1, sizeof *allsw, cmp_u64);
        uint64_t *want = malloc(sizeof(uint64_t) * (n + 1));
        want[0] = 0;
        for (int r = 0; r < nproc; r++)
            for (int i = 0; i < ITERS; i++)
                want[1 + r * ITERS + i] = ((uint64_t)r + 1) * 1000000 + (uint64_t)i;
        qsort(want, n + 1, sizeof *want, cmp_u64);
        CHECK(memcmp(want, allsw, sizeof(uint64_t) * (n + 1)) == 0, "swap values not exact");
        free(want);
    }
    free(all32);
    free(all64);
    free(allsw);
    free(got32);
    free(got64);
    free(gotsw);
}

static void bench_get(arm_net_worker_t *cw)
{
    if (rank != 0 || nproc < 2)
        return;
    unsigned char *dst = malloc(DATA_LEN);
    const size_t sizes[2] = { 8, DATA_LEN };
    const int iters[2] = { 20000, 300 };
    arm_net_comp_t c;
    arm_net_comp_init(&c, NULL, NULL);
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < iters[k] / 10; i++) {
            OK(arm_net_get(rkeys[1], dst, sizes[k], bases[1], &c));
            OK(arm_net_comp_wait(cw, &c, 1 << 30, WAIT_MS));
        }
        double t0 = now();
        for (int i = 0; i < iters[k]; i++) {
            OK(arm_net_get(rkeys[1], dst, sizes[k], bases[1], &c));
            OK(arm_net_comp_wait(cw, &c, 1 << 30, WAIT_MS));
        }
        double dt = (now() - t0) / iters[k];
        printf("bench: get %7zu B: %8.2f us/op  %9.1f MB/s\n", sizes[k], dt * 1e6,
               sizes[k] / dt / 1e6);
    }
    free(dst);
}

int main(int argc, char **argv)
{
    int provided, bench = argc > 1 && strcmp(argv[1], "--bench") == 0;
    MPI_Comm comm = MPI_COMM_WORLD;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nproc);

    int *node_of = malloc(sizeof(int) * nproc), *leader = malloc(sizeof(int) * nproc);
    for (int r = 0; r < nproc; r++)
        node_of[r] = leader[r] = r;        /* virtual nodes of one process */
    arm_net_params_t p;
    arm_net_params_init(&p);
    p.nproc = nproc;
    p.rank = rank;
    p.nnodes = nproc;
    p.node_of = node_of;
    p.leader_of_node = leader;
    p.allgather = mpi_allgather;
    p.ibarrier_start = mpi_ibarrier_start;
    p.ibarrier_test = mpi_ibarrier_test;
    p.cb_ctx = &comm;
    OK(arm_net_init(&p, &net));

    arm_net_worker_t *cw = arm_net_client_worker(net), *sw = arm_net_server_worker(net);
    CHECK(sw != NULL && arm_net_is_leader(net), "every rank should be a leader");
    arm_net_stats_t st;
    arm_net_get_stats(net, &st);
    CHECK(st.eps_to_server == (uint64_t)nproc - 1 && st.eps_to_client == (uint64_t)nproc - 1,
          "endpoints: %llu to servers, %llu to clients, expected %d each",
          (unsigned long long)st.eps_to_server, (unsigned long long)st.eps_to_client, nproc - 1);

    slots = calloc((size_t)nproc, sizeof *slots);
    for (int r = 0; r < nproc; r++)
        slots[r].buf = malloc(DATA_LEN);
    reply.buf = malloc(DATA_LEN);
    OK(arm_net_am_set_handler(sw, AM_REQ, server_on_request, NULL));
    OK(arm_net_am_set_handler(cw, AM_REP, client_on_reply, NULL));
    pthread_t th;
    pthread_create(&th, NULL, server_main, sw);

    /* Register the window and exchange rkeys and addresses through MPI. */
    win = aligned_alloc(64, WIN_LEN);
    memset(win, 0, WIN_LEN);
    arm_net_reg_t *reg;
    OK(arm_net_mem_reg(net, win, WIN_LEN, &reg));
    size_t klen = 0;
    OK(arm_net_rkey_pack(reg, NULL, &klen));
    int kmax, kl = (int)klen;
    MPI_Allreduce(&kl, &kmax, 1, MPI_INT, MPI_MAX, comm);
    unsigned char *kbuf = calloc(1, kmax), *kall = malloc((size_t)kmax * nproc);
    klen = (size_t)kmax;
    OK(arm_net_rkey_pack(reg, kbuf, &klen));
    MPI_Allgather(kbuf, kmax, MPI_BYTE, kall, kmax, MPI_BYTE, comm);
    bases = malloc(sizeof(uint64_t) * nproc);
    uint64_t mybase = (uint64_t)(uintptr_t)win;
    MPI_Allgather(&mybase, 1, MPI_UINT64_T, bases, 1, MPI_UINT64_T, comm);
    rkeys = calloc((size_t)nproc, sizeof *rkeys);
    for (int r = 0; r < nproc; r++)       /* own node too: rank 0 joins the contention */
        OK(arm_net_rkey_unpack(net, r, kall + (size_t)r * kmax, &rkeys[r]));

    unsigned caps = 0;
    char tls[256];
    OK(arm_net_caps(net, &caps, tls, sizeof tls));
    if (rank == 0)
        printf("UCX %s; transports %s; RMA %s, atomics %s\n", arm_net_ucx_version(), tls,
               caps & ARM_NET_CAP_RMA_NATIVE ? "native" : "emulated",
               caps & ARM_NET_CAP_AMO_NATIVE ? "native" : "emulated");

    if (rank == 0 && getenv("NET_TEST_PRINT_EP"))
        arm_net_ep_print(arm_net_server_ep(net, 1), stdout);
    MPI_Barrier(comm);
    test_put_get(cw);
    MPI_Barrier(comm);
    test_atomics(cw);
    MPI_Barrier(comm);
    test_am(cw);
    if (bench)
        bench_get(cw);
    MPI_Barrier(comm);

    arm_net_get_stats(net, &st);
    if (rank == 0)
        printf("stats: eps %llu+%llu, puts %llu gets %llu amos %llu am sent %llu recv %llu\n",
               (unsigned long long)st.eps_to_server, (unsigned long long)st.eps_to_client,
               (unsigned long long)st.puts, (unsigned long long)st.gets,
               (unsigned long long)st.amos, (unsigned long long)st.am_sent,
               (unsigned long long)st.am_recv);

    /* Tear down: rkeys, then the server thread, then the layer. */
    for (int r = 0; r < nproc; r++)
        arm_net_rkey_destroy(rkeys[r]);
    MPI_Barrier(comm);
    atomic_store(&server_stop, 1);
    OK(arm_net_wakeup(sw));
    pthread_join(th, NULL);
    OK(arm_net_mem_dereg(reg));
    double t0 = now();
    OK(arm_net_finalize(net));
    double tfin = now() - t0;
    CHECK(tfin < 4.0, "finalize took %.2f s", tfin);

    int all_fail;
    MPI_Allreduce(&failures, &all_fail, 1, MPI_INT, MPI_SUM, comm);
    if (rank == 0)
        printf("%s: %d failure(s), finalize %.3f s\n", all_fail ? "FAILED" : "PASSED", all_fail,
               tfin);
    free(node_of);
    free(leader);
    free(kbuf);
    free(kall);
    MPI_Finalize();
    return all_fail ? 1 : 0;
}
