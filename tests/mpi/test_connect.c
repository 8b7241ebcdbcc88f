/* connect (Armada only, every rank its own node, 2+ ranks): the connection
 * contract of ARMADA_CONNECT (issue 22), read from armada_stats_get while
 * the job runs and from the ARMADA_STATS line that ARMCI_Finalize prints.
 * The mode is read from the environment, as the runtime reads it:
 *   lazy  (the default)  right after ARMCI_Init a client holds at most one
 *         endpoint to a server (its own node's); touching one other node
 *         adds exactly one; a server ends with endpoints only to clients
 *         that sent it something (and its own node's);
 *   eager every client endpoint to a server (nodes - 1, or nodes with its
 *         own) and every server endpoint to a client exist from the start;
 *   edges as lazy, and under ARMADA_TOPOLOGY a client never holds more than
 *         its node's topology degree + 1 (its own server) endpoints, nor a
 *         server endpoints to clients outside its neighbour nodes and its
 *         own, even after touching every node.
 * lazy under a topology (ARMADA_TOPOLOGY other than fcg or auto): touching a
 *         node reached by forwarding also connects this client to that
 *         node's server, so that the server answers it straight (hicoo,
 *         decision 070): phase A adds one or two endpoints (the node, and
 *         its first hop if the requests go there). In a phase C, ranks 2,
 *         6, 10, ... (no get has connected them to anyone but their phase A
 *         node) do CREPS fetch-and-adds, which go by the servers, on every
 *         other node. In all, at most 8 answers per (rank, forwarded node)
 *         pair of phases B and C may be relayed (those that overtake the
 *         hello), where relaying every answer would be CREPS per pair.
 * The pattern: phase A, every rank puts, gets and fetch-and-adds on one
 * node k only (the next node, or under edges the first hop towards it);
 * phase B, ranks 0, 4, 8, ... put, get, accumulate and fetch-and-add on
 * every node. The others then must hold no more than after phase A (barriers
 * and fences connect nothing). The data of both phases is checked. So that
 * the bound on a server's endpoints is below every other client, few ranks
 * touch every node. */
#define _POSIX_C_SOURCE 200809L
#include <unistd.h>
#include <armci.h>
#include <armada.h>
#include "topo/arm_topo.h"
#include "tst.h"

enum { LAZY, EAGER, EDGES };
static const char *mode_name[] = { "lazy", "eager", "edges" };

#define HDR 64          /* acc cell (double), fadd counter, ring counter */
#define SLOT 256        /* each rank's slot in a target's segment        */
#define PB 128          /* phase B payload at offset 8 of the slot       */
#define TOUCHER(r) ((r) % 4 == 0)   /* the ranks of phase B */
#define CREPS 40        /* phase C: fetch-and-adds per node */
#define CRANK(r) ((r) % 4 == 2)     /* the ranks of phase C */

typedef struct { uint64_t c2s, s2c, s2s, ns; } eps_t;

static int me, np, nn, mode, topo_on;
static void **seg;
static arm_topo_t topo;

static eps_t eps_now(void)
{
    armada_stats_t s;
    eps_t e = { 0, 0, 0, 0 };
    CHECK_EQ(armada_stats_get(&s), 0, "armada_stats_get");
    e.c2s = s.eps_client_to_server;
    e.s2c = s.eps_server_to_client;
    e.s2s = s.eps_server_to_server;
    e.ns = s.connect_ns;
    return e;
}

static int read_mode(void)
{
    const char *m = getenv("ARMADA_CONNECT");
    if (!m || !*m || !strcmp(m, "lazy"))
        return LAZY;
    if (!strcmp(m, "eager"))
        return EAGER;
    if (!strcmp(m, "edges"))
        return EDGES;
    fprintf(stderr, "connect: unknown ARMADA_CONNECT=%s\n", m);
    MPI_Abort(MPI_COMM_WORLD, 2);
    return LAZY;
}

/* The topology the runtime builds under edges; FCG (no bound beyond the
 * node count) without ARMADA_TOPOLOGY or with auto or fcg. */
static void topo_setup(void)
{
    arm_topo_kind_t kind = ARM_TOPO_FCG;
    const char *t = getenv("ARMADA_TOPOLOGY");
    const char *dims = getenv("ARMADA_TOPOLOGY_DIMS");
    char why[256] = "";
    if (t && *t && strcmp(t, "auto"))
        CHECK(arm_topo_parse_kind(t, &kind) == ARM_OK, "ARMADA_TOPOLOGY=%s unknown", t);
    CHECK(arm_topo_init(&topo, kind, nn, dims, why, sizeof why) == ARM_OK,
          "topology %s over %d nodes: %s", t ? t : "fcg", nn, why);
    topo_on = kind != ARM_TOPO_FCG;
}

