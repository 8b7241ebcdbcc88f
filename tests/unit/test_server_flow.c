/* unit.server_flow: the server's flow control and admission through the
 * fake transport: credits come back and slots are reused, every refusal is
 * answered (status, req_id, reason), the sync slot is free for the next
 * blocking request as soon as its reply is posted even when the transport
 * reports the send complete much later (issue 26 item 1), and waiting
 * clients are found without a scan over every rank. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include "srv_harness.h"
#include "util/arm_acc.h"

#define SLOT 16384
#define MEM (1u << 20)

/* ---- credits and slot reuse ------------------------------------------------------- */
static void test_credits(void)
{
    harness_t h;
    h_init(&h, 4, 4, SLOT, MEM);
    char data[512];
    memset(data, 7, sizeof data);
    int refused = 0;
    /* 1000 puts, each sent only with a credit in hand, replies read as they
     * come: the client never runs dry, nothing is refused. */
    for (int i = 0; i < 1000; i++) {
        if (h.credits[1] == 0) {
            arm_srv_rep_t rep;
            while (h_reply(&h, NULL, &rep, NULL))
                refused += rep.status != ARM_OK;
        }
        if (h.credits[1] == 0)
            break;
        arm_srv_req_t r = h_req(&h, 1, ARM_SRV_PUT, h_addr(&h, 4096 + (size_t)(i % 64) * 512),
                                sizeof data);
        h_send(&h, &r, data, sizeof data, 0);
    }
    h_drain_replies(&h);
    CHECK(refused == 0 && h.s->stats.requests == 1000, "1000 puts served, %d refused",
          refused);
    CHECK(h.credits[1] >= 4 - 1, "credits back as they free (%d of 4)", h.credits[1]);
    arm_srv_req_t f = h_sync(&h, 1, ARM_SRV_FENCE, 0, 0);
    h_send(&h, &f, NULL, 0, 0);
    h_drain_replies(&h);
    CHECK(h.credits[1] == 4, "after a fence every credit is back (%d)", h.credits[1]);
    CHECK(h.s->clients[1]->nfree == 4 && h.s->clients[1]->unreturned == 0, "all slots free");
    /* With sends held by the transport, a reply's slot is reused only once
     * its send completes. */
    h.f.send_mode = SRV_FAKE_SEND_HOLD;
    arm_srv_req_t g = h_req(&h, 2, ARM_SRV_GETSEG, 0, 0);
    arm_srv_seg_t tab = { h_addr(&h, 0), 64 };
    g.nseg = 1;
    h_send(&h, &g, &tab, sizeof tab, 0);
    CHECK(h.s->clients[2]->nfree == 3, "a GETSEG's slot is held while its reply is sent");
    srv_fake_complete(&h.f, 1);
    CHECK(h.s->clients[2]->nfree == 4 && h.s->clients[2]->unreturned == 1,
          "freed at completion, owed as a credit");
    h_fini(&h);
    unit_section("credits returned, slots reused, 1000 puts through 4 slots");
}

/* Segmented writes beyond a slot (decision 072): served from the
 * transport's buffer, every byte in place, and a malformed one still
 * answered. */
