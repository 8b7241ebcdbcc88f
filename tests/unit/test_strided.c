/* unit.strided: strided descriptors (util/arm_strided.h) against a naive
 * reference: every (src byte, dst byte) pair the iterator covers, in order,
 * must be the pair the reference nested loop produces; the extent and byte
 * count must match what the reference touches; and real copies (scatter and
 * gather) of a patterned buffer must give the reference's bytes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/arm_strided.h"
#include "unit.h"

typedef struct {
    size_t *src;        /* byte-level pairs seen, in order */
    size_t *dst;
    size_t n, cap;
    size_t calls;
    size_t zero_len_calls;
    size_t max_len;
} trace_t;

static void trace_fn(void *ctx, size_t soff, size_t doff, size_t len)
{
    trace_t *t = ctx;
    t->calls++;
    if (len == 0)
        t->zero_len_calls++;
    if (len > t->max_len)
        t->max_len = len;
    if (t->n + len > t->cap) {
        size_t cap = (t->n + len) * 2 + 64;
        t->src = realloc(t->src, cap * sizeof *t->src);
        t->dst = realloc(t->dst, cap * sizeof *t->dst);
        t->cap = cap;
    }
    for (size_t k = 0; k < len; k++) {
        t->src[t->n + k] = soff + k;
        t->dst[t->n + k] = doff + k;
    }
    t->n += len;
}

/* A run, expanded into its pieces for the trace. */
static void trace_run_fn(void *ctx, size_t soff, size_t doff, size_t len, size_t n,
                         size_t sstep, size_t dstep)
{
    for (size_t k = 0; k < n; k++)
        trace_fn(ctx, soff + k * sstep, doff + k * dstep, len);
}

typedef struct {
    const unsigned char *src;
    unsigned char *dst;
} copy_ctx_t;

static void copy_fn(void *ctx, size_t soff, size_t doff, size_t len)
{
    copy_ctx_t *c = ctx;
    memcpy(c->dst + doff, c->src + soff, len);
}

/* The reference: an odometer over levels 1..levels, innermost first, each
 * position copying count[0] single bytes. Appends pairs to *t. */
static void reference(int levels, const int *count, const int *ss, const int *ds, trace_t *t)
{
    for (int i = 0; i <= levels; i++)
        if (count[i] <= 0)
            return;
    int idx[ARM_MAX_STRIDE_LEVELS + 1] = { 0 };
    for (;;) {
        size_t so = 0, dof = 0;
        for (int l = 1; l <= levels; l++) {
            so += (size_t)idx[l] * (size_t)ss[l - 1];
            dof += (size_t)idx[l] * (size_t)ds[l - 1];
        }
        for (int b = 0; b < count[0]; b++) {
            if (t->n == t->cap) {
                t->cap = t->cap * 2 + 64;
                t->src = realloc(t->src, t->cap * sizeof *t->src);
                t->dst = realloc(t->dst, t->cap * sizeof *t->dst);
            }
            t->src[t->n] = so + (size_t)b;
            t->dst[t->n] = dof + (size_t)b;
            t->n++;
        }
        int l = 1;
        while (l <= levels && ++idx[l] == count[l])
            idx[l++] = 0;
        if (l > levels)
            return;
    }
}

static unsigned char pattern(size_t i)
{
    return (unsigned char)((i * 131u + (i >> 8) * 7u + 17u) & 0xff);
}

static long cases_run;

