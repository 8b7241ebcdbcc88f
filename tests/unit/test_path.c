/* unit.path: the one choice of inter-node path (core/arm_path.h), with no
 * MPI and no UCX: the limits derived from the slot size, the choice for
 * each kind of node (native RMA, zero-copy, stream, none) against the
 * rules of decisions 009, 012, 013 and 017, the forcing settings, and
 * properties over every family, size, capability set and node state. */
#include <stdio.h>
#include <string.h>
#include "core/arm_path.h"
#include "util/arm_config.h"
#include "unit.h"

#define ENT 40   /* sizeof(arm_srv_batch_ent_t) */

enum {
    NATIVE = ARM_PATH_CAP_RMA_NATIVE | ARM_PATH_CAP_AMO_NATIVE | ARM_PATH_CAP_RMA_ZCOPY,
    CMA = ARM_PATH_CAP_RMA_ZCOPY,
    TCP = ARM_PATH_CAP_STREAM,
    NB = ARM_PATH_CAP_NB,
    NONE = 0
};

static arm_path_settings_t S;

static void defaults(size_t slot)
{
    char err[256];
    arm_config_load(0, NULL, err, sizeof err);
    arm_config.slot_size = (long)slot;
    arm_path_settings_init(&S, slot, ENT);
}

static arm_proto_t pick(arm_path_family_t f, size_t n, unsigned caps, int dirty)
{
    return arm_path_choose(f, n, caps, dirty, &S).proto;
}

#define EXPECT(f, n, caps, dirty, want)                                               \
    do {                                                                              \
        arm_proto_t got_ = pick(f, n, caps, dirty);                                   \
        CHECK(got_ == (want), "family %d, %zu bytes, caps %#x, dirty %d: %s, want %s", \
              (int)(f), (size_t)(n), (unsigned)(caps), dirty, arm_proto_name(got_),    \
              arm_proto_name(want));                                                  \
    } while (0)

static void test_limits(void)
{
    for (size_t slot = 1024; slot <= 1024 * 1024; slot *= 2) {
        defaults(slot);
        CHECK(S.copy_put_max <= slot, "slot %zu: copy-put %zu", slot, S.copy_put_max);
        CHECK(ENT + ((S.batch_max_op + 7) & ~(size_t)7) <= slot,
              "slot %zu: a batch entry of %zu bytes does not fit", slot, S.batch_max_op);
        CHECK(S.batch_max_op > 0, "slot %zu: nothing can be aggregated", slot);
    }
    defaults(16384);
    CHECK(S.batch_max_op == 2048 && S.copy_put_max == 4096 && S.clean_get_max == 4096 &&
          S.zcopy_min == 65536 && S.eager_write_max == 262144,
          "16k defaults: batch %zu copy %zu clean %zu zcopy %zu eager %zu", S.batch_max_op,
          S.copy_put_max, S.clean_get_max, S.zcopy_min, S.eager_write_max);
    defaults(1024);
    CHECK(S.batch_max_op == 984 && S.copy_put_max == 1024, "1k: batch %zu copy %zu",
          S.batch_max_op, S.copy_put_max);
    defaults(2048);
    CHECK(S.batch_max_op == 2008 && S.copy_put_max == 2048, "2k: batch %zu copy %zu",
          S.batch_max_op, S.copy_put_max);
    unit_section("limits derive from the slot size (every size from 1k)");
}

