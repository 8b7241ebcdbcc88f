/* unit.server: every handler of the communication server, driven through
 * the in-process fake transport (no MPI, no UCX): accumulate of every type
 * (whole, segmented and batched), strided and vector put, get and
 * accumulate, batches, the six read-modify-writes, the lock queue, fence
 * ordering, large deferred puts and kept accumulates, and REG/UNREG of a
 * real shared-memory segment. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <unistd.h>
#include "srv_harness.h"
#include "shm/arm_shm_seg.h"
#include "util/arm_acc.h"

#define SLOT 16384
#define MEM (1u << 20)

/* ---- accumulate reference ------------------------------------------------------- */
static int ncomp(int type)
{
    return type == ARM_ACC_CPL || type == ARM_ACC_DCP ? 2 : 1;
}

static void put_comp(int type, void *base, size_t k, double v)
{
    switch (type) {
    case ARM_ACC_INT: ((int *)base)[k] = (int)v; break;
    case ARM_ACC_LNG: ((long *)base)[k] = (long)v; break;
    case ARM_ACC_FLT: case ARM_ACC_CPL: ((float *)base)[k] = (float)v; break;
    default: ((double *)base)[k] = v; break;
    }
}

static double get_comp(int type, const void *base, size_t k)
{
    switch (type) {
    case ARM_ACC_INT: return ((const int *)base)[k];
    case ARM_ACC_LNG: return (double)((const long *)base)[k];
    case ARM_ACC_FLT: case ARM_ACC_CPL: return ((const float *)base)[k];
    default: return ((const double *)base)[k];
    }
}

/* The scale as the request carries it: raw bytes of the element type. */
static void set_scale(int type, double scale[2], double re, double im)
{
    char raw[16];
    memset(raw, 0, sizeof raw);
    put_comp(type, raw, 0, re);
    if (ncomp(type) == 2)
        put_comp(type, raw, 1, im);
    memcpy(scale, raw, sizeof raw);
}

/* dst (n elements) gets known values; src the operand; want the result. */
static void acc_case(int type, size_t n, char *dst, char *src, double *want, double re,
                     double im)
{
    size_t nc = n * (size_t)ncomp(type);
    for (size_t k = 0; k < nc; k++) {
        put_comp(type, dst, k, (double)(k % 7) + 1);
        put_comp(type, src, k, 2.0 * (double)(k % 5) - 3);
    }
    for (size_t k = 0; k < nc; k++) {
        double d = get_comp(type, dst, k), x = get_comp(type, src, k);
        if (ncomp(type) == 1) {
            want[k] = d + re * x;
        } else {
            double xr = get_comp(type, src, k & ~(size_t)1), xi = get_comp(type, src, k | 1);
            want[k] = d + ((k & 1) ? re * xi + im * xr : re * xr - im * xi);
        }
    }
}

static int acc_matches(int type, const char *dst, const double *want, size_t n)
{
    for (size_t k = 0; k < n * (size_t)ncomp(type); k++)
        if (get_comp(type, dst, k) != want[k])
            return 0;
    return 1;
}

