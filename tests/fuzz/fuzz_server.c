/* fuzz.server: the communication server fed arbitrary messages.
 *
 * The bytes of one input are a small program: a configuration byte, then
 * commands that deliver a client request, a forwarded message, a credit, a
 * split answer or a relayed answer to one server on the in-process fake
 * transport, or run its progress and complete its sends. Headers and
 * payloads come from the input; most addresses, ranks, lengths and table
 * entries are folded near the server's segment and the job's ranks (a fix-up
 * byte chooses which fields stay raw), so that deep paths of the handlers
 * are reached and not only the first check. With a topology (MFCG 3 x 3,
 * the server at the centre node) requests travel on and forwarded messages
 * come in from the four neighbours.
 *
 * What must hold, whatever the input:
 * - no memory error (the sanitizers' job) and no hang (libFuzzer's timeout;
 *   the driver's progress loop is bounded);
 * - the server writes only inside its segment: guard zones on both sides of
 *   it keep their pattern;
 * - every answer goes to the rank that sent the request, for a request that
 *   was sent, at most once; credit-only answers carry req_id 0;
 * - without a topology and with no lock taken, every request that wants an
 *   answer gets one once the sends complete, except refusals the server
 *   counts as lost (stats.refusals_lost);
 * - at the end the server frees everything (LeakSanitizer) and holds no
 *   transport buffer after its destruction.
 *
 * Two builds, libFuzzer's entry or a driver of corpus files and generated
 * inputs: fuzz_driver.h. Decision 093. */
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
#include "util/arm_log.h"
#include "fuzz_driver.h"

#define NPROC 9            /* ranks; with the topology, one per node         */
#define ME 4               /* the server's node under MFCG 3 x 3 (the centre) */
#define SLOT 1024
#define MEM 16384
#define GUARD 256
#define MAX_CMDS 256
#define MAX_IDS 8192       /* req_ids handed out per input                     */
#define PATTERN 0xA5

/* A payload: its first bytes from the input (at most 64), then those
 * bytes again, so that one input holds many messages. */
static void fill(input_t *in, char *dst, size_t len)
{
    size_t head = len < 64 ? len : 64;
    take(in, dst, head);
    for (size_t k = head; k < len; k++)
        dst[k] = dst[k % head];
}

typedef struct sent_id {
    int src;               /* rank it came from                               */
    int wants;             /* an answer is due                                */
    int answers;           /* answers seen                                    */
} sent_id_t;

typedef struct world {
    srv_fake_t f;
    struct arm_server *s;
    arm_topo_t topo;
    int topo_on;
    int node_of[NPROC];
    arm_shm_mutex_t locks[NPROC];
    arm_shm_mutex_t *lockp[NPROC];
    char *whole;           /* GUARD | segment | GUARD                          */
    char *mem;
    size_t read;           /* next of f.sent to check                         */
    sent_id_t ids[MAX_IDS];
    uint32_t nids;
    uint32_t fwd_seq[NPROC];
    int loose;             /* answers not all accountable: a lock may park
                              requests for good, or raw ids were sent      */
    long failed;
    char why[256];
} world_t;

static void fail(world_t *w, const char *what)
{
    if (!w->failed)
        snprintf(w->why, sizeof w->why, "%s", what);
    w->failed++;
}

/* A failure about one answer: which, to whom, and what it said. */
static void fail_rep(world_t *w, const char *what, const srv_fake_sent_t *m,
                     const arm_srv_rep_t *rep)
{
    char m2[256];
    snprintf(m2, sizeof m2, "%s (answer %zu to rank %d, req_id %#llx, status %d: %.80s)", what,
             (size_t)(m - w->f.sent), m->to, (unsigned long long)rep->req_id, rep->status,
             m->data ? m->data : "");
    fail(w, m2);
}

static const uint8_t ops[] = {
    ARM_SRV_PUT, ARM_SRV_GET, ARM_SRV_ACC, ARM_SRV_PUTSEG, ARM_SRV_GETSEG, ARM_SRV_ACCSEG,
    ARM_SRV_RMW, ARM_SRV_LOCK, ARM_SRV_UNLOCK, ARM_SRV_FENCE, ARM_SRV_UNREG, ARM_SRV_TRYLOCK,
    ARM_SRV_BATCH, ARM_SRV_ACCLOCK, ARM_SRV_ACCUNLOCK
};

