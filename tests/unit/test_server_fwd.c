/* unit.server_fwd: forwarding, aggregation and combining between servers
 * (issue 20), with one server per node of a virtual topology, each on its
 * own fake transport, and the test as the network: it carries every
 * server-to-server message to its node and every reply to its rank. One
 * rank per node. No MPI, no UCX.
 *
 * Checked: every ordered pair of nodes of MFCG 3x3, CFCG 2x2x2 partly
 * populated and a 7-node hypercube exchanges puts and gets through the
 * routes (the data lands, each get answers its origin, from its target);
 * order between one origin and one target (put, put, fence, get), also
 * when an edge's messages arrive out of order;
 * aggregation (requests that meet at a forwarder travel in one message);
 * credits per edge (with one edge slot a forwarder holds on until the
 * credit comes back, and its buffer grows meanwhile); combining (origins'
 * fetch-and-adds folded into one entry, each origin answered with its own
 * value of one serial order); a lock held at the target parks a forwarded
 * lock request without stopping the edge, and the unlock grants it;
 * requests that cannot be forwarded are refused to their origin; with split
 * answers, the combining server answers the origins for the target; a
 * target tells each origin how many of its forwarded writes it served. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include "server/srv_int.h"
#include "server/srv_xport_fake.h"
#include "shm/arm_shm_sync.h"
#include "topo/arm_topo.h"
#include "unit.h"

#define NMAX 16
#define MEM 65536
#define SLOT 4096
#define LOCK_OFF 60000

typedef struct reply {
    arm_srv_rep_t rep;
    long long data;              /* first 8 bytes of the payload            */
    char text[SRV_WHY_MAX];
} reply_t;

/* Split answers of combined fetch-and-adds (decision 047) in the servers made. */
static int w_split;
/* Servers acknowledge when idle (fence_ack, ack_us 0: at the first idle pass). */
static int w_ack;

typedef struct world {
    int n;
    arm_topo_t topo;
    int node_of[NMAX];
    srv_fake_t f[NMAX];
    struct arm_server *s[NMAX];
    char *mem[NMAX];
    arm_shm_mutex_t locks[NMAX];
    arm_shm_mutex_t *lockp[NMAX];
    size_t read[NMAX];
    reply_t inbox[NMAX][256];
    int ninbox[NMAX];
    uint64_t next_id;
    long fwd_msgs, fwd_reqs, max_nreq;
} world_t;

static void w_init(world_t *w, arm_topo_kind_t kind, int n, const char *dims, int edge_slots)
{
    char why[160];
    memset(w, 0, sizeof *w);
    w->n = n;
    w->next_id = 1;
    if (arm_topo_init(&w->topo, kind, n, dims, why, sizeof why) != ARM_OK) {
        fprintf(stderr, "topology: %s\n", why);
        exit(2);
    }
    for (int r = 0; r < n; r++) {
        w->node_of[r] = r;
        w->lockp[r] = &w->locks[r];
    }
    for (int k = 0; k < n; k++) {
        srv_fake_init(&w->f[k]);
        arm_server_params_t p = { .nproc = n, .node = k, .acc_lock = w->lockp, .slots = 2,
                                  .slot_size = SLOT, .progress = ARM_SRV_PROGRESS_POLL,
                                  .topo = &w->topo, .node_of = w->node_of,
                                  .edge_slots = edge_slots, .combine = 1, .split = w_split,
                                  .fence_ack = w_ack, .ack_us = 0 };
        if (srv_create(&p, &srv_xport_fake, &w->f[k], &w->s[k]) != ARM_OK) {
            fprintf(stderr, "srv_create failed\n");
            exit(2);
        }
        w->mem[k] = aligned_alloc(64, MEM);
        memset(w->mem[k], 0, MEM);
        srv_seg_add(w->s[k], w->mem[k], MEM, 0, NULL);
    }
}

static void w_fini(world_t *w)
{
    for (int k = 0; k < w->n; k++) {
        srv_destroy(w->s[k]);
        srv_fake_fini(&w->f[k]);
        free(w->mem[k]);
    }
}