static void test_acc_types(void)
{
    static const char *names[] = { "INT", "LNG", "FLT", "DBL", "CPL", "DCP" };
    for (int type = 0; type < ARM_ACC_NTYPES; type++) {
        harness_t h;
        h_init(&h, 4, 4, SLOT, MEM);
        size_t n = 37, es = arm_acc_elem_size(type), bytes = n * es;
        char src[37 * 16];
        double want[74];
        /* Whole: one ACC. */
        acc_case(type, n, h.mem, src, want, 3, -2);
        arm_srv_req_t r = h_req(&h, 2, ARM_SRV_ACC, h_addr(&h, 0), (uint32_t)bytes);
        r.sub = (uint8_t)type;
        set_scale(type, r.scale, 3, -2);
        CHECK(h_send(&h, &r, src, bytes, 0) == ARM_OK, "%s", names[type]);
        CHECK(acc_matches(type, h.mem, want, n), "ACC %s", names[type]);
        /* Segmented: the same in two pieces at 4096 and 8192. */
        char *d2 = h.mem + 4096, *d3 = h.mem + 8192;
        double want2[74];
        acc_case(type, n, d2, src, want2, 3, -2);
        memcpy(d3, d2, bytes);
        size_t cut = (n / 2) * es;
        arm_srv_seg_t tab[2] = { { h_addr(&h, 4096), cut }, { h_addr(&h, 8192) + cut,
                                                              bytes - cut } };
        char pay[64 + sizeof src];
        size_t plen = h_segpay(pay, tab, 2, src, bytes);
        r = h_req(&h, 3, ARM_SRV_ACCSEG, 0, 0);
        r.sub = (uint8_t)type;
        r.nseg = 2;
        set_scale(type, r.scale, 3, -2);
        h_send(&h, &r, pay, plen, 0);
        CHECK(acc_matches(type, d2, want2, n / 2), "ACCSEG %s first piece", names[type]);
        double *w3 = want2 + (n / 2) * (size_t)ncomp(type);
        CHECK(acc_matches(type, d3 + cut, w3, n - n / 2), "ACCSEG %s second piece",
              names[type]);
        /* Batched: one entry, with a fence riding along. */
        char *d4 = h.mem + 16384;
        acc_case(type, n, d4, src, want, 3, -2);
        arm_srv_batch_ent_t e;
        memset(&e, 0, sizeof e);
        e.op = ARM_SRV_ACC;
        e.type = (uint8_t)type;
        e.target = 1;
        e.len = (uint32_t)bytes;
        e.raddr = h_addr(&h, 16384);
        set_scale(type, e.scale, 3, -2);
        memcpy(pay, &e, sizeof e);
        memcpy(pay + sizeof e, src, bytes);
        r = h_req(&h, 1, ARM_SRV_BATCH, 0, 0);
        r.nseg = 1;
        r.sub = 1;
        r.req_id &= ~ARM_SRV_REQ_NOREPLY;
        h_send(&h, &r, pay, sizeof e + ((bytes + 7) & ~(size_t)7), 0);
        arm_srv_rep_t rep;
        CHECK(h_answer(&h, r.req_id, &rep, NULL) && rep.status == ARM_OK,
              "BATCH %s answered", names[type]);
        CHECK(acc_matches(type, d4, want, n), "BATCH ACC %s", names[type]);
        CHECK(h.locks[1].state == 0 && h.locks[2].state == 0 && h.locks[3].state == 0,
              "accumulate locks released");
        h_fini(&h);
    }
    unit_section("accumulate of all six types: ACC, ACCSEG, BATCH");
}

/* ---- strided and vector ---------------------------------------------------------- */
static void test_segments(void)
{
    harness_t h;
    h_init(&h, 4, 4, SLOT, MEM);
    /* A strided put: 5 rows of 24 bytes, 100 bytes apart; then a vector put
     * of three pieces of different lengths. */
    arm_srv_seg_t tab[8];
    char pay[4096], want[4096];
    size_t off = 0;
    for (int i = 0; i < 5; i++)
        tab[i] = (arm_srv_seg_t){ h_addr(&h, 1000 + 100 * (size_t)i), 24 };
    tab[5] = (arm_srv_seg_t){ h_addr(&h, 3000), 7 };
    tab[6] = (arm_srv_seg_t){ h_addr(&h, 2000), 300 };
    tab[7] = (arm_srv_seg_t){ h_addr(&h, 5000), 1 };
    memcpy(pay, tab, sizeof tab);
    off = sizeof tab;
    for (int i = 0; i < 8; i++)
        for (size_t b = 0; b < tab[i].len; b++)
            pay[off++] = (char)(i * 31 + (int)b);
    arm_srv_req_t r = h_req(&h, 1, ARM_SRV_PUTSEG, 0, 0);
    r.nseg = 8;
    h_send(&h, &r, pay, off, 0);
    int ok = 1;
    for (int i = 0; i < 8; i++)
        for (size_t b = 0; b < tab[i].len; b++)
            ok &= h.mem[tab[i].raddr - h_addr(&h, 0) + b] == (char)(i * 31 + (int)b);
    CHECK(ok, "PUTSEG unpacked every segment");
    CHECK(h.mem[1024] == 0 && h.mem[999] == 0 && h.mem[3007] == 0, "nothing around them");
    /* GETSEG of the same table: the reply is the packed data. */
    r = h_req(&h, 2, ARM_SRV_GETSEG, 0, 0);
    r.nseg = 8;
    h_send(&h, &r, tab, sizeof tab, 0);
    arm_srv_rep_t rep;
    const char *data;
    CHECK(h_answer(&h, r.req_id, &rep, &data), "GETSEG answered");
    memcpy(want, pay + sizeof tab, off - sizeof tab);
    CHECK(rep.status == ARM_OK && rep.len == off - sizeof tab &&
          memcmp(data, want, rep.len) == 0, "GETSEG packed %u bytes in order", rep.len);
    /* A table whose data does not add up is refused, nothing written. */
    h.mem[1000] = 0;
    r = h_req(&h, 1, ARM_SRV_PUTSEG, 0, 0);
    r.nseg = 8;
    h_send(&h, &r, pay, off - 1, 0);
    CHECK(h_answer(&h, r.req_id, &rep, &data) && rep.status == ARM_ERR_INVALID_ARG &&
          strstr(data, "bytes of data"), "short PUTSEG refused: %s", data);
    CHECK(h.mem[1000] == 0, "refused PUTSEG wrote nothing");
    h_fini(&h);
    unit_section("strided and vector PUTSEG, GETSEG");
}