static void test_nodes(void)
{
    defaults(16384);
    /* Native RMA: put and get by RMA whatever the state; NIC atomics are
     * not atomic with same-node CPU atomics: rmw at the server. */
    EXPECT(ARM_FAM_PUT, 8, NATIVE, 1, ARM_PROTO_RMA);
    EXPECT(ARM_FAM_GET, 1 << 20, NATIVE, 1, ARM_PROTO_RMA);
    EXPECT(ARM_FAM_RMW, 8, NATIVE, 0, ARM_PROTO_SERVER);
    EXPECT(ARM_FAM_ACC, 8, NATIVE, 0, ARM_PROTO_BATCH);
    /* Zero-copy (cma), emulated small RMA (decisions 009 and 017). */
    EXPECT(ARM_FAM_PUT, 8, CMA, 0, ARM_PROTO_BATCH);
    EXPECT(ARM_FAM_PUT, 2048, CMA, 0, ARM_PROTO_BATCH);
    EXPECT(ARM_FAM_PUT, 2049, CMA, 0, ARM_PROTO_RMA);
    EXPECT(ARM_FAM_PUT, 4096, CMA, 1, ARM_PROTO_COPY);
    EXPECT(ARM_FAM_PUT, 65535, CMA, 1, ARM_PROTO_WHOLE);
    EXPECT(ARM_FAM_PUT, 65536, CMA, 1, ARM_PROTO_RMA);
    EXPECT(ARM_FAM_GET, 8, CMA, 0, ARM_PROTO_RMA);
    EXPECT(ARM_FAM_GET, 8, CMA, 1, ARM_PROTO_SERVER);
    EXPECT(ARM_FAM_GET, 8192, CMA, 1, ARM_PROTO_SERVER);
    EXPECT(ARM_FAM_GET, 65536, CMA, 1, ARM_PROTO_RMA);
    EXPECT(ARM_FAM_RMW, 8, CMA, 0, ARM_PROTO_RMA);
    EXPECT(ARM_FAM_RMW, 8, CMA, 1, ARM_PROTO_SERVER);
    EXPECT(ARM_FAM_ACC, 65536, CMA, 0, ARM_PROTO_SEG);
    /* Stream (TCP): eager writes to 256 KiB, accumulate one eager request. */
    EXPECT(ARM_FAM_PUT, 3000, TCP, 0, ARM_PROTO_COPY);
    EXPECT(ARM_FAM_PUT, 3000, TCP | NB, 0, ARM_PROTO_BATCH);
    EXPECT(ARM_FAM_PUT, 4096, TCP | NB, 1, ARM_PROTO_BATCH);
    EXPECT(ARM_FAM_PUT, 4097, TCP | NB, 0, ARM_PROTO_WHOLE);
    EXPECT(ARM_FAM_ACC, 4096, TCP | NB, 0, ARM_PROTO_BATCH);
    EXPECT(ARM_FAM_ACC, 4096, TCP, 0, ARM_PROTO_COPY);
    EXPECT(ARM_FAM_PUT, 3000, TCP | NB | ARM_PATH_CAP_FORWARDED, 0, ARM_PROTO_COPY);
    EXPECT(ARM_FAM_PUT, 3000, CMA | NB, 0, ARM_PROTO_RMA);
    EXPECT(ARM_FAM_GET, 4096, TCP, 0, ARM_PROTO_RMA);
    EXPECT(ARM_FAM_GET, 4097, TCP, 0, ARM_PROTO_SERVER);
    EXPECT(ARM_FAM_GET, 1 << 20, TCP, 0, ARM_PROTO_SERVER);
    EXPECT(ARM_FAM_ACC, 8192, TCP, 0, ARM_PROTO_COPY);
    EXPECT(ARM_FAM_ACC, 100000, TCP, 0, ARM_PROTO_WHOLE);
    EXPECT(ARM_FAM_ACC, 300000, TCP, 0, ARM_PROTO_SEG);
    EXPECT(ARM_FAM_ACC, 100000, NONE, 0, ARM_PROTO_SEG);
    arm_path_t p = arm_path_choose(ARM_FAM_PUT, 10000, TCP, 0, &S);
    CHECK(p.proto == ARM_PROTO_WHOLE && p.am_flags == 0, "put 10000: %s flags %u",
          arm_proto_name(p.proto), p.am_flags);
    p = arm_path_choose(ARM_FAM_PUT, 100000, TCP, 0, &S);
    CHECK(p.am_flags == ARM_PATH_AM_EAGER, "put 100000: flags %u", p.am_flags);
    p = arm_path_choose(ARM_FAM_PUT, 1 << 20, TCP, 0, &S);
    CHECK(p.am_flags == ARM_PATH_AM_RNDV, "put 1 MiB: flags %u", p.am_flags);
    p = arm_path_choose(ARM_FAM_ACC, 100000, TCP, 0, &S);
    CHECK(p.am_flags == ARM_PATH_AM_EAGER, "acc 100000: flags %u", p.am_flags);
    /* Families that always go to the server. */
    for (unsigned caps = 0; caps < 16; caps++) {
        EXPECT(ARM_FAM_STRIDED, 64, caps, 0, ARM_PROTO_SEG);
        EXPECT(ARM_FAM_VECTOR, 64, caps, 1, ARM_PROTO_SEG);
        EXPECT(ARM_FAM_LOCK, 0, caps, 0, ARM_PROTO_SERVER);
        EXPECT(ARM_FAM_FENCE, 0, caps, 1, ARM_PROTO_SERVER);
    }
    unit_section("choices for native, zero-copy, stream and plain nodes");
}

