#define _POSIX_C_SOURCE 200809L
#include "server/arm_server.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "server/arm_srv_proto.h"
#include "util/arm_acc.h"
#include "util/arm_log.h"

/* DEFERRED: a large put whose data UCX still holds (rendezvous); it is
 * received straight into its destination once it reaches the head. */
enum { SLOT_FREE = 0, SLOT_RECEIVING, SLOT_READY, SLOT_REPLYING, SLOT_DEFERRED };

typedef struct srv_client srv_client_t;
typedef struct srv_slot {
    arm_srv_req_t  req;
    arm_srv_rep_t  rep;
    int            state;
    int            idx;
    char          *dptr;       /* payload: in data[], or UCX's eager buffer */
    uint32_t       dlen;
    arm_net_comp_t comp;
    arm_net_am_msg_t rmsg;     /* DEFERRED: the rendezvous descriptor, or
                                  UCX's eager buffer of a big put           */
    srv_client_t  *cl;
    char          *data;       /* slot_size bytes, preallocated             */
    int            kept;       /* dptr is UCX's buffer of rmsg, kept past
                                  its handler: release it once served      */
} srv_slot_t;

struct srv_client {
    int          rank;
    int          nslots;
    srv_slot_t  *slots;
    int         *free_stack;  /* indices of free slots                     */
    int          nfree;
    int         *order;       /* ring of queued slot indices, arrival order */
    int          qhead, qcount;
    uint32_t     unreturned;  /* freed slots not yet returned as credits    */
    int          blocked;     /* the head is a lock that waits              */
    arm_srv_rep_t  credit_rep;
    arm_net_comp_t credit_comp;
    int          credit_busy;
    struct arm_server *srv;
};

typedef struct srv_seg {
    char *base;
    size_t len;
    arm_net_reg_t *reg;
} srv_seg_t;

struct arm_server {
    arm_server_params_t p;
    arm_net_worker_t *w;
    pthread_t thread;
    _Atomic int stop;
    srv_client_t *clients;
    char *slab;
    size_t slab_bytes;
    srv_seg_t *segs;
    int nsegs, segcap;
    int nblocked;
    arm_server_stats_t stats;
};

static void drain(struct arm_server *s, srv_client_t *cl);

/* ---- registered segments ---------------------------------------------------- */
static srv_seg_t *seg_find(struct arm_server *s, uint64_t addr, uint64_t len)
{
    int lo = 0, hi = s->nsegs - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        srv_seg_t *g = &s->segs[mid];
        if (addr < (uint64_t)(uintptr_t)g->base)
            hi = mid - 1;
        else if (addr - (uint64_t)(uintptr_t)g->base >= g->len)
            lo = mid + 1;
        else
            return addr - (uint64_t)(uintptr_t)g->base + len <= g->len ? g : NULL;
    }
    return NULL;
}

static char *addr_of(struct arm_server *s, const arm_srv_req_t *r, uint64_t raddr,
                     uint64_t len)
{
    if (!seg_find(s, raddr, len ? len : 1)) {
        arm_log(ARM_LOG_ERROR, "server", "request %d from rank %d names [%#llx, +%llu) "
                "outside every registered segment", r->op, r->src,
                (unsigned long long)raddr, (unsigned long long)len);
        return NULL;
    }
    return (char *)(uintptr_t)raddr;
}

static arm_status_t seg_register(struct arm_server *s, const char *name, size_t len,
                                 srv_seg_t *out)
{
    int fd = shm_open(name, O_RDWR, 0600);
    if (fd < 0) {
        arm_log(ARM_LOG_ERROR, "server", "cannot open segment %s", name);
        return ARM_ERR_SYSTEM;
    }
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return ARM_ERR_SYSTEM;
    out->base = p;
    out->len = len;
    arm_status_t st = arm_net_mem_reg(s->p.net, p, len, &out->reg);
    if (st != ARM_OK) {
        munmap(p, len);
        return st;
    }
    if (s->nsegs == s->segcap) {
        int cap = s->segcap ? 2 * s->segcap : 16;
        srv_seg_t *ns = realloc(s->segs, (size_t)cap * sizeof *ns);
        if (!ns) {
            arm_net_mem_dereg(out->reg);
            munmap(p, len);
            return ARM_ERR_NO_MEMORY;
        }
        s->segs = ns;
        s->segcap = cap;
    }
    int pos = s->nsegs;
    while (pos > 0 && s->segs[pos - 1].base > out->base)
        pos--;
    memmove(&s->segs[pos + 1], &s->segs[pos], (size_t)(s->nsegs - pos) * sizeof *out);
    s->segs[pos] = *out;
    s->nsegs++;
    return ARM_OK;
}