/* Runs in a segment table (decision 077): a run entry and its stride and
 * count stand for count pieces; mixed with plain entries, for puts, gets
 * (both reply forms) and accumulates; malformed runs are refused. */
static void test_seg_runs(void)
{
    harness_t h;
    h_init(&h, 4, 4, SLOT, MEM);
    arm_srv_seg_t tab[4] = {
        { h_addr(&h, 3000), 7 },
        { h_addr(&h, 1000), 8 | ARM_SRV_SEG_RUN }, { 24, 10 },   /* 10 x 8 B, 24 apart */
        { h_addr(&h, 5000), 5 },
    };
    size_t bytes = 7 + 80 + 5;
    char pay[sizeof tab + 128], want[128];
    memcpy(pay, tab, sizeof tab);
    for (size_t b = 0; b < bytes; b++)
        pay[sizeof tab + b] = want[b] = (char)(b * 7 + 1);
    arm_srv_req_t r = h_req(&h, 1, ARM_SRV_PUTSEG, 0, 0);
    r.nseg = 4;
    h_send(&h, &r, pay, sizeof tab + bytes, 0);
    int ok = memcmp(h.mem + 3000, want, 7) == 0 && memcmp(h.mem + 5000, want + 87, 5) == 0;
    for (int k = 0; k < 10; k++)
        ok &= memcmp(h.mem + 1000 + 24 * k, want + 7 + 8 * k, 8) == 0 &&
              h.mem[1000 + 24 * k + 8] == 0 && h.mem[1000 + 24 * k + 23] == 0;
    CHECK(ok, "PUTSEG with a run wrote its 10 pieces and nothing between them");
    /* The same table read back: by gather list, then packed by the handler. */
    for (int pack = 0; pack < 2; pack++) {
        h.s->p.reply_pack_below = pack ? 8192 : 0;
        r = h_req(&h, 2, ARM_SRV_GETSEG, 0, 0);
        r.nseg = 4;
        h_send(&h, &r, tab, sizeof tab, 0);
        arm_srv_rep_t rep;
        const char *data = NULL;
        CHECK(h_answer(&h, r.req_id, &rep, &data) && rep.status == ARM_OK &&
              rep.len == bytes && memcmp(data, want, bytes) == 0,
              "GETSEG with a run answered its %zu bytes in order (%s)", bytes,
              pack ? "packed" : "gather list");
    }
    /* An accumulate of longs through a run: 4 pieces of 2 longs, 64 B apart. */
    long *acc = (long *)(void *)(h.mem + 8192);
    arm_srv_seg_t atab[2] = { { h_addr(&h, 8192), 16 | ARM_SRV_SEG_RUN }, { 64, 4 } };
    long src[8], two = 2;
    for (int i = 0; i < 8; i++) {
        src[i] = i + 1;
        acc[(i / 2) * 8 + i % 2] = 100;
    }
    char apay[64 + sizeof src];
    size_t alen = h_segpay(apay, atab, 2, src, sizeof src);
    r = h_req(&h, 3, ARM_SRV_ACCSEG, 0, 0);
    r.sub = ARM_ACC_LNG;
    r.nseg = 2;
    memcpy(r.scale, &two, sizeof two);
    h_send(&h, &r, apay, alen, 0);
    ok = 1;
    for (int i = 0; i < 8; i++)
        ok &= acc[(i / 2) * 8 + i % 2] == 100 + 2 * (i + 1);
    CHECK(ok && acc[2] == 0 && acc[7] == 0, "ACCSEG with a run added 2 x src into 4 pieces");
    /* Malformed runs: each refused, with its reason; nothing written. */
    struct { arm_srv_seg_t t[2]; unsigned n; const char *why; } badrun[] = {
        { { { h_addr(&h, 0), 8 | ARM_SRV_SEG_RUN }, { 0, 0 } }, 1, "lacks its stride" },
        { { { h_addr(&h, 0), 8 | ARM_SRV_SEG_RUN }, { 16, 1 } }, 2, "malformed" },
        { { { h_addr(&h, 0), 8 | ARM_SRV_SEG_RUN }, { 0, 4 } }, 2, "malformed" },
        { { { h_addr(&h, 0), 0 | ARM_SRV_SEG_RUN }, { 16, 4 } }, 2, "malformed" },
        { { { h_addr(&h, 0), 8 | ARM_SRV_SEG_RUN }, { UINT64_C(1) << 62, 8 } }, 2, "malformed" },
        { { { h_addr(&h, 0), 8 | ARM_SRV_SEG_RUN }, { 4096, 1000 } }, 2, "outside every" },
    };
    for (size_t i = 0; i < sizeof badrun / sizeof *badrun; i++) {
        r = h_req(&h, 2, ARM_SRV_GETSEG, 0, 0);
        r.nseg = (uint16_t)badrun[i].n;
        h_send(&h, &r, badrun[i].t, badrun[i].n * sizeof(arm_srv_seg_t), 0);
        arm_srv_rep_t rep;
        const char *data = NULL;
        CHECK(h_answer(&h, r.req_id, &rep, &data) && rep.status == ARM_ERR_INVALID_ARG &&
              strstr(data, badrun[i].why), "malformed run %zu refused: %s", i, data);
    }
    char zeros[8000];
    memset(zeros, 0x5a, sizeof zeros);
    char *bpay = malloc(64 + sizeof zeros);
    size_t blen = h_segpay(bpay, badrun[5].t, 2, zeros, sizeof zeros);
    h.mem[0] = 0;
    r = h_req(&h, 1, ARM_SRV_PUTSEG, 0, 0);
    r.nseg = 2;
    h_send(&h, &r, bpay, blen, 0);
    arm_srv_rep_t rep;
    const char *data = NULL;
    CHECK(h_answer(&h, r.req_id, &rep, &data) && rep.status == ARM_ERR_INVALID_ARG &&
          strstr(data, "outside every") && h.mem[0] == 0,
          "PUTSEG with a run past the segment refused, nothing written: %s", data);
    free(bpay);
    h_fini(&h);
    unit_section("segment tables with runs: PUTSEG, GETSEG, ACCSEG, malformed");
}

