/* The timed phase: updates grouped by owner, sent `batch` at a time as one
 * vector accumulate (ARMCI_NbAccV, one 8-byte segment per update), with
 * `window` accumulates in flight per owner; or, in single mode, one blocking
 * 8-byte accumulate per update.  Then the verification of one block. */
#include <stdlib.h>
#include <string.h>
#include "ra.h"

/* One batch being filled or in flight: the update values, the source
 * pointer of each (fixed: &val[j]) and its destination in the owner's block. */
typedef struct ra_buf {
    armci_giov_t iov;
    armci_hdl_t hdl;
    int busy;
    int n;
    uint64_t *val;
    void **src;
    void **dst;
} ra_buf;

/* Per owner: `window` batches used in turn; `cur` is being filled and is
 * never in flight. */
typedef struct ra_queue {
    ra_buf *bufs;
    int cur;
} ra_queue;

typedef struct ra_ctx {
    ra_queue *q;
    ra_buf *bufs;
    uint64_t *vals;
    void **ptrs;
    int np, batch, window;
    long calls;
} ra_ctx;

static long ra_one = 1;

static void ctx_free(ra_ctx *c)
{
    free(c->ptrs);
    free(c->vals);
    free(c->bufs);
    free(c->q);
}

static int ctx_init(ra_ctx *c, int np, int batch, int window)
{
    size_t nbuf = (size_t)np * (size_t)window, b = (size_t)batch;
    memset(c, 0, sizeof *c);
    c->np = np;
    c->batch = batch;
    c->window = window;
    c->q = calloc((size_t)np, sizeof *c->q);
    c->bufs = calloc(nbuf, sizeof *c->bufs);
    c->vals = malloc(nbuf * b * sizeof *c->vals);
    c->ptrs = malloc(2 * nbuf * b * sizeof *c->ptrs);
    if (!c->q || !c->bufs || !c->vals || !c->ptrs) {
        ctx_free(c);
        return -1;
    }
    for (size_t i = 0; i < nbuf; i++) {
        ra_buf *bf = &c->bufs[i];
        bf->val = c->vals + i * b;
        bf->src = c->ptrs + 2 * i * b;
        bf->dst = bf->src + b;
        for (size_t j = 0; j < b; j++)
            bf->src[j] = &bf->val[j];
    }
    for (int p = 0; p < np; p++)
        c->q[p].bufs = c->bufs + (size_t)p * (size_t)window;
    return 0;
}

/* Sends owner p's current batch and makes the next one free to fill. */
static void send_batch(ra_ctx *c, int p)
{
    ra_queue *q = &c->q[p];
    ra_buf *bf = &q->bufs[q->cur];
    if (bf->n == 0)
        return;
    bf->iov.src_ptr_array = bf->src;
    bf->iov.dst_ptr_array = bf->dst;
    bf->iov.bytes = (int)sizeof(uint64_t);
    bf->iov.ptr_array_len = bf->n;
    ARMCI_INIT_HANDLE(&bf->hdl);
    ARMCI_NbAccV(ARMCI_ACC_LNG, &ra_one, &bf->iov, 1, p, &bf->hdl);
    bf->busy = 1;
    bf->n = 0;
    c->calls++;
    q->cur = q->cur + 1 == c->window ? 0 : q->cur + 1;
    ra_buf *next = &q->bufs[q->cur];
    if (next->busy) {
        ARMCI_Wait(&next->hdl);
        next->busy = 0;
    }
}

static void drain(ra_ctx *c)
{
    for (int p = 0; p < c->np; p++)
        send_batch(c, p);
    for (size_t i = 0; i < (size_t)c->np * (size_t)c->window; i++) {
        if (c->bufs[i].busy) {
            ARMCI_Wait(&c->bufs[i].hdl);
            c->bufs[i].busy = 0;
        }
    }
}

/* Whether the time bound has passed; looked at every RA_CHECK updates.  The
 * partly filled batches of a run stopped early are still sent. */
#define RA_CHECK 256
static int past(const ra_run *r, uint64_t u)
{
    return r->deadline > 0 && u % RA_CHECK == 0 && MPI_Wtime() > r->deadline;
}

static long update_vector(const ra_run *r, uint64_t ran, uint64_t count, uint64_t *done)
{
    ra_ctx c;
    if (ctx_init(&c, r->lay->np, r->o->batch, r->o->window) != 0)
        return -1;
    const ra_layout *lay = r->lay;
    uint64_t u = 0;
    for (; u < count && !past(r, u); u++) {
        ran = ra_next(ran);
        uint64_t off;
        int p = ra_owner(lay, ran & lay->mask, &off);
        ra_queue *q = &c.q[p];
        ra_buf *bf = &q->bufs[q->cur];
        bf->val[bf->n] = ran;
        bf->dst[bf->n] = (char *)r->base[p] + off * sizeof(uint64_t);
        if (++bf->n == c.batch)
            send_batch(&c, p);
    }
    drain(&c);
    *done = u;
    long calls = c.calls;
    ctx_free(&c);
    return calls;
}

static long update_single(const ra_run *r, uint64_t ran, uint64_t count, uint64_t *done)
{
    const ra_layout *lay = r->lay;
    uint64_t u = 0;
    for (; u < count && !past(r, u); u++) {
        ran = ra_next(ran);
        uint64_t off, val = ran;
        int p = ra_owner(lay, ran & lay->mask, &off);
        ARMCI_Acc(ARMCI_ACC_LNG, &ra_one, &val, (char *)r->base[p] + off * sizeof(uint64_t),
                  (int)sizeof(uint64_t), p);
    }
    *done = u;
    return (long)u;
}

long ra_update(const ra_run *r, int64_t start, uint64_t count, uint64_t *done)
{
    uint64_t ran = ra_starts(start);
    *done = 0;
    if (r->o->mode == RA_MODE_SINGLE)
        return update_single(r, ran, count, done);
    return update_vector(r, ran, count, done);
}

int64_t ra_verify(const ra_layout *l, const uint64_t *mine, int me, const uint64_t *start,
                  const uint64_t *done)
{
    uint64_t first = ra_first(l, me), n = ra_count(l, me);
    uint64_t *want = malloc((size_t)n * sizeof *want);
    if (!want)
        return -1;
    for (uint64_t j = 0; j < n; j++)
        want[j] = first + j;
    uint64_t ran = 1, at = 0; /* ran is stream element `at` */
    for (int p = 0; p < l->np; p++) {
        if (at != start[p]) {     /* only after a run stopped by the time bound */
            at = start[p];
            ran = ra_starts((int64_t)at);
        }
        for (uint64_t u = 0; u < done[p]; u++) {
            ran = ra_next(ran);
            uint64_t j = (ran & l->mask) - first;
            if (j < n)
                want[j] += ran;
        }
        at += done[p];
    }
    int64_t errors = 0;
    for (uint64_t j = 0; j < n; j++)
        errors += want[j] != mine[j];
    free(want);
    return errors;
}