static uint64_t near_seg(const world_t *w, uint64_t raw)
{
    /* Mostly inside, sometimes straddling either end. */
    return (uint64_t)(uintptr_t)w->mem + raw % (MEM + 2 * 64) - 64;
}

static int answered_op(unsigned op, unsigned sub)
{
    switch (op) {
    case ARM_SRV_GET: case ARM_SRV_GETSEG: case ARM_SRV_RMW: case ARM_SRV_LOCK:
    case ARM_SRV_TRYLOCK: case ARM_SRV_FENCE: case ARM_SRV_UNREG: case ARM_SRV_ACCLOCK:
        return 1;
    case ARM_SRV_BATCH:
        return sub & 1;
    default:
        return 0;
    }
}

/* A new req_id for src (NOREPLY when noreply), recorded. Ids of origins
 * named in server-to-server messages are made as NOREPLY ones and the bit
 * cleared: whether they are answered depends on state the driver does not
 * model, but an answer must still go to their rank, once. */
static uint64_t new_id(world_t *w, int src, int noreply, unsigned op, unsigned sub)
{
    if (w->nids + 1 >= MAX_IDS)
        return noreply ? ARM_SRV_REQ_NOREPLY | 1 : 1;   /* out of ids: never checked */
    uint32_t k = ++w->nids;
    w->ids[k].src = src;
    w->ids[k].wants = !noreply && answered_op(op, sub);
    w->ids[k].answers = 0;
    return (noreply ? ARM_SRV_REQ_NOREPLY : 0) | k;
}

/* A request header from the input, fixed up as the fix-up byte says. */
static void make_req(world_t *w, input_t *in, arm_srv_req_t *r, int any_src)
{
    take(in, r, sizeof *r);
    uint8_t fx = u8(in);
    if (u8(in) < 200)
        fx &= 2 | 64;      /* most requests are folded whole: deep paths */
    if (!(fx & 1)) {
        unsigned sync = r->op & ARM_SRV_SYNC;
        r->op = (uint8_t)(ops[r->op % sizeof ops] | (fx & 2 ? sync : 0));
    }
    if ((r->op & ~ARM_SRV_SYNC) == ARM_SRV_REG)
        r->op = ARM_SRV_GET;   /* it would map a named segment of the host */
    if (!(fx & 4)) {
        r->src = (int32_t)((uint32_t)r->src % NPROC);
        if (!any_src && w->topo_on && !(fx & 2)) {
            /* A process of this node or of a neighbour node. */
            static const int near[] = { 1, 3, 4, 5, 7 };
            r->src = near[(uint32_t)r->src % 5];
        }
    }
    if (!(fx & 8))
        r->target = (int32_t)((uint32_t)r->target % NPROC);
    if (!(fx & 16))
        r->raddr = near_seg(w, r->raddr);
    if (!(fx & 32))
        r->len %= 3 * SLOT;
    unsigned op = r->op & (unsigned)~ARM_SRV_SYNC;
    if (op == ARM_SRV_LOCK || op == ARM_SRV_ACCLOCK)
        w->loose = 1;
    if (!(fx & 128))
        r->req_id = new_id(w, r->src, (fx & 64) != 0, op, r->sub);
    else
        w->loose = 1;     /* a raw id: answers can no longer be told apart */
}

