/* One handler per operation, chosen from a const table by the request's
 * operation. Each serves the request in the slot at the head of its
 * client's queue and returns a status the caller always turns into the
 * reply, or the refusal (srv_slots.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "server/srv_int.h"
#include "shm/arm_shm_sync.h"
#include "util/arm_acc.h"

/* Refuses the request with the reason fmt says. */
static arm_status_t bad(srv_out_t *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->why, SRV_WHY_MAX, fmt, ap);
    va_end(ap);
    return ARM_ERR_INVALID_ARG;
}

static arm_status_t check_acc(int type, uint64_t len, srv_out_t *out)
{
    size_t es = arm_acc_elem_size(type);
    if (!es)
        return bad(out, "accumulate type %d is not one of the %d types", type, ARM_ACC_NTYPES);
    if (len % es)
        return bad(out, "accumulate of %llu bytes is not a whole number of %zu-byte elements",
                   (unsigned long long)len, es);
    return ARM_OK;
}

static arm_status_t acc_lock_of(struct arm_server *s, int target, arm_shm_mutex_t **lock,
                                srv_out_t *out)
{
    if (target < 0 || target >= s->p.nproc || !s->p.acc_lock[target]) {
        snprintf(out->why, SRV_WHY_MAX, "accumulate target rank %d is not a rank of node %d",
                 target, s->p.node);
        return ARM_ERR_INVALID_ARG;
    }
    *lock = s->p.acc_lock[target];
    return ARM_OK;
}

static int acc_held(const struct arm_server *s, int target)
{
    return target >= 0 && target < s->p.nproc && s->acc_owner[target];
}

int srv_acc_waits(const struct arm_server *s, const arm_srv_req_t *r, const char *data,
                  size_t dlen)
{
    if (!s->acc_owner)
        return 0;
    if (r->op == ARM_SRV_ACC || r->op == ARM_SRV_ACCSEG)
        return acc_held(s, r->target);
    if (r->op != ARM_SRV_BATCH)
        return 0;
    /* A malformed batch is refused by its handler, not here. */
    size_t off = 0;
    for (unsigned i = 0; i < r->nseg && dlen - off >= sizeof(arm_srv_batch_ent_t); i++) {
        arm_srv_batch_ent_t e;
        memcpy(&e, data + off, sizeof e);
        if (e.op == ARM_SRV_ACC && acc_held(s, e.target))
            return 1;
        size_t step = sizeof e + ((e.len + 7) & ~(size_t)7);
        if (step > dlen - off)
            break;
        off += step;
    }
    return 0;
}

static arm_status_t h_put(struct arm_server *s, srv_slot_t *sl, srv_out_t *out)
{
    const arm_srv_req_t *r = &sl->req;
    char *p = srv_addr(s, r->raddr, r->len, out->why);
    if (!p)
        return ARM_ERR_INVALID_ARG;
    if (r->len > sl->dlen)
        return bad(out, "put of %u bytes carries %u", r->len, sl->dlen);
    if (r->len && p != sl->dptr)   /* no payload: no buffer either */
        memcpy(p, sl->dptr, r->len);
    return ARM_OK;
}

static arm_status_t h_acc(struct arm_server *s, srv_slot_t *sl, srv_out_t *out)
{
    const arm_srv_req_t *r = &sl->req;
    arm_shm_mutex_t *lock;
    if (srv_acc_waits(s, r, sl->dptr, sl->dlen))
        return ARM_INPROGRESS;   /* an origin holds the lock: waits at the head */
    char *p = srv_addr(s, r->raddr, r->len, out->why);
    if (!p)
        return ARM_ERR_INVALID_ARG;
    if (r->len > sl->dlen)
        return bad(out, "accumulate of %u bytes carries %u", r->len, sl->dlen);
    arm_status_t st = check_acc(r->sub, r->len, out);
    if (st == ARM_OK)
        st = acc_lock_of(s, r->target, &lock, out);
    if (st != ARM_OK)
        return st;
    arm_acc_apply_locked(lock, s->p.acc_stride, r->sub, r->scale, p, sl->dptr, r->len);
    return ARM_OK;
}