/* Nodes that this rank's requests reach by forwarding. */
static int forwarded_nodes(void)
{
    int n = 0;
    for (int t = 0; t < nn; t++)
        n += topo_on && t != me && arm_topo_next_hop(&topo, me, t) != t;
    return n;
}

static char *at(int rank, size_t off) { return (char *)seg[rank] + off; }
static size_t slot(int r) { return HDR + (size_t)r * SLOT; }

/* Phase C: CREPS fetch-and-adds on every other node's counter at 24. */
static void phase_c(void)
{
    for (int t = 0; t < np; t++)
        for (int i = 0; t != me && i < CREPS; i++) {
            long old = -1;
            ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, at(t, 24), 1, t);
            CHECK(old >= 0, "phase C: fetch-and-add at rank %d returned %ld", t, old);
        }
    ARMCI_AllFence();
}

/* Phase A: put, get and fetch-and-add on rank k (its own node) only. */
static void phase_a(int k)
{
    long v = me + 1, back = 0, old = -1;
    ARMCI_Put(&v, at(k, slot(me)), sizeof v, k);
    ARMCI_Fence(k);
    ARMCI_Get(at(k, slot(me)), &back, sizeof back, k);
    CHECK_EQ(back, v, "phase A: get of what was put");
    CHECK_EQ(ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, at(k, 16), 1, k), 0, "phase A: Rmw");
    CHECK(old >= 0 && old < np, "phase A: fetch-and-add returned %ld", old);
    ARMCI_Fence(k);
}

/* Phase B: every rank t (every node, own included) gets a put, a get back,
 * an accumulate of me+1 and a fetch-and-add of 1. */
static void phase_b(void)
{
    unsigned char out[PB], in[PB];
    for (int t = 0; t < np; t++) {
        for (int i = 0; i < PB; i++)
            out[i] = tst_byte(me * 64 + t, i);
        ARMCI_Put(out, at(t, slot(me) + 8), PB, t);
        ARMCI_Fence(t);
        memset(in, 0, sizeof in);
        ARMCI_Get(at(t, slot(me) + 8), in, PB, t);
        CHECK(!memcmp(in, out, PB), "phase B: get from rank %d differs from the put", t);
        double one = 1.0, add = me + 1;
        CHECK_EQ(ARMCI_Acc(ARMCI_ACC_DBL, &one, &add, at(t, 0), sizeof add, t), 0,
                 "phase B: Acc");
        long old = -1;
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, at(t, 8), 1, t);
        CHECK(old >= 0 && old < np, "phase B: fetch-and-add at rank %d returned %ld", t, old);
    }
    ARMCI_AllFence();
}

/* What arrived in this rank's segment: ring_from[r] says whether rank r's
 * phase A went here. */
static void check_data(const int *ring_from)
{
    double acc = 0;
    long touchers = 0, ring = 0;
    for (int r = 0; r < np; r++) {
        if (TOUCHER(r)) {
            acc += r + 1;
            touchers++;
            for (int i = 0; i < PB; i++)
                if (*(unsigned char *)at(me, slot(r) + 8 + (size_t)i) != tst_byte(r * 64 + me, i)) {
                    CHECK(0, "phase B: rank %d's bytes at rank %d, offset %d", r, me, i);
                    break;
                }
        }
        if (ring_from[r]) {
            ring++;
            CHECK_EQ(*(long *)at(me, slot(r)), r + 1, "phase A: the value rank r put");
        }
    }
    CHECK(*(double *)at(me, 0) == acc, "accumulated %g, expected %g", *(double *)at(me, 0), acc);
    CHECK_EQ(*(long *)at(me, 8), touchers, "phase B fetch-and-adds arrived");
    CHECK_EQ(*(long *)at(me, 16), ring, "phase A fetch-and-adds arrived");
    long cranks = 0;
    for (int r = 0; r < np; r++)
        cranks += CRANK(r) && r != me;
    if (mode == LAZY && topo_on)
        CHECK_EQ(*(long *)at(me, 24), cranks * CREPS, "phase C fetch-and-adds arrived");
}