/* Folds a segment table or a batch's entries near the segment. */
static void fix_payload(world_t *w, const arm_srv_req_t *r, char *pay, size_t plen, uint8_t fx)
{
    if (fx >= 32)
        fx = 0;
    unsigned op = r->op & (unsigned)~ARM_SRV_SYNC;
    if (op == ARM_SRV_PUTSEG || op == ARM_SRV_GETSEG || op == ARM_SRV_ACCSEG) {
        for (size_t k = 0; k < r->nseg && (k + 1) * sizeof(arm_srv_seg_t) <= plen; k++) {
            arm_srv_seg_t e;
            memcpy(&e, pay + k * sizeof e, sizeof e);
            int run = (e.len & ARM_SRV_SEG_RUN) != 0;
            if (!(fx & 1))
                e.raddr = near_seg(w, e.raddr);
            if (!(fx & 2))
                e.len = (e.len & (fx & 4 ? ARM_SRV_SEG_RUN : 0)) | (e.len % 512);
            memcpy(pay + k * sizeof e, &e, sizeof e);
            if (run && k + 1 < r->nseg && (k + 2) * sizeof e <= plen && !(fx & 8)) {
                memcpy(&e, pay + (k + 1) * sizeof e, sizeof e);
                e.raddr %= 2048;   /* stride */
                e.len %= 64;       /* count  */
                memcpy(pay + (k + 1) * sizeof e, &e, sizeof e);
                k++;
            }
        }
    } else if (op == ARM_SRV_BATCH) {
        size_t off = 0;
        for (unsigned k = 0; k < r->nseg && off + sizeof(arm_srv_batch_ent_t) <= plen; k++) {
            arm_srv_batch_ent_t e;
            memcpy(&e, pay + off, sizeof e);
            if (!(fx & 1))
                e.raddr = near_seg(w, e.raddr);
            if (!(fx & 2))
                e.len %= 256;
            if (!(fx & 4))
                e.target = (int32_t)((uint32_t)e.target % NPROC);
            if (!(fx & 8))
                e.op = e.op & 1 ? ARM_SRV_PUT : ARM_SRV_ACC;
            memcpy(pay + off, &e, sizeof e);
            off += sizeof e + ((e.len + 7u) & ~7u);
        }
    }
}

static void deliver(world_t *w, unsigned am_id, const void *hdr, size_t hsize, size_t hdr_len,
                    const void *pay, size_t plen, int rndv)
{
    /* Exact-size copies, so that a read past either end is caught; a
     * header longer than its kind's is padded with zeros. */
    void *h = calloc(1, hdr_len ? hdr_len : 1);
    memcpy(h, hdr, hdr_len < hsize ? hdr_len : hsize);
    if (am_id == ARM_SRV_AM_REQ)
        srv_fake_deliver(&w->f, h, hdr_len, pay, plen, rndv);
    else
        srv_fake_deliver_am(&w->f, am_id, h, hdr_len, pay, plen);
    free(h);
}

static size_t pay_len(input_t *in, uint32_t fallback)
{
    uint8_t k = u8(in);
    if (k & 1)
        return fallback < 4 * SLOT ? fallback : 4 * SLOT;
    return u16(in) % (k & 2 ? 3 * SLOT : 256);
}

static void cmd_request(world_t *w, input_t *in)
{
    arm_srv_req_t r;
    make_req(w, in, &r, 0);
    uint8_t how = u8(in);
    size_t hdr_len = sizeof r;
    if ((how & 15) == 15) {
        hdr_len = u8(in) % (sizeof r + 9);
        uint64_t k = r.req_id & ~ARM_SRV_REQ_NOREPLY;
        if (hdr_len != sizeof r && k > 1 && k <= w->nids)
            w->ids[k].wants = 0;   /* refused, with its id only if the header held it */
    }
    size_t plen = pay_len(in, r.len);
    char *pay = calloc(1, plen + 1);
    fill(in, pay, plen);
    fix_payload(w, &r, pay, plen, u8(in));
    char hdr[sizeof r + 8];
    memset(hdr, 0, sizeof hdr);
    memcpy(hdr, &r, sizeof r);
    if (trace)
        printf("req: src %d op %#x sub %u nseg %u target %d len %u raddr %+lld id %#llx "
               "hdr %zu pay %zu%s\n", r.src, r.op, r.sub, r.nseg, r.target, r.len,
               (long long)(r.raddr - (uint64_t)(uintptr_t)w->mem),
               (unsigned long long)r.req_id, hdr_len, plen, how & 16 ? " rndv" : "");
    deliver(w, ARM_SRV_AM_REQ, hdr, sizeof hdr, hdr_len, pay, plen, (how & 16) != 0);
    free(pay);
}