static uint64_t addr(const world_t *w, int node, size_t off)
{
    return (uint64_t)(uintptr_t)(w->mem[node] + off);
}

/* A request of rank src for rank target, sent to the first hop's server. */
static arm_srv_req_t req(world_t *w, int src, int target, int op, uint64_t raddr, uint32_t len,
                         int reply)
{
    arm_srv_req_t r;
    memset(&r, 0, sizeof r);
    r.op = (uint8_t)op;
    r.src = src;
    r.target = target;
    r.raddr = raddr;
    r.len = len;
    r.req_id = w->next_id++ | (reply ? 0 : ARM_SRV_REQ_NOREPLY);
    return r;
}

static arm_status_t send_req(world_t *w, arm_srv_req_t *r, const void *data, size_t len, int sync)
{
    int from = w->node_of[r->src], to = w->node_of[r->target];
    int hop = from == to ? to : arm_topo_next_hop(&w->topo, from, to);
    if (sync)
        r->op |= ARM_SRV_SYNC;
    return srv_fake_deliver(&w->f[hop], r, sizeof *r, data, len, 0);
}

/* Carries messages until nothing moves; progress runs at every server. */
static void w_run(world_t *w)
{
    for (int moved = 1, rounds = 0; moved && rounds < 1000; rounds++) {
        moved = 0;
        for (int k = 0; k < w->n; k++)
            moved |= srv_progress(w->s[k]);
        for (int k = 0; k < w->n; k++) {
            while (w->read[k] < w->f[k].nsent) {
                srv_fake_sent_t *m = &w->f[k].sent[w->read[k]++];
                moved = 1;
                if (m->is_request) {
                    if (m->is_request == ARM_SRV_AM_FWD) {
                        arm_srv_fwd_hdr_t h;
                        memcpy(&h, m->hdr, sizeof h);
                        w->fwd_msgs++;
                        w->fwd_reqs += h.nreq;
                        if (h.nreq > w->max_nreq)
                            w->max_nreq = h.nreq;
                    }
                    srv_fake_deliver_am(&w->f[m->to], (unsigned)m->is_request, m->hdr,
                                        m->hdr_len, m->data, m->len);
                    continue;
                }
                reply_t *rp = &w->inbox[m->to][w->ninbox[m->to]++ % 256];
                memcpy(&rp->rep, m->hdr, sizeof rp->rep);
                rp->data = 0;
                memcpy(&rp->data, m->data, m->len < 8 ? m->len : 8);
                snprintf(rp->text, sizeof rp->text, "%.*s", (int)m->len, m->data);
            }
        }
    }
}

/* The reply of rank r to req_id (NULL when none came). */
static const reply_t *answer(world_t *w, int r, uint64_t req_id)
{
    for (int i = 0; i < w->ninbox[r] && i < 256; i++)
        if (w->inbox[r][i].rep.req_id == req_id)
            return &w->inbox[r][i];
    return NULL;
}

/* Every ordered pair: a put of 8 bytes, then a get of them, per pair. */
static void all_pairs(arm_topo_kind_t kind, int n, const char *dims)
{
    world_t *w = malloc(sizeof *w);
    w_init(w, kind, n, dims, 2);
    int bad_put = 0, bad_get = 0, wrong_node = 0, pairs = 0;
    for (int s = 0; s < n; s++)
        for (int t = 0; t < n; t++) {
            if (s == t)
                continue;
            long long v = 1000 * s + t;
            arm_srv_req_t p = req(w, s, t, ARM_SRV_PUT, addr(w, t, 8 * (size_t)s), 8, 0);
            send_req(w, &p, &v, 8, 0);
            w_run(w);
            arm_srv_req_t g = req(w, s, t, ARM_SRV_GET, addr(w, t, 8 * (size_t)s), 8, 1);
            send_req(w, &g, NULL, 0, 1);
            w_run(w);
            long long have;
            memcpy(&have, w->mem[t] + 8 * s, 8);
            bad_put += have != v;
            const reply_t *a = answer(w, s, g.req_id);
            bad_get += !a || a->rep.status != ARM_OK || a->data != v;
            wrong_node += a && a->rep.node != t;
            w->ninbox[s] = 0;
            pairs++;
        }
    char d[64];
    arm_topo_describe(&w->topo, d, sizeof d);
    CHECK(bad_put == 0 && bad_get == 0 && wrong_node == 0,
          "%s: %d pairs, %d puts lost, %d gets wrong, %d answered by another node", d, pairs,
          bad_put, bad_get, wrong_node);
    CHECK(w->fwd_msgs > 0, "%s: some requests were forwarded (%ld messages)", d, w->fwd_msgs);
    w_fini(w);
    free(w);
}

