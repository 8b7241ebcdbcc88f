/* fuzz.world: the servers of a virtual topology, with the input as the
 * network's scheduler and the clients' program, checked against a model.
 *
 * One or two ranks per node (the input's second byte), every server on its
 * own fake transport (as in unit.server_fwd). The clients send only
 * well-formed requests, each to the first hop of its route, within the
 * credits the servers gave them. The
 * input decides which client issues what, and when each server runs and
 * which server's next message the network carries, sometimes two messages
 * of one edge in the wrong order (as UCX can while wiring an endpoint up).
 *
 * The model, checked at every answer and at the end:
 * - location consistency through forwarding: each origin has its own word
 *   at every target and puts increasing values there; a get of it returns
 *   the last value that origin put before the get;
 * - the same for strided data: each origin has 32 bytes at every target,
 *   written by segmented puts and accumulates (plain entries and runs) and
 *   read by segmented gets, whose answers must match the model byte for
 *   byte; batches of puts and accumulates to the ranks of one node follow
 *   the word and count models;
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
 * Two builds, as fuzz_server.c (fuzz_driver.h). Decisions 093 and 094. */
#define _POSIX_C_SOURCE 200809L
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

#define NMAX 9                 /* nodes                                    */
#define PPN_MAX 2
#define RMAX (NMAX * PPN_MAX)  /* ranks                                    */
#define SLOTS 2
#define SLOT 512
#define MEM 2048               /* each rank's segment                      */
#define FADD_OFF 512
#define ACC_OFF 520
#define LOCK_OFF 600
#define STR_OFF 1024           /* + 32 x origin: its strided bytes         */
#define STR_LEN 32
#define MAX_STEPS 400
#define MAX_FADD 512

typedef struct client {
    int credits[NMAX];           /* per first-hop server                    */
    uint64_t sync_id;            /* the one blocking request out, 0: none   */
    int sync_op, sync_target;
    long long sync_want;         /* a get: the value it must return         */
    unsigned char sync_data[STR_LEN * 4];  /* a segmented get: its bytes    */
    size_t sync_len;
    long long last_put[RMAX];    /* per target: the last value put there    */
    long long nput;
    unsigned char str[RMAX][STR_LEN];      /* per target: its strided bytes */
} client_t;

typedef struct world {
    int n;                       /* nodes                                   */
    int ppn, nr;                 /* ranks per node, ranks                   */
    arm_topo_t topo;
    int node_of[RMAX];
    srv_fake_t f[NMAX];
    struct arm_server *s[NMAX];
    char *mem[RMAX];
    arm_shm_mutex_t locks[RMAX];
    arm_shm_mutex_t *lockp[RMAX];
    size_t read[NMAX];
    client_t cl[RMAX];
    uint64_t next_id;
    int nfadd[RMAX], nacc[RMAX];
    int holder[RMAX];            /* per target: the rank holding its mutex, -1 */
    unsigned char seen[RMAX][MAX_FADD];
    long failed;
    char why[FUZZ_WHY];
} world_t;

/* A failure of this input (the first one described). */
#define fail(w, ...) fuzz_fail(&(w)->failed, (w)->why, sizeof (w)->why, __VA_ARGS__)

/* The first hop from rank o's node toward rank t's. */
static int first_hop(const world_t *w, int o, int t)
{
    int a = w->node_of[o], b = w->node_of[t];
    return a == b ? b : arm_topo_next_hop(&w->topo, a, b);
}

static int direct(const world_t *w, int o, int node)
{
    int a = w->node_of[o];
    return a == node || arm_topo_is_neighbour(&w->topo, a, node);
}

static uint64_t addr(const world_t *w, int rank, size_t off)
{
    return (uint64_t)(uintptr_t)(w->mem[rank] + off);
}

/* A segmented request of o to t from the input: 1 to 3 entries in o's
 * strided bytes at t, plain or runs, whole longs for an accumulate. The
 * payload is the table, padded, then the data (put, accumulate), or the
 * table alone (get: the bytes it must return go to sync_data). Returns the
 * payload's length. */