/* A forwarded message from a neighbour server: nreq entries. */
static void cmd_fwd(world_t *w, input_t *in)
{
    static const int nbr[] = { 1, 3, 5, 7 };
    arm_srv_fwd_hdr_t h;
    take(in, &h, sizeof h);
    uint8_t fx = u8(in);
    if (!(fx & 1))
        h.from_node = nbr[(uint32_t)h.from_node % 4];
    if (!(fx & 2) && h.from_node >= 0 && h.from_node < NPROC)
        h.seq = w->fwd_seq[h.from_node]++;
    unsigned nreq = fx & 4 ? h.nreq : h.nreq % 5;
    size_t cap = 4 * SLOT, off = 0;
    char *pay = calloc(1, cap);
    for (unsigned k = 0; k < nreq && k < 8; k++) {
        arm_srv_fwd_ent_t e;
        memset(&e, 0, sizeof e);
        make_req(w, in, &e.req, 1);
        e.req.op &= (uint8_t)~ARM_SRV_SYNC;
        uint8_t ex = u8(in);
        e.dlen = ex & 1 ? e.req.len % (2 * SLOT) : u16(in) % 512;
        e.ncomb = ex & 2 ? u8(in) % 4 : 0;
        if (e.ncomb && !(ex & 4))
            e.dlen = e.ncomb * (uint32_t)sizeof(arm_srv_comb_t);
        size_t room = sizeof e + ((e.dlen + 7u) & ~7u);
        if (off + room > cap)
            break;
        char *d = pay + off + sizeof e;
        fill(in, d, e.dlen);
        if (e.ncomb)
            for (unsigned c = 0; c < e.ncomb && (c + 1) * sizeof(arm_srv_comb_t) <= e.dlen; c++) {
                arm_srv_comb_t cb;
                memcpy(&cb, d + c * sizeof cb, sizeof cb);
                if (!(ex & 8)) {
                    cb.src = (int32_t)((uint32_t)cb.src % NPROC);
                    cb.req_id = new_id(w, cb.src, 1, ARM_SRV_RMW, 0) & ~ARM_SRV_REQ_NOREPLY;
                } else {
                    w->loose = 1;
                }
                memcpy(d + c * sizeof cb, &cb, sizeof cb);
            }
        if (!e.ncomb)
            fix_payload(w, &e.req, d, e.dlen, u8(in));
        if (trace)
            printf("  fwd entry: src %d op %#x sub %u target %d raddr %+lld id %#llx dlen %u "
                   "ncomb %u\n", e.req.src, e.req.op, e.req.sub, e.req.target,
                   (long long)(e.req.raddr - (uint64_t)(uintptr_t)w->mem),
                   (unsigned long long)e.req.req_id, e.dlen, e.ncomb);
        memcpy(pay + off, &e, sizeof e);
        off += room;
    }
    if (!(fx & 8))
        h.nreq = nreq;
    if (!(fx & 16))
        h.bytes = (uint32_t)off;
    size_t plen = fx & 32 ? u16(in) % cap : off;
    if (trace)
        printf("fwd: from %d nreq %u bytes %u seq %u, %zu bytes\n", h.from_node, h.nreq, h.bytes,
               h.seq, plen);
    deliver(w, ARM_SRV_AM_FWD, &h, sizeof h, fx & 64 ? u8(in) % 24 : sizeof h, pay, plen, 0);
    free(pay);
}

static void cmd_credit(world_t *w, input_t *in)
{
    arm_srv_fwd_hdr_t h;
    take(in, &h, sizeof h);
    uint8_t fx = u8(in);
    if (!(fx & 1))
        h.from_node = (int32_t)((uint32_t)h.from_node % NPROC);
    if (!(fx & 2))
        h.credits %= 4;
    (void)w;
    if (trace)
        printf("credit: from %d credits %u\n", h.from_node, h.credits);
    deliver(w, ARM_SRV_AM_CREDIT, &h, sizeof h, fx & 4 ? u8(in) % 24 : sizeof h, NULL, 0, 0);
}