/* One entry of a segment table: a piece (count 1), or a run of count
 * pieces stride apart (ARM_SRV_SEG_RUN, decision 077); span: the bytes from
 * the first piece's start to the last one's end. */
typedef struct seg_ent {
    uint64_t raddr, len, stride, count, span;
} seg_ent_t;

/* The entry at tab[*i] (advancing *i past it); 0 with out->why set when it
 * is malformed. */
static int seg_next(const arm_srv_seg_t *tab, unsigned n, unsigned *i, seg_ent_t *e,
                    srv_out_t *out)
{
    arm_srv_seg_t a = tab[*i];
    e->raddr = a.raddr;
    if (!(a.len & ARM_SRV_SEG_RUN)) {
        e->len = e->span = a.len;
        e->stride = 0;
        e->count = 1;
        *i += 1;
        return 1;
    }
    if (*i + 1 >= n) {
        bad(out, "run at segment entry %u lacks its stride and count", *i);
        return 0;
    }
    e->len = a.len & ~ARM_SRV_SEG_RUN;
    e->stride = tab[*i + 1].raddr;
    e->count = tab[*i + 1].len;
    if (e->len == 0 || e->stride == 0 || e->count < 2 ||
        __builtin_mul_overflow(e->count - 1, e->stride, &e->span) ||
        __builtin_add_overflow(e->span, e->len, &e->span) ||
        __builtin_add_overflow(e->raddr, e->span, &(uint64_t){ 0 })) {
        bad(out, "run at segment entry %u (%llu pieces of %llu bytes, stride %llu) is "
            "malformed", *i, (unsigned long long)e->count, (unsigned long long)e->len,
            (unsigned long long)e->stride);
        return 0;
    }
    *i += 2;
    return 1;
}

/* What a segment table stands for: its pieces, their bytes, and how many
 * of its entries are runs. */
typedef struct seg_sum {
    size_t pieces, runs;
    uint64_t bytes;
} seg_sum_t;

/* The segment table of a segmented request, checked against its payload:
 * nseg entries, then (puts and accumulates) their data packed in order. An
 * accumulate's pieces must be whole elements of its type. */
static arm_status_t seg_table(const srv_slot_t *sl, int with_data, const arm_srv_seg_t **tab,
                              seg_sum_t *sum, srv_out_t *out)
{
    const arm_srv_req_t *r = &sl->req;
    size_t need = (size_t)r->nseg * sizeof(arm_srv_seg_t);
    if (need > sl->dlen)
        return bad(out, "segment table of %u entries does not fit %u bytes", r->nseg, sl->dlen);
    *tab = (const arm_srv_seg_t *)(const void *)sl->dptr;
    uint64_t total = 0;
    size_t n = 0, runs = 0;
    for (unsigned i = 0; i < r->nseg;) {
        seg_ent_t e;
        uint64_t b;
        if (!seg_next(*tab, r->nseg, &i, &e, out))
            return ARM_ERR_INVALID_ARG;
        if (r->op == ARM_SRV_ACCSEG) {
            arm_status_t st = check_acc(r->sub, e.len, out);
            if (st != ARM_OK)
                return st;
        }
        if (__builtin_mul_overflow(e.len, e.count, &b) || __builtin_add_overflow(total, b, &total) ||
            total > UINT32_MAX)
            return bad(out, "segments of more than %u bytes", (unsigned)UINT32_MAX);
        n += (size_t)e.count;
        runs += e.count > 1;
    }
    size_t off = arm_srv_seg_data_off(r->nseg);
    if (with_data && (off > sl->dlen || total != sl->dlen - off))
        return bad(out, "segments of %llu bytes with %zu bytes of data",
                   (unsigned long long)total, off > sl->dlen ? 0 : sl->dlen - off);
    *sum = (seg_sum_t){ n, runs, total };
    return ARM_OK;
}