static void seg_unregister(struct arm_server *s, uint64_t base)
{
    srv_seg_t *g = seg_find(s, base, 1);
    if (!g || (uint64_t)(uintptr_t)g->base != base)
        return;
    arm_net_mem_dereg(g->reg);
    munmap(g->base, g->len);
    int pos = (int)(g - s->segs);
    memmove(&s->segs[pos], &s->segs[pos + 1], (size_t)(s->nsegs - pos - 1) * sizeof *g);
    s->nsegs--;
}

/* ---- credits and slots ------------------------------------------------------- */
static void credit_sent(arm_net_comp_t *c);

static void send_credits(srv_client_t *cl)
{
    if (cl->credit_busy || cl->unreturned == 0)
        return;
    arm_net_ep_t *ep = arm_net_client_ep(cl->srv->p.net, cl->rank);
    memset(&cl->credit_rep, 0, sizeof cl->credit_rep);
    cl->credit_rep.credits = cl->unreturned;
    cl->credit_rep.node = cl->srv->p.node;
    cl->unreturned = 0;
    arm_net_comp_init(&cl->credit_comp, credit_sent, cl);
    cl->credit_busy = 1;
    arm_status_t st = arm_net_am_send(ep, ARM_SRV_AM_REP, &cl->credit_rep,
                                      sizeof cl->credit_rep, NULL, 0, 0, &cl->credit_comp);
    if (st != ARM_INPROGRESS) {
        cl->credit_busy = 0;
        if (st != ARM_OK)
            arm_log(ARM_LOG_ERROR, "server", "returning credits to rank %d failed: %s",
                    cl->rank, arm_status_str(st));
    }
}

static void credit_sent(arm_net_comp_t *c)
{
    srv_client_t *cl = c->arg;
    cl->credit_busy = 0;
    if (cl->unreturned >= (uint32_t)(cl->nslots + 1) / 2)
        send_credits(cl);
}

static void slot_free(srv_slot_t *sl)
{
    srv_client_t *cl = sl->cl;
    sl->state = SLOT_FREE;
    if (sl->idx == cl->nslots)
        return;   /* the sync slot: no credit to give back */
    cl->free_stack[cl->nfree++] = sl->idx;
    cl->unreturned++;
    /* Half the slots back at a time: the client never waits on fewer
     * outstanding credits than it could still use. */
    if (cl->unreturned >= (uint32_t)(cl->nslots + 1) / 2)
        send_credits(cl);
}

static void reply_sent(arm_net_comp_t *c)
{
    slot_free(c->arg);
}

/* Sends the reply of a slot, with data (iov) if any; frees the slot when
 * the send completes. */
static void reply(srv_slot_t *sl, int64_t value, arm_status_t status, const arm_net_iov_t *iov,
                  size_t iovcnt, size_t bytes)
{
    srv_client_t *cl = sl->cl;
    arm_net_ep_t *ep = arm_net_client_ep(cl->srv->p.net, cl->rank);
    unsigned flags = bytes && bytes <= cl->srv->p.reply_eager_max ? ARM_NET_AM_EAGER : 0;
    sl->rep.req_id = sl->req.req_id;
    sl->rep.value = value;
    sl->rep.status = status;
    sl->rep.len = (uint32_t)bytes;
    sl->rep.node = cl->srv->p.node;
    sl->rep.credits = cl->unreturned;
    cl->unreturned = 0;
    sl->state = SLOT_REPLYING;
    arm_net_comp_init(&sl->comp, reply_sent, sl);
    arm_status_t st = ARM_ERR_TRANSPORT;
    if (ep && iovcnt > 1)
        st = arm_net_am_sendv(ep, ARM_SRV_AM_REP, &sl->rep, sizeof sl->rep, iov, iovcnt, flags,
                              &sl->comp);
    else if (ep)
        st = arm_net_am_send(ep, ARM_SRV_AM_REP, &sl->rep, sizeof sl->rep,
                             iovcnt ? iov[0].buf : NULL, iovcnt ? iov[0].len : 0, flags,
                             &sl->comp);
    if (st == ARM_INPROGRESS)
        return;
    if (st != ARM_OK)
        arm_log(ARM_LOG_ERROR, "server", "reply to rank %d failed: %s", cl->rank,
                arm_status_str(st));
    slot_free(sl);
}