/* Node 8 of MFCG 3x3 to node 0 goes through node 6: put, put, fence, get
 * from one origin come out in order; three origins' puts that reach node 6
 * in one pass leave it in one message. */
static void order_and_aggregation(void)
{
    world_t *w = malloc(sizeof *w);
    w_init(w, ARM_TOPO_MFCG, 9, "3x3", 2);
    CHECK(arm_topo_next_hop(&w->topo, 8, 0) == 6 && arm_topo_next_hop(&w->topo, 7, 0) == 6,
          "7 and 8 reach 0 through 6");
    long long a = 11, b = 22;
    arm_srv_req_t p1 = req(w, 8, 0, ARM_SRV_PUT, addr(w, 0, 64), 8, 0);
    arm_srv_req_t p2 = req(w, 8, 0, ARM_SRV_PUT, addr(w, 0, 64), 8, 0);
    arm_srv_req_t p3 = req(w, 7, 0, ARM_SRV_PUT, addr(w, 0, 72), 8, 0);
    arm_srv_req_t fe = req(w, 8, 0, ARM_SRV_FENCE, 0, 0, 1);
    send_req(w, &p1, &a, 8, 0);
    send_req(w, &p2, &b, 8, 0);
    send_req(w, &p3, &a, 8, 0);
    send_req(w, &fe, NULL, 0, 1);
    CHECK(w->mem[0][64] == 0, "nothing reached node 0 before the forwarder's pass");
    w_run(w);
    long long got;
    memcpy(&got, w->mem[0] + 64, 8);
    CHECK(got == 22, "the later put of one origin lands last (%lld)", got);
    const reply_t *f = answer(w, 8, fe.req_id);
    CHECK(f && f->rep.status == ARM_OK && f->rep.node == 0, "the fence answered by node 0");
    CHECK(w->max_nreq >= 4 && w->fwd_msgs == 1,
          "four requests of two origins in one forwarded message (%ld messages, largest %ld)",
          w->fwd_msgs, w->max_nreq);
    w_fini(w);
    free(w);
}

/* Two messages of one edge that arrive in the wrong order (UCX can deliver
 * them so while the endpoint is wired up) are served in their sent order:
 * node 8's second put to node 0 lands last. A message numbered beyond the
 * edge's slots is dropped, not served. */
