/* fuzz.api: the ARMCI data-movement calls fed arbitrary arguments by one
 * process (decision 095).
 *
 * The bytes of one input are a program of up to 16 calls: strided put, get
 * and accumulate (blocking and non-blocking), contiguous put, get and
 * accumulate, vector put, get and accumulate, and read-modify-write
 * (ARMCI_Rmw: fetch-and-add and swap, int and long), on one ARMCI_Malloc
 * allocation of this rank and local buffers. Arguments are mostly folded
 * into what ARMCI allows: levels 0..7, small counts, strides that fit, the
 * remote range inside the allocation, whole elements of a valid
 * accumulate type. The input bends some of them: raw levels, counts and
 * strides (negative, huge, overlapping destination rows), remote pointers
 * straddling the allocation's ends or outside it, NULL pointers, bad ranks,
 * types and element counts.
 *
 * What must hold, for every call:
 * - the call stops the program (arm_fatal, caught here through the abort
 *   hook) exactly when its arguments break ARMCI's rules as Armada states
 *   them (api_check.h; decision 031 for overlapping destination rows);
 * - a call that returns did what it says: the allocation, the destination
 *   buffer and a second allocation (a guard) match a model byte for byte;
 * - no memory error (the sanitizers: local buffers and the argument arrays
 *   are allocated at their exact length, so a read past count[levels] or
 *   a stride array shows).
 *
 * The local side of a call always fits its buffer: Armada cannot know a
 * local buffer's length, so a local overrun is the caller's and not tested.
 * After a stop the allocation is reset and the accumulate lock's stripes are
 * released (a stop inside a vector accumulate holds them; a program would
 * have ended there).
 *
 * An MPI program of one rank: `mpirun -np 1 fuzz_api [corpus] -n N -s SEED`,
 * or a libFuzzer target (fuzz_driver.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "armci.h"
#include "core/arm_core.h"
#include "shm/arm_shm_sync.h"
#include "util/arm_log.h"
#include "fuzz_driver.h"

#define REG 4096              /* the allocation under test (asked for)  */
#define LOC 4096              /* each local buffer                      */
#define GUARD 256
#define MAX_CALLS 16
#define MAXL 7                /* ARMCI's stride levels                  */

static char *reg, *guard, *lsrc, *ldst;
static size_t reg_len;        /* its slice: what Armada holds it to be  */
static unsigned char *shadow, lshadow[LOC];

typedef struct world {
    long failed;
    char why[FUZZ_WHY];
} world_t;

#define fail(w, ...) fuzz_fail(&(w)->failed, (w)->why, sizeof (w)->why, __VA_ARGS__)

/* Calls made, and of them those that stopped (printed at the end). */
static long n_calls, n_stops, n_skipped;

static void fin(void)
{
    if (!getenv("ARMADA_FUZZ_QUIET"))
        printf("fuzz.api: %ld calls made, %ld of them stopped; %ld not made (their local "
               "side would not fit)\n", n_calls, n_stops, n_skipped);
    ARMCI_Finalize();
}

static void setup(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    if (ARMCI_Init() != 0) {
        fprintf(stderr, "fuzz.api: ARMCI_Init failed\n");
        exit(2);
    }
    int np;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np != 1) {
        fprintf(stderr, "fuzz.api: run with one process\n");
        exit(2);
    }
    void *p[1];
    ARMCI_Malloc(p, REG);
    reg = p[0];
    /* Armada may round an allocation up: its slice is the bound. */
    reg_len = arm_reg_lookup(0, (uintptr_t)reg, 0)->len;
    shadow = malloc(reg_len);
    ARMCI_Malloc(p, GUARD);
    guard = p[0];
    lsrc = malloc(LOC);
    ldst = malloc(LOC);
    arm_log_set_abort_hook(fuzz_on_stop);
    if (!trace && !getenv("FUZZ_VERBOSE"))
        arm_log_set_level(ARM_LOG_OFF);   /* ARMCI_Init set it from the settings */
    atexit(fin);
}

/* ---- the model -------------------------------------------------------------- */
/* ARMCI's element sizes, written here rather than taken from
 * arm_acc_elem_size: the model must not learn which types are valid from
 * the code under test. */
static size_t elem_of(int type)
{
    static const size_t e[] = { 4, 8, 4, 8, 8, 16 };
    return type >= 0 && type < 6 ? e[type] : 0;
}