static arm_status_t h_segwrite(struct arm_server *s, srv_slot_t *sl, srv_out_t *out)
{
    const arm_srv_req_t *r = &sl->req;
    const arm_srv_seg_t *tab = NULL;
    arm_shm_mutex_t *lock = NULL;
    seg_sum_t sum;
    if (srv_acc_waits(s, r, sl->dptr, sl->dlen))
        return ARM_INPROGRESS;
    arm_status_t st = seg_table(sl, 1, &tab, &sum, out);
    if (st == ARM_OK && r->op == ARM_SRV_ACCSEG)
        st = acc_lock_of(s, r->target, &lock, out);
    if (st != ARM_OK)
        return st;
    const char *data = sl->dptr ? sl->dptr + arm_srv_seg_data_off(r->nseg) : NULL;
    if (lock)
        arm_acc_lock(lock, s->p.acc_stride, ARM_ACC_ALL);
    size_t off = 0;
    for (unsigned i = 0; i < r->nseg && st == ARM_OK;) {
        seg_ent_t e;
        seg_next(tab, r->nseg, &i, &e, out);   /* checked by seg_table */
        char *dst = srv_addr(s, e.raddr, e.span, out->why);
        if (!dst) {
            st = ARM_ERR_INVALID_ARG;
            break;
        }
        for (uint64_t k = 0; k < e.count; k++, dst += e.stride, off += e.len) {
            if (!lock)
                memcpy(dst, data + off, e.len);
            else
                arm_acc_apply(r->sub, r->scale, dst, data + off, e.len);
        }
    }
    if (lock)
        arm_acc_unlock(lock, s->p.acc_stride, ARM_ACC_ALL);
    return st;
}

static arm_status_t h_get(struct arm_server *s, srv_slot_t *sl, srv_out_t *out)
{
    const arm_srv_req_t *r = &sl->req;
    char *p = srv_addr(s, r->raddr, r->len, out->why);
    if (!p)
        return ARM_ERR_INVALID_ARG;
    out->one.buf = p;
    out->one.len = r->len;
    out->iov = &out->one;
    out->iovcnt = 1;
    out->bytes = r->len;
    return ARM_OK;
}

/* A segmented get whose table has runs: more pieces than entries, so the
 * reply cannot reuse the table in place. Small pieces are copied into one
 * buffer (as srv_reply would, decision 073); larger ones get a gather list.
 * Either is the reply's, freed once it is sent (out->owned). */
static arm_status_t getseg_runs(struct arm_server *s, const arm_srv_seg_t *tab, unsigned nseg,
                                const seg_sum_t *sum, srv_out_t *out)
{
    size_t pieces = sum->pieces;
    uint64_t bytes = sum->bytes;
    int pack = bytes < pieces * s->p.reply_pack_below;
    char *buf = malloc(pack ? (size_t)bytes + 1 : pieces * sizeof(arm_net_iov_t));
    if (!buf)
        return bad(out, "no memory for a reply of %zu pieces", pieces);
    arm_net_iov_t *iov = (arm_net_iov_t *)(void *)buf;
    size_t at = 0, k = 0;
    for (unsigned i = 0; i < nseg;) {
        seg_ent_t e;
        seg_next(tab, nseg, &i, &e, out);   /* checked by seg_table */
        char *q = srv_addr(s, e.raddr, e.span, out->why);
        if (!q) {
            free(buf);
            return ARM_ERR_INVALID_ARG;
        }
        for (uint64_t c = 0; c < e.count; c++, q += e.stride) {
            if (pack) {
                memcpy(buf + at, q, e.len);
                at += e.len;
            } else {
                iov[k++] = (arm_net_iov_t){ q, (size_t)e.len };
            }
        }
    }
    out->owned = buf;
    if (pack) {
        out->one = (arm_net_iov_t){ buf, (size_t)bytes };
        out->iov = &out->one;
        out->iovcnt = 1;
    } else {
        out->iov = iov;
        out->iovcnt = pieces;
    }
    out->bytes = bytes;
    return ARM_OK;
}