static void test_big_segwrite(void)
{
    harness_t h;
    h_init(&h, 4, 4, SLOT, MEM);
    enum { A = 30000, B = 9000 };
    static unsigned char msg[64 + A + B], data[A + B];
    arm_srv_seg_t tab[2] = { { h_addr(&h, 1000), A }, { h_addr(&h, 100000), B } };
    for (size_t i = 0; i < A + B; i++)
        data[i] = (unsigned char)(i * 7 + 3);
    size_t mlen = h_segpay(msg, tab, 2, data, A + B);
    arm_srv_req_t r = h_req(&h, 1, ARM_SRV_PUTSEG, 0, 0);
    r.nseg = 2;
    h_send(&h, &r, msg, mlen, 0);
    h_drain_replies(&h);
    int ok = 1;
    for (size_t i = 0; i < A; i++)
        ok &= (unsigned char)h.mem[1000 + i] == (unsigned char)(i * 7 + 3);
    for (size_t i = 0; i < B; i++)
        ok &= (unsigned char)h.mem[100000 + i] == (unsigned char)((A + i) * 7 + 3);
    CHECK(ok && h.s->stats.refused == 0, "a %zu-byte segmented put is written whole", mlen);
    /* An accumulate of longs beyond a slot. */
    enum { NL = 4000 };
    static unsigned char acc[64 + NL * sizeof(long)];
    static long vals[NL];
    arm_srv_seg_t t1 = { h_addr(&h, 200000), NL * sizeof(long) };
    for (long i = 0; i < NL; i++)
        vals[i] = i;
    h_segpay(acc, &t1, 1, vals, sizeof vals);
    for (int k = 0; k < 2; k++) {
        r = h_req(&h, 1, ARM_SRV_ACCSEG, 0, 0);
        r.sub = ARM_ACC_LNG;
        long one = 1;
        memcpy(r.scale, &one, sizeof one);
        r.nseg = 1;
        h_send(&h, &r, acc, sizeof acc, 0);
    }
    h_drain_replies(&h);
    ok = 1;
    for (long i = 0; i < NL; i++) {
        long v;
        memcpy(&v, h.mem + 200000 + (size_t)i * sizeof(long), sizeof v);
        ok &= v == 2 * i;
    }
    CHECK(ok && h.s->stats.refused == 0, "two %zu-byte segmented accumulates add up",
          sizeof acc);
    /* A batch of 4 KiB puts and accumulates beyond a slot (decision 073):
     * admitted eagerly, every entry applied. */
    enum { NE = 9, EL = 4096 };
    static unsigned char bat[NE * (sizeof(arm_srv_batch_ent_t) + EL)];
    size_t at = 0;
    for (int i = 0; i < NE; i++) {
        arm_srv_batch_ent_t e;
        memset(&e, 0, sizeof e);
        e.op = i % 3 == 2 ? ARM_SRV_ACC : ARM_SRV_PUT;
        e.type = ARM_ACC_LNG;
        long one = 1;
        memcpy(e.scale, &one, sizeof one);
        e.target = 1;
        e.len = EL;
        e.raddr = h_addr(&h, 300000 + (size_t)(i % 3 == 2 ? i - 1 : i) * EL);
        memcpy(bat + at, &e, sizeof e);
        at += sizeof e;
        for (int j = 0; j < EL / 8; j++) {
            long v = i * 100000 + j;
            memcpy(bat + at + (size_t)j * 8, &v, 8);
        }
        at += EL;
    }
    r = h_req(&h, 1, ARM_SRV_BATCH, 0, (uint32_t)at);
    r.nseg = NE;
    h_send(&h, &r, bat, at, 0);
    h_drain_replies(&h);
    /* Entries 3k and 3k+1 put blocks 3k and 3k+1; entry 3k+2 adds to block
     * 3k+1. */
    ok = at > SLOT && h.s->stats.refused == 0;
    for (int i = 0; i < NE; i++)
        for (int j = 0; i % 3 != 2 && j < EL / 8; j++) {
            long v, want = (long)i * 100000 + j;
            if (i % 3 == 1)
                want += (long)(i + 1) * 100000 + j;
            memcpy(&v, h.mem + 300000 + (size_t)i * EL + (size_t)j * 8, 8);
            ok &= v == want;
        }
    CHECK(ok, "a %zu-byte batch of puts and accumulates is applied whole", at);
    /* Data that does not match its table: refused, answered. */
    r = h_req(&h, 1, ARM_SRV_PUTSEG, 0, 0);
    r.nseg = 1;
    h_send(&h, &r, msg, sizeof msg, 0);
    arm_srv_rep_t rep;
    int refused = 0;
    while (h_reply(&h, NULL, &rep, NULL))
        refused += rep.status == ARM_ERR_INVALID_ARG && rep.req_id == r.req_id;
    CHECK(refused == 1, "a malformed big segmented put is refused and answered (%d)", refused);
    h_fini(&h);
    unit_section("segmented writes beyond a slot, from the transport's buffer (decision 072)");
}

/* A segmented get of small pieces is answered as one packed piece, and
 * its slot stays taken until that reply is sent (decision 073); pieces at
 * or above the average bound still go as a gather list. */