/* ---- batch ------------------------------------------------------------------------ */
static void test_batch(void)
{
    harness_t h;
    h_init(&h, 4, 4, SLOT, MEM);
    char pay[1024];
    size_t off = 0;
    long one = 1;
    for (int i = 0; i < 6; i++) {
        arm_srv_batch_ent_t e;
        memset(&e, 0, sizeof e);
        e.op = (i & 1) ? ARM_SRV_ACC : ARM_SRV_PUT;
        e.type = ARM_ACC_LNG;
        e.target = 2;
        e.len = (i & 1) ? 8 : (uint32_t)(3 + i);
        e.raddr = h_addr(&h, 512 + 64 * (size_t)i);
        memcpy(e.scale, &one, sizeof one);
        memcpy(pay + off, &e, sizeof e);
        off += sizeof e;
        long v = 40 + i;
        if (i & 1)
            memcpy(pay + off, &v, 8);
        else
            memset(pay + off, 'a' + i, e.len);
        off += (e.len + 7) & ~(size_t)7;
    }
    long base = 100;
    for (int i = 1; i < 6; i += 2)
        memcpy(h.mem + 512 + 64 * i, &base, 8);
    arm_srv_req_t r = h_req(&h, 3, ARM_SRV_BATCH, 0, 0);
    r.nseg = 6;
    h_send(&h, &r, pay, off, 0);
    CHECK(h.f.nsent == 0, "a batch without a fence is not answered");
    int ok = 1;
    for (int i = 0; i < 6; i++) {
        const char *p = h.mem + 512 + 64 * i;
        if (i & 1) {
            long v;
            memcpy(&v, p, 8);
            ok &= v == 140 + i;
        } else {
            for (int b = 0; b < 3 + i; b++)
                ok &= p[b] == 'a' + i;
            ok &= p[3 + i] == 0;
        }
    }
    CHECK(ok, "batch of 3 puts and 3 accumulates applied");
    /* An entry past the payload: refused, even without a fence. */
    r = h_req(&h, 3, ARM_SRV_BATCH, 0, 0);
    r.nseg = 7;
    h_send(&h, &r, pay, off, 0);
    arm_srv_rep_t rep;
    const char *why;
    CHECK(h_answer(&h, r.req_id, &rep, &why) && rep.status == ARM_ERR_INVALID_ARG &&
          strstr(why, "batch entry 6"), "truncated batch refused: %s", why);
    h_fini(&h);
    unit_section("BATCH of puts and accumulates, truncated batch");
}