static size_t make_seg(world_t *w, input_t *in, int o, int t, int kind, arm_srv_req_t *r,
                       unsigned char *pay)
{
    client_t *c = &w->cl[o];
    arm_srv_seg_t tab[6];
    unsigned char data[STR_LEN * 4];
    int nseg = 0;
    size_t dlen = 0;
    const size_t unit = kind == ARM_SRV_ACCSEG ? 8 : 1;
    const size_t units = STR_LEN / unit;
    const uint64_t base = addr(w, t, STR_OFF + STR_LEN * (size_t)o);
    for (int e = 0, ne = 1 + u8(in) % 3; e < ne; e++) {
        uint8_t a = u8(in), b = u8(in);
        size_t len = 1 + a % units, off = b % (units - len + 1);
        size_t stride = len + (a >> 4) % 3, count = 1;
        if ((b & 0x80) && off + stride + len <= units) {
            count = 2 + (b >> 5 & 1);
            if (off + (count - 1) * stride + len > units)
                count = 2;
        }
        len *= unit, off *= unit, stride *= unit;
        if (count == 1) {
            tab[nseg++] = (arm_srv_seg_t){ base + off, len };
        } else {
            tab[nseg++] = (arm_srv_seg_t){ base + off, len | ARM_SRV_SEG_RUN };
            tab[nseg++] = (arm_srv_seg_t){ stride, count };
        }
        for (size_t k = 0; k < count; k++)
            for (size_t i = 0; i < len; i++) {
                unsigned char *m = &c->str[t][off + k * stride + i];
                if (kind == ARM_SRV_GETSEG) {
                    c->sync_data[dlen++] = *m;
                    continue;
                }
                unsigned char v = (unsigned char)(++c->nput * 7 + (unsigned)o);
                data[dlen++] = v;
                if (kind == ARM_SRV_PUTSEG)
                    *m = v;
            }
        if (kind == ARM_SRV_ACCSEG)   /* the model: long adds, scale 1 */
            for (size_t k = 0; k < count; k++)
                for (size_t i = 0; i < len; i += 8) {
                    unsigned char *m = &c->str[t][off + k * stride + i];
                    unsigned long long x, y;
                    memcpy(&x, m, 8);
                    memcpy(&y, data + dlen - count * len + k * len + i, 8);
                    x += y;
                    memcpy(m, &x, 8);
                }
    }
    r->op = (uint8_t)kind;
    r->nseg = (uint16_t)nseg;
    size_t tab_len = (size_t)nseg * sizeof *tab;
    memcpy(pay, tab, tab_len);
    if (kind == ARM_SRV_GETSEG) {
        c->sync_len = dlen;
        return tab_len;
    }
    size_t off = arm_srv_seg_data_off((unsigned)nseg);
    memset(pay + tab_len, 0, off - tab_len);
    memcpy(pay + off, data, dlen);
    if (kind == ARM_SRV_ACCSEG) {
        r->sub = ARM_ACC_LNG;
        long one = 1;
        memcpy(r->scale, &one, sizeof one);
    }
    return off + dlen;
}

/* The model's side of a one-long write of o to dest: an accumulate of 1
 * (scale 1) to dest's count, or o's next value put to its word there. Sets
 * the address and the scale; returns the data. */
static long long word_write(world_t *w, int o, int dest, int acc, uint64_t *raddr,
                            void *scale)
{
    if (acc) {
        *raddr = addr(w, dest, ACC_OFF);
        long one = 1;
        memcpy(scale, &one, sizeof one);
        w->nacc[dest]++;
        return 1;
    }
    *raddr = addr(w, dest, 8 * (size_t)o);
    client_t *c = &w->cl[o];
    return c->last_put[dest] = ((long long)o << 32) | ++c->nput;
}

/* A batch of o to the node of t from the input (ARM_SRV_BATCH): 1 to 3
 * entries, each a put of o's next value to its word at a rank of that node
 * or a one-long accumulate of 1 there; a quarter want an answer once done.
 * Returns the payload's length. */
static size_t make_batch(world_t *w, input_t *in, int o, int t, arm_srv_req_t *r,
                         unsigned char *pay)
{
    const int first = w->node_of[t] * w->ppn;
    size_t len = 0;
    int ne = 1 + u8(in) % 3;
    for (int i = 0; i < ne; i++) {
        uint8_t a = u8(in);
        int dest = first + a % w->ppn;
        arm_srv_batch_ent_t e;
        memset(&e, 0, sizeof e);
        e.target = dest;
        e.len = 8;
        e.op = (a & 0x10) ? ARM_SRV_ACC : ARM_SRV_PUT;
        e.type = ARM_ACC_LNG;
        long long v = word_write(w, o, dest, e.op == ARM_SRV_ACC, &e.raddr, e.scale);
        memcpy(pay + len, &e, sizeof e);
        memcpy(pay + len + sizeof e, &v, sizeof v);
        len += sizeof e + sizeof v;
    }
    r->op = ARM_SRV_BATCH;
    r->nseg = (uint16_t)ne;
    r->sub = (u8(in) & 3) == 0;
    return len;
}

/* Whether rank o holds a mutex. A rank holding one asks for no other: a
 * server serves each rank's requests in order, so a rank waiting for a
 * mutex of node k could not let go of another one of k (as in a program,
 * where the rank waits in ARMCI_Lock), and two such ranks would wait for
 * each other for good. */
static int holds_any(const world_t *w, int o)
{
    for (int t = 0; t < w->nr; t++)
        if (w->holder[t] == o)
            return 1;
    return 0;
}

/* Client o issues op to t; 0 when it may not now (credits, a blocking
 * request already out). */