/* One integer element of unsigned T at d + k: d += s * x, wrapping. */
#define ACC_INT(T)                                                              \
    do {                                                                        \
        T a_, b_, s_;                                                           \
        memcpy(&a_, d + k, sizeof a_), memcpy(&b_, x + k, sizeof b_);           \
        memcpy(&s_, scale, sizeof s_);                                          \
        a_ += s_ * b_;                                                          \
        memcpy(d + k, &a_, sizeof a_);                                          \
    } while (0)

/* One element of T (two when cplx) at d + k: d += s * x. */
#define ACC_FP(T, cplx)                                                         \
    do {                                                                        \
        T a_[2] = { 0, 0 }, b_[2] = { 0, 0 }, s_[2] = { 0, 0 };                 \
        const size_t w_ = sizeof(T) << (cplx);                                  \
        memcpy(a_, d + k, w_), memcpy(b_, x + k, w_), memcpy(s_, scale, w_);    \
        a_[0] += (cplx) ? s_[0] * b_[0] - s_[1] * b_[1] : s_[0] * b_[0];        \
        a_[1] += (cplx) ? s_[0] * b_[1] + s_[1] * b_[0] : 0;                    \
        memcpy(d + k, a_, w_);                                                  \
    } while (0)

/* d += s * x for n bytes of type; integers wrap. Float types only ever see
 * small whole numbers here, so every order of evaluation is exact. */
static void model_acc(int type, const void *scale, unsigned char *d, const unsigned char *x,
                      size_t n)
{
    for (size_t k = 0; k < n; k += elem_of(type)) {
        switch (type) {
        case 0: ACC_INT(uint32_t); break;
        case 1: ACC_INT(uint64_t); break;
        case 2: ACC_FP(float, 0); break;
        case 4: ACC_FP(float, 1); break;
        case 3: ACC_FP(double, 0); break;
        default: ACC_FP(double, 1); break;
        }
    }
}

/* A call's arguments, as the input made them. */
typedef struct call {
    int kind;                 /* 0 put, 1 get, 2 acc                          */
    int nb;                   /* the non-blocking form, waited on at once     */
    int type;
    unsigned char scale[16];
    const void *scalep;
    int proc;
    /* strided */
    int levels;
    int *count, *ss, *ds;     /* exact-length arrays (NULL: passed as NULL)   */
    int ncount, nstride;
    char *src, *dst;
} call_t;

/* Rows of a strided layout: calls fn for each row's offsets. 0 when the
 * layout has more rows than limit (then nothing is called). */
static int for_rows(const int *count, const int *ss, const int *ds, int levels, size_t limit,
                    void (*fn)(void *, size_t, size_t), void *arg)
{
    size_t rows = 1;
    if (count[0] == 0)
        return 1;               /* nothing moves: no row has a byte */
    for (int i = 1; i <= levels; i++) {
        if (count[i] == 0)
            return 1;
        if (rows > limit / (size_t)count[i])
            return 0;
        rows *= (size_t)count[i];
    }
    int idx[MAXL + 1] = { 0 };
    for (size_t r = 0; r < rows; r++) {
        size_t so = 0, dof = 0;
        for (int i = 1; i <= levels; i++) {
            so += (size_t)idx[i] * (size_t)ss[i - 1];
            dof += (size_t)idx[i] * (size_t)ds[i - 1];
        }
        fn(arg, so, dof);
        for (int i = 1; i <= levels && ++idx[i] == count[i]; i++)
            idx[i] = 0;
    }
    return 1;
}

/* The exact extent of a side, in 128 bits (no wrap). */
static unsigned __int128 extent_of(const int *count, const int *stride, int levels)
{
    unsigned __int128 e = (unsigned)count[0];
    for (int i = 1; i <= levels; i++)
        if (count[i] > 0)
            e += (unsigned __int128)(unsigned)(count[i] - 1) * (unsigned)stride[i - 1];
    return e;
}

typedef struct overlap {
    size_t *off;
    size_t n;
} overlap_t;

