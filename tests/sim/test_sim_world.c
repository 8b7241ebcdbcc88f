/* sim.world: the simulator's exact invariants (issue 21 item 5) and the
 * memory study's source.
 *
 * Checked: a server made for real holds exactly the bytes, clients and
 * edges its layout counts (FCG, MFCG, CFCG, Hypercube; several sizes and
 * nodes), and a lazy one holds none until used; every hot-spot run (each
 * topology, fetch-and-add and vector put, one edge slot so credits bind)
 * completes every operation, hands every fetch-and-add value out once and
 * never has more forwarded messages in flight on an edge than its slots;
 * combining happens under MFCG; the same seed gives the same records and
 * another seed other ones; and the checker itself fails on a duplicated
 * value or a wrong counter; polling clients count for the window of each
 * wait. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include "server/srv_int.h"
#include "sim_exp.h"
#include "unit.h"

static const arm_topo_kind_t kinds[] = { ARM_TOPO_FCG, ARM_TOPO_MFCG, ARM_TOPO_CFCG,
                                         ARM_TOPO_HCUBE };

static void layout_matches(arm_topo_kind_t kind, int nproc, int ppn)
{
    int nnodes = (nproc + ppn - 1) / ppn;
    int node_of[256];
    arm_topo_t t;
    char why[160];
    if (arm_topo_init(&t, kind, nnodes, NULL, why, sizeof why) != ARM_OK) {
        CHECK(0, "topology %d of %d nodes: %s", (int)kind, nnodes, why);
        return;
    }
    for (int r = 0; r < nproc; r++)
        node_of[r] = r / ppn;
    for (int node = 0; node < nnodes; node += nnodes / 3 + 1) {
        for (int lazy = 0; lazy <= 1; lazy++) {
            arm_server_params_t p = {
                .nproc = nproc, .node = node, .slots = 4, .slot_size = 2048,
                .progress = ARM_SRV_PROGRESS_POLL, .topo = kind == ARM_TOPO_FCG ? NULL : &t,
                .node_of = node_of, .edge_slots = 3, .combine = 1, .lazy_clients = lazy };
            arm_server_layout_t l;
            sim_node_t n;
            memset(&n, 0, sizeof n);
            struct arm_server *s = NULL;
            CHECK(arm_server_layout(&p, &l) == ARM_OK, "layout");
            CHECK(srv_create(&p, &sim_xport, &n, &s) == ARM_OK, "made");
            if (!s)
                continue;
            if (!lazy) {
                CHECK(s->stats.buffer_bytes == l.buffer_bytes && s->stats.clients == l.clients &&
                      s->stats.edges_in == l.edges_in && s->stats.edges_out == l.edges_out,
                      "kind %d nproc %d node %d: made %llu bytes, layout %llu", (int)kind,
                      nproc, node, (unsigned long long)s->stats.buffer_bytes,
                      (unsigned long long)l.buffer_bytes);
            } else {
                CHECK(s->stats.buffer_bytes == 0 && s->stats.clients == 0,
                      "lazy: nothing made at start (%llu bytes)",
                      (unsigned long long)s->stats.buffer_bytes);
            }
            srv_destroy(s);
        }
    }
}

static sim_params_t params(arm_topo_kind_t kind, int nproc, int ppn, uint64_t seed)
{
    sim_params_t p;
    memset(&p, 0, sizeof p);
    p.kind = kind;
    p.nproc = nproc;
    p.ppn = ppn;
    p.slots = 2;
    p.slot_size = 4096;
    p.edge_slots = 1;
    p.combine = 1;
    p.seed = seed;
    return p;
}

/* Runs one experiment into buf (the SIM records); returns sim_check's
 * verdict, and the forwarded requests combined in *combined. */