/* Client endpoints after each step (every rank its own node). */
static void check_client(eps_t e0, eps_t e1, eps_t e2)
{
    uint64_t all = (uint64_t)nn;
    if (mode == EAGER) {
        CHECK(e0.c2s >= all - 1 && e0.c2s <= all, "eager: %llu client endpoints after "
              "ARMCI_Init, expected every node's server (%d)", (unsigned long long)e0.c2s, nn);
        CHECK_EQ(e1.c2s, e0.c2s, "eager: client endpoints after phase A");
        CHECK_EQ(e2.c2s, e0.c2s, "eager: client endpoints after phase B");
        CHECK(e0.ns > 0, "eager: no time spent connecting");
        return;
    }
    CHECK(e0.c2s <= 1, "%s: %llu client endpoints right after ARMCI_Init and ARMCI_Malloc "
          "(at most its own node's server)", mode_name[mode], (unsigned long long)e0.c2s);
    if (mode == LAZY && topo_on)
        CHECK(e1.c2s >= e0.c2s + 1 && e1.c2s <= e0.c2s + 2, "lazy under a topology: %llu "
              "client endpoints after touching one node, %llu before (+1, or +2 with its first "
              "hop)", (unsigned long long)e1.c2s, (unsigned long long)e0.c2s);
    else
        CHECK_EQ(e1.c2s, e0.c2s + 1, "client endpoints after touching one node (+1)");
    CHECK(e1.ns > e0.ns, "%s: the new endpoint took no connect time", mode_name[mode]);
    if (!TOUCHER(me) && !(mode == LAZY && topo_on && CRANK(me))) {
        CHECK_EQ(e2.c2s, e1.c2s, "client endpoints of a rank that did nothing after phase A");
    } else if (mode == LAZY) {
        CHECK(e2.c2s >= all - 1 && e2.c2s <= all, "lazy: %llu client endpoints after touching "
              "every node, expected %d or %d", (unsigned long long)e2.c2s, nn - 1, nn);
    } else {
        int deg = arm_topo_degree(&topo, me);
        CHECK(e2.c2s >= 1 && e2.c2s <= (uint64_t)deg + 1, "edges: %llu client endpoints "
              "after touching every node, node %d has %d topology neighbours (+1 own)",
              (unsigned long long)e2.c2s, me, deg);
    }
}

/* ARMCI_Finalize with stderr sent to a file, so that this rank can read its
 * own ARMADA_STATS line (the server's counts are final only then); what was
 * written goes to stderr afterwards. Returns 0 when the line was found. */
static int finalize_read_stats(eps_t *fin, unsigned long long *relayed)
{
    static char text[16384];
    FILE *tf = tmpfile();
    int saved = dup(2);
    CHECK(tf && saved >= 0, "cannot capture stderr");
    if (!tf || saved < 0) {
        ARMCI_Finalize();
        return -1;
    }
    fflush(stderr);
    dup2(fileno(tf), 2);
    ARMCI_Finalize();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tf);
    size_t n = fread(text, 1, sizeof text - 1, tf);
    text[n] = '\0';
    fclose(tf);
    fputs(text, stderr);
    char tag[64];
    snprintf(tag, sizeof tag, "armada[rank %d] stats:", me);
    const char *line = strstr(text, tag), *p;
    unsigned long long c2s, s2c, s2s;
    if (!line || !(p = strstr(line, " eps_c2s=")) ||
        sscanf(p, " eps_c2s=%llu eps_s2c=%llu eps_s2s=%llu", &c2s, &s2c, &s2s) != 3) {
        CHECK(0, "no 'eps_c2s= eps_s2c= eps_s2s=' in this rank's ARMADA_STATS line");
        return -1;
    }
    fin->c2s = c2s;
    fin->s2c = s2c;
    fin->s2s = s2s;
    if (!(p = strstr(line, " relayed=")) || sscanf(p, " relayed=%llu", relayed) != 1) {
        CHECK(0, "no 'relayed=' in this rank's ARMADA_STATS line");
        return -1;
    }
    return 0;
}