static void edge_order(void)
{
    world_t *w = malloc(sizeof *w);
    w_init(w, ARM_TOPO_MFCG, 9, "3x3", 2);
    long long v[2] = { 11, 22 };
    size_t first = w->f[6].nsent;
    for (int i = 0; i < 2; i++) {
        arm_srv_req_t p = req(w, 8, 0, ARM_SRV_PUT, addr(w, 0, 64), 8, 0);
        send_req(w, &p, &v[i], 8, 0);
        srv_progress(w->s[6]);             /* one message per pass, one credit each */
    }
    int fwd[2], nfwd = 0;
    for (size_t i = first; i < w->f[6].nsent && nfwd < 2; i++)
        if (w->f[6].sent[i].is_request == ARM_SRV_AM_FWD && w->f[6].sent[i].to == 0)
            fwd[nfwd++] = (int)i;
    CHECK(nfwd == 2, "node 6 sent the two puts in two messages (%d)", nfwd);
    if (nfwd == 2) {
        srv_fake_sent_t *m0 = &w->f[6].sent[fwd[0]], *m1 = &w->f[6].sent[fwd[1]];
        arm_srv_fwd_hdr_t h0, h1;
        memcpy(&h0, m0->hdr, sizeof h0);
        memcpy(&h1, m1->hdr, sizeof h1);
        CHECK(h0.seq + 1 == h1.seq, "numbered in order (%u, %u)", h0.seq, h1.seq);
        srv_fake_deliver_am(&w->f[0], ARM_SRV_AM_FWD, m1->hdr, m1->hdr_len, m1->data, m1->len);
        srv_progress(w->s[0]);
        CHECK(w->mem[0][64] == 0, "the later message waits for the earlier one");
        srv_fake_deliver_am(&w->f[0], ARM_SRV_AM_FWD, m0->hdr, m0->hdr_len, m0->data, m0->len);
        srv_progress(w->s[0]);
        long long got;
        memcpy(&got, w->mem[0] + 64, 8);
        CHECK(got == 22, "the later put lands last (%lld)", got);
        CHECK(w->s[0]->stats.fwd_in_early == 1, "one message counted early (%llu)",
              (unsigned long long)w->s[0]->stats.fwd_in_early);
        /* Beyond the window: dropped. */
        arm_srv_fwd_hdr_t far = h0;
        far.seq = h1.seq + 100;
        uint64_t lost = w->s[0]->stats.refusals_lost;
        long long x = 33;
        memcpy(m0->data + sizeof(arm_srv_fwd_ent_t), &x, sizeof x);
        srv_fake_deliver_am(&w->f[0], ARM_SRV_AM_FWD, &far, sizeof far, m0->data, m0->len);
        srv_progress(w->s[0]);
        memcpy(&got, w->mem[0] + 64, 8);
        CHECK(got == 22 && w->s[0]->stats.refusals_lost == lost + 1,
              "a message out of sequence is dropped (%lld, %llu lost)", got,
              (unsigned long long)(w->s[0]->stats.refusals_lost - lost));
    }
    w->read[6] = w->f[6].nsent;            /* both delivered by hand */
    w_run(w);
    w_fini(w);
    free(w);
}

/* With one edge slot, a forwarder sends one message, then holds what comes
 * until the credit is back; it all goes in the next message. */
static void edge_credits(void)
{
    world_t *w = malloc(sizeof *w);
    w_init(w, ARM_TOPO_MFCG, 9, "3x3", 1);
    long long v = 5;
    arm_srv_req_t p = req(w, 8, 0, ARM_SRV_PUT, addr(w, 0, 128), 8, 0);
    send_req(w, &p, &v, 8, 0);
    srv_progress(w->s[6]);                 /* message 1 leaves, the credit is spent */
    size_t sent_before = w->f[6].nsent;
    for (int i = 0; i < 2; i++) {
        arm_srv_req_t q = req(w, i ? 7 : 8, 0, ARM_SRV_PUT, addr(w, 0, 136 + 8 * (size_t)i), 8, 0);
        send_req(w, &q, &v, 8, 0);
    }
    srv_progress(w->s[6]);
    int more = 0;
    for (size_t i = sent_before; i < w->f[6].nsent; i++)
        more += w->f[6].sent[i].is_request == ARM_SRV_AM_FWD;
    CHECK(more == 0, "without a credit node 6 forwards nothing more (%d messages)", more);
    w_run(w);                              /* node 0 serves, its credit goes back */
    long long x, y;
    memcpy(&x, w->mem[0] + 136, 8);
    memcpy(&y, w->mem[0] + 144, 8);
    CHECK(x == 5 && y == 5 && w->fwd_msgs == 2 && w->max_nreq == 2,
          "the two held requests went in one message once the credit came (%ld msgs)",
          w->fwd_msgs);
    CHECK(w->s[6]->stats.credit_waits == 0 || w->s[6]->stats.fwd_messages == 2,
          "node 6 counted its messages");
    w_fini(w);
    free(w);
}

