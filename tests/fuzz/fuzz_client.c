/* fuzz.client: a process's handling of its servers' answers, fed arbitrary
 * answers (decision 094).
 *
 * The bytes of one input are a small program for one client (rank 4, node 4
 * of 9; under the input's first byte either every node is reached directly,
 * or the corners through a neighbour as under MFCG 3 x 3). It issues
 * requests that want an answer (get, segmented get with plain entries and
 * runs, read-modify-write, fence, lock, trylock, registration,
 * unregistration; blocking, or part of a non-blocking get), writes that want
 * none, and then hands arm_rem_on_reply answers: mostly well-formed ones for
 * requests in flight, with fields the input bends (the request named, the
 * status, the length, the data that arrived, the node, the credits), or raw
 * headers. Requests are made as arm_rem_op_send makes them, without the send
 * (the answer path is under test, not the transport).
 *
 * What must hold, whatever the answers:
 * - no memory error (the sanitizers; a get's buffer is allocated to its
 *   exact length) and nothing written but what the request asked for: a
 *   segmented get's local buffer matches a model of its entries, byte for
 *   byte, its other bytes keep their pattern;
 * - an answer naming a request in flight, with status >= 0, from the
 *   target's node and with the length the request asked for, completes it
 *   with the answer's data and value; one from another node or whose
 *   length is wrong stops the program (arm_fatal), as does any refusal
 *   (status < 0) of a request this process made; every other answer is
 *   dropped and changes no request;
 * - credits held at a server never exceed the slots it holds for the
 *   process (ARMADA_SERVER_SLOTS), nor drop below 0; the forwarded writes
 *   acknowledged never exceed those sent;
 * - a non-blocking get's entry counts exactly its requests in flight.
 *
 * Two builds, libFuzzer's entry or a driver of corpus files and generated
 * inputs: fuzz_driver.h. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/remote_int.h"
#include "server/arm_srv_proto.h"
#include "util/arm_config.h"
#include "util/arm_log.h"
#include "fuzz_driver.h"

#define NNODES 9
#define ME 4
#define SLOTS 4
#define SLOT 1024
#define MAXGET (3 * SLOT)
#define LBLEN 4096            /* a segmented get's local buffer            */
#define MAX_CMDS 256
#define PATTERN 0x5A

typedef struct tracked {
    rop_t *op;
    uint64_t req_id;
    int kind;
    int nb;                   /* entry of arm_rc.nb, or -1                  */
    size_t want;              /* payload its answer carries                 */
    char *dst;                /* GET: the caller's buffer, want bytes       */
    char *lb, *model;         /* GETSEG: the local buffer and its model     */
    int credited;             /* took a credit of its first hop             */
    int answered;             /* a good answer arrived                      */
} tracked_t;

typedef struct world {
    tracked_t t[OP_POOL];
    int nt;
    int owed[NNODES];         /* credits the servers owe: hop -> count      */
    long failed;
    char why[FUZZ_WHY];
} world_t;

static void deliver(void *msg)
{
    arm_rem_on_reply(NULL, msg);
}

static void finish_op(void *op)
{
    arm_rem_op_finish("fuzz", op);
}

/* A failure of this input (the first one described). */
#define fail(w, ...) fuzz_fail(&(w)->failed, (w)->why, sizeof (w)->why, __VA_ARGS__)

/* The client's state, as remote_init.c makes it, once per process. */
static void setup(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    arm_log_set_abort_hook(fuzz_on_stop);
    static int node_of[NNODES], leader[NNODES];
    for (int n = 0; n < NNODES; n++)
        node_of[n] = leader[n] = n;
    arm_core.me = ME;
    arm_core.nproc = NNODES;
    arm_core.my_node = ME;
    arm_core.nnodes = NNODES;
    arm_core.node_of = node_of;
    arm_core.node_leader = leader;
    arm_config.server_slots = SLOTS;
    arm_rc.active = 1;
    arm_rc.slot_size = SLOT;
    if (arm_rem_state_alloc(&arm_core) != ARM_OK) {
        fprintf(stderr, "fuzz.client: no memory for the client's state\n");
        exit(2);
    }
}