/* Server endpoints at the end: senders clients sent something here. */
static void check_server(eps_t e0, eps_t e2, eps_t fin, int senders)
{
    CHECK_EQ(fin.c2s, e2.c2s, "client endpoints: none made after phase B (fences, "
             "barriers, ARMCI_Finalize)");
    if (mode == EAGER) {
        CHECK(e0.s2c >= (uint64_t)np - 1 && fin.s2c <= (uint64_t)np, "eager: server endpoints "
              "to clients %llu at start, %llu at the end, expected every other client (%d)",
              (unsigned long long)e0.s2c, (unsigned long long)fin.s2c, np - 1);
        return;
    }
    CHECK(fin.s2c <= (uint64_t)senders + 1, "%s: the server of node %d holds %llu endpoints "
          "to clients, but only %d other clients sent it something (+1 own)", mode_name[mode],
          me, (unsigned long long)fin.s2c, senders);
    if (mode == EDGES) {
        int deg = arm_topo_degree(&topo, me);
        CHECK(fin.s2c <= (uint64_t)deg + 1, "edges: %llu server endpoints to clients, node %d "
              "has %d topology neighbours (+1 own)", (unsigned long long)fin.s2c, me, deg);
        CHECK(fin.s2s <= (uint64_t)deg, "edges: %llu server-to-server endpoints, node %d has "
              "%d topology neighbours", (unsigned long long)fin.s2s, me, deg);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    setenv("ARMADA_STATS", "1", 1);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    mode = read_mode();
    nn = armada_node_count();
    if (np < 2 || nn != np) {
        fprintf(stderr, "connect: needs 2+ ranks, each its own node (ARMADA_PPN=1): %d ranks, "
                "%d nodes\n", np, nn);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    topo_setup();
    seg = malloc(sizeof(void *) * (size_t)np);
    size_t len = slot(np);
    CHECK_EQ(ARMCI_Malloc(seg, len), 0, "ARMCI_Malloc");
    ARMCI_Access_begin(seg[me]);
    memset(seg[me], 0, len);
    ARMCI_Access_end(seg[me]);
    ARMCI_Barrier();
    eps_t e0 = eps_now();

    int next = (me + 1) % nn;
    int k = mode == EDGES ? arm_topo_next_hop(&topo, me, next) : next;
    phase_a(k);
    eps_t e1 = eps_now();
    TST_SAY("connect: %s, %d nodes: phase A (one node each) done", mode_name[mode], nn);
    ARMCI_Barrier();
    if (TOUCHER(me))
        phase_b();
    ARMCI_Barrier();
    if (mode == LAZY && topo_on && CRANK(me))
        phase_c();
    ARMCI_Barrier();
    eps_t e2 = eps_now();

    int *ring_from = calloc((size_t)np, sizeof(int));
    int *sent = calloc((size_t)np, sizeof(int)), *senders = calloc((size_t)np, sizeof(int));
    MPI_Allgather(&k, 1, MPI_INT, ring_from, 1, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < np; r++)
        ring_from[r] = ring_from[r] == me;
    ARMCI_Access_begin(seg[me]);
    check_data(ring_from);
    ARMCI_Access_end(seg[me]);
    for (int t = 0; t < np; t++)
        sent[t] = t != me && (t == k || TOUCHER(me) ||
                              (mode == LAZY && topo_on && CRANK(me)) ||
                              (topo_on && t == arm_topo_next_hop(&topo, me, k)));
    MPI_Allreduce(sent, senders, np, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check_client(e0, e1, e2);
    printf("connect: rank %d (%s): client endpoints %llu after init, %llu after phase A, "
           "%llu after phase B\n", me, mode_name[mode], (unsigned long long)e0.c2s,
           (unsigned long long)e1.c2s, (unsigned long long)e2.c2s);
    ARMCI_Barrier();
    ARMCI_Free(seg[me]);

    eps_t fin = { 0, 0, 0, 0 };
    unsigned long long relayed = 0, relayed_all = 0, pairs = 0;
    unsigned long long mine = TOUCHER(me) || (mode == LAZY && topo_on && CRANK(me))
        ? (unsigned long long)forwarded_nodes() : 0;
    if (finalize_read_stats(&fin, &relayed) == 0)
        check_server(e0, e2, fin, senders[me]);
    MPI_Allreduce(&relayed, &relayed_all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &pairs, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (mode == LAZY && topo_on) {
        CHECK(relayed_all <= 8 * pairs, "lazy under a topology: %llu answers relayed, more "
              "than 8 per (rank, forwarded node) pair of phases B and C (%llu pairs): the servers do not "
              "answer straight", relayed_all, pairs);
        if (me == 0)
            printf("connect: lazy, %llu (rank, forwarded node) pairs, %llu answers relayed "
                   "in all\n", pairs, relayed_all);
    }
    MPI_Finalize();
    free(ring_from);
    free(sent);
    free(senders);
    free(seg);
    return tst_finish("connect");
}