static void test_packed_getseg(void)
{
    harness_t h;
    h_init(&h, 4, 4, SLOT, MEM);
    h.s->p.reply_pack_below = 256;
    for (size_t i = 0; i < MEM; i++)
        h.mem[i] = (char)(i * 13 + 1);
    enum { N = 100, LEN = 40, STRIDE = 97 };
    arm_srv_seg_t tab[N];
    for (int i = 0; i < N; i++)
        tab[i] = (arm_srv_seg_t){ h_addr(&h, 500 + (size_t)i * STRIDE), LEN };
    h.f.send_mode = SRV_FAKE_SEND_HOLD;
    arm_srv_req_t r = h_req(&h, 2, ARM_SRV_GETSEG, 0, 0);
    r.nseg = N;
    h_send(&h, &r, tab, sizeof tab, 0);
    srv_fake_sent_t *m = h.f.nsent ? &h.f.sent[h.f.nsent - 1] : NULL;
    int ok = m && m->len == (size_t)N * LEN && m->iovcnt == 1;
    for (int i = 0; ok && i < N; i++)
        for (int j = 0; j < LEN; j++)
            ok &= m->data[i * LEN + j] == h.mem[500 + (size_t)i * STRIDE + (size_t)j];
    CHECK(ok && h.s->stats.packed_replies == 1,
          "%d pieces of %d B come back as one packed piece, in order (%zu pieces)", N, LEN,
          m ? m->iovcnt : 0);
    CHECK(h.s->clients[2]->nfree == 3, "its slot is held while the reply is sent (%d free)",
          h.s->clients[2]->nfree);
    srv_fake_complete(&h.f, h.f.nsent);
    srv_progress(h.s);
    CHECK(h.s->clients[2]->nfree == 4, "and freed once it is (%d free)",
          h.s->clients[2]->nfree);
    h.f.send_mode = SRV_FAKE_SEND_NOW;
    /* Pieces of 300 B (above the 256 B bound): a gather list. */
    for (int i = 0; i < 4; i++)
        tab[i] = (arm_srv_seg_t){ h_addr(&h, 20000 + (size_t)i * 1000), 300 };
    r = h_req(&h, 2, ARM_SRV_GETSEG, 0, 0);
    r.nseg = 4;
    h_send(&h, &r, tab, 4 * sizeof tab[0], 0);
    m = &h.f.sent[h.f.nsent - 1];
    CHECK(m->iovcnt == 4 && m->len == 1200 && memcmp(m->data, h.mem + 20000, 300) == 0 &&
              h.s->stats.packed_replies == 1,
          "larger pieces go as a gather list (%zu pieces)", m->iovcnt);
    h_drain_replies(&h);
    h_fini(&h);
    unit_section("segmented gets of small pieces answered packed (decision 073)");
}

/* Sends that fail at once (a client gone): the server neither loops nor
 * loses the credits, which reach the client with the next reply that gets
 * through. */
static void test_failed_sends(void)
{
    harness_t h;
    h_init(&h, 4, 4, SLOT, MEM);
    h.f.fail_sends = 1;
    for (int i = 0; i < 4; i++) {
        arm_srv_req_t r = h_req(&h, 1, ARM_SRV_PUT, h_addr(&h, 64), 1);
        h_send(&h, &r, "p", 1, 0);
    }
    arm_srv_req_t g = h_sync(&h, 1, ARM_SRV_GET, h_addr(&h, 64), 1);
    h_send(&h, &g, NULL, 0, 0);
    CHECK(h.f.nsent == 0 && h.mem[64] == 'p' && h.s->clients[1]->unreturned == 4,
          "served; replies failed; 4 credits still owed (%u)", h.s->clients[1]->unreturned);
    h.f.fail_sends = 0;
    arm_srv_req_t f = h_sync(&h, 1, ARM_SRV_FENCE, 0, 0);
    h_send(&h, &f, NULL, 0, 0);
    h_drain_replies(&h);
    CHECK(h.credits[1] == 4, "the next reply carries them (%d)", h.credits[1]);
    h_fini(&h);
    unit_section("sends failing at once: no loop, credits kept");
}

/* ---- refusals ------------------------------------------------------------------------ */
/* Delivers a raw header; returns the refusal sent for it (0: none). */
static int refusal(harness_t *h, const void *hdr, size_t hdr_len, const void *data, size_t len,
                   arm_srv_rep_t *rep, const char **why, int *to)
{
    size_t before = h->f.nsent;
    srv_fake_deliver(&h->f, hdr, hdr_len, data, len, 0);
    if (h->f.nsent == before)
        return 0;
    h->read = h->f.nsent - 1;
    return h_reply(h, to, rep, why);
}