/* ---- handlers ------------------------------------------------------------------ */
static arm_status_t serve_segments(struct arm_server *s, srv_slot_t *sl)
{
    const arm_srv_req_t *r = &sl->req;
    arm_srv_seg_t *tab = (arm_srv_seg_t *)(void *)sl->dptr;
    char *data = sl->dptr + (size_t)r->nseg * sizeof *tab;
    arm_shm_mutex_t *lock = NULL;
    if (r->op == ARM_SRV_ACCSEG) {
        lock = s->p.acc_lock[r->target];
        arm_shm_mutex_lock(lock);
    }
    arm_status_t st = ARM_OK;
    size_t off = 0;
    for (unsigned i = 0; i < r->nseg; i++) {
        char *dst = addr_of(s, r, tab[i].raddr, tab[i].len);
        if (!dst) {
            st = ARM_ERR_INVALID_ARG;
            break;
        }
        if (r->op == ARM_SRV_PUTSEG)
            memcpy(dst, data + off, tab[i].len);
        else
            arm_acc_apply(r->sub, r->scale, dst, data + off, tab[i].len);
        off += tab[i].len;
    }
    if (lock)
        arm_shm_mutex_unlock(lock);
    return st;
}

static arm_status_t serve_batch(struct arm_server *s, srv_slot_t *sl)
{
    const arm_srv_req_t *r = &sl->req;
    const char *p = sl->dptr, *end = sl->dptr + sl->dlen;
    for (unsigned i = 0; i < r->nseg; i++) {
        arm_srv_batch_ent_t e;
        if (p + sizeof e > end)
            return ARM_ERR_INVALID_ARG;
        memcpy(&e, p, sizeof e);
        p += sizeof e;
        if (p + e.len > end || e.target < 0 || e.target >= s->p.nproc)
            return ARM_ERR_INVALID_ARG;
        char *dst = addr_of(s, r, e.raddr, e.len);
        if (!dst)
            return ARM_ERR_INVALID_ARG;
        if (e.op == ARM_SRV_ACC) {
            arm_shm_mutex_t *lock = s->p.acc_lock[e.target];
            arm_shm_mutex_lock(lock);
            arm_acc_apply(e.type, e.scale, dst, p, e.len);
            arm_shm_mutex_unlock(lock);
        } else {
            memcpy(dst, p, e.len);
        }
        p += (e.len + 7) & ~(size_t)7;
    }
    return ARM_OK;
}

static int64_t do_rmw(int sub, char *p, int64_t operand, int64_t compare)
{
    switch (sub) {
    case ARM_SRV_FADD32: return arm_shm_fadd_int((int *)p, (int)operand);
    case ARM_SRV_FADD64: return arm_shm_fadd_long((long *)p, (long)operand);
    case ARM_SRV_SWAP32: return arm_shm_swap_int((int *)p, (int)operand);
    case ARM_SRV_SWAP64: return arm_shm_swap_long((long *)p, (long)operand);
    case ARM_SRV_CAS32:  return arm_shm_cas_int((int *)p, (int)compare, (int)operand);
    default:             return arm_shm_cas_long((long *)p, (long)compare, (long)operand);
    }
}

/* Serves the slot at the head of its client's queue. Returns 0 when it must
 * wait (a lock that is held), 1 when served. */