/* Fetch-and-adds of 6 origins through node 6 meet and combine; each origin
 * gets a distinct value and the values tile the counter's range. */
static void combining(void)
{
    world_t *w = malloc(sizeof *w);
    w_init(w, ARM_TOPO_MFCG, 9, "3x3", 2);
    int origins[2] = { 7, 8 };
    arm_srv_req_t r[8];
    int nr = 0;
    for (int k = 0; k < 4; k++)
        for (int o = 0; o < 2; o++) {
            r[nr] = req(w, origins[o], 0, ARM_SRV_RMW, addr(w, 0, 256), 0, 1);
            r[nr].sub = ARM_SRV_FADD64;
            r[nr].operand = 1 + origins[o] + k;
            send_req(w, &r[nr], NULL, 0, 0);
            nr++;
        }
    w_run(w);
    long long total = 0, sum = 0;
    memcpy(&total, w->mem[0] + 256, 8);
    int got = 0;
    long long vals[8], incs[8];
    for (int i = 0; i < nr; i++) {
        const reply_t *a = answer(w, r[i].src, r[i].req_id);
        if (a && a->rep.status == ARM_OK) {
            vals[got] = a->rep.value;
            incs[got++] = r[i].operand;
        }
        sum += r[i].operand;
    }
    int tiled = got == nr;
    for (int i = 0; i < got && tiled; i++) {   /* each value = the sum of those below it */
        long long below = 0;
        for (int j = 0; j < got; j++)
            below += vals[j] < vals[i] ? incs[j] : 0;
        tiled &= vals[i] == below;
    }
    CHECK(total == sum && tiled, "%d of %d fetch-and-adds answered, values tile [0, %lld)",
          got, nr, total);
    CHECK(w->s[6]->stats.fwd_combined >= 1, "node 6 combined (%llu folded)",
          (unsigned long long)w->s[6]->stats.fwd_combined);
    uint64_t sent = w->s[0]->stats.split_sent, answered = w->s[6]->stats.split_replies;
    if (w_split)
        CHECK(sent >= 1 && answered >= 2 && answered <= (uint64_t)nr,
              "split: the target sent %llu split answers, node 6 answered %llu origins",
              (unsigned long long)sent, (unsigned long long)answered);
    else
        CHECK(sent == 0 && answered == 0, "no split answers when off");
    w_fini(w);
    free(w);
}

/* Accumulates of one int and one long from two origins meet at node 6 and
 * are applied once each, scaled; a double is never combined. */
static void combining_acc(void)
{
    world_t *w = malloc(sizeof *w);
    w_init(w, ARM_TOPO_MFCG, 9, "3x3", 2);
    int expect_i = 0;
    long expect_l = 0;
    uint64_t before = w->s[6]->stats.fwd_combined;
    for (int k = 0; k < 3; k++)
        for (int o = 7; o <= 8; o++) {
            int vi = 10 * k + o, si = o - 5;
            arm_srv_req_t a = req(w, o, 0, ARM_SRV_ACC, addr(w, 0, 1024), sizeof vi, 0);
            a.sub = 0;   /* ARM_ACC_INT */
            memcpy(a.scale, &si, sizeof si);
            send_req(w, &a, &vi, sizeof vi, 0);
            expect_i += si * vi;
        }
    for (int k = 0; k < 3; k++)
        for (int o = 7; o <= 8; o++) {
            long vl = 1000L * k + o, sl = 2;
            arm_srv_req_t b = req(w, o, 0, ARM_SRV_ACC, addr(w, 0, 1032), sizeof vl, 0);
            b.sub = 1;   /* ARM_ACC_LNG */
            memcpy(b.scale, &sl, sizeof sl);
            send_req(w, &b, &vl, sizeof vl, 0);
            expect_l += sl * vl;
        }
    double vd = 1.5, sd = 1.0;
    for (int o = 7; o <= 8; o++) {
        arm_srv_req_t d = req(w, o, 0, ARM_SRV_ACC, addr(w, 0, 1040), sizeof vd, 0);
        d.sub = 3;   /* ARM_ACC_DBL */
        memcpy(d.scale, &sd, sizeof sd);
        send_req(w, &d, &vd, sizeof vd, 0);
    }
    w_run(w);
    int gi;
    long gl;
    double gd;
    memcpy(&gi, w->mem[0] + 1024, sizeof gi);
    memcpy(&gl, w->mem[0] + 1032, sizeof gl);
    memcpy(&gd, w->mem[0] + 1040, sizeof gd);
    CHECK(gi == expect_i && gl == expect_l && gd == 3.0,
          "accumulated int %d (want %d), long %ld (want %ld), double %g (want 3)", gi, expect_i,
          gl, expect_l, gd);
    CHECK(w->s[6]->stats.fwd_combined - before == 10,
          "node 6 folded 5 int and 5 long accumulates into the first of each, the doubles "
          "into nothing (%llu folded)", (unsigned long long)(w->s[6]->stats.fwd_combined - before));
    w_fini(w);
    free(w);
}