static void reset(int mfcg)
{
    for (int n = 0; n < NNODES; n++) {
        arm_rc.credits[n] = SLOTS;
        /* MFCG 3 x 3 from the centre: the corners through a neighbour. */
        arm_rc.hop[n] = mfcg && n % 2 == 0 && n != ME ? (n < ME ? 1 : 7) : n;
        arm_rc.fwd_sent[n] = arm_rc.fwd_acked[n] = 0;
        arm_rc.seq_sent[n] = arm_rc.seq_answered[n] = arm_rc.seq_write[n] = 0;
    }
    for (int i = 0; i < OP_POOL; i++) {
        arm_rc.ops[i].busy = 0;
        arm_rc.ops[i].req.req_id = 0;
        arm_rc.free_ops[i] = OP_POOL - 1 - i;
    }
    arm_rc.nfree = OP_POOL;
    memset(arm_rc.nb, 0, sizeof arm_rc.nb);
    arm_rc.nb_live = 0;
    arm_rc.noreply_seq = 0;
}

static void drop(world_t *w, int k)
{
    free(w->t[k].dst);
    free(w->t[k].lb);
    free(w->t[k].model);
    w->t[k] = w->t[--w->nt];
}

/* A segmented get's table: plain entries and runs in a local buffer of
 * LBLEN bytes, at most as many entries as an op has room for. */
static size_t build_getseg(input_t *in, rop_t *op, int *keep_len)
{
    const int max_ent = SLOT / (int)sizeof(arm_srv_seg_t);
    uint8_t first = u8(in);
    int want = 1 + first % 12;
    /* The builder (proto_seg.c) counts the bytes in op->data_len; the
     * accumulate at the origin (proto_acc_origin.c) does not. */
    *keep_len = !(first & 0x80);
    size_t total = 0;
    op->nseg = 0;
    for (int e = 0; e < want && op->nseg + 2 <= max_ent; e++) {
        size_t len = 1 + u16(in) % 700;
        if (u8(in) & 1) {
            size_t off = u16(in) % (LBLEN - len + 1);
            op->tab[op->nseg] = (arm_srv_seg_t){ u16(in), len };
            op->loc[op->nseg].ptr = (char *)(uintptr_t)off;   /* made absolute below */
            op->nseg++;
            total += len;
            continue;
        }
        len = 1 + len % 96;
        size_t count = 2 + u8(in) % 20;
        size_t step = len + u8(in) % 64;
        if ((count - 1) * step + len > LBLEN)
            count = 2, step = len;
        size_t off = u16(in) % (LBLEN - ((count - 1) * step + len) + 1);
        op->tab[op->nseg] = (arm_srv_seg_t){ u16(in), len | ARM_SRV_SEG_RUN };
        op->loc[op->nseg].ptr = (char *)(uintptr_t)off;
        op->tab[op->nseg + 1] = (arm_srv_seg_t){ 8 + u8(in), count };
        op->loc[op->nseg + 1].step = (ptrdiff_t)step;
        op->nseg += 2;
        total += len * count;
    }
    return total;
}

/* Scatters payload p over base as op's table says for lb (the model of a
 * segmented get's answer). */
static void scatter(const rop_t *op, const char *lb, char *base, const char *p)
{
    for (int i = 0; i < op->nseg; i++) {
        size_t off = (size_t)((const char *)op->loc[i].ptr - lb);
        uint64_t len = op->tab[i].len;
        if (!(len & ARM_SRV_SEG_RUN)) {
            memcpy(base + off, p, len);
            p += len;
            continue;
        }
        len &= ~ARM_SRV_SEG_RUN;
        for (uint64_t k = 0; k < op->tab[i + 1].len; k++, p += len)
            memcpy(base + off + k * (size_t)op->loc[i + 1].step, p, len);
        i++;
    }
}

static const int kinds[] = { ARM_SRV_GET, ARM_SRV_GETSEG, ARM_SRV_RMW, ARM_SRV_FENCE,
                             ARM_SRV_LOCK, ARM_SRV_TRYLOCK, ARM_SRV_UNREG, ARM_SRV_REG };