static void test_refusals(void)
{
    harness_t h;
    h_init(&h, 4, 4, SLOT, MEM);
    arm_srv_rep_t rep;
    const char *why = "";
    int to = -1;
    /* Malformed header: 60 bytes (src and req_id still readable). */
    arm_srv_req_t r = h_req(&h, 2, ARM_SRV_PUT, h_addr(&h, 0), 4);
    CHECK(refusal(&h, &r, 60, "abcd", 4, &rep, &why, &to) && to == 2 &&
          rep.status == ARM_ERR_INVALID_ARG && rep.req_id == r.req_id &&
          strcmp(why, "malformed header (60 bytes, want 64)") == 0 && rep.len == strlen(why),
          "60-byte header: '%s' to %d", why, to);
    CHECK(rep.credits == 1, "the credit it spent comes back (%u)", rep.credits);
    /* 20 bytes: src readable, req_id not. */
    CHECK(refusal(&h, &r, 20, NULL, 0, &rep, &why, &to) && to == 2 && rep.req_id == 0 &&
          strstr(why, "(20 bytes, want 64)"), "20-byte header answered with req_id 0");
    /* 3 bytes: nobody to answer. */
    CHECK(!refusal(&h, &r, 3, NULL, 0, &rep, &why, &to) && h.s->stats.refusals_lost == 1,
          "3-byte header: dropped, counted");
    /* More data than a slot, where only writes may be (decision 072). */
    static char big[20000];
    r = h_req(&h, 1, ARM_SRV_GETSEG, 0, 0);
    r.nseg = 1;
    CHECK(refusal(&h, &r, sizeof r, big, sizeof big, &rep, &why, &to) && to == 1 &&
          rep.req_id == r.req_id && rep.status == ARM_ERR_INVALID_ARG &&
          strcmp(why, "request of 20000 bytes exceeds the 16384-byte slot") == 0,
          "oversized: '%s'", why);
    /* Unknown operation. */
    r = h_req(&h, 3, 99, 0, 0);
    CHECK(refusal(&h, &r, sizeof r, NULL, 0, &rep, &why, &to) && rep.req_id == r.req_id &&
          rep.status == ARM_ERR_UNSUPPORTED && strcmp(why, "unknown operation 99") == 0,
          "'%s'", why);
    /* An address outside every segment: a get and a put (NOREPLY). */
    uint64_t out = h_addr(&h, MEM) + 4096;
    r = h_sync(&h, 3, ARM_SRV_GET, out, 64);
    CHECK(refusal(&h, &r, sizeof r, NULL, 0, &rep, &why, &to) && rep.req_id == r.req_id &&
          rep.status == ARM_ERR_INVALID_ARG && strstr(why, "+64) is outside every registered "
                                                       "segment of node 1"),
          "get: '%s'", why);
    r = h_req(&h, 3, ARM_SRV_PUT, out, 8);
    CHECK(refusal(&h, &r, sizeof r, "12345678", 8, &rep, &why, &to) &&
          rep.req_id == r.req_id && (rep.req_id & ARM_SRV_REQ_NOREPLY) &&
          strstr(why, "outside every registered segment"),
          "NOREPLY put answered with its refusal: '%s'", why);
    /* The sync slot in use: a lock waits in it, and another sync request comes. */
    arm_shm_mutex_t *mx = (arm_shm_mutex_t *)(void *)(h.mem + 256);
    arm_shm_mutex_trylock(mx);
    r = h_sync(&h, 1, ARM_SRV_LOCK, h_addr(&h, 256), 0);
    CHECK(!refusal(&h, &r, sizeof r, NULL, 0, &rep, &why, &to), "lock waits");
    arm_srv_req_t g = h_sync(&h, 1, ARM_SRV_GET, h_addr(&h, 0), 8);
    CHECK(refusal(&h, &g, sizeof g, NULL, 0, &rep, &why, &to) && rep.req_id == g.req_id &&
          strcmp(why, "sync slot in use") == 0, "'%s'", why);
    /* A credit overrun: four puts queue behind the waiting lock, the fifth
     * has no credit. */
    for (int i = 0; i < 4; i++) {
        r = h_req(&h, 1, ARM_SRV_PUT, h_addr(&h, 512), 1);
        CHECK(!refusal(&h, &r, sizeof r, "x", 1, &rep, &why, &to), "put %d queued", i);
    }
    r = h_req(&h, 1, ARM_SRV_PUT, h_addr(&h, 512), 1);
    CHECK(refusal(&h, &r, sizeof r, "y", 1, &rep, &why, &to) && rep.req_id == r.req_id &&
          strcmp(why, "request without a credit (4 slots, all in use)") == 0 &&
          rep.credits == 0, "'%s'", why);
    arm_shm_mutex_unlock(mx);
    srv_progress(h.s);
    CHECK(h.mem[512] == 'x' && h.s->clients[1]->nfree == 4, "the queued puts served");
    CHECK(h.s->stats.refused == 9, "nine refusals counted (%llu)",
          (unsigned long long)h.s->stats.refused);
    h_fini(&h);
    unit_section("every refusal answered: status, req_id, reason");
}