/* A lock held at node 0 parks origin 8's forwarded lock; origin 7's put on
 * the same edge still lands; the unlock grants the parked lock. */
static void parked_lock(void)
{
    world_t *w = malloc(sizeof *w);
    w_init(w, ARM_TOPO_MFCG, 9, "3x3", 2);
    arm_shm_mutex_t *m = (arm_shm_mutex_t *)(void *)(w->mem[0] + LOCK_OFF);
    CHECK(arm_shm_mutex_trylock(m), "node 0 takes its mutex locally");
    arm_srv_req_t l = req(w, 8, 0, ARM_SRV_LOCK, addr(w, 0, LOCK_OFF), 0, 1);
    send_req(w, &l, NULL, 0, 1);
    long long v = 9;
    arm_srv_req_t p = req(w, 7, 0, ARM_SRV_PUT, addr(w, 0, 512), 8, 0);
    send_req(w, &p, &v, 8, 0);
    w_run(w);
    long long got;
    memcpy(&got, w->mem[0] + 512, 8);
    CHECK(!answer(w, 8, l.req_id) && w->s[0]->nparked == 1 && got == 9,
          "the lock is parked, the edge goes on (put landed %lld)", got);
    arm_shm_mutex_unlock(m);
    w_run(w);
    const reply_t *a = answer(w, 8, l.req_id);
    CHECK(a && a->rep.status == ARM_OK && w->s[0]->nparked == 0, "the unlock grants it");
    w_fini(w);
    free(w);
}

/* A request that cannot be forwarded, and one for a bad address at the
 * target, are refused to their origin with a reason. */
static void refusals(void)
{
    world_t *w = malloc(sizeof *w);
    w_init(w, ARM_TOPO_MFCG, 9, "3x3", 2);
    char big[SLOT + 64];
    memset(big, 1, sizeof big);
    arm_srv_req_t b = req(w, 8, 0, ARM_SRV_ACC, addr(w, 0, 0), sizeof big, 0);
    send_req(w, &b, big, sizeof big, 0);
    arm_srv_req_t g = req(w, 8, 0, ARM_SRV_GET, 12345, 8, 1);
    send_req(w, &g, NULL, 0, 1);
    w_run(w);
    const reply_t *a1 = answer(w, 8, b.req_id), *a2 = answer(w, 8, g.req_id);
    CHECK(a1 && a1->rep.status < 0 && strstr(a1->text, "forwarded"),
          "an accumulate bigger than a slot is refused at the first hop: '%s'",
          a1 ? a1->text : "(none)");
    CHECK(a2 && a2->rep.status < 0 && a2->rep.node == 0 && a2->text[0],
          "a get of a bad address is refused by the target: '%s'", a2 ? a2->text : "(none)");
    arm_srv_req_t x = req(w, 5, 0, ARM_SRV_PUT, addr(w, 0, 0), 8, 0);
    srv_fake_deliver(&w->f[0], &x, sizeof x, big, 8, 0);
    w_run(w);
    CHECK(w->ninbox[5] == 1 && w->inbox[5][0].rep.status < 0 &&
          strstr(w->inbox[5][0].text, "not a client"),
          "a request from a rank of no neighbour node is refused: '%s'", w->inbox[5][0].text);
    w_fini(w);
    free(w);
}