static void test_forced(void)
{
    defaults(16384);
    S.rma_mode = ARM_PATH_FORCE_SERVER;
    EXPECT(ARM_FAM_PUT, 65536, NATIVE, 0, ARM_PROTO_WHOLE);
    EXPECT(ARM_FAM_GET, 8, CMA, 0, ARM_PROTO_SERVER);
    S.rma_mode = ARM_PATH_FORCE_RMA;
    EXPECT(ARM_FAM_PUT, 8, NONE, 1, ARM_PROTO_RMA);
    EXPECT(ARM_FAM_GET, 8, TCP, 1, ARM_PROTO_RMA);
    S.amo_mode = ARM_PATH_FORCE_RMA;
    EXPECT(ARM_FAM_RMW, 8, NATIVE, 1, ARM_PROTO_RMA);
    S.amo_mode = ARM_PATH_FORCE_SERVER;
    EXPECT(ARM_FAM_RMW, 8, CMA, 0, ARM_PROTO_SERVER);
    defaults(16384);
    S.aggregate = 0;
    EXPECT(ARM_FAM_PUT, 8, TCP, 0, ARM_PROTO_COPY);
    EXPECT(ARM_FAM_ACC, 8, TCP, 0, ARM_PROTO_COPY);
    /* A setting changes the choice: a larger clean-get limit. */
    defaults(16384);
    S.clean_get_max = 8192;
    EXPECT(ARM_FAM_GET, 8192, TCP, 0, ARM_PROTO_RMA);
    unit_section("RMA_PATH, AMO_PATH, AGGREGATE and thresholds as settings");
    /* An allocation marked for transport atomics (decision 061) takes them
     * whatever the node, its state and AMO_PATH. */
    static const unsigned kinds[] = { NONE, TCP, CMA, NATIVE, TCP | ARM_PATH_CAP_FORWARDED };
    for (int mode = ARM_PATH_AUTO; mode <= ARM_PATH_FORCE_SERVER; mode++)
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
            for (int dirty = 0; dirty <= 1; dirty++) {
                defaults(16384);
                S.amo_mode = mode;
                EXPECT(ARM_FAM_RMW, 8, kinds[k] | ARM_PATH_CAP_ALLOC_AMO, dirty, ARM_PROTO_RMA);
            }
    unit_section("an allocation marked for transport atomics takes them");
}

/* Whatever the inputs, a copy fits a slot buffer, a batch entry fits a
 * slot, and accumulate, strided, vector, lock and fence never take RMA. */