/* Runs every check for one descriptor; returns nonzero if anything failed. */
static int check_case(int levels, const int *count, const int *ss, const int *ds,
                      long want_calls)
{
    long failed_before = unit_failed;
    trace_t ref = { 0 }, got = { 0 };
    reference(levels, count, ss, ds, &ref);
    arm_strided_for_each(levels, count, ss, ds, trace_fn, &got);
    cases_run++;

    size_t bytes = arm_strided_bytes(levels, count);
    CHECK(bytes == ref.n, "levels %d: bytes %zu, reference %zu", levels, bytes, ref.n);
    CHECK(got.n == ref.n, "levels %d count0 %d: iterator covered %zu bytes, reference %zu",
          levels, count[0], got.n, ref.n);
    CHECK(got.zero_len_calls == 0, "levels %d: %zu calls with len 0", levels,
          got.zero_len_calls);
    if (got.n == ref.n) {
        size_t bad = 0, first_bad = 0;
        for (size_t i = 0; i < ref.n; i++)
            if (got.src[i] != ref.src[i] || got.dst[i] != ref.dst[i]) {
                if (!bad)
                    first_bad = i;
                bad++;
            }
        CHECK(bad == 0, "levels %d: %zu byte pairs out of place, first at %zu: got (%zu,%zu) "
              "want (%zu,%zu)", levels, bad, first_bad, bad ? got.src[first_bad] : 0,
              bad ? got.dst[first_bad] : 0, bad ? ref.src[first_bad] : 0,
              bad ? ref.dst[first_bad] : 0);
    }
    if (want_calls >= 0)
        CHECK((long)got.calls == want_calls, "levels %d: %zu calls, want %ld", levels,
              got.calls, want_calls);
    /* A run at a time: the same pieces in the same order. */
    trace_t run = { 0 };
    arm_strided_for_each_run(levels, count, ss, ds, trace_run_fn, &run);
    CHECK(run.n == got.n && run.calls == got.calls &&
          (run.n == 0 || (memcmp(run.src, got.src, run.n * sizeof *run.src) == 0 &&
                          memcmp(run.dst, got.dst, run.n * sizeof *run.dst) == 0)),
          "levels %d count0 %d: runs gave %zu bytes in %zu pieces, pieces %zu in %zu", levels,
          count[0], run.n, run.calls, got.n, got.calls);
    free(run.src);
    free(run.dst);

    if (ref.n > 0) {
        /* Extent: one past the highest byte touched (all strides >= 0, so
         * the first byte is offset 0). */
        size_t smax = 0, dmax = 0;
        for (size_t i = 0; i < ref.n; i++) {
            if (ref.src[i] + 1 > smax)
                smax = ref.src[i] + 1;
            if (ref.dst[i] + 1 > dmax)
                dmax = ref.dst[i] + 1;
        }
        size_t se = arm_strided_extent(levels, count, ss);
        size_t de = arm_strided_extent(levels, count, ds);
        CHECK(se == smax, "levels %d: src extent %zu, reference %zu", levels, se, smax);
        CHECK(de == dmax, "levels %d: dst extent %zu, reference %zu", levels, de, dmax);

        /* Real copies both ways over buffers of exactly the extent (ASan
         * sees any byte outside). */
        unsigned char *src = malloc(smax), *dst = malloc(dmax), *want = malloc(dmax);
        for (size_t i = 0; i < smax; i++)
            src[i] = pattern(i);
        memset(dst, 0xee, dmax);
        memset(want, 0xee, dmax);
        for (size_t i = 0; i < ref.n; i++)
            want[ref.dst[i]] = src[ref.src[i]];
        copy_ctx_t c = { src, dst };
        arm_strided_for_each(levels, count, ss, ds, copy_fn, &c);
        CHECK(memcmp(dst, want, dmax) == 0, "levels %d: scatter copy differs", levels);

        /* Gather back: dst layout -> src layout. */
        unsigned char *back = malloc(smax), *want_back = malloc(smax);
        memset(back, 0x11, smax);
        memset(want_back, 0x11, smax);
        for (size_t i = 0; i < ref.n; i++)
            want_back[ref.src[i]] = dst[ref.dst[i]];
        copy_ctx_t g = { dst, back };
        arm_strided_for_each(levels, count, ds, ss, copy_fn, &g);
        CHECK(memcmp(back, want_back, smax) == 0, "levels %d: gather copy differs", levels);
        /* Non-overlapping layouts: the round trip restores the source bytes. */
        size_t lost = 0;
        for (size_t i = 0; i < ref.n; i++)
            lost += back[ref.src[i]] != src[ref.src[i]];
        CHECK(lost == 0, "levels %d: %zu bytes lost in the round trip", levels, lost);
        free(src);
        free(dst);
        free(want);
        free(back);
        free(want_back);
    }
    free(ref.src);
    free(ref.dst);
    free(got.src);
    free(got.dst);
    if (unit_failed != failed_before) {
        fprintf(stderr, "  case: levels %d count", levels);
        for (int i = 0; i <= levels; i++)
            fprintf(stderr, " %d", count[i]);
        fprintf(stderr, " src_stride");
        for (int i = 0; i < levels; i++)
            fprintf(stderr, " %d", ss[i]);
        fprintf(stderr, " dst_stride");
        for (int i = 0; i < levels; i++)
            fprintf(stderr, " %d", ds[i]);
        fprintf(stderr, "\n");
        return 1;
    }
    return 0;
}