/* What node told rank r of its forwarded writes served (decision 078):
 * the credits of r's answers from node, and how many answers carried only
 * that. */
static uint32_t told(const world_t *w, int r, int node, int *alone)
{
    uint32_t n = 0;
    *alone = 0;
    for (int i = 0; i < w->ninbox[r] && i < 256; i++)
        if (w->inbox[r][i].rep.node == node) {
            n += w->inbox[r][i].rep.credits;
            *alone += w->inbox[r][i].rep.req_id == 0;
        }
    return n;
}

/* Idle passes at every server, then the network carries their answers. */
static void w_idle(world_t *w)
{
    for (int k = 0; k < w->n; k++)
        srv_ack_idle(w->s[k]);
    w_run(w);
}

/* A target tells each origin how many of its forwarded writes it served:
 * with an idle server, in an answer of its own; otherwise in the next
 * answer to that origin (a get's). Combined accumulates count for each of
 * their origins; requests with a reply, and a first hop, count nothing. */
static void forwarded_acks(void)
{
    world_t *w = malloc(sizeof *w);
    w_ack = 1;
    w_init(w, ARM_TOPO_MFCG, 9, "3x3", 2);
    long long v = 5;
    for (int i = 0; i < 3; i++) {
        arm_srv_req_t p = req(w, 8, 0, ARM_SRV_PUT, addr(w, 0, 64), 8, 0);
        send_req(w, &p, &v, 8, 0);
    }
    w_run(w);
    int alone = 0;
    CHECK(told(w, 8, 0, &alone) == 0, "nothing told before the target is idle");
    w_idle(w);
    uint32_t n = told(w, 8, 0, &alone);
    CHECK(n == 3 && alone == 1 && w->s[0]->stats.fwd_acks == 1,
          "idle node 0 told origin 8 of its 3 puts in one answer (%u in %d, %llu sent)", n,
          alone, (unsigned long long)w->s[0]->stats.fwd_acks);
    w_idle(w);
    CHECK(w->s[0]->stats.fwd_acks == 1, "told once: a second idle pass sends nothing (%llu)",
          (unsigned long long)w->s[0]->stats.fwd_acks);

    /* Two puts, then a get: its answer carries them; idle, nothing more. */
    w->ninbox[8] = 0;
    for (int i = 0; i < 2; i++) {
        arm_srv_req_t p = req(w, 8, 0, ARM_SRV_PUT, addr(w, 0, 64), 8, 0);
        send_req(w, &p, &v, 8, 0);
    }
    arm_srv_req_t g = req(w, 8, 0, ARM_SRV_GET, addr(w, 0, 64), 8, 1);
    send_req(w, &g, NULL, 0, 1);
    w_run(w);
    const reply_t *a = answer(w, 8, g.req_id);
    CHECK(a && a->rep.credits == 2, "the get's answer told of the 2 puts before it (%u)",
          a ? a->rep.credits : 0);
    w_idle(w);
    CHECK(told(w, 8, 0, &alone) == 2 && alone == 0, "and nothing was told twice (%u, %d alone)",
          told(w, 8, 0, &alone), alone);

    /* Accumulates of origins 7 and 8 combined at node 6: each counts. */
    w->ninbox[7] = w->ninbox[8] = 0;
    uint64_t comb0 = w->s[6]->stats.fwd_combined;
    for (int k = 0; k < 2; k++)
        for (int o = 7; o <= 8; o++) {
            int vi = 1, si = 1;
            arm_srv_req_t c = req(w, o, 0, ARM_SRV_ACC, addr(w, 0, 1024), sizeof vi, 0);
            c.sub = 0;   /* ARM_ACC_INT */
            memcpy(c.scale, &si, sizeof si);
            send_req(w, &c, &vi, sizeof vi, 0);
        }
    w_run(w);
    w_idle(w);
    int a7, a8;
    uint32_t t7 = told(w, 7, 0, &a7), t8 = told(w, 8, 0, &a8);
    CHECK(w->s[6]->stats.fwd_combined > comb0 && t7 == 2 && t8 == 2,
          "combined accumulates: origins 7 and 8 told of 2 each (%u, %u; %llu folded)", t7, t8,
          (unsigned long long)(w->s[6]->stats.fwd_combined - comb0));
    w_fini(w);
    free(w);

    /* A hypercube route of three hops: 7 -> 0 through 6 and 4. */
    w = malloc(sizeof *w);
    w_init(w, ARM_TOPO_HCUBE, 8, NULL, 2);
    for (int i = 0; i < 4; i++) {
        arm_srv_req_t p = req(w, 7, 0, ARM_SRV_PUT, addr(w, 0, 64 + 8 * (size_t)i), 8, 0);
        send_req(w, &p, &v, 8, 0);
    }
    w_run(w);
    w_idle(w);
    n = told(w, 7, 0, &alone);
    CHECK(n == 4 && alone == 1, "three hops: node 0 told origin 7 of 4 puts (%u)", n);
    w_fini(w);
    free(w);
    w_ack = 0;

    /* Without idle acknowledgements only answers tell. */
    w = malloc(sizeof *w);
    w_init(w, ARM_TOPO_MFCG, 9, "3x3", 2);
    arm_srv_req_t p = req(w, 8, 0, ARM_SRV_PUT, addr(w, 0, 64), 8, 0);
    send_req(w, &p, &v, 8, 0);
    w_run(w);
    w_idle(w);
    n = told(w, 8, 0, &alone);
    CHECK(n == 0 && alone == 0 && w->s[0]->stats.fwd_acks == 0, "acknowledgement off: idle "
          "node 0 sends nothing (%u told in %d answers)", n, alone);
    arm_srv_req_t f = req(w, 8, 0, ARM_SRV_FENCE, 0, 0, 1);
    send_req(w, &f, NULL, 0, 1);
    w_run(w);
    a = answer(w, 8, f.req_id);
    CHECK(a && a->rep.credits == 1, "a fence's answer tells (%u)", a ? a->rep.credits : 0);
    w_fini(w);
    free(w);
}