static void test_properties(void)
{
    static const size_t slots[] = { 1024, 2048, 4096, 16384, 65536 };
    for (size_t si = 0; si < sizeof slots / sizeof slots[0]; si++) {
        defaults(slots[si]);
        for (int agg = 0; agg <= 1; agg++) {
            S.aggregate = agg;
            for (int f = 0; f < ARM_FAM_COUNT; f++)
                for (unsigned caps = 0; caps < 32; caps++)
                    for (int dirty = 0; dirty <= 1; dirty++)
                        for (size_t n = 1; n <= (size_t)4 << 20; n = n * 3 / 2 + 1) {
                            arm_path_t p = arm_path_choose((arm_path_family_t)f, n, caps,
                                                           dirty, &S);
                            CHECK(p.proto != ARM_PROTO_COPY || n <= S.slot_size,
                                  "copy of %zu bytes into a %zu slot", n, S.slot_size);
                            CHECK(p.proto != ARM_PROTO_BATCH || (agg && ENT + n <= S.slot_size),
                                  "batch entry of %zu bytes, slot %zu", n, S.slot_size);
                            CHECK(p.proto != ARM_PROTO_RMA || f == ARM_FAM_PUT ||
                                  f == ARM_FAM_GET || f == ARM_FAM_RMW,
                                  "family %d by RMA", f);
                            CHECK(p.proto != ARM_PROTO_WHOLE || f == ARM_FAM_PUT ||
                                  f == ARM_FAM_ACC, "family %d as one whole request", f);
                        }
        }
    }
    unit_section("properties over every family, size, capability and state");
}

/* A node reached through forwarding servers (issue 20): nothing bigger than
 * a slot goes as one request, and atomics go through the servers (where
 * they combine) unless forced to RMA; everything else as for a neighbour. */
static void test_forwarded(void)
{
    static const unsigned kinds[] = { NONE, TCP, CMA, NATIVE };
    for (size_t si = 0; si < 3; si++) {
        size_t slot = (size_t)1024 << (2 * si);
        defaults(slot);
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
            unsigned caps = kinds[k] | ARM_PATH_CAP_FORWARDED;
            for (int dirty = 0; dirty <= 1; dirty++)
                for (size_t n = 1; n <= (size_t)4 << 20; n = n * 3 / 2 + 1)
                    for (int f = 0; f < ARM_FAM_COUNT; f++) {
                        arm_path_t p = arm_path_choose((arm_path_family_t)f, n, caps, dirty, &S);
                        arm_path_t q = arm_path_choose((arm_path_family_t)f, n, kinds[k], dirty,
                                                       &S);
                        CHECK(p.proto != ARM_PROTO_WHOLE || n <= slot,
                              "family %d: %zu bytes whole to a forwarded node (slot %zu)", f, n,
                              slot);
                        CHECK(f != ARM_FAM_RMW || p.proto == ARM_PROTO_SERVER,
                              "atomic to a forwarded node by %s", arm_proto_name(p.proto));
                        CHECK(f == ARM_FAM_RMW || (q.proto == ARM_PROTO_WHOLE && n > slot) ||
                              (f == ARM_FAM_ACC && (q.proto == ARM_PROTO_WHOLE ||
                                                    q.proto == ARM_PROTO_ORIGIN)) ||
                              p.proto == q.proto,
                              "family %d, %zu bytes: %s forwarded, %s direct", f, n,
                              arm_proto_name(p.proto), arm_proto_name(q.proto));
                    }
        }
    }
    S.amo_mode = ARM_PATH_FORCE_RMA;
    EXPECT(ARM_FAM_RMW, 8, TCP | ARM_PATH_CAP_FORWARDED, 0, ARM_PROTO_RMA);
    defaults(16384);
    EXPECT(ARM_FAM_PUT, 65536, TCP | ARM_PATH_CAP_FORWARDED, 0, ARM_PROTO_SEG);
    EXPECT(ARM_FAM_ACC, 65536, TCP | ARM_PATH_CAP_FORWARDED, 0, ARM_PROTO_SEG);
    EXPECT(ARM_FAM_PUT, 8, TCP | ARM_PATH_CAP_FORWARDED, 0, ARM_PROTO_BATCH);
    unit_section("forwarded nodes: pieces of one slot at most, atomics through the servers");
}