static int serve(struct arm_server *s, srv_slot_t *sl)
{
    const arm_srv_req_t *r = &sl->req;
    char *p;
    switch (r->op) {
    case ARM_SRV_PUT:
        if ((p = addr_of(s, r, r->raddr, r->len)) && p != sl->dptr)
            memcpy(p, sl->dptr, r->len);
        slot_free(sl);
        break;
    case ARM_SRV_ACC:
        if ((p = addr_of(s, r, r->raddr, r->len))) {
            arm_shm_mutex_t *lock = s->p.acc_lock[r->target];
            arm_shm_mutex_lock(lock);
            arm_acc_apply(r->sub, r->scale, p, sl->dptr, r->len);
            arm_shm_mutex_unlock(lock);
        }
        if (sl->kept) {
            arm_net_am_release(&sl->rmsg);
            sl->kept = 0;
        }
        slot_free(sl);
        break;
    case ARM_SRV_PUTSEG:
    case ARM_SRV_ACCSEG:
        serve_segments(s, sl);
        slot_free(sl);
        break;
    case ARM_SRV_GET: {
        arm_net_iov_t iov = { addr_of(s, r, r->raddr, r->len), r->len };
        if (!iov.buf)
            reply(sl, 0, ARM_ERR_INVALID_ARG, NULL, 0, 0);
        else
            reply(sl, 0, ARM_OK, &iov, 1, r->len);
        break;
    }
    case ARM_SRV_GETSEG: {
        /* Each 16-byte segment entry becomes, in place, the 16-byte iov entry
         * that sends the segment straight from shared memory. */
        arm_srv_seg_t *tab = (arm_srv_seg_t *)(void *)sl->dptr;
        arm_net_iov_t *iov = (arm_net_iov_t *)(void *)sl->dptr;
        size_t bytes = 0;
        arm_status_t st = ARM_OK;
        for (unsigned i = 0; i < r->nseg; i++) {
            uint64_t a = tab[i].raddr, n = tab[i].len;
            char *q = addr_of(s, r, a, n);
            if (!q) {
                st = ARM_ERR_INVALID_ARG;
                break;
            }
            iov[i].buf = q;
            iov[i].len = (size_t)n;
            bytes += n;
        }
        if (st != ARM_OK)
            reply(sl, 0, st, NULL, 0, 0);
        else
            reply(sl, 0, ARM_OK, iov, r->nseg, bytes);
        break;
    }
    case ARM_SRV_RMW:
        if (!(p = addr_of(s, r, r->raddr, (r->sub & 1) ? 8 : 4)))
            reply(sl, 0, ARM_ERR_INVALID_ARG, NULL, 0, 0);
        else
            reply(sl, do_rmw(r->sub, p, r->operand, r->compare), ARM_OK, NULL, 0, 0);
        break;
    case ARM_SRV_LOCK:
        if (!(p = addr_of(s, r, r->raddr, sizeof(arm_shm_mutex_t)))) {
            reply(sl, 0, ARM_ERR_INVALID_ARG, NULL, 0, 0);
            break;
        }
        if (!arm_shm_mutex_trylock((arm_shm_mutex_t *)(void *)p))
            return 0;
        reply(sl, 0, ARM_OK, NULL, 0, 0);
        break;
    case ARM_SRV_TRYLOCK:
        if (!(p = addr_of(s, r, r->raddr, sizeof(arm_shm_mutex_t))))
            reply(sl, 0, ARM_ERR_INVALID_ARG, NULL, 0, 0);
        else
            reply(sl, arm_shm_mutex_trylock((arm_shm_mutex_t *)(void *)p), ARM_OK, NULL, 0, 0);
        break;
    case ARM_SRV_UNLOCK:
        if ((p = addr_of(s, r, r->raddr, sizeof(arm_shm_mutex_t))))
            arm_shm_mutex_unlock((arm_shm_mutex_t *)(void *)p);
        slot_free(sl);
        break;
    case ARM_SRV_FENCE:
        reply(sl, 0, ARM_OK, NULL, 0, 0);
        break;
    case ARM_SRV_BATCH: {
        arm_status_t st = serve_batch(s, sl);
        if (r->sub & 1)
            reply(sl, 0, st, NULL, 0, 0);
        else
            slot_free(sl);
        break;
    }
    case ARM_SRV_REG: {
        srv_seg_t g;
        char name[96];
        size_t n = sl->dlen < sizeof name - 1 ? sl->dlen : sizeof name - 1;
        memcpy(name, sl->dptr, n);
        name[n] = '\0';
        arm_status_t st = seg_register(s, name, (size_t)r->operand, &g);
        if (st != ARM_OK) {
            reply(sl, 0, st, NULL, 0, 0);
            break;
        }
        size_t klen = s->p.slot_size;
        st = arm_net_rkey_pack(g.reg, sl->data, &klen);
        arm_net_iov_t iov = { sl->data, klen };
        reply(sl, (int64_t)(uintptr_t)g.base, st, st == ARM_OK ? &iov : NULL,
              st == ARM_OK, st == ARM_OK ? klen : 0);
        break;
    }
    case ARM_SRV_UNREG:
        seg_unregister(s, r->raddr);
        reply(sl, 0, ARM_OK, NULL, 0, 0);
        break;
    default:
        arm_log(ARM_LOG_ERROR, "server", "unknown request %d from rank %d", r->op, r->src);
        slot_free(sl);
        break;
    }
    s->stats.requests++;
    return 1;
}