/* A request wanting an answer, as arm_rem_op_send makes it. */
static void issue(world_t *w, input_t *in)
{
    if (arm_rc.nfree == 0 || w->nt == OP_POOL)
        return;
    int kind = kinds[u8(in) % (sizeof kinds / sizeof *kinds)];
    int node = u8(in) % NNODES;
    if (kind == ARM_SRV_REG || kind == ARM_SRV_UNREG)
        node = ME;
    rop_t *op = arm_rem_op_get(node);
    tracked_t *t = &w->t[w->nt];
    memset(t, 0, sizeof *t);
    t->op = op;
    t->kind = kind;
    t->nb = -1;
    op->req.op = (uint8_t)kind;
    op->req.target = node;
    if (kind == ARM_SRV_GET) {
        t->want = 1 + u16(in) % MAXGET;
        t->dst = malloc(t->want);
        memset(t->dst, PATTERN, t->want);
        op->dst = t->dst;
        op->req.len = (uint32_t)t->want;
    } else if (kind == ARM_SRV_GETSEG) {
        t->lb = malloc(LBLEN);
        t->model = malloc(LBLEN);
        memset(t->lb, PATTERN, LBLEN);
        memset(t->model, PATTERN, LBLEN);
        int keep_len;
        t->want = build_getseg(in, op, &keep_len);
        for (int i = 0; i < op->nseg; i++)
            if (i == 0 || !(op->tab[i - 1].len & ARM_SRV_SEG_RUN))
                op->loc[i].ptr = t->lb + (uintptr_t)op->loc[i].ptr;
        op->data_len = keep_len ? t->want : 0;
        op->req.nseg = (uint16_t)op->nseg;
        op->req.len = (uint32_t)(op->nseg * sizeof(arm_srv_seg_t));
    }
    const int hop = arm_rc.hop[node];
    uint8_t how = u8(in);
    int get = kind == ARM_SRV_GET || kind == ARM_SRV_GETSEG;
    /* The one sync slot takes a request without payload (arm_rem_op_send);
     * the others need a credit of the first hop. */
    int may_sync = kind != ARM_SRV_GETSEG && kind != ARM_SRV_REG && kind != ARM_SRV_UNREG;
    if (((how & 1) || !may_sync) && arm_rc.credits[hop] > 0) {
        arm_rc.credits[hop]--;
        t->credited = 1;
        w->owed[hop]++;
    } else if (may_sync) {
        op->req.op |= ARM_SRV_SYNC;
    } else {
        free(t->dst);
        free(t->lb);
        free(t->model);
        arm_rem_op_release(op);
        return;
    }
    op->call = "fuzz";
    op->want_reply = 1;
    arm_rem_set_req_id("fuzz", op, 1);
    op->hop_seq = ++arm_rc.seq_sent[hop];
    op->send.pending = 0;
    t->req_id = op->req.req_id;
    if (get && (how & 2)) {
        /* Part of a non-blocking get (arm_rem_nb_attach). */
        int i = (how >> 2) % 4;
        op->nb = t->nb = i;
        arm_rc.nb[i].live++;
        arm_rc.nb_live++;
        op->busy = 2;
    }
    w->nt++;
}

/* A write wanting no answer: its refusal alone would come back. */
static void write_noreply(world_t *w, input_t *in)
{
    if (arm_rc.nfree == 0)
        return;
    int node = u8(in) % NNODES;
    int hop = arm_rc.hop[node];
    if (arm_rc.credits[hop] == 0)
        return;
    rop_t *op = arm_rem_op_get(node);
    op->req.op = ARM_SRV_PUT;
    arm_rc.credits[hop]--;
    w->owed[hop]++;
    arm_rem_set_req_id("fuzz_put", op, 0);
    op->hop_seq = ++arm_rc.seq_sent[hop];
    if (hop != node)
        arm_rc.fwd_sent[node]++;
    else
        arm_rc.seq_write[hop] = op->hop_seq;
    arm_rem_op_release(op);   /* detached, its send complete */
}

static int find(const world_t *w, uint64_t id)
{
    for (int k = 0; k < w->nt; k++)
        if (w->t[k].req_id == id && w->t[k].op->busy)
            return k;
    return -1;
}

/* An answer from the input, delivered. Returns 1 when it stopped the
 * program (the input ends there). */