/* Strided and vector chunks (decision 057) and the progress agent's share
 * (decision 056). */
static arm_proto_t chunks(int put, size_t chunk, size_t count, unsigned caps, int dirty)
{
    return arm_path_choose_chunks(ARM_FAM_STRIDED, put, 0, chunk, count, caps, dirty, &S).proto;
}

/* Packed requests beyond a slot over a stream (decision 072): the data
 * bytes one request of the chosen path carries (0: a slot's worth). */
static size_t seg_max_of(int put, int acc, size_t chunk, size_t count, unsigned caps)
{
    arm_path_t p = arm_path_choose_chunks(ARM_FAM_STRIDED, put, acc, chunk, count, caps, 0, &S);
    CHECK(p.proto == ARM_PROTO_SEG, "put %d acc %d, %zu x %zu, caps %#x: %s, want seg", put,
          acc, count, chunk, caps, arm_proto_name(p.proto));
    return p.seg_max;
}

static void test_seg_stream(void)
{
    const unsigned FWD = ARM_PATH_CAP_FORWARDED;
    defaults(16384);
    CHECK(S.seg_stream_max == 262144, "SEG_STREAM_MAX default %zu", S.seg_stream_max);
    for (int put = 0; put <= 1; put++)
        for (size_t chunk = 8; chunk <= (size_t)1 << 20; chunk *= 8) {
            CHECK(seg_max_of(put, 0, chunk, 64, TCP) == 262144, "stream, %zu B chunks", chunk);
            CHECK(seg_max_of(put, 0, chunk, 64, TCP | FWD) == 0, "forwarded: a slot");
            CHECK(seg_max_of(put, 0, chunk, 64, TCP | ARM_PATH_CAP_NO_DIRECT) == 0,
                  "no direct endpoint: a slot");
            CHECK(seg_max_of(put, 0, chunk, 64, NONE) == 0, "not a stream: a slot");
        }
    CHECK(seg_max_of(0, 1, 8, 64, TCP) == 262144, "strided accumulate over a stream");
    CHECK(seg_max_of(0, 1, 1 << 20, 64, NATIVE) == 0, "accumulate, native RMA: a slot");
    CHECK(seg_max_of(0, 1, 1 << 20, 64, CMA) == 0, "accumulate, cma: a slot");
    arm_path_t p = arm_path_choose(ARM_FAM_ACC, 300000, TCP, 0, &S);
    CHECK(p.proto == ARM_PROTO_SEG && p.seg_max == 262144, "contiguous 300 kB accumulate: "
          "%s of %zu", arm_proto_name(p.proto), p.seg_max);
    /* Batches: SEG_STREAM_MAX over a stream, puts and accumulates up to
     * COPY_PUT_MAX in them (decision 073); a slot's worth elsewhere. */
    CHECK(S.batch_stream_op == 4096, "batch_stream_op %zu", S.batch_stream_op);
    static const int fams[2] = { ARM_FAM_PUT, ARM_FAM_ACC };
    for (int i = 0; i < 2; i++) {
        int f = fams[i];
        p = arm_path_choose((arm_path_family_t)f, 4096, TCP | NB, 1, &S);
        CHECK(p.proto == ARM_PROTO_BATCH && p.seg_max == 262144, "family %d, 4 KiB over a "
              "stream: %s of %zu", f, arm_proto_name(p.proto), p.seg_max);
        p = arm_path_choose((arm_path_family_t)f, 8, TCP, 1, &S);
        CHECK(p.proto == ARM_PROTO_BATCH && p.seg_max == 262144, "family %d, 8 B blocking "
              "over a stream: %s of %zu", f, arm_proto_name(p.proto), p.seg_max);
        p = arm_path_choose((arm_path_family_t)f, 8, TCP | FWD, 1, &S);
        CHECK(p.proto == ARM_PROTO_BATCH && p.seg_max == 0, "family %d, 8 B forwarded: %s of "
              "%zu", f, arm_proto_name(p.proto), p.seg_max);
        p = arm_path_choose((arm_path_family_t)f, 8, NATIVE, 1, &S);
        CHECK(f == ARM_FAM_PUT || (p.proto == ARM_PROTO_BATCH && p.seg_max == 0),
              "family %d, 8 B native: %s of %zu", f, arm_proto_name(p.proto), p.seg_max);
    }
    arm_config.copy_put_max = 65536;
    arm_path_settings_init(&S, 2048, ENT);
    CHECK(S.batch_stream_op + ENT <= 2048 && S.batch_stream_op >= S.batch_max_op,
          "batch_stream_op %zu fits a 2 KiB slot's entry", S.batch_stream_op);
    defaults(16384);
    p = arm_path_choose(ARM_FAM_PUT, 65536, TCP | FWD, 0, &S);
    CHECK(p.proto == ARM_PROTO_SEG && p.seg_max == 0, "forwarded 64 KiB put: %s of %zu",
          arm_proto_name(p.proto), p.seg_max);
    /* Bounded by the eager limits, and off at a slot or below. */
    arm_config.reply_eager_max = 65536;
    arm_path_settings_init(&S, 16384, ENT);
    CHECK(seg_max_of(1, 0, 8, 64, TCP) == 65536, "bounded by REPLY_EAGER_MAX");
    defaults(16384);
    arm_config.seg_stream_max = 16384;
    arm_path_settings_init(&S, 16384, ENT);
    CHECK(seg_max_of(1, 0, 8, 64, TCP) == 0, "SEG_STREAM_MAX of one slot: off");
    defaults(16384);
    unit_section("packed requests over a stream carry SEG_STREAM_MAX (decision 072)");
}