static void cmd_split(world_t *w, input_t *in)
{
    arm_srv_split_hdr_t h;
    take(in, &h, sizeof h);
    uint8_t fx = u8(in);
    if (!(fx & 1))
        h.nent %= 6;
    size_t plen = fx & 2 ? u16(in) % 256 : (size_t)(h.nent % 64) * sizeof(arm_srv_comb_t);
    char *pay = calloc(1, plen + 1);
    take(in, pay, plen);
    if (fx & 4)
        w->loose = 1;          /* raw origins and ids */
    for (size_t c = 0; !(fx & 4) && (c + 1) * sizeof(arm_srv_comb_t) <= plen; c++) {
        arm_srv_comb_t cb;
        memcpy(&cb, pay + c * sizeof cb, sizeof cb);
        cb.src = (int32_t)((uint32_t)cb.src % NPROC);
        cb.req_id = new_id(w, cb.src, 1, ARM_SRV_RMW, 0) & ~ARM_SRV_REQ_NOREPLY;
        memcpy(pay + c * sizeof cb, &cb, sizeof cb);
    }
    if (trace)
        printf("split: from %d nent %u status %d, %zu bytes\n", h.from_node, h.nent, h.status,
               plen);
    deliver(w, ARM_SRV_AM_SPLIT, &h, sizeof h, fx & 8 ? u8(in) % 24 : sizeof h, pay, plen, 0);
    free(pay);
}

static void cmd_relay(world_t *w, input_t *in)
{
    arm_srv_relay_hdr_t h;
    take(in, &h, sizeof h);
    uint8_t fx = u8(in);
    arm_srv_rep_t rep;
    take(in, &rep, sizeof rep);
    if (!(fx & 1))
        h.rank = (int32_t)((uint32_t)h.rank % NPROC);
    if (!(fx & 2))
        h.rep_len = sizeof rep;
    if (!(fx & 4))
        h.hops %= 4;
    if (!(fx & 8))
        rep.req_id = new_id(w, h.rank, 1, ARM_SRV_GET, 0) & ~ARM_SRV_REQ_NOREPLY;
    else
        w->loose = 1;
    size_t extra = u8(in) % 64;
    char *pay = calloc(1, sizeof rep + extra);
    memcpy(pay, &rep, sizeof rep);
    take(in, pay + sizeof rep, extra);
    deliver(w, ARM_SRV_AM_RELAY, &h, sizeof h, fx & 16 ? u8(in) % 24 : sizeof h, pay,
            fx & 32 ? u8(in) % (sizeof rep + extra + 1) : sizeof rep + extra, 0);
    free(pay);
}

/* Checks the answers sent since the last look. */
static void check_sent(world_t *w)
{
    for (; w->read < w->f.nsent; w->read++) {
        const srv_fake_sent_t *m = &w->f.sent[w->read];
        if (trace)
            printf("sent: to %d kind %d len %zu\n", m->to, m->is_request, m->len);
        if (m->is_request)
            continue;
        arm_srv_rep_t rep;
        if (m->hdr_len != sizeof rep) {
            fail(w, "an answer with a header that is not a reply's");
            continue;
        }
        memcpy(&rep, m->hdr, sizeof rep);
        if (trace)
            printf("  answer: id %#llx status %d credits %u\n", (unsigned long long)rep.req_id,
                   rep.status, rep.credits);
        if (m->to < 0 || m->to >= NPROC) {
            fail_rep(w, "an answer to a rank that is not in the job", m, &rep);
            continue;
        }
        uint64_t k = rep.req_id & ~ARM_SRV_REQ_NOREPLY;
        if (rep.req_id == 0 || k == 1 || w->loose)
            continue;          /* credits only, an untracked id, or raw ids */
        if (k > w->nids) {
            fail_rep(w, "an answer for a request never sent", m, &rep);
            continue;
        }
        sent_id_t *id = &w->ids[k];
        if (id->src != m->to)
            fail_rep(w, "an answer to another rank than the request's", m, &rep);
        if (++id->answers > 1)
            fail_rep(w, "a request answered twice", m, &rep);
    }
}

static void check_guards(world_t *w)
{
    for (size_t k = 0; k < GUARD; k++)
        if ((uint8_t)w->whole[k] != PATTERN || (uint8_t)w->whole[GUARD + MEM + k] != PATTERN) {
            fail(w, "the server wrote outside its segment");
            memset(w->whole, PATTERN, GUARD);
            memset(w->whole + GUARD + MEM, PATTERN, GUARD);
            return;
        }
}

static void settle(world_t *w)
{
    for (int k = 0; k < 64; k++) {
        srv_fake_complete(&w->f, (size_t)-1);
        if (!srv_progress(w->s) && w->f.ndone == w->f.nsent)
            break;
    }
}