/* ---- the sync slot and late send completions (issue 26 item 1) -------------------- */
/* A client's blocking requests back to back, each sent as soon as the
 * previous reply arrives, while the transport reports the replies' sends
 * complete late (held, then released a few at a time at random): none may
 * be refused. */
static void test_sync_race(void)
{
    harness_t h;
    h_init(&h, 4, 4, SLOT, MEM);
    h.f.send_mode = SRV_FAKE_SEND_HOLD;
    int answered = 0, refusals = 0, waited = 0;
    for (int i = 0; i < 2000; i++) {
        int op = i % 3 == 0 ? ARM_SRV_GET : i % 3 == 1 ? ARM_SRV_RMW : ARM_SRV_FENCE;
        arm_srv_req_t r = h_sync(&h, 1, op, h_addr(&h, 64), op == ARM_SRV_GET ? 8 : 0);
        r.sub = ARM_SRV_FADD64;
        r.operand = 1;
        h_send(&h, &r, NULL, 0, 0);
        arm_srv_rep_t rep;
        int got = 0;
        /* Its reply may wait for a completion: release them until it comes. */
        for (int tries = 0; !got && tries < 8; tries++) {
            while (!got && h_reply(&h, NULL, &rep, NULL)) {
                if (rep.req_id != r.req_id)
                    continue;
                got = 1;
                refusals += rep.status != ARM_OK;
            }
            if (!got) {
                waited++;
                srv_fake_complete(&h.f, 1);
            }
        }
        answered += got;
        /* Completions trail the replies by 0-3 sends. */
        size_t pending = h.f.nsent - h.f.ndone;
        size_t keep = (size_t)unit_range(0, 3);
        if (pending > keep)
            srv_fake_complete(&h.f, pending - keep);
    }
    CHECK(answered == 2000 && refusals == 0,
          "2000 blocking requests with late completions: %d answered, %d refused",
          answered, refusals);
    CHECK(waited > 0, "some waited for a completion to free a reply record (%d)", waited);
    long v;
    memcpy(&v, h.mem + 64, sizeof v);
    CHECK(v == 667, "every fetch-and-add applied once (%ld)", v);
    srv_fake_complete(&h.f, (size_t)-1);
    CHECK(h.s->clients[1]->slots[4].state == SLOT_FREE && !h.s->clients[1]->sync_rec[0].busy &&
          !h.s->clients[1]->sync_rec[1].busy, "sync slot and its records free at the end");
    h_fini(&h);
    unit_section("sync requests back to back while reply completions lag");
}

/* ---- waiting work without a scan over every rank ---------------------------------- */
static void test_waiting_scale(void)
{
    harness_t h;
    h_init(&h, H_MAXPROC, 2, 1024, MEM);
    arm_shm_mutex_t *mx = (arm_shm_mutex_t *)(void *)(h.mem + 256);
    arm_shm_mutex_trylock(mx);
    arm_srv_req_t r = h_sync(&h, 40, ARM_SRV_LOCK, h_addr(&h, 256), 0);
    h_send(&h, &r, NULL, 0, 0);
    int len = 0;
    for (srv_client_t *c = h.s->blocked; c; c = c->bnext)
        len++;
    CHECK(h.s->nblocked == 1 && len == 1 && h.s->blocked->rank == 40,
          "one of %d clients waits: the retry list holds exactly it", H_MAXPROC);
    for (int i = 0; i < 100; i++)
        srv_progress(h.s);
    CHECK(h.f.nsent == 0 && h.s->nblocked == 1, "retried, still waiting");
    arm_shm_mutex_unlock(mx);
    srv_progress(h.s);
    CHECK(h.f.nsent == 1 && h.s->nblocked == 0 && !h.s->blocked && !h.s->blocked_tail,
          "granted, list empty");
    h_fini(&h);
    unit_section("the waiting list holds only what waits");
}

int main(void)
{
    printf("unit.server_flow: credits, refusals, the sync slot, waiting clients\n");
    test_credits();
    test_failed_sends();
    test_refusals();
    test_big_segwrite();
    test_packed_getseg();
    test_sync_race();
    test_waiting_scale();
    return unit_finish("unit.server_flow");
}