int main(void)
{
    all_pairs(ARM_TOPO_MFCG, 9, "3x3");
    all_pairs(ARM_TOPO_MFCG, 7, NULL);
    all_pairs(ARM_TOPO_CFCG, 7, "2x2x2");
    all_pairs(ARM_TOPO_HCUBE, 7, NULL);
    all_pairs(ARM_TOPO_HCUBE, 16, NULL);
    unit_section("every pair of nodes: puts land, gets answer their origin from the target");
    order_and_aggregation();
    unit_section("order of one origin's requests; aggregation at a forwarder");
    edge_order();
    unit_section("one edge's messages served in their sent order, whatever the arrival");
    edge_credits();
    unit_section("edge credits: a forwarder without one holds and aggregates");
    combining();
    unit_section("combined fetch-and-adds: one serial order's values");
    w_split = 1;
    combining();
    w_split = 0;
    unit_section("combined fetch-and-adds answered through the combining server (split)");
    combining_acc();
    unit_section("combined one-element integer accumulates, applied once");
    parked_lock();
    unit_section("a waiting lock is parked, the edge goes on, the unlock grants it");
    refusals();
    unit_section("refusals reach the origin");
    forwarded_acks();
    unit_section("targets tell origins of their forwarded writes served (decision 078)");
    return unit_finish("unit.server_fwd");
}