/* ---- read-modify-write ------------------------------------------------------------ */
static void test_rmw(void)
{
    harness_t h;
    h_init(&h, 4, 4, SLOT, MEM);
    int *i32 = (int *)(void *)(h.mem + 64);
    long *i64 = (long *)(void *)(h.mem + 128);
    struct { int sub; int64_t operand, compare, old, after; } c[] = {
        { ARM_SRV_FADD32, 5, 0, 10, 15 },   { ARM_SRV_FADD64, -7, 0, 1L << 40, (1L << 40) - 7 },
        { ARM_SRV_SWAP32, 99, 0, 3, 99 },   { ARM_SRV_SWAP64, 1L << 33, 0, 8, 1L << 33 },
        { ARM_SRV_CAS32, 42, 6, 6, 42 },    { ARM_SRV_CAS32, 42, 6, 7, 7 },
        { ARM_SRV_CAS64, 1L << 35, 9, 9, 1L << 35 }, { ARM_SRV_CAS64, 1, 9, 10, 10 },
    };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        int wide = c[k].sub & 1;
        if (wide)
            *i64 = (long)c[k].old;
        else
            *i32 = (int)c[k].old;
        arm_srv_req_t r = h_sync(&h, 1, ARM_SRV_RMW, h_addr(&h, wide ? 128 : 64), 0);
        r.sub = (uint8_t)c[k].sub;
        r.operand = c[k].operand;
        r.compare = c[k].compare;
        h_send(&h, &r, NULL, 0, 0);
        arm_srv_rep_t rep;
        CHECK(h_answer(&h, r.req_id, &rep, NULL), "rmw %d answered", c[k].sub);
        CHECK(rep.status == ARM_OK && rep.value == c[k].old, "rmw %d returned %lld",
              c[k].sub, (long long)rep.value);
        CHECK((wide ? *i64 : *i32) == c[k].after, "rmw %d left %lld", c[k].sub,
              (long long)(wide ? *i64 : *i32));
    }
    h_fini(&h);
    unit_section("read-modify-write: fetch-add, swap, compare-and-swap (32, 64)");
}

/* ---- the lock queue and fence ordering ------------------------------------------- */
static int answered(harness_t *h, uint64_t id, int64_t *value)
{
    for (size_t i = 0; i < h->f.nsent; i++) {
        arm_srv_rep_t rep;
        memcpy(&rep, h->f.sent[i].hdr, sizeof rep);
        if (rep.req_id == id) {
            if (value)
                *value = rep.value;
            return rep.status == ARM_OK ? 1 : -1;
        }
    }
    return 0;
}