static arm_status_t h_getseg(struct arm_server *s, srv_slot_t *sl, srv_out_t *out)
{
    const arm_srv_req_t *r = &sl->req;
    const arm_srv_seg_t *tab = NULL;
    seg_sum_t sum;
    arm_status_t st = seg_table(sl, 0, &tab, &sum, out);
    if (st != ARM_OK)
        return st;
    if (sum.runs)
        return getseg_runs(s, tab, r->nseg, &sum, out);
    /* Each 16-byte segment entry becomes, in place, the 16-byte iov entry
     * that sends the segment straight from shared memory. */
    arm_net_iov_t *iov = (arm_net_iov_t *)(void *)sl->dptr;
    for (unsigned i = 0; i < r->nseg; i++) {
        uint64_t a = tab[i].raddr, n = tab[i].len;
        char *q = srv_addr(s, a, n, out->why);
        if (!q)
            return ARM_ERR_INVALID_ARG;
        iov[i].buf = q;
        iov[i].len = (size_t)n;
    }
    out->iov = iov;
    out->iovcnt = r->nseg;
    out->bytes = sum.bytes;
    return ARM_OK;
}

static arm_status_t h_rmw(struct arm_server *s, srv_slot_t *sl, srv_out_t *out)
{
    const arm_srv_req_t *r = &sl->req;
    if (r->sub > ARM_SRV_CAS64)
        return bad(out, "read-modify-write operation %d is not one of the %d", r->sub,
                   ARM_SRV_CAS64 + 1);
    size_t size = (r->sub & 1) ? 8 : 4;
    char *p = srv_addr(s, r->raddr, size, out->why);
    if (!p)
        return ARM_ERR_INVALID_ARG;
    if (r->raddr % size)
        return bad(out, "read-modify-write address %#llx is not %zu-byte aligned",
                   (unsigned long long)r->raddr, size);
    switch (r->sub) {
    case ARM_SRV_FADD32: out->value = arm_shm_fadd_int((int *)(void *)p, (int)r->operand); break;
    case ARM_SRV_FADD64: out->value = arm_shm_fadd_long((long *)(void *)p, (long)r->operand); break;
    case ARM_SRV_SWAP32: out->value = arm_shm_swap_int((int *)(void *)p, (int)r->operand); break;
    case ARM_SRV_SWAP64: out->value = arm_shm_swap_long((long *)(void *)p, (long)r->operand); break;
    case ARM_SRV_CAS32:
        out->value = arm_shm_cas_int((int *)(void *)p, (int)r->compare, (int)r->operand);
        break;
    default:
        out->value = arm_shm_cas_long((long *)(void *)p, (long)r->compare, (long)r->operand);
        break;
    }
    return ARM_OK;
}

static arm_status_t mutex_of(struct arm_server *s, srv_slot_t *sl, arm_shm_mutex_t **m,
                             srv_out_t *out)
{
    char *p = srv_addr(s, sl->req.raddr, sizeof(arm_shm_mutex_t), out->why);
    *m = (arm_shm_mutex_t *)(void *)p;
    if (p && sl->req.raddr % _Alignof(arm_shm_mutex_t))
        return bad(out, "mutex address %#llx is not %zu-byte aligned",
                   (unsigned long long)sl->req.raddr, (size_t)_Alignof(arm_shm_mutex_t));
    return p ? ARM_OK : ARM_ERR_INVALID_ARG;
}

static arm_status_t h_lock(struct arm_server *s, srv_slot_t *sl, srv_out_t *out)
{
    arm_shm_mutex_t *m;
    arm_status_t st = mutex_of(s, sl, &m, out);
    if (st == ARM_OK && !arm_shm_mutex_trylock(m))
        return ARM_INPROGRESS;   /* held: waits at the head, retried */
    return st;
}