static void collect(void *a, size_t so, size_t dof)
{
    overlap_t *o = a;
    (void)so;
    o->off[o->n++] = dof;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* Whether two destination rows share a byte: 1 yes, 0 no, -1 too many rows
 * to tell here. */
static int dst_rows_overlap(const call_t *c)
{
    unsigned __int128 bytes = (unsigned)c->count[0];
    for (int i = 1; i <= c->levels; i++)
        bytes *= (unsigned)c->count[i];
    if (bytes > extent_of(c->count, c->ds, c->levels))
        return 1;                 /* more bytes than the span holds */
    overlap_t o = { malloc(65536 * sizeof(size_t)), 0 };
    int known = for_rows(c->count, c->ds, c->ds, c->levels, 65536, collect, &o);
    int hit = 0;
    if (known) {
        qsort(o.off, o.n, sizeof *o.off, cmp_size);
        for (size_t r = 1; r < o.n && !hit; r++)
            hit = o.off[r] - o.off[r - 1] < (size_t)c->count[0];
    }
    free(o.off);
    return known ? hit : -1;
}

typedef struct apply {
    const call_t *c;
    unsigned char *rbase, *lbase;   /* the model's remote and local bytes */
    const char *local;              /* the local buffer the call was given */
} apply_t;

static void apply_row(void *a, size_t so, size_t dof)
{
    apply_t *x = a;
    const call_t *c = x->c;
    size_t n = (size_t)c->count[0];
    if (c->kind == 1) {          /* get: remote src -> local dst */
        size_t r = (size_t)(c->src - reg) + so, l = (size_t)(c->dst - ldst) + dof;
        memcpy(x->lbase + l, x->rbase + r, n);
    } else {
        size_t r = (size_t)(c->dst - reg) + dof;
        const unsigned char *s = (const unsigned char *)c->src + so;
        if (c->kind == 0)
            memcpy(x->rbase + r, s, n);
        else
            model_acc(c->type, c->scalep, x->rbase + r, s, n);
    }
}

/* Whether p lies in an ARMCI allocation other than the one under test (a
 * bent pointer there would be a valid call the model does not follow). */
static int in_other_alloc(const char *p)
{
    if (p >= reg && p < reg + reg_len)
        return 0;
    return arm_reg_lookup(0, (uintptr_t)p, 0) != NULL;
}

/* ---- strided calls ------------------------------------------------------------ */
/* A stride array of n entries (exact length), nested above count: each at
 * least the extent below it, plus a little. */
static int *nested_strides(input_t *in, const int *count, int n)
{
    int *s = malloc((size_t)(n ? n : 1) * sizeof *s);
    size_t ext = (size_t)count[0];
    for (int i = 0; i < n; i++) {
        s[i] = (int)(ext + u8(in) % 8);
        ext = (size_t)s[i] * (size_t)(count[i + 1] ? count[i + 1] : 1);
    }
    return s;
}

/* Whether the call must stop, by the rules api_check.c and arm_ops.c state;
 * -1 when this harness cannot tell (the call is then not made). */
static int must_stop_strided(const call_t *c)
{
    if (c->proc != 0)
        return 1;
    if (c->levels < 0 || c->levels > MAXL || !c->count)
        return 1;
    if (c->levels > 0 && (!c->ss || !c->ds))
        return 1;
    for (int i = 0; i <= c->levels; i++)
        if (c->count[i] < 0)
            return 1;
    for (int i = 0; i < c->levels; i++)
        if (c->ss[i] < 0 || c->ds[i] < 0)
            return 1;
    unsigned __int128 bytes = (unsigned)c->count[0];
    for (int i = 1; i <= c->levels; i++)
        bytes *= (unsigned)c->count[i];
    if (bytes > 0 && (!c->src || !c->dst))
        return 1;
    const unsigned __int128 big = (size_t)-1;   /* what no memory holds */
    if (bytes > 0 && (bytes >= big || extent_of(c->count, c->ss, c->levels) >= big ||
                      extent_of(c->count, c->ds, c->levels) >= big))
        return 1;
    if (bytes > 0) {
        int ov = dst_rows_overlap(c);
        if (ov)
            return ov;
    }
    if (c->kind == 2) {
        if (!elem_of(c->type) || !c->scalep)
            return 1;
        if (c->count[0] > 0 && c->count[0] % (int)elem_of(c->type))
            return 1;
    }
    if (bytes == 0)
        return 0;
    const char *r = c->kind == 1 ? c->src : c->dst;
    const int *rs = c->kind == 1 ? c->ss : c->ds;
    if (r < reg || r >= reg + reg_len)
        return 1;
    return extent_of(c->count, rs, c->levels) > (unsigned __int128)(size_t)(reg + reg_len - r);
}

static void issue_strided(void *cv)
{
    const call_t *c = cv;
    armci_hdl_t h;
    if (c->nb)
        ARMCI_INIT_HANDLE(&h);
    switch (c->kind * 2 + c->nb) {
    case 0: ARMCI_PutS(c->src, c->ss, c->dst, c->ds, c->count, c->levels, c->proc); break;
    case 1: ARMCI_NbPutS(c->src, c->ss, c->dst, c->ds, c->count, c->levels, c->proc, &h); break;
    case 2: ARMCI_GetS(c->src, c->ss, c->dst, c->ds, c->count, c->levels, c->proc); break;
    case 3: ARMCI_NbGetS(c->src, c->ss, c->dst, c->ds, c->count, c->levels, c->proc, &h); break;
    case 4:
        ARMCI_AccS(c->type, (void *)c->scalep, c->src, c->ss, c->dst, c->ds, c->count,
                   c->levels, c->proc);
        break;
    default:
        ARMCI_NbAccS(c->type, (void *)c->scalep, c->src, c->ss, c->dst, c->ds, c->count,
                     c->levels, c->proc, &h);
        break;
    }
    if (c->nb)
        ARMCI_Wait(&h);
}

/* ---- running one call ------------------------------------------------------- */
static void release_acc_lock(void)
{
    arm_shm_mutex_t *m = ARM_CTL_ACC(arm_core.ctl[0]);
    for (unsigned s = 0; s < 32 && (ARM_ACC_ALL >> s); s++) {
        arm_shm_mutex_trylock(m + s * ARM_CTL_ACC_STRIDE);
        arm_shm_mutex_unlock(m + s * ARM_CTL_ACC_STRIDE);
    }
}

/* Runs issue(call): 1 when it stopped. A stop inside a vector accumulate
 * holds the accumulate lock's stripes; they are released. */
static int stops(void (*issue)(void *), void *call)
{
    n_calls++;
    if (!fuzz_stops(issue, call))
        return 0;
    release_acc_lock();
    n_stops++;
    return 1;
}

/* Fills the local source with whole small numbers of type (or bytes) and,
 * for a float type, zeroes the allocation and its model: every sum exact. */
static void prepare(input_t *in, call_t *c)
{
    uint8_t seed = u8(in);
    for (size_t k = 0; k < LOC; k++)
        lsrc[k] = (char)(k * 7 + seed);
    if (c->kind != 2 || !elem_of(c->type))
        return;
    int t = c->type;
    if (t >= 2) {
        memset(reg, 0, reg_len);
        memset(shadow, 0, reg_len);
        for (size_t k = 0; k + elem_of(t) <= LOC; k += t == 2 || t == 4 ? 4 : 8) {
            int v = (int)((k / 4 + seed) % 9) - 4;
            if (t == 2 || t == 4) {
                float f = (float)v;
                memcpy(lsrc + k, &f, 4);
            } else {
                double d = v;
                memcpy(lsrc + k, &d, 8);
            }
        }
    }
    int sv = (int)(seed % 5) - 2;
    memset(c->scale, 0, sizeof c->scale);
    switch (t) {
    case 0: { int v = sv; memcpy(c->scale, &v, 4); break; }
    case 1: { long v = sv; memcpy(c->scale, &v, 8); break; }
    case 2: case 4: { float f[2] = { (float)sv, (float)(seed % 3) }; memcpy(c->scale, f, 8); break; }
    default: { double d[2] = { sv, seed % 3 }; memcpy(c->scale, d, 16); break; }
    }
    if (t == 2)
        memset(c->scale + 4, 0, 12);
    if (t == 3)
        memset(c->scale + 8, 0, 8);
}

static int run_strided(world_t *w, input_t *in, int kind)
{
    call_t c;
    memset(&c, 0, sizeof c);
    uint8_t f = u8(in), g = u8(in);
    int bend = u8(in) < 64 ? g : 0;      /* most calls well formed */
    c.kind = kind;
    c.nb = f & 1;
    c.type = (f >> 1) % 6;
    if (bend & 1)
        c.type = (int)(int8_t)u8(in);
    prepare(in, &c);
    c.scalep = (bend & 2) && (u8(in) & 1) ? NULL : c.scale;
    c.proc = (bend & 4) ? (int)(int8_t)u8(in) : 0;
    c.levels = (f >> 4) % 8;
    if (bend & 8)
        c.levels = (int)(int8_t)u8(in);
    int lv = c.levels < 0 ? 0 : c.levels > MAXL ? MAXL : c.levels;
    c.ncount = lv + 1;
    c.count = malloc((size_t)c.ncount * sizeof *c.count);
    size_t elem = kind == 2 && elem_of(c.type) ? elem_of(c.type) : 1;
    c.count[0] = (int)(elem * (1 + u8(in) % (48 / elem + 1)));
    for (int i = 1; i <= lv; i++)
        c.count[i] = 1 + u8(in) % (lv > 3 ? 3 : 5);
    if (bend & 16) {                     /* one count raw or 0, all large, or off the element */
        int i = u8(in) % c.ncount;
        uint8_t how = u8(in);
        if (how & 1)
            c.count[i] = (int)(u16(in) | (uint32_t)u16(in) << 16);
        else if (how & 2)
            c.count[i] = 0;
        else if (how & 4)
            for (int k = 1; k <= lv; k++)
                c.count[k] = INT32_MAX >> (u8(in) % 12);
        else
            c.count[0] += 1 + how % 3;
    }
    /* Strides: the remote side nested to fit; the local side nested. */
    c.ss = nested_strides(in, c.count, lv);
    c.ds = nested_strides(in, c.count, lv);
    if (bend & 32) {                     /* one stride raw (overlap, negative, huge), or all large */
        uint8_t how = u8(in);
        int *s = how & 1 ? c.ss : c.ds;
        if (lv && (how & 2))
            for (int k = 0; k < lv; k++)
                s[k] = INT32_MAX >> (u8(in) % 12);
        else if (lv)
            s[u8(in) % lv] = (int)(u16(in) | (uint32_t)u16(in) << 16) >> (u8(in) % 24);
    }
    int *ls = kind == 1 ? c.ds : c.ss, *rs = kind == 1 ? c.ss : c.ds;
    unsigned __int128 lext = extent_of(c.count, ls, lv), rext = extent_of(c.count, rs, lv);
    /* The local side at an offset that fits (a source read twice is
     * harmless: its strides may be 0). */
    char *local = (kind == 1 ? ldst : lsrc) + (lext <= LOC ? u16(in) % (LOC - (size_t)lext + 1) : 0);
    size_t roff = rext <= reg_len ? u16(in) % (reg_len - (size_t)rext + 1) : 0;
    char *remote = reg + roff;
    if (bend & 64) {                     /* the remote pointer moved */
        uint8_t how = u8(in);
        remote = how % 4 == 0 ? reg + reg_len - (rext <= reg_len ? (size_t)rext : 0) + 1 + how / 4 % 8
               : how % 4 == 1 ? reg - 1 - how / 4 % 64
               : how % 4 == 2 ? NULL : lsrc;
    }
    if (bend & 128 && (u8(in) & 1))
        local = NULL;
    c.src = kind == 1 ? remote : local;
    c.dst = kind == 1 ? local : remote;
    if (bend & 128 && (u8(in) & 1)) {    /* arrays passed as NULL */
        uint8_t which = u8(in) % 3;
        if (which == 0) { free(c.count); c.count = NULL; }
        else if (which == 1) { free(c.ss); c.ss = NULL; }
        else { free(c.ds); c.ds = NULL; }
    }
    int want = c.count ? must_stop_strided(&c) : 1;
    /* A call that passes must fit its local buffer, which Armada cannot
     * check: otherwise it is not made; nor one aimed at another allocation. */
    if (want < 0 || (want == 0 && c.count && (lext > LOC || !local)) || in_other_alloc(remote)) {
        n_skipped++;
        free(c.count), free(c.ss), free(c.ds);
        return 0;
    }
    if (trace) {
        printf("%s%s levels %d type %d proc %d want %d count", kind == 0 ? "PutS" : kind == 1
               ? "GetS" : "AccS", c.nb ? " (Nb)" : "", c.levels, c.type, c.proc, want);
        for (int i = 0; c.count && i <= lv; i++)
            printf(" %d", c.count[i]);
        for (int i = 0; c.ss && c.ds && i < lv; i++)
            printf(" | %d %d", c.ss[i], c.ds[i]);
        printf("\n");
        fflush(stdout);
    }
    int stopped = stops(issue_strided, &c);
    if (stopped != want)
        fail(w, "%s%s %s (levels %d, count[0] %d, type %d, proc %d)",
             kind == 0 ? "PutS" : kind == 1 ? "GetS" : "AccS", c.nb ? " (Nb)" : "",
             stopped ? "stopped on arguments it takes" : "went on after bad arguments",
             c.levels, c.count ? c.count[0] : -1, c.type, c.proc);
    else if (!stopped) {
        apply_t x = { &c, shadow, lshadow, local };
        for_rows(c.count, c.ss, c.ds, c.levels, (size_t)-1, apply_row, &x);
    }
    free(c.count), free(c.ss), free(c.ds);
    return stopped;
}

/* ---- contiguous and vector calls --------------------------------------------- */
typedef struct vcall {
    int kind, type, proc, len;
    const void *scalep;
    unsigned char scale[16];
    armci_giov_t *iov;
    int contig;               /* ARMCI_Put / Get / Acc of iov[0], one segment */
} vcall_t;

static void issue_vector(void *cv)
{
    const vcall_t *v = cv;
    if (v->contig) {
        armci_giov_t *d = v->iov;
        if (v->kind == 0)
            ARMCI_Put(d->src_ptr_array[0], d->dst_ptr_array[0], d->bytes, v->proc);
        else if (v->kind == 1)
            ARMCI_Get(d->src_ptr_array[0], d->dst_ptr_array[0], d->bytes, v->proc);
        else
            ARMCI_Acc(v->type, (void *)v->scalep, d->src_ptr_array[0], d->dst_ptr_array[0],
                      d->bytes, v->proc);
        return;
    }
    if (v->kind == 0)
        ARMCI_PutV(v->iov, v->len, v->proc);
    else if (v->kind == 1)
        ARMCI_GetV(v->iov, v->len, v->proc);
    else
        ARMCI_AccV(v->type, (void *)v->scalep, v->iov, v->len, v->proc);
}

static int must_stop_vector(const vcall_t *v)
{
    if (v->proc != 0 || v->len < 0 || (v->len > 0 && !v->iov))
        return 1;
    for (int d = 0; d < v->len; d++) {
        const armci_giov_t *g = &v->iov[d];
        if (g->bytes < 0 || g->ptr_array_len < 0)
            return 1;
        if (g->ptr_array_len > 0 && (!g->src_ptr_array || !g->dst_ptr_array))
            return 1;
        if (g->bytes == 0)
            continue;
        for (int i = 0; i < g->ptr_array_len; i++)
            if (!g->src_ptr_array[i] || !g->dst_ptr_array[i])
                return 1;
    }
    if (v->kind == 2) {
        if (!elem_of(v->type) || !v->scalep)
            return 1;
        for (int d = 0; d < v->len; d++)
            if (v->iov[d].bytes > 0 && v->iov[d].bytes % (int)elem_of(v->type))
                return 1;
    }
    for (int d = 0; d < v->len; d++) {
        const armci_giov_t *g = &v->iov[d];
        if (g->bytes == 0)
            continue;
        for (int i = 0; i < g->ptr_array_len; i++) {
            const char *r = v->kind == 1 ? g->src_ptr_array[i] : g->dst_ptr_array[i];
            if (r < reg || r >= reg + reg_len || (size_t)g->bytes > (size_t)(reg + reg_len - r))
                return 1;
        }
    }
    return 0;
}

static int run_vector(world_t *w, input_t *in, int kind, int contig)
{
    vcall_t v;
    memset(&v, 0, sizeof v);
    uint8_t f = u8(in), g = u8(in);
    int bend = u8(in) < 64 ? g : 0;
    v.kind = kind;
    v.contig = contig;
    v.type = (f >> 1) % 6;
    if (bend & 1)
        v.type = (int)(int8_t)u8(in);
    call_t tmp;                         /* prepare() works on a call */
    memset(&tmp, 0, sizeof tmp);
    tmp.kind = kind;
    tmp.type = v.type;
    prepare(in, &tmp);
    memcpy(v.scale, tmp.scale, sizeof v.scale);
    v.scalep = (bend & 2) && (u8(in) & 1) ? NULL : v.scale;
    v.proc = (bend & 4) ? (int)(int8_t)u8(in) : 0;
    v.len = contig ? 1 : 1 + (f >> 4) % 3;
    if (!contig && (bend & 8))
        v.len = (int)(int8_t)u8(in) % 5;
    int nd = v.len > 0 ? v.len : 0;
    v.iov = malloc((size_t)(nd ? nd : 1) * sizeof *v.iov);
    size_t elem = kind == 2 && elem_of(v.type) ? elem_of(v.type) : 1;
    size_t lused = 0;
    int ok_local = 1;
    for (int d = 0; d < nd; d++) {
        armci_giov_t *gv = &v.iov[d];
        gv->bytes = (int)(elem * (1 + u8(in) % (64 / elem)));
        gv->ptr_array_len = contig ? 1 : 1 + u8(in) % 4;
        if (bend & 16) {
            uint8_t how = u8(in);
            if (how & 1)
                gv->bytes = (int)(u16(in) | (uint32_t)u16(in) << 16);
            else if (how & 2)
                gv->bytes += 1 + how % 3;
            else if (how & 4)
                gv->bytes = 0;          /* its pointers are then not looked at */
            else if (!contig)
                gv->ptr_array_len = (int)(int8_t)u8(in) % 6;
        }
        int np = gv->ptr_array_len > 0 ? gv->ptr_array_len : 0;
        gv->src_ptr_array = malloc((size_t)(np ? np : 1) * sizeof(void *));
        gv->dst_ptr_array = malloc((size_t)(np ? np : 1) * sizeof(void *));
        for (int i = 0; i < np; i++) {
            size_t n = gv->bytes > 0 ? (size_t)gv->bytes : 0;
            /* Local pieces one after another (a get's must not overlap). */
            char *local = NULL;
            if (n <= LOC && lused + n <= LOC) {
                local = (kind == 1 ? ldst : lsrc) + lused;
                lused += n;
            } else {
                ok_local = 0;
            }
            char *remote = reg + (n <= reg_len ? u16(in) % (reg_len - n + 1) : 0);
            if (bend & 64 && (u8(in) & 3) == 0) {
                uint8_t how = u8(in);
                remote = how % 3 == 0 ? reg + reg_len - (n <= reg_len ? n : 0) + 1 + how / 3 % 8
                       : how % 3 == 1 ? reg - 1 - how / 3 % 64 : NULL;
            }
            if (bend & 128 && (u8(in) & 7) == 0)
                local = NULL;
            gv->src_ptr_array[i] = kind == 1 ? remote : local;
            gv->dst_ptr_array[i] = kind == 1 ? local : remote;
        }
    }
    /* A vector put's or accumulate's pieces may overlap at the target; they
     * are applied in order, as the model does. */
    int want = must_stop_vector(&v);
    int stopped = 0, other = 0;
    for (int d = 0; d < nd; d++)
        for (int i = 0; i < v.iov[d].ptr_array_len; i++)
            other |= in_other_alloc(kind == 1 ? v.iov[d].src_ptr_array[i]
                                              : v.iov[d].dst_ptr_array[i]);
    n_skipped += other || (want == 0 && !ok_local);
    if (!other && !(want == 0 && !ok_local)) {
        if (trace) {
            printf("%s%s len %d type %d proc %d want %d bytes %d\n", kind == 0 ? "Put" : kind
                   == 1 ? "Get" : "Acc", contig ? "" : "V", v.len, v.type, v.proc, want,
                   nd ? v.iov[0].bytes : -1);
            fflush(stdout);
        }
        stopped = stops(issue_vector, &v);
        if (stopped != want)
            fail(w, "%s%s %s (%d descriptors, bytes %d, type %d, proc %d)",
                 kind == 0 ? "Put" : kind == 1 ? "Get" : "Acc", contig ? "" : "V",
                 stopped ? "stopped on arguments it takes" : "went on after bad arguments",
                 v.len, nd ? v.iov[0].bytes : -1, v.type, v.proc);
        else if (!stopped)
            for (int d = 0; d < nd; d++) {
                armci_giov_t *gv = &v.iov[d];
                for (int i = 0; i < gv->ptr_array_len && gv->bytes > 0; i++) {
                    size_t n = (size_t)gv->bytes;
                    if (kind == 1)
                        memcpy(lshadow + ((char *)gv->dst_ptr_array[i] - ldst),
                               shadow + ((char *)gv->src_ptr_array[i] - reg), n);
                    else if (kind == 0)
                        memcpy(shadow + ((char *)gv->dst_ptr_array[i] - reg),
                               gv->src_ptr_array[i], n);
                    else
                        model_acc(v.type, v.scalep, shadow + ((char *)gv->dst_ptr_array[i] - reg),
                                  gv->src_ptr_array[i], n);
                }
            }
    }
    for (int d = 0; d < nd; d++) {
        free(v.iov[d].src_ptr_array);
        free(v.iov[d].dst_ptr_array);
    }
    free(v.iov);
    return stopped;
}

/* ---- read-modify-write ---------------------------------------------------------- */
typedef struct rcall {
    int op, proc, value;
    void *ploc, *prem;
} rcall_t;

static void issue_rmw(void *cv)
{
    rcall_t *r = cv;
    ARMCI_Rmw(r->op, r->ploc, r->prem, r->value, r->proc);
}

static int run_rmw(world_t *w, input_t *in)
{
    rcall_t r;
    uint8_t f = u8(in), g = u8(in);
    int bend = u8(in) < 64 ? g : 0;
    r.op = f % 4;
    if (bend & 1)
        r.op = (int)(int8_t)u8(in);
    const int is_long = r.op == ARMCI_FETCH_AND_ADD_LONG || r.op == ARMCI_SWAP_LONG;
    const size_t n = is_long ? sizeof(long) : sizeof(int);
    size_t off = (u16(in) % (reg_len / n)) * n;
    if (bend & 2)                        /* any alignment, up to the end */
        off = u16(in) % reg_len;
    char *prem = reg + off;
    if (bend & 4) {
        uint8_t how = u8(in);
        prem = how % 3 == 0 ? reg + reg_len - 1 - how / 3 % 8 : how % 3 == 1 ? reg - 8 : NULL;
    }
    long *res = malloc(sizeof(long));
    r.value = (int)(u16(in) | (uint32_t)u16(in) << 16);
    long swap_in = is_long ? (long)r.value * 65537 : r.value;
    if (is_long)
        *res = swap_in;
    else
        *(int *)res = (int)swap_in;
    r.ploc = (bend & 8) && (u8(in) & 1) ? NULL : res;
    r.prem = prem;
    r.proc = (bend & 16) ? (int)(int8_t)u8(in) : 0;
    int want = r.proc != 0 || !r.ploc || !prem || r.op < 0 || r.op > 3 ||
               ((uintptr_t)prem & (n - 1)) || prem < reg || prem >= reg + reg_len ||
               n > (size_t)(reg + reg_len - prem);
    if (in_other_alloc(prem)) {
        n_skipped++;
        free(res);
        return 0;
    }
    if (trace) {
        printf("Rmw op %d prem %+td proc %d want %d\n", r.op, prem ? prem - reg : 0, r.proc,
               want);
        fflush(stdout);
    }
    int stopped = stops(issue_rmw, &r);
    if (stopped != want) {
        fail(w, "Rmw %s (op %d, prem at %+td, proc %d)",
             stopped ? "stopped on arguments it takes" : "went on after bad arguments", r.op,
             prem ? prem - reg : 0, r.proc);
    } else if (!stopped) {
        size_t o = (size_t)(prem - reg);
        long old = 0, got = 0;
        if (is_long) {
            memcpy(&old, shadow + o, sizeof old);
            long nv = r.op == ARMCI_SWAP_LONG ? swap_in
                    : (long)((unsigned long)old + (unsigned long)(long)r.value);
            memcpy(shadow + o, &nv, sizeof nv);
            got = *res;
        } else {
            int o32, nv;
            memcpy(&o32, shadow + o, sizeof o32);
            nv = r.op == ARMCI_SWAP ? (int)swap_in
               : (int)((unsigned)o32 + (unsigned)r.value);
            memcpy(shadow + o, &nv, sizeof nv);
            old = o32;
            got = *(int *)res;
        }
        if (got != old)
            fail(w, "Rmw op %d returned %ld, the word held %ld", r.op, got, old);
    }
    free(res);
    return stopped;
}

/* ---- one input ------------------------------------------------------------------ */
static void reset(uint8_t seed)
{
    for (size_t k = 0; k < reg_len; k++)
        reg[k] = (char)(k * 13 + seed);
    memcpy(shadow, reg, reg_len);
    memset(ldst, 0x5A, LOC);
    memset(lshadow, 0x5A, LOC);
    memset(guard, 0xA5, GUARD);
}

static void compare(world_t *w, const char *after)
{
    if (memcmp(reg, shadow, reg_len)) {
        size_t b = 0;
        while (reg[b] == (char)shadow[b])
            b++;
        fail(w, "after %s the allocation differs from its model at byte %zu", after, b);
    }
    if (memcmp(ldst, lshadow, LOC))
        fail(w, "after %s the local destination differs from its model", after);
    for (size_t k = 0; k < GUARD; k++)
        if ((unsigned char)guard[k] != 0xA5) {
            fail(w, "after %s another allocation was written", after);
            break;
        }
}

static long run_one(const uint8_t *data, size_t size, char *why, size_t whylen)
{
    static world_t w;
    static const char *names[] = { "PutS", "GetS", "AccS", "Put", "Get", "Acc", "PutV",
                                   "GetV", "AccV", "Rmw" };
    setup();
    memset(&w, 0, sizeof w);
    input_t in = { data, size };
    reset(u8(&in));
    for (int k = 0; k < MAX_CALLS && in.n && !w.failed; k++) {
        /* 252..255 for Rmw: the inputs made before it (% 9) keep their calls
         * unless they held one of these bytes. */
        uint8_t b = u8(&in);
        int op = b >= 252 ? 9 : b % 9;
        int stopped = op < 3 ? run_strided(&w, &in, op)
                    : op < 9 ? run_vector(&w, &in, op % 3, op < 6) : run_rmw(&w, &in);
        if (stopped) {
            reset(u8(&in));     /* the program would have ended here */
            continue;
        }
        compare(&w, names[op]);
    }
    if (w.failed)
        snprintf(why, whylen, "%s", w.why);
    return w.failed;
}

FUZZ_MAIN("fuzz.api", 2000, 2048)