/* Strides for a non-overlapping layout: each level's stride is at least
 * the span of the level below, plus some slack (0 when tight). */
static void make_strides(int levels, const int *count, int *stride, int tight_levels)
{
    long span = count[0];
    for (int l = 1; l <= levels; l++) {
        long slack = (l <= tight_levels) ? 0 : unit_range(0, 5);
        stride[l - 1] = (int)(span + slack);
        span = (long)stride[l - 1] * count[l];
    }
}

static void test_fixed(void)
{
    /* levels 0: one piece. */
    int c0[] = { 17 };
    check_case(0, c0, NULL, NULL, 1);
    /* A 2-d patch: 3 rows of 5 bytes, src rows 8 apart, dst rows 5 apart. */
    int c1[] = { 5, 3 }, s1[] = { 8 }, d1[] = { 5 };
    check_case(1, c1, s1, d1, 3);
    /* Contiguous on both sides: merged into one call. */
    int c2[] = { 4, 3, 2 }, s2[] = { 4, 12 }, d2[] = { 4, 12 };
    check_case(2, c2, s2, d2, 1);
    /* Contiguous on one side only: no merge. */
    int c3[] = { 4, 3 }, s3[] = { 4 }, d3[] = { 6 };
    check_case(1, c3, s3, d3, 3);
    int c3b[] = { 4, 3 }, s3b[] = { 6 }, d3b[] = { 4 };
    check_case(1, c3b, s3b, d3b, 3);
    /* First level merges, second does not: 2 calls of 12 bytes. */
    int c4[] = { 4, 3, 2 }, s4[] = { 4, 20 }, d4[] = { 4, 13 };
    check_case(2, c4, s4, d4, 2);
    /* Merge only at the second level is impossible (the first is not
     * contiguous): 6 calls. */
    int c5[] = { 4, 3, 2 }, s5[] = { 5, 15 }, d5[] = { 5, 15 };
    check_case(2, c5, s5, d5, 6);
    /* Count 1 at a level with an odd stride. */
    int c6[] = { 3, 1, 4 }, s6[] = { 1000, 7 }, d6[] = { 9, 3 };
    check_case(2, c6, s6, d6, -1);
    /* All seven levels, count 2 each, tight: one call of 2^8 bytes. */
    int c7[8], s7[7];
    c7[0] = 2;
    for (int l = 1; l <= 7; l++) {
        c7[l] = 2;
        s7[l - 1] = 1 << l;
    }
    check_case(7, c7, s7, s7, 1);
    /* Seven levels, tight on src, slack on dst. */
    int d7[7];
    d7[0] = 3;
    for (int l = 2; l <= 7; l++)
        d7[l - 1] = d7[l - 2] * 2 + 1;
    check_case(7, c7, s7, d7, 128);
    /* Stride 0 (a repeated source): a broadcast of one row. */
    int c8[] = { 6, 4 }, s8[] = { 0 }, d8[] = { 6 };
    check_case(1, c8, s8, d8, -1);
    unit_section("fixed shapes: levels 0 and 7, merges, one-sided contiguity");
}

static void test_zero_counts(void)
{
    /* A zero anywhere means no bytes and no calls. */
    for (int levels = 0; levels <= ARM_MAX_STRIDE_LEVELS; levels++) {
        for (int zero_at = 0; zero_at <= levels; zero_at++) {
            for (int tight = 0; tight <= 1; tight++) {
                int count[ARM_MAX_STRIDE_LEVELS + 1], ss[ARM_MAX_STRIDE_LEVELS],
                    ds[ARM_MAX_STRIDE_LEVELS];
                for (int l = 0; l <= levels; l++)
                    count[l] = 3;
                make_strides(levels, count, ss, tight ? levels : 0);
                make_strides(levels, count, ds, tight ? levels : 0);
                count[zero_at] = 0;
                trace_t got = { 0 };
                arm_strided_for_each(levels, count, ss, ds, trace_fn, &got);
                CHECK(got.calls == 0, "levels %d zero at %d tight %d: %zu calls", levels,
                      zero_at, tight, got.calls);
                CHECK(arm_strided_bytes(levels, count) == 0, "levels %d zero at %d: bytes %zu",
                      levels, zero_at, arm_strided_bytes(levels, count));
                free(got.src);
                free(got.dst);
            }
        }
    }
    unit_section("zero counts at every level: no calls, 0 bytes");
}

/* Descriptors no memory holds: the byte count and the extents saturate at
 * SIZE_MAX instead of wrapping (decision 095); a zero count still wins. */