static arm_status_t h_trylock(struct arm_server *s, srv_slot_t *sl, srv_out_t *out)
{
    arm_shm_mutex_t *m;
    arm_status_t st = mutex_of(s, sl, &m, out);
    if (st == ARM_OK)
        out->value = arm_shm_mutex_trylock(m);
    return st;
}

static arm_status_t h_unlock(struct arm_server *s, srv_slot_t *sl, srv_out_t *out)
{
    arm_shm_mutex_t *m;
    arm_status_t st = mutex_of(s, sl, &m, out);
    if (st == ARM_OK)
        arm_shm_mutex_unlock(m);
    return st;
}

/* The accumulate lock of rank target for an accumulate done at the origin
 * (decision 060): granted when neither an origin nor a same-node process
 * holds it, else the request waits at the head of its client's queue. */
static arm_status_t h_acclock(struct arm_server *s, srv_slot_t *sl, srv_out_t *out)
{
    const arm_srv_req_t *r = &sl->req;
    arm_shm_mutex_t *lock;
    arm_status_t st = acc_lock_of(s, r->target, &lock, out);
    if (st != ARM_OK)
        return st;
    if (!s->acc_owner && !(s->acc_owner = calloc((size_t)s->p.nproc, sizeof *s->acc_owner))) {
        snprintf(out->why, SRV_WHY_MAX, "no memory for the accumulate lock owners of %d ranks",
                 s->p.nproc);
        return ARM_ERR_NO_MEMORY;
    }
    if (s->acc_owner[r->target] || !arm_acc_trylock(lock, s->p.acc_stride, ARM_ACC_ALL))
        return ARM_INPROGRESS;
    s->acc_owner[r->target] = r->src + 1;
    return ARM_OK;
}

static arm_status_t h_accunlock(struct arm_server *s, srv_slot_t *sl, srv_out_t *out)
{
    const arm_srv_req_t *r = &sl->req;
    arm_shm_mutex_t *lock;
    arm_status_t st = acc_lock_of(s, r->target, &lock, out);
    if (st != ARM_OK)
        return st;
    if (!s->acc_owner || s->acc_owner[r->target] != r->src + 1)
        return bad(out, "rank %d lets go of the accumulate lock of rank %d, which it does "
                   "not hold", r->src, r->target);
    s->acc_owner[r->target] = 0;
    arm_acc_unlock(lock, s->p.acc_stride, ARM_ACC_ALL);
    return ARM_OK;
}

static arm_status_t h_fence(struct arm_server *s, srv_slot_t *sl, srv_out_t *out)
{
    /* Everything before it in the client's queue is served: reply. */
    (void)s, (void)sl, (void)out;
    return ARM_OK;
}

static arm_status_t h_batch(struct arm_server *s, srv_slot_t *sl, srv_out_t *out)
{
    const arm_srv_req_t *r = &sl->req;
    const char *p = sl->dptr, *end = p ? p + sl->dlen : p;   /* no payload: no buffer */
    out->reply = (r->sub & 1) != 0;
    if (srv_acc_waits(s, r, sl->dptr, sl->dlen))
        return ARM_INPROGRESS;   /* before any entry is applied */
    for (unsigned i = 0; i < r->nseg; i++) {
        arm_srv_batch_ent_t e;
        if ((size_t)(end - p) < sizeof e)
            return bad(out, "batch entry %u of %u runs past the payload", i, r->nseg);
        memcpy(&e, p, sizeof e);
        p += sizeof e;
        if ((size_t)(end - p) < e.len)
            return bad(out, "batch entry %u of %u bytes runs past the payload", i, e.len);
        char *dst = srv_addr(s, e.raddr, e.len, out->why);
        if (!dst)
            return ARM_ERR_INVALID_ARG;
        if (e.op == ARM_SRV_ACC) {
            arm_shm_mutex_t *lock;
            arm_status_t st = check_acc(e.type, e.len, out);
            if (st == ARM_OK)
                st = acc_lock_of(s, e.target, &lock, out);
            if (st != ARM_OK)
                return st;
            arm_acc_apply_locked(lock, s->p.acc_stride, e.type, e.scale, dst, p, e.len);
        } else if (e.op == ARM_SRV_PUT) {
            memcpy(dst, p, e.len);
        } else {
            return bad(out, "batch entry %u has operation %d", i, e.op);
        }
        /* The last entry's padding may be missing: never step past the end. */
        size_t step = (e.len + 7) & ~(size_t)7;
        p += step < (size_t)(end - p) ? step : (size_t)(end - p);
    }
    return ARM_OK;
}