static int answer(world_t *w, input_t *in)
{
    uint8_t m = u8(in), bend = u8(in);
    if (u8(in) < 180)
        bend &= 0x80;            /* most answers well formed */
    arm_srv_rep_t rep;
    memset(&rep, 0, sizeof rep);
    int k = -1;
    switch (m % 8) {
    case 0:
        rep.req_id = 0;          /* credits only */
        break;
    case 1:
        rep.req_id = ARM_SRV_REQ_NOREPLY | (1 + u16(in) % (arm_rc.noreply_seq + 2));
        break;
    case 2:
        take(in, &rep.req_id, sizeof rep.req_id);
        break;
    default:
        if (!w->nt)
            return 0;
        k = (int)(u8(in) % (unsigned)w->nt);
        rep.req_id = w->t[k].req_id;
        break;
    }
    const tracked_t *t = k >= 0 ? &w->t[k] : NULL;
    rep.node = t ? t->op->node : (int32_t)(u8(in) % NNODES);
    if (bend & 1)
        rep.node = (int32_t)(u8(in) % (NNODES + 4)) - 2;
    if (bend & 2)
        take(in, &rep.node, sizeof rep.node);
    const int hop = rep.node >= 0 && rep.node < NNODES ? rep.node : -1;
    if (hop >= 0 && arm_rc.hop[hop] == hop) {
        rep.credits = (uint32_t)(u8(in) % (w->owed[hop] + 1));
        w->owed[hop] -= (int)rep.credits;
    } else if (hop >= 0) {
        rep.credits = u8(in) % (arm_rc.fwd_sent[hop] - arm_rc.fwd_acked[hop] + 1);
    }
    if (bend & 4)
        take(in, &rep.credits, sizeof rep.credits);
    uint8_t st = u8(in);
    rep.status = st < 220 ? 0 : st < 240 ? -(int32_t)(st % 12) - 1 : (int32_t)(st % 3) + 1;
    if (bend & 8)
        take(in, &rep.status, sizeof rep.status);
    take(in, &rep.value, sizeof rep.value);
    size_t want = t ? (t->kind == ARM_SRV_REG ? u16(in) % (SLOT + 1) : t->want)
                    : u16(in) % 64;
    rep.len = (uint32_t)want;
    if (bend & 16)
        rep.len = u8(in) & 1 ? rep.len + (uint32_t)(u8(in) % 9) - 4 : u16(in) % (2 * MAXGET);
    if (bend & 32)
        take(in, &rep.len, sizeof rep.len);
    size_t data_len = rep.len <= 2 * MAXGET ? rep.len : u16(in) % 64;
    if (bend & 64)
        data_len = u16(in) % (2 * MAXGET);
    char *data = malloc(data_len ? data_len : 1);
    size_t head = data_len < 48 ? data_len : 48;
    take(in, data, head);
    for (size_t b = head; b < data_len; b++)
        data[b] = (char)(data[b % head] + (char)(b / head));
    arm_net_am_msg_t msg;
    memset(&msg, 0, sizeof msg);
    msg.hdr = &rep;
    msg.hdr_len = sizeof rep;
    if (bend & 0x80 && (u8(in) & 3) == 0)
        msg.hdr_len = u8(in) % (sizeof rep + 8);
    msg.data = data;
    msg.data_len = data_len;

    /* What must happen. */
    const int whole = msg.hdr_len == sizeof rep;
    const int live = whole && t && !t->answered && t->op->busy;
    const size_t good_len = t && t->kind == ARM_SRV_REG ? (rep.len <= SLOT ? rep.len : (size_t)-1)
                                                         : t ? t->want : 0;
    const int good = live && rep.status >= 0 && rep.node == t->op->node &&
                     rep.len == good_len && data_len == rep.len;
    int must_stop = whole && rep.status < 0 &&
                    (live || rep.req_id == 0 || (rep.req_id & ARM_SRV_REQ_NOREPLY));
    if (live && rep.status >= 0 && !good)
        must_stop = 1;
    if (good && t->nb >= 0 && rep.status != 0)
        must_stop = 1;           /* a non-blocking get that failed stops there */
    /* A request it may complete by accident: a raw id equal to a live one. */
    if (!t && whole && rep.req_id) {
        int j = find(w, rep.req_id);
        if (j >= 0) {
            free(data);
            return 0;            /* the same as case 3..7; not worth modelling twice */
        }
    }
    const int nbe = t ? t->nb : -1;
    const int live_before = nbe >= 0 ? arm_rc.nb[nbe].live : 0;
    if (trace)
        printf("answer id %#llx node %d credits %u status %d len %u data %zu hdr %zu -> %s\n",
               (unsigned long long)rep.req_id, rep.node, rep.credits, rep.status, rep.len,
               data_len, msg.hdr_len, must_stop ? "stop" : good ? "complete" : "drop");
    const int stopped = fuzz_stops(deliver, &msg);
    if (stopped != must_stop) {
        fail(w, "%s an answer (id %#llx, status %d, len %u, %zu bytes arrived, kind %d)",
             stopped ? "stopped on" : "went on after", (unsigned long long)rep.req_id,
             rep.status, rep.len, data_len, t ? t->kind : -1);
    } else if (!stopped && good) {
        tracked_t *tt = &w->t[k];
        rop_t *op = tt->op;
        tt->answered = 1;
        if (tt->kind == ARM_SRV_GET && memcmp(tt->dst, data, tt->want))
            fail(w, "a get's buffer does not hold its answer's data");
        if (tt->kind == ARM_SRV_GETSEG) {
            scatter(op, tt->lb, tt->model, data);
            if (memcmp(tt->lb, tt->model, LBLEN)) {
                size_t b = 0;
                while (tt->lb[b] == tt->model[b])
                    b++;
                fail(w, "a segmented get's buffer is not its model (byte %zu of %d entries)", b,
                     op->nseg);
            }
        }
        if (nbe >= 0) {
            if (op->busy || arm_rc.nb[nbe].live != live_before - 1)
                fail(w, "a non-blocking get's answer did not complete it");
            drop(w, k);
        } else if (!op->replied || op->value != rep.value || op->status != rep.status) {
            fail(w, "an answer did not complete its request");
        } else if (tt->kind == ARM_SRV_REG &&
                   (op->data_len != rep.len || memcmp(op->buf, data, rep.len))) {
            fail(w, "a registration's key is not its answer's");
        }
    } else if (!stopped && t) {
        if (t->op->busy && t->op->replied != t->answered)
            fail(w, "a dropped answer changed its request");
        if (t->kind == ARM_SRV_GETSEG && memcmp(t->lb, t->model, LBLEN))
            fail(w, "a dropped answer wrote a segmented get's buffer");
    }
    free(data);
    return stopped;
}