static int run(arm_topo_kind_t kind, int exp, int op, uint64_t seed, char *buf, size_t len,
               uint64_t *combined, int tamper)
{
    sim_model_t m;
    sim_model_defaults(&m);
    sim_params_t p = params(kind, exp == 2 ? 64 : 16, 2, seed);
    sim_world_t w;
    char why[160];
    if (sim_world_init(&w, &m, &p, why, sizeof why) != 0) {
        CHECK(0, "world: %s", why);
        sim_world_fini(&w);
        return 0;
    }
    sim_hot_opts_t o = { .topo_name = arm_topo_name(kind), .op = op, .level = 100, .iters = 5,
                         .ops = 4, .per_rank = 1 };
    FILE *f = fmemopen(buf, len, "w");
    int st = exp == 2 ? sim_hot100(&w, &o, f) : sim_hotspot(&w, &o, f);
    fclose(f);
    CHECK(st == 0, "experiment %d ran", exp);
    *combined = 0;
    for (int k = 0; k < w.nnodes; k++)
        *combined += w.nodes[k].srv->stats.fwd_combined;
    CHECK(w.edge_inflight_max <= p.edge_slots, "edge in flight %d", w.edge_inflight_max);
    if (tamper == 1)
        w.fadd_dup++;
    if (tamper == 2)
        w.mem[SIM_FADD_OFF] ^= 1;
    FILE *null = fopen("/dev/null", "w");
    int ok = sim_check(&w, null ? null : stderr);
    if (null)
        fclose(null);
    sim_world_fini(&w);
    return ok;
}

/* Polling clients (decision 055): a client counts from the start of its
 * wait until poll_window_us later or until its wait ends, whichever first;
 * a later wait of the same client counts afresh. */
static void polling_window(void)
{
    sim_world_t w;
    memset(&w, 0, sizeof w);
    sim_client_t cl[3];
    memset(cl, 0, sizeof cl);
    w.cl = cl;
    w.m.poll_window_us = 100.0;
    for (int r = 0; r < 3; r++) {
        cl[r].rank = r;
        cl[r].wait_epoch = 1;
        cl[r].polling = 1;
        w.now = 10.0 * r;                  /* waits start at 0, 10, 20 us */
        w.npoll++;
        sim_poll_push(&w, &cl[r]);
    }
    w.now = 50.0;
    CHECK(sim_polling(&w) == 3, "three poll at 50 us (%ld)", w.npoll);
    cl[1].polling = 0;                     /* its answer came: as set_state does */
    w.npoll--;
    w.now = 105.0;
    CHECK(sim_polling(&w) == 1, "at 105 us the first is past its window, the second "
          "answered (%ld)", w.npoll);
    cl[0].wait_epoch++;                    /* rank 0 waits again, from 105 us */
    cl[0].polling = 1;
    w.npoll++;
    sim_poll_push(&w, &cl[0]);
    w.now = 150.0;
    CHECK(sim_polling(&w) == 1 && cl[0].polling && !cl[2].polling,
          "at 150 us only rank 0's new wait polls (%ld)", w.npoll);
    w.now = 300.0;
    CHECK(sim_polling(&w) == 0 && w.poll_len == 0, "nothing polls at 300 us (%ld, %zu left)",
          w.npoll, w.poll_len);
    free(w.polls);
}

int main(void)
{
    polling_window();
    unit_section("polling clients: counted within their window of each wait");
    static char a[1 << 16], b[1 << 16];
    uint64_t comb;
    for (int k = 0; k < 4; k++) {
        layout_matches(kinds[k], 16, 1);
        layout_matches(kinds[k], 64, 4);
        layout_matches(kinds[k], 96, 12);
    }
    for (int k = 0; k < 4; k++) {
        for (int op = SIM_OP_FADD; op <= SIM_OP_PUTV; op++)
            CHECK(run(kinds[k], 1, op, 1, a, sizeof a, &comb, 0),
                  "hotspot %s op %d: invariants", arm_topo_name(kinds[k]), op);
        CHECK(run(kinds[k], 2, SIM_OP_FADD, 1, a, sizeof a, &comb, 0),
              "hot100 %s: invariants", arm_topo_name(kinds[k]));
    }
    CHECK(run(ARM_TOPO_MFCG, 2, SIM_OP_FADD, 7, a, sizeof a, &comb, 0) && comb > 0,
          "MFCG combines fetch-and-adds (%llu)", (unsigned long long)comb);
    run(ARM_TOPO_MFCG, 2, SIM_OP_FADD, 7, b, sizeof b, &comb, 0);
    CHECK(strcmp(a, b) == 0, "the same seed gives the same records");
    run(ARM_TOPO_MFCG, 2, SIM_OP_FADD, 8, b, sizeof b, &comb, 0);
    CHECK(strcmp(a, b) != 0, "another seed gives other records");
    CHECK(!run(ARM_TOPO_MFCG, 2, SIM_OP_FADD, 1, a, sizeof a, &comb, 1),
          "the checker fails on a value handed out twice");
    CHECK(!run(ARM_TOPO_FCG, 2, SIM_OP_FADD, 1, a, sizeof a, &comb, 2),
          "the checker fails on a wrong counter");
    return unit_finish("sim.world");
}