static void recv_done(arm_net_comp_t *c);

/* A deferred large put at the head: receive it into its destination. */
static void start_deferred(struct arm_server *s, srv_slot_t *sl)
{
    char *dst = addr_of(s, &sl->req, sl->req.raddr, sl->rmsg.data_len);
    if (!dst) {
        arm_net_am_release(&sl->rmsg);
        sl->dptr = NULL;
        sl->req.len = 0;
        sl->state = SLOT_READY;
        return;
    }
    sl->dptr = dst;
    sl->state = SLOT_RECEIVING;
    arm_net_comp_init(&sl->comp, recv_done, sl);
    arm_status_t st = arm_net_am_recv_data(&sl->rmsg, dst, sl->rmsg.data_len, &sl->comp);
    if (st == ARM_OK)
        sl->state = SLOT_READY;
    else if (st != ARM_INPROGRESS)
        arm_log(ARM_LOG_ERROR, "server", "receiving a put from rank %d failed", sl->req.src);
}

static void drain(struct arm_server *s, srv_client_t *cl)
{
    while (cl->qcount > 0) {
        srv_slot_t *sl = &cl->slots[cl->order[cl->qhead]];
        if (sl->state == SLOT_DEFERRED)
            start_deferred(s, sl);
        if (sl->state != SLOT_READY)
            break;
        if (!serve(s, sl)) {
            if (!cl->blocked) {
                cl->blocked = 1;
                s->nblocked++;
                s->stats.lock_waits++;
            }
            return;
        }
        cl->qhead = (cl->qhead + 1) % (cl->nslots + 1);
        cl->qcount--;
    }
    if (cl->blocked) {
        cl->blocked = 0;
        s->nblocked--;
    }
}

static void recv_done(arm_net_comp_t *c)
{
    srv_slot_t *sl = c->arg;
    sl->state = SLOT_READY;
    drain(sl->cl->srv, sl->cl);
}