static void test_saturation(void)
{
    int count[8], stride[7];
    for (int i = 0; i < 8; i++)
        count[i] = INT32_MAX;
    for (int i = 0; i < 7; i++)
        stride[i] = INT32_MAX;
    CHECK(arm_strided_bytes(7, count) == SIZE_MAX, "bytes of 7 levels of 2^31: %zu",
          arm_strided_bytes(7, count));
    CHECK(arm_strided_extent(7, count, stride) == SIZE_MAX, "extent of 7 levels: %zu",
          arm_strided_extent(7, count, stride));
    /* Rows of 1 byte, 2 levels of 2^31 fit: the exact values. */
    count[0] = 1;
    size_t b2 = (size_t)INT32_MAX * INT32_MAX;
    CHECK(arm_strided_bytes(2, count) == b2, "bytes of 2 levels: %zu, want %zu",
          arm_strided_bytes(2, count), b2);
    size_t e2 = 1 + 2 * (size_t)(INT32_MAX - 1) * INT32_MAX;
    CHECK(arm_strided_extent(2, count, stride) == e2, "extent of 2 levels: %zu, want %zu",
          arm_strided_extent(2, count, stride), e2);
    /* Five terms of nearly 2^62 wrap a sum of 64 bits, though no term does. */
    int c5[] = { 1, INT32_MAX, INT32_MAX, 1, 1, 1 };
    int s5[] = { INT32_MAX, INT32_MAX, 1, 1, 1 };
    c5[3] = c5[4] = c5[5] = 2;
    s5[2] = s5[3] = s5[4] = INT32_MAX;
    CHECK(arm_strided_extent(5, c5, s5) != SIZE_MAX, "five levels that fit: SIZE_MAX");
    c5[3] = c5[4] = c5[5] = INT32_MAX;
    CHECK(arm_strided_extent(5, c5, s5) == SIZE_MAX, "five terms near 2^62: %zu, not SIZE_MAX",
          arm_strided_extent(5, c5, s5));
    count[5] = 0;
    CHECK(arm_strided_bytes(7, count) == 0, "a zero after an overflow: %zu bytes",
          arm_strided_bytes(7, count));
    unit_section("byte counts and extents beyond a size_t saturate");
}

static void test_random(int n_cases)
{
    long by_level[ARM_MAX_STRIDE_LEVELS + 1] = { 0 };
    int failed_cases = 0;
    for (int k = 0; k < n_cases && failed_cases < 5; k++) {
        int levels = (int)unit_range(0, ARM_MAX_STRIDE_LEVELS);
        int count[ARM_MAX_STRIDE_LEVELS + 1], ss[ARM_MAX_STRIDE_LEVELS],
            ds[ARM_MAX_STRIDE_LEVELS];
        count[0] = (int)unit_range(1, levels >= 5 ? 6 : 40);
        for (int l = 1; l <= levels; l++)
            count[l] = (int)unit_range(1, levels >= 5 ? 3 : 6);
        /* Sometimes tight (mergeable) on both sides for some levels. */
        int kind = (int)unit_range(0, 3);
        int tight_s = kind == 0 ? (int)unit_range(0, levels) : 0;
        int tight_d = kind == 0 ? tight_s : (kind == 1 ? (int)unit_range(0, levels) : 0);
        make_strides(levels, count, ss, tight_s);
        make_strides(levels, count, ds, tight_d);
        /* Expected calls: leading levels contiguous on both sides merge. */
        long want_calls = 1;
        long piece = count[0];
        int first = 1;
        while (first <= levels && ss[first - 1] == piece && ds[first - 1] == piece) {
            piece *= count[first];
            first++;
        }
        for (int l = first; l <= levels; l++)
            want_calls *= count[l];
        failed_cases += check_case(levels, count, ss, ds, want_calls);
        by_level[levels]++;
    }
    char what[128];
    snprintf(what, sizeof what, "%d random shapes (levels 0..7: %ld %ld %ld %ld %ld %ld %ld %ld)",
             n_cases, by_level[0], by_level[1], by_level[2], by_level[3], by_level[4],
             by_level[5], by_level[6], by_level[7]);
    unit_section(what);
}

int main(void)
{
    test_fixed();
    test_zero_counts();
    test_saturation();
    test_random(3000);
    printf("  %ld descriptors compared with the reference\n", cases_run);
    return unit_finish("unit.strided");
}