static void test_locks(void)
{
    harness_t h;
    h_init(&h, 8, 4, SLOT, MEM);
    uint64_t m = h_addr(&h, 256);
    arm_shm_mutex_t *mx = (arm_shm_mutex_t *)(void *)(h.mem + 256);
    arm_srv_req_t l1 = h_sync(&h, 1, ARM_SRV_LOCK, m, 0);
    h_send(&h, &l1, NULL, 0, 0);
    CHECK(answered(&h, l1.req_id, NULL) == 1, "free lock granted at once");
    arm_srv_req_t l2 = h_sync(&h, 2, ARM_SRV_LOCK, m, 0);
    arm_srv_req_t l3 = h_sync(&h, 3, ARM_SRV_LOCK, m, 0);
    h_send(&h, &l2, NULL, 0, 0);
    h_send(&h, &l3, NULL, 0, 0);
    /* Behind client 2's waiting lock, its put waits too (in order). */
    arm_srv_req_t p2 = h_req(&h, 2, ARM_SRV_PUT, h_addr(&h, 300), 4);
    h_send(&h, &p2, "abcd", 4, 0);
    srv_progress(h.s);
    CHECK(!answered(&h, l2.req_id, NULL) && !answered(&h, l3.req_id, NULL),
          "held lock: both wait");
    CHECK(h.s->nblocked == 2 && h.s->blocked == h.s->clients[2] &&
          h.s->blocked->bnext == h.s->clients[3], "two waiting, in arrival order");
    CHECK(h.mem[300] == 0, "a put queued behind a waiting lock waits");
    arm_srv_req_t t4 = h_sync(&h, 4, ARM_SRV_TRYLOCK, m, 0);
    h_send(&h, &t4, NULL, 0, 0);
    int64_t v = -1;
    CHECK(answered(&h, t4.req_id, &v) == 1 && v == 0, "trylock of a held lock: 0");
    arm_srv_req_t u1 = h_req(&h, 1, ARM_SRV_UNLOCK, m, 0);
    h_send(&h, &u1, NULL, 0, 0);
    srv_progress(h.s);
    CHECK(answered(&h, l2.req_id, NULL) == 1 && !answered(&h, l3.req_id, NULL),
          "unlock: the first waiter is granted, the second still waits");
    CHECK(memcmp(h.mem + 300, "abcd", 4) == 0, "the put behind it is applied");
    CHECK(h.s->nblocked == 1 && h.s->blocked == h.s->clients[3], "one waiting");
    /* A same-node process releases it by a store: seen at the next retry. */
    arm_shm_mutex_unlock(mx);
    srv_progress(h.s);
    CHECK(answered(&h, l3.req_id, NULL) == 1 && h.s->nblocked == 0 && !h.s->blocked,
          "the second waiter granted, none waits");
    arm_srv_req_t t5 = h_sync(&h, 5, ARM_SRV_TRYLOCK, m, 0);
    h_send(&h, &t5, NULL, 0, 0);
    CHECK(answered(&h, t5.req_id, &v) == 1 && v == 0, "trylock still 0 (held by 3)");
    arm_srv_req_t u3 = h_req(&h, 3, ARM_SRV_UNLOCK, m, 0);
    h_send(&h, &u3, NULL, 0, 0);
    t5 = h_sync(&h, 5, ARM_SRV_TRYLOCK, m, 0);
    h_send(&h, &t5, NULL, 0, 0);
    CHECK(answered(&h, t5.req_id, &v) == 1 && v == 1, "trylock of a free lock: 1");
    CHECK(h.s->stats.lock_waits == 2, "two waits counted (%llu)",
          (unsigned long long)h.s->stats.lock_waits);
    h_fini(&h);
    unit_section("lock queue: wait, FIFO grant on unlock and on a store, trylock");
}

static void test_fence_order(void)
{
    harness_t h;
    h_init(&h, 4, 4, SLOT, MEM);
    h.f.hold_recvs = 1;
    /* A rendezvous put still receiving, then a fence: the fence is answered
     * only once the put's data is in place. */
    static char big[SLOT];
    memset(big, 'z', sizeof big);
    arm_srv_req_t p = h_req(&h, 1, ARM_SRV_PUT, h_addr(&h, 65536), SLOT);
    h_send(&h, &p, big, SLOT, 1);
    arm_srv_req_t f = h_sync(&h, 1, ARM_SRV_FENCE, 0, 0);
    h_send(&h, &f, NULL, 0, 0);
    CHECK(!answered(&h, f.req_id, NULL) && h.mem[65536] == 0, "fence waits for the put");
    srv_progress(h.s);
    CHECK(answered(&h, f.req_id, NULL) == 1, "fence answered after the put");
    CHECK(h.mem[65536] == 'z' && h.mem[65536 + SLOT - 1] == 'z', "put data in place");
    /* A large put (deferred, received straight into its destination) and a
     * large accumulate (kept in the transport's buffer) behind a waiting
     * lock: applied in order once the lock is granted. */
    uint64_t m = h_addr(&h, 256);
    arm_shm_mutex_t *mx = (arm_shm_mutex_t *)(void *)(h.mem + 256);
    CHECK(arm_shm_mutex_trylock(mx), "lock taken by a local process");
    arm_srv_req_t l = h_sync(&h, 2, ARM_SRV_LOCK, m, 0);
    h_send(&h, &l, NULL, 0, 0);
    static char huge[3 * SLOT];
    memset(huge, 'q', sizeof huge);
    arm_srv_req_t bp = h_req(&h, 2, ARM_SRV_PUT, h_addr(&h, 131072), sizeof huge);
    CHECK(h_send(&h, &bp, huge, sizeof huge, 1) == ARM_INPROGRESS, "big put deferred");
    static double ones[4 * SLOT / 8];
    for (size_t i = 0; i < sizeof ones / 8; i++)
        ones[i] = 1.5;
    arm_srv_req_t ba = h_req(&h, 2, ARM_SRV_ACC, h_addr(&h, 262144), sizeof ones);
    ba.sub = ARM_ACC_DBL;
    set_scale(ARM_ACC_DBL, ba.scale, 2, 0);
    CHECK(h_send(&h, &ba, ones, sizeof ones, 0) == ARM_INPROGRESS, "big acc kept");
    CHECK(srv_fake_kept(&h.f) == 2 && h.mem[131072] == 0, "both wait, buffers kept");
    arm_shm_mutex_unlock(mx);
    srv_progress(h.s);
    srv_progress(h.s);
    double d;
    memcpy(&d, h.mem + 262144 + sizeof ones - 8, 8);
    CHECK(answered(&h, l.req_id, NULL) == 1 && h.mem[131072 + sizeof huge - 1] == 'q' &&
          d == 3.0, "lock granted, then the put and the accumulate applied");
    CHECK(srv_fake_kept(&h.f) == 0 && h.f.bad_release == 0, "kept buffers released once");
    h_fini(&h);
    unit_section("fence after a receiving put; big put and acc behind a lock");
}