static arm_status_t on_request(void *arg, const arm_net_am_msg_t *msg)
{
    struct arm_server *s = arg;
    arm_srv_req_t req;
    if (msg->hdr_len != sizeof req) {
        arm_log(ARM_LOG_ERROR, "server", "malformed request header (%zu bytes)", msg->hdr_len);
        return ARM_OK;
    }
    memcpy(&req, msg->hdr, sizeof req);
    /* A put or accumulate bigger than a slot is one request (decision 013). */
    int big_put = req.op == ARM_SRV_PUT && (msg->rndv || msg->data_len > s->p.slot_size);
    int big_acc = req.op == ARM_SRV_ACC && !msg->rndv && msg->data_len > s->p.slot_size;
    if (req.src < 0 || req.src >= s->p.nproc ||
        (msg->data_len > s->p.slot_size && !big_put && !big_acc)) {
        arm_log(ARM_LOG_ERROR, "server", "request from rank %d with %zu bytes refused",
                req.src, msg->data_len);
        return ARM_OK;
    }
    srv_client_t *cl = &s->clients[req.src];
    srv_slot_t *sl;
    if (req.op & ARM_SRV_SYNC) {
        req.op &= (uint8_t)~ARM_SRV_SYNC;
        sl = &cl->slots[cl->nslots];
        if (sl->state != SLOT_FREE || msg->data_len) {
            arm_log(ARM_LOG_ERROR, "server", "rank %d reused its sync slot", req.src);
            return ARM_OK;
        }
    } else if (cl->nfree == 0) {
        arm_log(ARM_LOG_ERROR, "server", "rank %d sent a request without a credit", req.src);
        return ARM_OK;
    } else {
        sl = &cl->slots[cl->free_stack[--cl->nfree]];
    }
    int was_idle = cl->qcount == 0;
    cl->order[(cl->qhead + cl->qcount) % (cl->nslots + 1)] = sl->idx;
    cl->qcount++;
    sl->req = req;
    sl->dlen = (uint32_t)msg->data_len;
    sl->dptr = sl->data;
    sl->state = SLOT_READY;
    if (big_put) {
        /* Keep UCX's descriptor; the data goes straight to its destination
         * when this request reaches the head (in order with the others). */
        sl->rmsg = *msg;
        sl->state = SLOT_DEFERRED;
        drain(s, cl);
        /* An eager put waits its turn in UCX's buffer. Every transport
         * here lets it be kept; one that did not would lose the data, so
         * it stops the job instead. */
        if (sl->state == SLOT_DEFERRED && !msg->keepable)
            arm_fatal("server", "a %zu-byte put from rank %d must wait its turn but the "
                      "transport does not let its buffer be kept", msg->data_len, req.src);
        return sl->state == SLOT_DEFERRED ? ARM_INPROGRESS : ARM_OK;
    }
    if (big_acc) {
        /* Combined straight from UCX's buffer, kept while it waits. */
        sl->dptr = msg->data;
        sl->rmsg = *msg;
        drain(s, cl);
        if (sl->state != SLOT_READY)
            return ARM_OK;                  /* served */
        if (!msg->keepable)
            arm_fatal("server", "a %zu-byte accumulate from rank %d must wait its turn but "
                      "the transport does not let its buffer be kept", msg->data_len, req.src);
        sl->kept = 1;
        return ARM_INPROGRESS;
    }
    if (msg->data_len && msg->rndv) {
        arm_net_comp_init(&sl->comp, recv_done, sl);
        sl->state = SLOT_RECEIVING;
        arm_status_t st = arm_net_am_recv_data(msg, sl->data, msg->data_len, &sl->comp);
        if (st == ARM_OK)
            sl->state = SLOT_READY;
        else if (st != ARM_INPROGRESS)
            arm_log(ARM_LOG_ERROR, "server", "receiving %zu bytes from rank %d failed",
                    msg->data_len, req.src);
    } else if (msg->data_len) {
        int no_reply = req.op == ARM_SRV_PUT || req.op == ARM_SRV_ACC ||
                       req.op == ARM_SRV_PUTSEG || req.op == ARM_SRV_ACCSEG ||
                       (req.op == ARM_SRV_BATCH && !(req.sub & 1));
        if (was_idle && no_reply)
            sl->dptr = msg->data;   /* served right now, nothing outlives it: no copy */
        else
            memcpy(sl->data, msg->data, msg->data_len);
    }
    drain(s, cl);
    if (sl->state == SLOT_READY && sl->dptr != sl->data && msg->data_len) {
        /* Still queued behind a waiting lock: keep its own copy. */
        memcpy(sl->data, msg->data, msg->data_len);
        sl->dptr = sl->data;
    }
    return ARM_OK;
}

/* ---- the thread ------------------------------------------------------------------ */
static int retry_blocked(struct arm_server *s)
{
    int before = s->nblocked;
    for (int r = 0; r < s->p.nproc && s->nblocked; r++)
        if (s->clients[r].blocked)
            drain(s, &s->clients[r]);
    return s->nblocked < before;
}

