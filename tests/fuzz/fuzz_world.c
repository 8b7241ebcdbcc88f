/* fuzz.world: the servers of a virtual topology, with the input as the
 * network's scheduler and the clients' program, checked against a model.
 *
 * One rank per node, every server on its own fake transport (as in
 * unit.server_fwd). The clients send only well-formed requests, each to the
 * first hop of its route, within the credits the servers gave them. The
 * input decides which client issues what, and when each server runs and
 * which server's next message the network carries, sometimes two messages
 * of one edge in the wrong order (as UCX can while wiring an endpoint up).
 *
 * The model, checked at every answer and at the end:
 * - location consistency through forwarding: each origin has its own word
 *   at every target and puts increasing values there; a get of it returns
 *   the last value that origin put before the get;
 * - fetch-and-adds of 1 to one counter per target, combined or not, hand
 *   out each value exactly once, 0 .. k-1, and leave k;
 * - one-long accumulates of 1 (combined where they meet) leave their count;
 * - a mutex of each target is held by one rank at a time, and every lock
 *   request is granted once the holders let go;
 * - every get, fetch-and-add, fence and lock is answered, with status OK, by
 *   its target's node; no write is refused;
 * - once the network is quiet every put has landed.
 *
 * Configurations: MFCG 3 x 3, CFCG 2 x 2 x 2 with 7 nodes, hypercube of 8
 * (three-hop routes), FCG of 5; combining and split answers, one or two
 * edge slots, acknowledged writes, answers bound to the topology's edges.
 *
 * Two builds, as fuzz_server.c (fuzz_driver.h). Decision 093. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "server/arm_srv_proto.h"
#include "server/srv_int.h"
#include "server/srv_xport_fake.h"
#include "shm/arm_shm_sync.h"
#include "topo/arm_topo.h"
#include "util/arm_acc.h"
#include "util/arm_log.h"
#include "fuzz_driver.h"

#define NMAX 9
#define SLOTS 2
#define SLOT 512
#define MEM 1024
#define FADD_OFF 512
#define ACC_OFF 520
#define LOCK_OFF 600
#define MAX_STEPS 400
#define MAX_FADD 512


typedef struct client {
    int credits[NMAX];           /* per first-hop server                    */
    uint64_t sync_id;            /* the one blocking request out, 0: none   */
    int sync_op, sync_target;
    long long sync_want;         /* a get: the value it must return         */
    long long last_put[NMAX];    /* per target: the last value put there    */
    long long nput;
} client_t;

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
    client_t cl[NMAX];
    uint64_t next_id;
    int nfadd[NMAX], nacc[NMAX];
    int holder[NMAX];            /* per target: the rank holding its mutex, -1 */
    unsigned char seen[NMAX][MAX_FADD];
    long failed;
    char why[FUZZ_WHY];
} world_t;