/* Runs one input; returns the failures it found (their first in w->why). */
static long run_one(const uint8_t *data, size_t size, char *why, size_t whylen)
{
    input_t in = { data, size };
    world_t *w = calloc(1, sizeof *w);
    uint8_t cfg = u8(&in);
    w->topo_on = cfg & 1;
    srv_fake_init(&w->f);
    w->f.send_mode = cfg & 2 ? SRV_FAKE_SEND_PROGRESS : SRV_FAKE_SEND_NOW;
    w->f.hold_recvs = (cfg & 4) != 0;
    for (int r = 0; r < NPROC; r++) {
        w->lockp[r] = &w->locks[r];
        w->node_of[r] = w->topo_on ? r : 1;
    }
    arm_server_params_t p = { .nproc = NPROC, .node = w->topo_on ? ME : 1, .acc_lock = w->lockp,
                              .slots = 1 + (cfg >> 3 & 3), .slot_size = SLOT,
                              .progress = ARM_SRV_PROGRESS_POLL,
                              .reply_pack_below = cfg & 32 ? 256 : 0 };
    char twhy[160];
    if (w->topo_on) {
        if (arm_topo_init(&w->topo, ARM_TOPO_MFCG, NPROC, "3x3", twhy, sizeof twhy) != ARM_OK) {
            fprintf(stderr, "topology: %s\n", twhy);
            exit(2);
        }
        p.topo = &w->topo;
        p.node_of = w->node_of;
        p.edge_slots = 1 + (cfg >> 5 & 1);
        p.combine = (cfg & 64) != 0;
        p.split = (cfg & 128) != 0;
        p.fence_ack = (cfg & 32) != 0;
        p.bound_replies = (cfg & 16) != 0;
        p.lazy_clients = (cfg & 8) != 0;
    }
    if (srv_create(&p, &srv_xport_fake, &w->f, &w->s) != ARM_OK) {
        fprintf(stderr, "srv_create failed\n");
        exit(2);
    }
    w->whole = aligned_alloc(64, GUARD + MEM + GUARD);
    memset(w->whole, PATTERN, GUARD + MEM + GUARD);
    w->mem = w->whole + GUARD;
    memset(w->mem, 0, MEM);
    srv_seg_add(w->s, w->mem, MEM, 0, NULL);
    for (int c = 0; c < MAX_CMDS && in.n; c++) {
        uint8_t cmd = u8(&in);
        switch (cmd % 10) {
        case 0: case 1: case 2: case 3: cmd_request(w, &in); break;
        case 4: case 5: if (w->topo_on) cmd_fwd(w, &in); else cmd_request(w, &in); break;
        case 6: cmd_credit(w, &in); break;
        case 7: cmd_split(w, &in); break;
        case 8: cmd_relay(w, &in); break;
        default:
            if (cmd & 16)
                srv_fake_complete(&w->f, cmd >> 5);
            srv_progress(w->s);
            break;
        }
        check_guards(w);
        check_sent(w);
        if (trace)
            printf("  (kept %zu, loose %d)\n", srv_fake_kept(&w->f), w->loose);
    }
    settle(w);
    check_guards(w);
    check_sent(w);
    if (!w->topo_on && !w->loose) {
        arm_server_stats_t st = w->s->stats;
        uint64_t missing = 0;
        for (uint32_t k = 2; k <= w->nids; k++)
            if (w->ids[k].wants && !w->ids[k].answers)
                missing++;
        if (missing > st.refusals_lost) {
            char m[160];
            snprintf(m, sizeof m, "%llu requests wanting an answer got none (%llu refusals "
                     "counted lost)", (unsigned long long)missing,
                     (unsigned long long)st.refusals_lost);
            fail(w, m);
        }
    }
    srv_destroy(w->s);
    if (srv_fake_kept(&w->f) && w->f.nsent == w->f.ndone)
        fail(w, "transport buffers still held after the server's end");
    srv_fake_fini(&w->f);
    free(w->whole);
    long failed = w->failed;
    if (failed && why)
        snprintf(why, whylen, "%s", w->why);
    free(w);
    return failed;
}

FUZZ_MAIN("fuzz.server", 2000, 8192)