static void test_chunks(void)
{
    defaults(16384);
    size_t min = S.strided_rma_min;
    CHECK(min == 8192, "STRIDED_RMA_MIN default %zu", min);
    CHECK(chunks(1, min, 64, CMA, 0) == ARM_PROTO_RMA, "cma put chunk of %zu", min);
    CHECK(chunks(1, min, 64, CMA, 1) == ARM_PROTO_RMA, "cma put, dirty node");
    CHECK(chunks(0, min, 64, CMA, 0) == ARM_PROTO_SEG, "cma get: packed");
    for (int put = 0; put <= 1; put++) {
        CHECK(chunks(put, min, 64, NATIVE, 0) == ARM_PROTO_RMA, "native");
        CHECK(chunks(put, min - 1, 64, NATIVE, 0) == ARM_PROTO_SEG, "below the minimum");
        CHECK(chunks(put, 1 << 20, 64, TCP, 0) == ARM_PROTO_SEG, "stream: packed");
        CHECK(chunks(put, 1 << 20, 64, NONE, 0) == ARM_PROTO_SEG, "no zero-copy: packed");
        CHECK(chunks(put, 1 << 20, 64, CMA | ARM_PATH_CAP_NO_DIRECT, 0) == ARM_PROTO_SEG,
              "no direct endpoint");
        /* one chunk: the contiguous rule */
        CHECK(chunks(put, 1 << 20, 1, CMA, 0) == pick(put ? ARM_FAM_PUT : ARM_FAM_GET, 1 << 20,
                                                       CMA, 0), "one chunk, contiguous");
    }
    S.rma_mode = ARM_PATH_FORCE_RMA;
    CHECK(chunks(1, min, 64, TCP, 0) == ARM_PROTO_RMA, "forced RMA over a stream");
    CHECK(chunks(0, min, 64, TCP, 0) == ARM_PROTO_RMA, "forced RMA get over a stream");
    CHECK(chunks(1, min - 1, 64, TCP, 0) == ARM_PROTO_SEG, "forced RMA, small chunks");
    S.rma_mode = ARM_PATH_FORCE_SERVER;
    CHECK(chunks(1, 1 << 20, 64, NATIVE, 0) == ARM_PROTO_SEG, "forced server");
    defaults(16384);
    CHECK(S.agent && S.agent_min == 16384, "agent %d from %zu", S.agent, S.agent_min);
    CHECK(arm_path_offload(ARM_FAM_STRIDED, 16384, &S), "16 KiB strided to the agent");
    CHECK(!arm_path_offload(ARM_FAM_PUT, 16383, &S), "smaller: issued by the call");
    CHECK(!arm_path_offload(ARM_FAM_RMW, 1 << 20, &S), "read-modify-write never");
    S.agent = 0;
    CHECK(!arm_path_offload(ARM_FAM_GET, 1 << 20, &S), "agent off");
    unit_section("strided chunks by RMA from STRIDED_RMA_MIN where zero-copy; agent by size");
}