static arm_status_t h_reg(struct arm_server *s, srv_slot_t *sl, srv_out_t *out)
{
    char name[96];
    size_t n = sl->dlen < sizeof name - 1 ? sl->dlen : sizeof name - 1;
    memcpy(name, sl->dptr, n);
    name[n] = '\0';
    srv_seg_t g;
    arm_status_t st = srv_seg_map(s, name, (size_t)sl->req.operand, &g);
    if (st != ARM_OK) {
        snprintf(out->why, SRV_WHY_MAX, "cannot map and register segment %s of %lld bytes: %s",
                 name, (long long)sl->req.operand, arm_status_str(st));
        return st;
    }
    size_t klen = s->p.slot_size;
    st = s->x->rkey_pack(s->xctx, g.reg, sl->data, &klen);
    if (st != ARM_OK) {
        srv_seg_remove(s, (uint64_t)(uintptr_t)g.base);
        snprintf(out->why, SRV_WHY_MAX, "cannot pack the remote key of segment %s: %s", name,
                 arm_status_str(st));
        return st;
    }
    out->one.buf = sl->data;
    out->one.len = klen;
    out->value = (int64_t)(uintptr_t)g.base;
    out->iov = &out->one;
    out->iovcnt = 1;
    out->bytes = klen;
    return ARM_OK;
}

static arm_status_t h_unreg(struct arm_server *s, srv_slot_t *sl, srv_out_t *out)
{
    if (srv_seg_remove(s, sl->req.raddr) != ARM_OK)
        return bad(out, "no registered segment starts at %#llx",
                   (unsigned long long)sl->req.raddr);
    return ARM_OK;
}

const srv_handler_t srv_handlers[SRV_NOPS] = {
    [ARM_SRV_PUT]     = { "put",           h_put,     0 },
    [ARM_SRV_GET]     = { "get",           h_get,     1 },
    [ARM_SRV_ACC]     = { "accumulate",    h_acc,     0 },
    [ARM_SRV_PUTSEG]  = { "segmented put", h_segwrite,  0 },
    [ARM_SRV_GETSEG]  = { "segmented get", h_getseg,  1 },
    [ARM_SRV_ACCSEG]  = { "segmented acc", h_segwrite,  0 },
    [ARM_SRV_RMW]     = { "rmw",           h_rmw,     1 },
    [ARM_SRV_LOCK]    = { "lock",          h_lock,    1 },
    [ARM_SRV_UNLOCK]  = { "unlock",        h_unlock,  0 },
    [ARM_SRV_FENCE]   = { "fence",         h_fence,   1 },
    [ARM_SRV_REG]     = { "register",      h_reg,     1 },
    [ARM_SRV_UNREG]   = { "unregister",    h_unreg,   1 },
    [ARM_SRV_TRYLOCK] = { "trylock",       h_trylock, 1 },
    [ARM_SRV_BATCH]   = { "batch",         h_batch,   0 },
    [ARM_SRV_ACCLOCK] = { "acc lock",      h_acclock, 1 },
    [ARM_SRV_ACCUNLOCK] = { "acc unlock",  h_accunlock, 0 },
};

const srv_handler_t *srv_handler_of(unsigned op)
{
    return op < SRV_NOPS && srv_handlers[op].fn ? &srv_handlers[op] : NULL;
}

int srv_wants_reply(const arm_srv_req_t *r)
{
    const srv_handler_t *h = srv_handler_of(r->op);
    return h && (h->replies || (r->op == ARM_SRV_BATCH && (r->sub & 1)));
}