/* ---- REG and UNREG of a real shared-memory segment -------------------------------- */
static void test_reg(void)
{
    harness_t h;
    h_init(&h, 4, 4, SLOT, MEM);
    char name[ARM_SHM_NAME_MAX];
    arm_shm_make_name(name, sizeof name, 0x5e77e5ull, (int)getpid(), 1);
    arm_shm_seg_t seg;
    size_t len = 1 << 16;
    CHECK(arm_shm_create(name, len, &seg) == ARM_OK, "segment %s created", name);
    arm_srv_req_t r = h_req(&h, 1, ARM_SRV_REG, 0, 0);
    r.operand = (int64_t)len;
    h_send(&h, &r, name, strlen(name), 0);
    arm_srv_rep_t rep;
    const char *key;
    CHECK(h_answer(&h, r.req_id, &rep, &key) && rep.status == ARM_OK, "REG answered");
    CHECK(strncmp(key, "fake-rkey", 9) == 0 && h.f.nreg == 2, "remote key packed: %s", key);
    uint64_t base = (uint64_t)rep.value;
    arm_srv_req_t p = h_req(&h, 1, ARM_SRV_PUT, base + 100, 5);
    h_send(&h, &p, "hello", 5, 0);
    CHECK(memcmp((char *)seg.base + 100, "hello", 5) == 0,
          "a put through the server's mapping lands in the segment");
    r = h_req(&h, 1, ARM_SRV_UNREG, base, 0);
    h_send(&h, &r, NULL, 0, 0);
    CHECK(h_answer(&h, r.req_id, &rep, NULL) && rep.status == ARM_OK && h.f.nreg == 1,
          "UNREG answered, deregistered");
    p = h_req(&h, 1, ARM_SRV_PUT, base + 100, 5);
    h_send(&h, &p, "HELLO", 5, 0);
    const char *why;
    CHECK(h_answer(&h, p.req_id, &rep, &why) && rep.status == ARM_ERR_INVALID_ARG &&
          strstr(why, "outside every registered segment"), "put after UNREG refused");
    r = h_req(&h, 1, ARM_SRV_REG, 0, 0);
    r.operand = (int64_t)len;
    h_send(&h, &r, "/armada-no-such-segment", 23, 0);
    CHECK(h_answer(&h, r.req_id, &rep, &why) && rep.status == ARM_ERR_SYSTEM &&
          strstr(why, "armada-no-such-segment"), "REG of a missing segment refused: %s",
          why);
    arm_shm_unlink(name);
    arm_shm_detach(&seg);
    h_fini(&h);
    unit_section("REG and UNREG of a shared-memory segment");
}

int main(void)
{
    printf("unit.server: handlers through the fake transport\n");
    test_acc_types();
    test_segments();
    test_seg_runs();
    test_batch();
    test_rmw();
    test_locks();
    test_fence_order();
    test_reg();
    return unit_finish("unit.server");
}