/* A node of this host whose segments are mapped (decision 068): puts and
 * gets of every size by the transport (a memcpy) when no server write is
 * outstanding; with one outstanding, small ones stay behind it on the
 * server path and large ones wait for it; strided chunks in both
 * directions; forcing, forwarding without endpoints and the other
 * families as before. */
static void test_mapped(void)
{
    const unsigned MAP = CMA | ARM_PATH_CAP_MAPPED;
    defaults(16384);
    for (size_t n = 1; n <= (size_t)4 << 20; n = n * 3 / 2 + 1) {
        EXPECT(ARM_FAM_PUT, n, MAP, 0, ARM_PROTO_RMA);
        EXPECT(ARM_FAM_GET, n, MAP, 0, ARM_PROTO_RMA);
        if (n >= S.zcopy_min) {
            EXPECT(ARM_FAM_PUT, n, MAP, 1, ARM_PROTO_RMA);
            EXPECT(ARM_FAM_GET, n, MAP, 1, ARM_PROTO_RMA);
        }
    }
    EXPECT(ARM_FAM_PUT, 8, MAP, 1, ARM_PROTO_BATCH);
    EXPECT(ARM_FAM_GET, 8, MAP, 1, ARM_PROTO_SERVER);
    EXPECT(ARM_FAM_GET, 8, CMA, 1, ARM_PROTO_SERVER);
    EXPECT(ARM_FAM_PUT, 8, CMA, 0, ARM_PROTO_BATCH);           /* unmapped: as before */
    /* Decision 079: with no server write outstanding, rows of every size
     * are one local copy; with one, large rows by RMA, small ones packed. */
    for (int put = 0; put <= 1; put++)
        for (size_t c = 1; c <= ((size_t)1 << 20); c *= 8)
            CHECK(chunks(put, c, 64, MAP, 0) == ARM_PROTO_MAPPED, "mapped %s rows of %zu: "
                  "a local copy", put ? "put" : "get", c);
    CHECK(chunks(0, S.strided_rma_min, 64, MAP, 1) == ARM_PROTO_RMA, "mapped get chunks, dirty");
    CHECK(chunks(0, S.strided_rma_min, 64, CMA, 0) == ARM_PROTO_SEG, "cma get chunks");
    CHECK(chunks(0, S.strided_rma_min - 1, 64, MAP, 1) == ARM_PROTO_SEG, "small chunks, dirty");
    CHECK(arm_path_choose_chunks(ARM_FAM_STRIDED, 0, 1, 64, 64, MAP, 0, &S).proto ==
          ARM_PROTO_SEG, "mapped accumulate: the server");
    EXPECT(ARM_FAM_PUT, 8, MAP | ARM_PATH_CAP_NO_DIRECT, 0, ARM_PROTO_BATCH);
    EXPECT(ARM_FAM_ACC, 8, MAP, 0, ARM_PROTO_BATCH);
    S.rma_mode = ARM_PATH_FORCE_SERVER;
    EXPECT(ARM_FAM_GET, (size_t)1 << 20, MAP, 0, ARM_PROTO_SERVER);
    CHECK(chunks(1, (size_t)1 << 20, 64, MAP, 0) == ARM_PROTO_SEG, "mapped, forced server");
    CHECK(chunks(1, 64, 64, MAP, 0) == ARM_PROTO_SEG, "mapped small rows, forced server");
    S.rma_mode = ARM_PATH_FORCE_RMA;
    CHECK(chunks(1, S.strided_rma_min, 64, MAP, 0) == ARM_PROTO_RMA, "mapped, forced RMA");
    unit_section("mapped nodes of this host: puts and gets by memcpy (decision 068)");
}