static int issue(world_t *w, input_t *in, int o, int t, int kind)
{
    client_t *c = &w->cl[o];
    int hop = first_hop(w, o, t);
    arm_srv_req_t r;
    memset(&r, 0, sizeof r);
    r.src = o;
    r.target = t;
    r.req_id = w->next_id++;
    long long data = 0;
    unsigned char pay[256];
    const void *payload = &data;
    size_t dlen = 0;
    switch (kind) {
    case 7:   /* segmented put */
    case 8:   /* segmented accumulate of longs */
    case 9:   /* segmented get: blocking */
    case 10:  /* batch of puts and accumulates, blocking when it wants an answer */
        if (c->credits[hop] <= 0 || ((kind == 9 || kind == 10) && c->sync_id))
            return 0;
        c->credits[hop]--;
        dlen = kind == 10 ? make_batch(w, in, o, t, &r, pay)
             : make_seg(w, in, o, t, kind == 7 ? ARM_SRV_PUTSEG : kind == 8 ? ARM_SRV_ACCSEG
                                                                         : ARM_SRV_GETSEG,
                        &r, pay);
        r.len = (uint32_t)dlen;
        payload = pay;
        if (kind == 9 || (kind == 10 && r.sub)) {
            c->sync_id = r.req_id;
            c->sync_op = r.op;
            c->sync_target = t;
        } else {
            r.req_id |= ARM_SRV_REQ_NOREPLY;
        }
        break;
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
        } else {
            r.op = kind == 0 ? ARM_SRV_PUT : ARM_SRV_ACC;
            r.sub = kind == 0 ? 0 : ARM_ACC_LNG;
            data = word_write(w, o, t, kind == 1, &r.raddr, r.scale);
        }
        break;
    default:  /* blocking: get, fetch-and-add, fence, lock */
        if (c->sync_id || (kind == 5 && holds_any(w, o)))
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
    srv_fake_deliver(&w->f[hop], &r, sizeof r, dlen ? payload : NULL, dlen, 0);
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
    if (rep.node != w->node_of[t])
        fail(w, "rank %d's request to %d answered by node %d", o, t, rep.node);
    if (c->sync_op == ARM_SRV_GETSEG) {
        if (m->len != c->sync_len || (m->len && memcmp(m->data, c->sync_data, m->len)))
            fail(w, "rank %d's segmented get of its bytes at %d returned %zu bytes that are "
                 "not the %zu it wrote", o, t, m->len, c->sync_len);
    } else if (c->sync_op == ARM_SRV_GET) {
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
    } else if (m->to < 0 || m->to >= w->nr) {
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
    uint8_t cfg = u8(&in), cfg2 = u8(&in);
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
    w->ppn = 1 + (cfg2 & 1);
    w->nr = w->n * w->ppn;
    for (int r = 0; r < w->nr; r++) {
        w->holder[r] = -1;
        w->node_of[r] = r / w->ppn;
        w->lockp[r] = &w->locks[r];
        for (int k = 0; k < w->n; k++)
            w->cl[r].credits[k] = SLOTS;
        w->mem[r] = aligned_alloc(64, MEM);
        memset(w->mem[r], 0, MEM);
    }
    for (int k = 0; k < w->n; k++) {
        srv_fake_init(&w->f[k]);
        w->f[k].send_mode = cfg & 4 ? SRV_FAKE_SEND_PROGRESS : SRV_FAKE_SEND_NOW;
        arm_server_params_t p = { .nproc = w->nr, .node = k, .acc_lock = w->lockp,
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
        for (int r = k * w->ppn; r < (k + 1) * w->ppn; r++)
            srv_seg_add(w->s[k], w->mem[r], MEM, 0, NULL);
    }
    for (int step = 0; step < MAX_STEPS && in.n && !w->failed; step++) {
        uint8_t c = u8(&in), a = u8(&in);
        switch (c % 8) {
        case 0: case 1: case 2: case 3: {
            /* Skewed toward one target: contention and combining. With
             * one rank per node the kinds of the inputs of decision 093
             * are kept (7 to 10 were 0 to 3 there). */
            int o = a % w->nr, t = (c >> 3) & 1 ? 0 : (a >> 4) % w->nr;
            int kind = c >> 4;
            issue(w, &in, o, t, kind >= 7 && kind <= 10 ? kind : kind % 7);
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
        for (int t = 0; t < w->nr; t++)
            if (w->holder[t] >= 0 && issue(w, &in, w->holder[t], t, 6))
                moved = 1;
        if (!moved)
            break;
    }
    /* The end state against the model. */
    for (int o = 0; o < w->nr; o++) {
        if (w->cl[o].sync_id)
            fail(w, "rank %d's request %#llx (op %d to %d) was never answered", o,
                 (unsigned long long)w->cl[o].sync_id, w->cl[o].sync_op, w->cl[o].sync_target);
        for (int t = 0; t < w->nr; t++) {
            long long have;
            memcpy(&have, w->mem[t] + 8 * o, 8);
            if (have != w->cl[o].last_put[t])
                fail(w, "rank %d's word at %d holds %#llx, its last put was %#llx", o, t, have,
                     w->cl[o].last_put[t]);
            if (memcmp(w->mem[t] + STR_OFF + STR_LEN * o, w->cl[o].str[t], STR_LEN))
                fail(w, "rank %d's strided bytes at %d are not what it wrote", o, t);
        }
    }
    for (int t = 0; t < w->nr; t++) {
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
    }
    for (int r = 0; r < w->nr; r++)
        free(w->mem[r]);
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