static void fail(world_t *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(world_t *w, const char *fmt, ...)
{
    if (!w->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(w->why, sizeof w->why, fmt, ap);
        va_end(ap);
    }
    w->failed++;
}

static int first_hop(const world_t *w, int o, int t)
{
    return o == t ? t : arm_topo_next_hop(&w->topo, o, t);
}

static int direct(const world_t *w, int o, int node)
{
    return o == node || arm_topo_is_neighbour(&w->topo, o, node);
}

static uint64_t addr(const world_t *w, int node, size_t off)
{
    return (uint64_t)(uintptr_t)(w->mem[node] + off);
}

/* Client o issues op to t; 0 when it may not now (credits, a blocking
 * request already out). */
static int issue(world_t *w, int o, int t, int kind)
{
    client_t *c = &w->cl[o];
    int hop = first_hop(w, o, t);
    arm_srv_req_t r;
    memset(&r, 0, sizeof r);
    r.src = o;
    r.target = t;
    r.req_id = w->next_id++;
    long long data = 0;
    size_t dlen = 0;
    switch (kind) {
    case 0:   /* put of the next value of o's word at t */
    case 1:   /* one-long accumulate of 1 */
    case 6:   /* unlock of t's mutex, which o holds */
        if (c->credits[hop] <= 0 || (kind == 6 && w->holder[t] != o))
            return 0;
        c->credits[hop]--;
        r.req_id |= ARM_SRV_REQ_NOREPLY;
        r.len = 8;
        dlen = 8;
        if (kind == 6) {
            r.op = ARM_SRV_UNLOCK;
            r.raddr = addr(w, t, LOCK_OFF);
            r.len = 0;
            dlen = 0;
            w->holder[t] = -1;   /* the next grant can only follow this */
        } else if (kind == 0) {
            r.op = ARM_SRV_PUT;
            r.raddr = addr(w, t, 8 * (size_t)o);
            data = c->last_put[t] = ((long long)o << 32) | ++c->nput;
        } else {
            r.op = ARM_SRV_ACC;
            r.sub = ARM_ACC_LNG;
            r.raddr = addr(w, t, ACC_OFF);
            long one = 1;
            memcpy(r.scale, &one, sizeof one);
            data = 1;
            w->nacc[t]++;
        }
        break;
    default:  /* blocking: get, fetch-and-add, fence, lock */
        if (c->sync_id || (kind == 5 && w->holder[t] == o))
            return 0;
        r.op = (uint8_t)(kind == 2 ? ARM_SRV_GET : kind == 3 ? ARM_SRV_RMW
                         : kind == 5 ? ARM_SRV_LOCK : ARM_SRV_FENCE);
        if (kind == 5)
            r.raddr = addr(w, t, LOCK_OFF);
        if (kind == 2) {
            r.raddr = addr(w, t, 8 * (size_t)o);
            r.len = 8;
            c->sync_want = c->last_put[t];
        } else if (kind == 3) {
            if (w->nfadd[t] >= MAX_FADD)
                return 0;
            r.sub = ARM_SRV_FADD64;
            r.raddr = addr(w, t, FADD_OFF);
            r.len = 8;
            r.operand = 1;
            w->nfadd[t]++;
        }
        c->sync_id = r.req_id;
        c->sync_op = r.op;
        c->sync_target = t;
        r.op |= ARM_SRV_SYNC;
        break;
    }
    if (trace)
        printf("issue: %d -> %d (hop %d) op %#x id %#llx\n", o, t, hop, r.op,
               (unsigned long long)r.req_id);
    srv_fake_deliver(&w->f[hop], &r, sizeof r, dlen ? &data : NULL, dlen, 0);
    return 1;
}

/* An answer arrives at client o. */
static void answer(world_t *w, int o, const srv_fake_sent_t *m)
{
    client_t *c = &w->cl[o];
    arm_srv_rep_t rep;
    if (m->hdr_len != sizeof rep) {
        fail(w, "answer to rank %d with a %zu-byte header", o, m->hdr_len);
        return;
    }
    memcpy(&rep, m->hdr, sizeof rep);
    if (trace)
        printf("answer: to %d id %#llx node %d status %d credits %u value %lld\n", o,
               (unsigned long long)rep.req_id, rep.node, rep.status, rep.credits,
               (long long)rep.value);
    /* Slots come back from the servers the client sends to; from other
     * nodes the count is of forwarded writes served (decision 078). */
    if (rep.node >= 0 && rep.node < w->n && direct(w, o, rep.node))
        c->credits[rep.node] += (int)rep.credits;
    if (rep.req_id == 0)
        return;
    if (rep.status != ARM_OK) {
        fail(w, "request %#llx of rank %d refused: %.*s", (unsigned long long)rep.req_id, o,
             (int)(m->len < 120 ? m->len : 120), m->data ? m->data : "");
        return;
    }
    if (rep.req_id != c->sync_id) {
        fail(w, "rank %d got an answer for %#llx, waiting for %#llx", o,
             (unsigned long long)rep.req_id, (unsigned long long)c->sync_id);
        return;
    }
    int t = c->sync_target;
    if (rep.node != t)
        fail(w, "rank %d's request to %d answered by node %d", o, t, rep.node);
    if (c->sync_op == ARM_SRV_GET) {
        long long got = 0;
        if (m->len == 8)
            memcpy(&got, m->data, 8);
        if (m->len != 8 || got != c->sync_want)
            fail(w, "rank %d's get of its word at %d returned %#llx (%zu bytes), its last "
                 "put there was %#llx", o, t, got, m->len, c->sync_want);
    } else if (c->sync_op == ARM_SRV_LOCK) {
        if (w->holder[t] >= 0)
            fail(w, "rank %d was granted %d's mutex, which rank %d holds", o, t, w->holder[t]);
        w->holder[t] = o;
    } else if (c->sync_op == ARM_SRV_RMW) {
        long long v = rep.value;
        if (v < 0 || v >= w->nfadd[t] || w->seen[t][v])
            fail(w, "fetch-and-add at %d handed out %lld (%d issued%s)", t, v, w->nfadd[t],
                 v >= 0 && v < w->nfadd[t] ? ", twice" : "");
        else
            w->seen[t][v] = 1;
    }
    c->sync_id = 0;
}

/* The network carries server k's next message (two of one edge swapped
 * when swap is set and they allow it). Returns 0 when k had none. */
static int carry(world_t *w, int k, int swap)
{
    srv_fake_t *f = &w->f[k];
    if (w->read[k] >= f->nsent)
        return 0;
    size_t i = w->read[k];
    if (swap && i + 1 < f->nsent && f->sent[i].is_request == ARM_SRV_AM_FWD &&
        f->sent[i + 1].is_request == ARM_SRV_AM_FWD && f->sent[i].to == f->sent[i + 1].to) {
        srv_fake_sent_t a = f->sent[i];
        f->sent[i] = f->sent[i + 1];
        f->sent[i + 1] = a;
    }
    srv_fake_sent_t *m = &f->sent[w->read[k]++];
    if (m->is_request) {
        if (m->to < 0 || m->to >= w->n)
            fail(w, "server %d sent to node %d", k, m->to);
        else
            srv_fake_deliver_am(&w->f[m->to], (unsigned)m->is_request, m->hdr, m->hdr_len,
                                m->data, m->len);
    } else if (m->to < 0 || m->to >= w->n) {
        fail(w, "server %d answered rank %d", k, m->to);
    } else {
        answer(w, m->to, m);
    }
    return 1;
}

static int quiet_round(world_t *w)
{
    int moved = 0;
    for (int k = 0; k < w->n; k++) {
        srv_fake_complete(&w->f[k], (size_t)-1);
        moved |= srv_progress(w->s[k]);
    }
    for (int k = 0; k < w->n; k++)
        while (carry(w, k, 0))
            moved = 1;
    return moved;
}

static long run_one(const uint8_t *data, size_t size, char *why, size_t whylen)
{
    input_t in = { data, size };
    world_t *w = calloc(1, sizeof *w);
    uint8_t cfg = u8(&in);
    static const struct { arm_topo_kind_t kind; int n; const char *dims; } shapes[] = {
        { ARM_TOPO_MFCG, 9, "3x3" }, { ARM_TOPO_CFCG, 7, "2x2x2" }, { ARM_TOPO_HCUBE, 8, NULL },
        { ARM_TOPO_FCG, 5, NULL }
    };
    int sh = cfg & 3;
    w->n = shapes[sh].n;
    w->next_id = 1;
    char twhy[160];
    if (arm_topo_init(&w->topo, shapes[sh].kind, w->n, shapes[sh].dims, twhy, sizeof twhy) !=
        ARM_OK) {
        fprintf(stderr, "topology: %s\n", twhy);
        exit(2);
    }
    for (int r = 0; r < w->n; r++) {
        w->holder[r] = -1;
        w->node_of[r] = r;
        w->lockp[r] = &w->locks[r];
        for (int k = 0; k < w->n; k++)
            w->cl[r].credits[k] = SLOTS;
    }
    for (int k = 0; k < w->n; k++) {
        srv_fake_init(&w->f[k]);
        w->f[k].send_mode = cfg & 4 ? SRV_FAKE_SEND_PROGRESS : SRV_FAKE_SEND_NOW;
        arm_server_params_t p = { .nproc = w->n, .node = k, .acc_lock = w->lockp,
                                  .slots = SLOTS, .slot_size = SLOT,
                                  .progress = ARM_SRV_PROGRESS_POLL, .topo = &w->topo,
                                  .node_of = w->node_of, .edge_slots = 1 + (cfg >> 3 & 1),
                                  .combine = (cfg & 16) != 0, .split = (cfg & 32) != 0,
                                  .fence_ack = (cfg & 64) != 0, .ack_us = 0,
                                  .bound_replies = (cfg & 128) != 0 };
        if (srv_create(&p, &srv_xport_fake, &w->f[k], &w->s[k]) != ARM_OK) {
            fprintf(stderr, "srv_create failed\n");
            exit(2);
        }
        w->mem[k] = aligned_alloc(64, MEM);
        memset(w->mem[k], 0, MEM);
        srv_seg_add(w->s[k], w->mem[k], MEM, 0, NULL);
    }
    for (int step = 0; step < MAX_STEPS && in.n && !w->failed; step++) {
        uint8_t c = u8(&in), a = u8(&in);
        switch (c % 8) {
        case 0: case 1: case 2: case 3: {
            /* Skewed toward one target: contention and combining. */
            int o = a % w->n, t = (c >> 3) & 1 ? 0 : (a >> 4) % w->n;
            issue(w, o, t, (c >> 4) % 7);
            break;
        }
        case 4: case 5:
            carry(w, a % w->n, (c & 16) != 0);
            break;
        case 6:
            srv_progress(w->s[a % w->n]);
            break;
        default:
            srv_fake_complete(&w->f[a % w->n], (size_t)(c >> 4));
            break;
        }
    }
    /* Holders let go, and the waiting are granted in turn. */
    for (int round = 0; round < 10000; round++) {
        int moved = quiet_round(w);
        for (int t = 0; t < w->n; t++)
            if (w->holder[t] >= 0 && issue(w, w->holder[t], t, 6))
                moved = 1;
        if (!moved)
            break;
    }
    /* The end state against the model. */
    for (int o = 0; o < w->n; o++) {
        if (w->cl[o].sync_id)
            fail(w, "rank %d's request %#llx (op %d to %d) was never answered", o,
                 (unsigned long long)w->cl[o].sync_id, w->cl[o].sync_op, w->cl[o].sync_target);
        for (int t = 0; t < w->n; t++) {
            long long have;
            memcpy(&have, w->mem[t] + 8 * o, 8);
            if (have != w->cl[o].last_put[t])
                fail(w, "rank %d's word at %d holds %#llx, its last put was %#llx", o, t, have,
                     w->cl[o].last_put[t]);
        }
    }
    for (int t = 0; t < w->n; t++) {
        long long cnt, acc;
        memcpy(&cnt, w->mem[t] + FADD_OFF, 8);
        memcpy(&acc, w->mem[t] + ACC_OFF, 8);
        if (cnt != w->nfadd[t])
            fail(w, "counter at %d is %lld after %d fetch-and-adds", t, cnt, w->nfadd[t]);
        if (acc != w->nacc[t])
            fail(w, "accumulated count at %d is %lld after %d accumulates", t, acc, w->nacc[t]);
    }
    for (int k = 0; k < w->n; k++) {
        srv_destroy(w->s[k]);
        srv_fake_fini(&w->f[k]);
        free(w->mem[k]);
    }
    long failed = w->failed;
    if (failed && why) {
        char d[64];
        arm_topo_describe(&w->topo, d, sizeof d);
        snprintf(why, whylen, "%s, config %#x: %s", d, cfg, w->why);
    }
    free(w);
    return failed;
}

FUZZ_MAIN("fuzz.world", 500, 2 * MAX_STEPS)