/* Accumulates done at the origin (decision 060): in auto from
 * ACC_ORIGIN_MIN bytes (0: never) to nodes the transport's RMA reaches, at
 * every size when forced; never to a node reached by forwarding, never
 * when forced to the server, and no other family ever takes the protocol. */
static void test_acc_origin(void)
{
    defaults(16384);
    S.acc_mode = ARM_ACC_AUTO;
    S.acc_origin_min = 0;
    EXPECT(ARM_FAM_ACC, (size_t)4 << 20, TCP, 0, ARM_PROTO_SEG);
    EXPECT(ARM_FAM_ACC, (size_t)4 << 20, CMA, 0, ARM_PROTO_SEG);
    S.acc_origin_min = 512;
    EXPECT(ARM_FAM_ACC, 504, CMA, 0, ARM_PROTO_BATCH);
    EXPECT(ARM_FAM_ACC, 512, CMA, 0, ARM_PROTO_ORIGIN);
    EXPECT(ARM_FAM_ACC, 512, TCP, 0, ARM_PROTO_BATCH);          /* no RMA: server */
    EXPECT(ARM_FAM_ACC, (size_t)1 << 20, TCP, 0, ARM_PROTO_SEG);
    EXPECT(ARM_FAM_ACC, (size_t)1 << 20, CMA, 1, ARM_PROTO_ORIGIN);
    EXPECT(ARM_FAM_ACC, (size_t)1 << 20, NATIVE, 0, ARM_PROTO_ORIGIN);
    EXPECT(ARM_FAM_ACC, (size_t)1 << 20, CMA | ARM_PATH_CAP_FORWARDED, 0, ARM_PROTO_SEG);
    S.acc_mode = ARM_ACC_SERVER;
    EXPECT(ARM_FAM_ACC, (size_t)1 << 20, CMA, 0, ARM_PROTO_SEG);
    EXPECT(ARM_FAM_ACC, 512, CMA, 0, ARM_PROTO_BATCH);
    S.acc_mode = ARM_ACC_ORIGIN;
    EXPECT(ARM_FAM_ACC, 8, TCP, 0, ARM_PROTO_ORIGIN);
    EXPECT(ARM_FAM_ACC, 8, TCP | ARM_PATH_CAP_FORWARDED, 0, ARM_PROTO_BATCH);
    S.acc_origin_min = 1;
    for (int f = 0; f < ARM_FAM_COUNT; f++)
        for (unsigned caps = 0; caps < 16; caps++)
            for (size_t n = 1; n <= (size_t)4 << 20; n = n * 3 / 2 + 1) {
                arm_proto_t p = pick((arm_path_family_t)f, n, caps, 0);
                CHECK((p == ARM_PROTO_ORIGIN) == (f == ARM_FAM_ACC),
                      "family %d, %zu bytes, caps %#x: %s with ACC_PROTO=origin", f, n, caps,
                      arm_proto_name(p));
            }
    CHECK(strcmp(arm_proto_name(ARM_PROTO_ORIGIN), "origin") == 0, "name of the origin protocol");
    unit_section("ACC_PROTO and ACC_ORIGIN_MIN: accumulates at the origin");
}

int main(void)
{
    test_chunks();
    test_mapped();
    test_limits();
    test_nodes();
    test_forced();
    test_properties();
    test_forwarded();
    test_acc_origin();
    test_seg_stream();
    return unit_finish("unit.path");
}