/* The caller takes a completed blocking request (arm_rem_op_finish). */
static int finish(world_t *w, input_t *in)
{
    if (!w->nt)
        return 0;
    int k = (int)(u8(in) % (unsigned)w->nt);
    tracked_t *t = &w->t[k];
    if (t->nb >= 0 || !t->op->replied)
        return 0;
    const int stopped = fuzz_stops(finish_op, t->op);
    if (stopped != (t->op->status != 0))
        fail(w, "finishing a request with status %d %s", t->op->status,
             stopped ? "stopped" : "went on");
    if (!stopped)
        drop(w, k);
    return stopped;
}

static void check(world_t *w)
{
    int live = 0;
    for (int n = 0; n < NNODES; n++) {
        if (arm_rc.credits[n] < 0 || arm_rc.credits[n] > SLOTS)
            fail(w, "node %d: %d credits held, slots %d", n, arm_rc.credits[n], SLOTS);
        if (arm_rc.fwd_acked[n] > arm_rc.fwd_sent[n])
            fail(w, "node %d: %u forwarded writes acknowledged, %u sent", n,
                 arm_rc.fwd_acked[n], arm_rc.fwd_sent[n]);
    }
    for (int i = 0; i < NB_MAX; i++)
        live += arm_rc.nb[i].live;
    if (live != arm_rc.nb_live)
        fail(w, "non-blocking entries count %d, total %d", live, arm_rc.nb_live);
}

static long run_one(const uint8_t *data, size_t size, char *why, size_t whylen)
{
    static world_t w;
    setup();
    input_t in = { data, size };
    memset(&w, 0, sizeof w);
    reset(u8(&in) & 1);
    for (int c = 0; c < MAX_CMDS && in.n; c++) {
        uint8_t cmd = u8(&in) % 8;
        int stopped = 0;
        if (cmd < 2)
            issue(&w, &in);
        else if (cmd == 2)
            write_noreply(&w, &in);
        else if (cmd < 7)
            stopped = answer(&w, &in);
        else
            stopped = finish(&w, &in);
        check(&w);
        if (stopped || w.failed)
            break;
    }
    while (w.nt)
        drop(&w, 0);
    if (w.failed)
        snprintf(why, whylen, "%s", w.why);
    return w.failed;
}

FUZZ_MAIN("fuzz.client", 3000, 4096)