static void *server_main(void *arg)
{
    struct arm_server *s = arg;
    int idle = 0;
    while (!atomic_load_explicit(&s->stop, memory_order_acquire)) {
        int did = arm_net_progress(s->w);
        if (s->nblocked)
            did |= retry_blocked(s);
        if (did) {
            idle = 0;
            continue;
        }
        if (s->p.progress == ARM_SRV_PROGRESS_POLL) {
            sched_yield();
            continue;
        }
        if (s->p.progress == ARM_SRV_PROGRESS_HYBRID && ++idle < s->p.poll_spins) {
            /* Past the first polls, let other threads of the core run. */
            if (idle > s->p.yield_after)
                sched_yield();
            continue;
        }
        /* Blocked lock requests are retried every millisecond; otherwise
         * sleep until the transport has events (or a wakeup). */
        arm_net_wait(s->w, s->nblocked ? 1 : 1000);
        idle = 0;
    }
    return NULL;
}

arm_status_t arm_server_start(const arm_server_params_t *p, arm_server_t **out)
{
    struct arm_server *s = calloc(1, sizeof *s);
    if (!s)
        return ARM_ERR_NO_MEMORY;
    s->p = *p;
    s->w = arm_net_server_worker(p->net);
    if (!s->w) {
        free(s);
        return ARM_ERR_INVALID_ARG;
    }
    int n = p->nproc, slots = p->slots > 0 ? p->slots : 1;
    s->clients = calloc((size_t)n, sizeof *s->clients);
    size_t per_slot = p->slot_size;
    s->slab_bytes = (size_t)n * (size_t)slots * per_slot;
    s->slab = s->slab_bytes ? malloc(s->slab_bytes) : NULL;
    if (!s->clients || (s->slab_bytes && !s->slab)) {
        free(s->clients);
        free(s->slab);
        free(s);
        return ARM_ERR_NO_MEMORY;
    }
    for (int r = 0; r < n; r++) {
        srv_client_t *cl = &s->clients[r];
        cl->rank = r;
        cl->nslots = slots;
        cl->srv = s;
        /* slots data slots, then the sync slot (header only, no data). */
        cl->slots = calloc((size_t)slots + 1, sizeof *cl->slots);
        cl->free_stack = malloc((size_t)slots * sizeof(int));
        cl->order = malloc(((size_t)slots + 1) * sizeof(int));
        if (!cl->slots || !cl->free_stack || !cl->order)
            return ARM_ERR_NO_MEMORY;
        for (int i = 0; i <= slots; i++) {
            cl->slots[i].idx = i;
            cl->slots[i].cl = cl;
            cl->slots[i].data = i == slots ? NULL
                : s->slab + ((size_t)r * (size_t)slots + (size_t)i) * per_slot;
            if (i < slots)
                cl->free_stack[i] = slots - 1 - i;
        }
        cl->nfree = slots;
    }
    s->stats.buffer_bytes = s->slab_bytes + (size_t)n * ((size_t)slots + 1) * sizeof(srv_slot_t);
    arm_status_t st = arm_net_am_set_handler(s->w, ARM_SRV_AM_REQ, on_request, s);
    if (st != ARM_OK)
        return st;
    if (pthread_create(&s->thread, NULL, server_main, s) != 0)
        return ARM_ERR_SYSTEM;
    *out = s;
    return ARM_OK;
}

void arm_server_stop(arm_server_t *s)
{
    if (!s)
        return;
    atomic_store_explicit(&s->stop, 1, memory_order_release);
    arm_net_wakeup(s->w);
    pthread_join(s->thread, NULL);
    /* Replies still in flight complete during the net layer's finalize. */
    while (s->nsegs > 0)
        seg_unregister(s, (uint64_t)(uintptr_t)s->segs[0].base);
    free(s->segs);
}

void arm_server_free(arm_server_t *s)
{
    if (!s)
        return;
    for (int r = 0; r < s->p.nproc; r++) {
        free(s->clients[r].slots);
        free(s->clients[r].free_stack);
        free(s->clients[r].order);
    }
    free(s->clients);
    free(s->slab);
    free(s);
}

void arm_server_get_stats(const arm_server_t *s, arm_server_stats_t *out)
{
    *out = s->stats;
}
