/* The inter-node path over the net (UCX) and server layers.
 *
 * Path per family, decided here once at start-up (and forced by settings):
 * contiguous put/get go by direct RMA when the transport does RMA natively,
 * else to the target node's server; read-modify-write uses transport atomics
 * only when they are native and ARMADA_AMO_PATH=amo asks for them (CPU
 * atomics of same-node processes are not atomic with a NIC's); accumulate,
 * strided, vector, mutexes and fences always go to the server. A request
 * carries one slot's payload, except a contiguous put (and, over TCP, an
 * accumulate) bigger than a slot, which is one request (decision 013);
 * other bigger transfers are pipelined in slot-size chunks, as many in
 * flight as the client holds credits. Non-blocking gets stay in flight
 * until waited on (decision 011). */
#define _POSIX_C_SOURCE 200809L
#include "arm_build_config.h"
#if ARMADA_HAVE_UCX
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/arm_remote.h"
#include "core/arm_remote_info.h"
#include "net/arm_net.h"
#include "server/arm_server.h"
#include "server/arm_srv_proto.h"
#include "util/arm_acc.h"
#include "util/arm_config.h"
#include "util/arm_log.h"
#include "util/arm_strided.h"
#include "util/arm_timer.h"

#define OP_POOL 32
#define NB_MAX 64            /* non-blocking gets outstanding (> OP_POOL: one is always free) */
#define CLEAN_GET_MAX 4096   /* UCX's emulated get is the faster one up to here (decision 009) */
#define ZCOPY_MIN (64 * 1024) /* with writes pending, from here still a zero-copy UCX put/get (017) */
#define REPLY_EAGER_MAX (256 * 1024)   /* eager get replies over TCP (decision 012) */
#define CLIENT_POLL_YIELD 16           /* over TCP, a yield every so many polls (016) */
#define SERVER_YIELD_AFTER 16          /* empty polls before a server yields
                                          between polls (but see decision 016) */
#define EAGER_WRITE_MAX (256 * 1024) /* a put or accumulate is one eager request up to here (decision 013) */

/* One request in flight: its header, the payload it packs, and what to do
 * with the reply. */
typedef struct rop {
    arm_srv_req_t  req;
    arm_net_iov_t  iov[2];     /* payload description, alive until sent    */
    arm_net_comp_t send;       /* local completion of the request's send   */
    arm_net_comp_t recv;       /* rendezvous receive of the reply payload  */
    int            busy;
    int            want_reply;
    volatile int   replied;
    int64_t        value;
    int32_t        status;
    int            node;
    void          *dst;        /* GET: the user's buffer                   */
    char          *buf;        /* packed payload / reply data (slot_size)  */
    arm_srv_seg_t *tab;        /* segment table (slot_size / 16 entries)   */
    char         **lptr;       /* GETSEG: where each segment lands locally */
    size_t         data_len;
    int            nseg;
    unsigned       am_flags;   /* ARM_NET_AM_* for the request's send      */
    int            nb;         /* non-blocking get it belongs to, or -1    */
    const char    *call;       /* the ARMCI call, for errors found later   */
} rop_t;

typedef struct remote_alloc {
    uint64_t *node_base;        /* node -> segment base at its server       */
    uint64_t  my_srv_base;      /* creator: base at this node's server      */
    char     *rkey_bytes;       /* creator: packed key from the server      */
    size_t    rkey_len;
    char    **node_rkey;        /* node -> packed key (RMA path only)       */
    size_t   *node_rkey_len;
    arm_net_rkey_t **rkeys;     /* node -> unpacked key, made on first use  */
} remote_alloc_t;

static struct {
    int active;                 /* more than one node                       */
    arm_net_t *net;
    arm_net_worker_t *w;
    arm_server_t *server;
    arm_shm_mutex_t **acc_locks; /* rank -> accumulate lock, for the server */
    int rma_native, amo_native;
    int use_rma, use_amo;
    size_t clean_get_max;       /* gets up to this size use UCX's get when clean */
    unsigned char *zcopy;       /* node -> UCX's put/get are zero-copy (017) */
    int tcp;                    /* TCP carries the traffic, RMA is emulated  */
    size_t reply_eager_max;     /* servers' get replies up to this go eagerly */
    int clean_amo;              /* atomics use UCX's when clean              */
    char tls[128];
    size_t slot_size;
    int spins;
    int depth;                  /* chunks of one transfer in flight (<= OP_POOL / 2) */
    int *credits;               /* node -> credits held                     */
    unsigned char *srv_dirty;   /* node -> writes sent since the last fence */
    unsigned char *rma_dirty;   /* node -> RMA writes not flushed           */
    int *dirty_list, ndirty;
    rop_t *batch;               /* small puts/accs held for one node        */
    int batch_node;
    size_t batch_used;
    rop_t ops[OP_POOL];
    int free_ops[OP_POOL], nfree;
    uint64_t gen;
    /* Non-blocking gets: each ARMCI_NbGet* call owns one entry while its
     * requests are outstanding; they complete on their own as replies
     * arrive, so an entry is free again once live drops to 0. */
    struct {
        uint32_t gen;
        int live;               /* requests still outstanding               */
        int proc;               /* target, for ARMCI_WaitProc               */
    } nb[NB_MAX];
    int nb_cur;                 /* entry + 1 of the call under way, else 0  */
    int nb_next;
} R;

#define COUNT(op, path, n)                          \
    do {                                            \
        arm_core.stats.ops[op][path]++;             \
        arm_core.stats.bytes[op][path] += (n);      \
    } while (0)

/* ---- progress and waiting ---------------------------------------------------- */
/* One step of every client-side wait: progress the client worker; after
 * R.spins empty polls, yield the CPU for a while (arm_net_set_yield), then
 * sleep on its event descriptor for up to sleep_ms. Returns 1 when it
 * slept. */
static int wait_step(int *idle, double *since, int sleep_ms)
{
    if (arm_net_progress(R.w)) {
        *idle = 0;
        return 0;
    }
    return arm_net_idle(R.w, idle, since, R.spins, sleep_ms, NULL);
}

/* Waits until *v is non-zero, or with until_zero until it is 0. */
static void wait_on(const volatile int *v, int until_zero, const char *call, int node,
                    int bounded)
{
    int idle = 0;
    double start = 0.0, since = 0.0;
    while (until_zero ? *v != 0 : *v == 0) {
        /* A server answers within milliseconds unless its process is gone
         * (a lock may legitimately wait longer, so it is not bounded). */
        if (wait_step(&idle, &since, 100) && bounded) {
            double now = arm_time_now();
            if (start == 0.0)
                start = now;
            else if (now - start > (double)arm_config.peer_timeout)
                arm_fatal(call, "no answer from the server of node %d (rank %d) for %ld s: "
                          "that process is probably gone; aborting the job", node,
                          arm_core.node_leader[node], arm_config.peer_timeout);
        }
    }
}

/* Waits until op's request has left, so that its source may be reused. */
static void wait_sent(rop_t *op)
{
    int idle = 0;
    double since = 0.0;
    while (op->send.pending)
        wait_step(&idle, &since, 1);
}

/* ---- request pool ---------------------------------------------------------------- */
static void op_release(rop_t *op)
{
    op->busy = 0;
    R.free_ops[R.nfree++] = (int)(op - R.ops);
}

static void maybe_release(rop_t *op)
{
    if (op->send.pending == 0 && (!op->want_reply || op->replied) && op->busy == 2) {
        if (op->nb >= 0) {
            /* A non-blocking get that nobody waits on right now: its errors
             * stop the program here, naming the call that started it. */
            if (op->send.status != ARM_OK || op->status != ARM_OK)
                arm_fatal(op->call, "a non-blocking get from rank %d failed: %s",
                          op->req.target, arm_status_str(op->send.status != ARM_OK
                              ? op->send.status : (arm_status_t)op->status));
            R.nb[op->nb].live--;
        }
        op_release(op);
    }
}

static void send_done(arm_net_comp_t *c)
{
    maybe_release(c->arg);
}

static rop_t *op_get(int node)
{
    int idle = 0;
    double since = 0.0;
    while (R.nfree == 0)
        wait_step(&idle, &since, 10);
    rop_t *op = &R.ops[R.free_ops[--R.nfree]];
    op->busy = 1;
    op->want_reply = 0;
    op->replied = 0;
    op->status = ARM_OK;
    op->node = node;
    op->nseg = 0;
    op->data_len = 0;
    op->am_flags = 0;
    op->nb = -1;
    op->call = NULL;
    memset(&op->req, 0, sizeof op->req);
    op->req.src = arm_core.me;
    return op;
}

/* A request of kind to `len` bytes at raddr (server mapping) of proc. */
static rop_t *op_new(int kind, int proc, uint64_t raddr, size_t len)
{
    rop_t *op = op_get(arm_core.node_of[proc]);
    op->req.op = (uint8_t)kind;
    op->req.target = proc;
    op->req.raddr = raddr;
    op->req.len = (uint32_t)len;
    return op;
}

static void take_credit(int node)
{
    int idle = 0;
    double since = 0.0;
    while (R.credits[node] == 0)
        wait_step(&idle, &since, 10);
    R.credits[node]--;
}

/* Hands op to the non-blocking get under way: it completes, and returns to
 * the pool, on its own. */
static void nb_attach(const char *call, rop_t *op)
{
    int i = R.nb_cur - 1;
    op->nb = i;
    op->call = call;
    R.nb[i].live++;
    R.nb[i].proc = op->req.target;
    op->busy = 2;
    maybe_release(op);
}

/* Sends op's request with payload iov. detach: the op frees itself when
 * done (fire and forget); otherwise the caller waits and releases it.
 * Returns 1 when a get joined the non-blocking call under way instead: the
 * caller then neither waits nor releases. */
static int op_send(const char *call, rop_t *op, const arm_net_iov_t *iov, size_t iovcnt,
                   int want_reply, int detach)
{
    uint8_t kind = op->req.op;
    int nb = R.nb_cur && want_reply && !detach && (kind == ARM_SRV_GET || kind == ARM_SRV_GETSEG);
    /* A blocking request without payload rides the one sync slot: no credit.
     * A process has one such request outstanding at most (it waits for it). */
    int sync = !nb && iovcnt == 0 && want_reply &&
               (kind == ARM_SRV_GET || kind == ARM_SRV_RMW || kind == ARM_SRV_FENCE ||
                kind == ARM_SRV_LOCK || kind == ARM_SRV_TRYLOCK);
    if (sync)
        op->req.op |= ARM_SRV_SYNC;
    else
        take_credit(op->node);
    op->want_reply = want_reply;
    for (size_t i = 0; i < iovcnt; i++)
        op->iov[i] = iov[i];
    if (want_reply)
        op->req.req_id = ((++R.gen) << 8) | (uint64_t)(op - R.ops);
    arm_net_ep_t *ep = arm_net_server_ep(R.net, op->node);
    if (!ep)
        arm_fatal(call, "no connection to the server of node %d", op->node);
    arm_net_comp_init(&op->send, send_done, op);
    /* One buffer goes as a contiguous send (UCX's short and copy protocols);
     * only a table plus data needs the gather of an iov. */
    arm_status_t st = iovcnt > 1
        ? arm_net_am_sendv(ep, ARM_SRV_AM_REQ, &op->req, sizeof op->req, op->iov, iovcnt,
                           op->am_flags, &op->send)
        : arm_net_am_send(ep, ARM_SRV_AM_REQ, &op->req, sizeof op->req,
                          iovcnt ? op->iov[0].buf : NULL, iovcnt ? op->iov[0].len : 0,
                          op->am_flags, &op->send);
    if (st != ARM_OK && st != ARM_INPROGRESS)
        arm_fatal(call, "sending a request to node %d failed: %s", op->node,
                  arm_status_str(st));
    if (nb) {
        nb_attach(call, op);
        return 1;
    }
    if (detach) {
        op->busy = 2;
        maybe_release(op);
    }
    return 0;
}

/* Sends op's request (header filled) with n bytes at src as its one payload,
 * by the protocol flags choose (0: UCX's), and waits until src may be reused. */
static void op_send_whole(const char *call, rop_t *op, const void *src, size_t n,
                          unsigned flags)
{
    op->am_flags = flags;
    arm_net_iov_t iov = { (void *)src, n };
    op_send(call, op, &iov, 1, 0, 0);
    wait_sent(op);
    op_release(op);
}

/* Waits for op's reply (and local completion), returns it to the pool. */
static void op_finish(const char *call, rop_t *op)
{
    wait_on(&op->replied, 0, call, op->node,
              (op->req.op & (uint8_t)~ARM_SRV_SYNC) != ARM_SRV_LOCK);
    wait_sent(op);
    if (op->status != ARM_OK)
        arm_fatal(call, "the server of node %d refused the request: %s", op->node,
                  arm_status_str((arm_status_t)op->status));
    op_release(op);
}

/* ---- non-blocking gets -------------------------------------------------------------
 * A token names one call's entry and its generation, so a handle waited on
 * after its entry was reused reads as complete (it was). */
#define NB_GEN_MASK 0xfffffu

void arm_remote_nb_begin(void)
{
    if (!R.active)
        return;
    int i = R.nb_next;
    while (R.nb[i].live)          /* at most OP_POOL entries are live */
        i = (i + 1) % NB_MAX;
    R.nb_next = (i + 1) % NB_MAX;
    R.nb[i].gen++;
    R.nb[i].proc = -1;
    R.nb_cur = i + 1;
}

int arm_remote_nb_end(void)
{
    int i = R.nb_cur - 1;
    R.nb_cur = 0;
    if (i < 0 || !R.nb[i].live)
        return 0;
    return 1 + i + NB_MAX * (int)(R.nb[i].gen & NB_GEN_MASK);
}

static int nb_entry(int token)
{
    int i = (token - 1) % NB_MAX;
    unsigned gen = (unsigned)(token - 1) / NB_MAX;
    return R.active && R.nb[i].live && (R.nb[i].gen & NB_GEN_MASK) == gen ? i : -1;
}

int arm_remote_nb_outstanding(void)
{
    int n = 0;
    for (int i = 0; R.active && i < NB_MAX; i++)
        n += R.nb[i].live;
    return n;
}

/* token 0: every outstanding get. */
int arm_remote_nb_test(int token)
{
    if (token ? nb_entry(token) >= 0 : arm_remote_nb_outstanding() > 0)
        arm_net_progress(R.w);
    return token ? nb_entry(token) < 0 : arm_remote_nb_outstanding() == 0;
}

void arm_remote_nb_wait(const char *call, int token)
{
    int i = nb_entry(token);
    if (i >= 0)
        wait_on(&R.nb[i].live, 1, call, arm_core.node_of[R.nb[i].proc], 1);
}

void arm_remote_nb_wait_proc(const char *call, int proc)
{
    if (!R.active)
        return;
    for (int i = 0; i < NB_MAX; i++)
        if (R.nb[i].live && (proc < 0 || R.nb[i].proc == proc))
            wait_on(&R.nb[i].live, 1, call, arm_core.node_of[R.nb[i].proc], 1);
}

static void mark_dirty(int node, unsigned char *flags)
{
    if (!R.srv_dirty[node] && !R.rma_dirty[node])
        R.dirty_list[R.ndirty++] = node;
    flags[node] = 1;
}

/* ---- aggregation -------------------------------------------------------------
 * Small puts and accumulates to one node are packed into one request and
 * sent when the process does anything else: another node, another kind of
 * operation, a fence (which then rides in the same message), or a call that
 * could let another process observe the data. ARMCI guarantees a put at the
 * target only after a fence, so holding it until then is within the
 * interface; ARMADA_AGGREGATE=0 sends every operation at once. */
#define BATCH_MAX_OP 2048

static void batch_send(const char *call, int with_fence)
{
    rop_t *op = R.batch;
    if (!op)
        return;
    R.batch = NULL;
    op->req.op = ARM_SRV_BATCH;
    op->req.sub = (uint8_t)with_fence;
    op->req.len = (uint32_t)R.batch_used;
    arm_net_iov_t iov = { op->buf, R.batch_used };
    op_send(call, op, &iov, 1, with_fence, !with_fence);
    if (with_fence)
        op_finish(call, op);
}

/* Callers have ordered the write against the RMA path (order_paths). */
static void batch_add(const char *call, int kind, int type, const void *scale,
                      const void *src, size_t n, uint64_t raddr, int proc)
{
    int node = arm_core.node_of[proc];
    size_t need = sizeof(arm_srv_batch_ent_t) + ((n + 7) & ~(size_t)7);
    if (R.batch && (R.batch_node != node || R.batch_used + need > R.slot_size ||
                    R.batch->nseg == 65535))
        batch_send(call, 0);
    if (!R.batch) {
        R.batch = op_get(node);
        R.batch_node = node;
        R.batch_used = 0;
    }
    arm_srv_batch_ent_t e;
    memset(&e, 0, sizeof e);
    e.op = (uint8_t)kind;
    e.type = (uint8_t)type;
    e.target = proc;
    e.len = (uint32_t)n;
    e.raddr = raddr;
    if (scale)
        memcpy(e.scale, scale, arm_acc_scale_size(type));
    memcpy(R.batch->buf + R.batch_used, &e, sizeof e);
    memcpy(R.batch->buf + R.batch_used + sizeof e, src, n);
    R.batch_used += need;
    R.batch->req.nseg = (uint16_t)++R.batch->nseg;
    mark_dirty(node, R.srv_dirty);
}

void arm_remote_flush(void)
{
    if (R.active)
        batch_send("ARMCI", 0);
}

/* ---- replies ----------------------------------------------------------------- */
static void unpack_reply(rop_t *op)
{
    if (op->req.op == ARM_SRV_GETSEG) {
        size_t off = 0;
        for (int i = 0; i < op->nseg; i++) {
            memcpy(op->lptr[i], op->buf + off, op->tab[i].len);
            off += op->tab[i].len;
        }
    }
    op->replied = 1;
    maybe_release(op);
}

static void reply_recv_done(arm_net_comp_t *c)
{
    unpack_reply(c->arg);
}

static arm_status_t on_reply(void *arg, const arm_net_am_msg_t *msg)
{
    arm_srv_rep_t rep;
    (void)arg;
    memcpy(&rep, msg->hdr, sizeof rep);
    if (rep.node >= 0 && rep.node < arm_core.nnodes)
        R.credits[rep.node] += (int)rep.credits;
    if (!rep.req_id)
        return ARM_OK;
    rop_t *op = &R.ops[rep.req_id & 0xff];
    if (op->req.req_id != rep.req_id || op->replied) {
        arm_log(ARM_LOG_ERROR, "remote", "reply for an unknown request %#llx",
                (unsigned long long)rep.req_id);
        return ARM_OK;
    }
    op->value = rep.value;
    op->status = rep.status;
    if (rep.len == 0) {
        op->replied = 1;
        maybe_release(op);
        return ARM_OK;
    }
    char *dest = (op->req.op & (uint8_t)~ARM_SRV_SYNC) == ARM_SRV_GET ? op->dst : op->buf;
    if (!msg->rndv) {
        memcpy(dest, msg->data, rep.len);
        op->data_len = rep.len;
        unpack_reply(op);
        return ARM_OK;
    }
    arm_net_comp_init(&op->recv, reply_recv_done, op);
    arm_status_t st = arm_net_am_recv_data(msg, dest, rep.len, &op->recv);
    if (st == ARM_OK)
        unpack_reply(op);
    else if (st != ARM_INPROGRESS) {
        op->status = st;
        op->replied = 1;
        maybe_release(op);
    }
    return ARM_OK;
}

/* ---- set-up and tear-down --------------------------------------------------------- */
static int mpi_allgather(void *ctx, const void *send, void *recv, size_t len)
{
    MPI_Comm comm = *(MPI_Comm *)ctx;
    return MPI_Allgather(send, (int)len, MPI_BYTE, recv, (int)len, MPI_BYTE, comm);
}

static MPI_Request fin_barrier = MPI_REQUEST_NULL;

static int mpi_ibarrier_start(void *ctx)
{
    return MPI_Ibarrier(*(MPI_Comm *)ctx, &fin_barrier) == MPI_SUCCESS ? 0 : -1;
}

static int mpi_ibarrier_test(void *ctx)
{
    int done = 0;
    (void)ctx;
    if (MPI_Test(&fin_barrier, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return -1;
    return done;
}

arm_status_t arm_remote_init(arm_core_t *c)
{
    if (c->nnodes == 1)
        return ARM_OK;
    arm_net_params_t np;
    arm_net_params_init(&np);
    np.nproc = c->nproc;
    np.rank = c->me;
    np.nnodes = c->nnodes;
    np.node_of = c->node_of;
    np.leader_of_node = c->node_leader;
    np.allgather = mpi_allgather;
    np.ibarrier_start = mpi_ibarrier_start;
    np.ibarrier_test = mpi_ibarrier_test;
    np.cb_ctx = &c->world;
    arm_status_t st = arm_net_init(&np, &R.net);
    if (st != ARM_OK)
        return st;
    R.w = arm_net_client_worker(R.net);
    R.slot_size = (size_t)arm_config.slot_size;
    if (R.slot_size < 1024)
        R.slot_size = 1024;
    R.depth = arm_config.pipeline_depth < OP_POOL / 2 ? (int)arm_config.pipeline_depth : OP_POOL / 2;
    R.credits = calloc((size_t)c->nnodes, sizeof *R.credits);
    R.srv_dirty = calloc((size_t)c->nnodes, 1);
    R.rma_dirty = calloc((size_t)c->nnodes, 1);
    R.dirty_list = calloc((size_t)c->nnodes, sizeof *R.dirty_list);
    R.zcopy = calloc((size_t)c->nnodes, 1);
    if (!R.credits || !R.srv_dirty || !R.rma_dirty || !R.dirty_list || !R.zcopy)
        return ARM_ERR_NO_MEMORY;
    int slots = arm_config.server_slots > 0 ? (int)arm_config.server_slots : 1;
    for (int n = 0; n < c->nnodes; n++)
        R.credits[n] = slots;
    size_t maxseg = R.slot_size / sizeof(arm_srv_seg_t);
    for (int i = 0; i < OP_POOL; i++) {
        rop_t *op = &R.ops[i];
        op->buf = malloc(R.slot_size);
        op->tab = malloc(maxseg * sizeof *op->tab);
        op->lptr = malloc(maxseg * sizeof *op->lptr);
        if (!op->buf || !op->tab || !op->lptr)
            return ARM_ERR_NO_MEMORY;
        R.free_ops[i] = OP_POOL - 1 - i;
    }
    R.nfree = OP_POOL;
    st = arm_net_am_set_handler(R.w, ARM_SRV_AM_REP, on_reply, NULL);
    if (st != ARM_OK)
        return st;
    unsigned caps = 0;
    arm_net_caps(R.net, &caps, R.tls, sizeof R.tls);
    R.rma_native = (caps & ARM_NET_CAP_RMA_NATIVE) != 0;
    R.amo_native = (caps & ARM_NET_CAP_AMO_NATIVE) != 0;
    /* Over TCP a rendezvous costs two more round trips than it saves below
     * a few hundred KiB: the servers send get replies up to 256 KiB eagerly
     * (decision 012). Shared-memory and RDMA transports keep UCX's choice. */
    R.tcp = !R.rma_native && strstr(R.tls, "tcp") != NULL;
    R.reply_eager_max = R.tcp ? REPLY_EAGER_MAX : 0;
    /* A waiting client polls long only when the host has a core for it; on
     * an oversubscribed host it polls a few times and then yields the CPU
     * (decision 014) to the servers, which are then the bottleneck, before
     * it sleeps. Over TCP each poll is an epoll_wait system call, no cheaper
     * than a yield: on an oversubscribed host clients and servers yield from
     * their first empty poll (decision 016), so that the other processes of
     * the core send their requests meanwhile instead of waiting for the end
     * of a poller's time slice. */
    int busy_host = c->host_size > c->host_cores;
    R.spins = !busy_host ? (int)arm_config.poll_spins : R.tcp ? 1 : 8;
    int server_yield_after = busy_host && R.tcp ? 0 : SERVER_YIELD_AFTER;
    /* Where a core per process leaves the client polling long, over TCP it
     * still yields every 16 polls: when the scheduler stacks it with the
     * server it waits for, that server runs within microseconds instead of
     * at the end of the client's time slice (decision 016). */
    arm_net_set_yield(R.w, (int)arm_config.yield_us, R.tcp ? CLIENT_POLL_YIELD : 0);
    if (arm_net_is_leader(R.net)) {
        arm_shm_mutex_t **locks = R.acc_locks = calloc((size_t)c->nproc, sizeof *locks);
        if (!locks)
            return ARM_ERR_NO_MEMORY;
        for (int r = 0; r < c->nproc; r++)
            if (c->ctl[r])
                locks[r] = &c->ctl[r]->acc_lock;
        arm_server_params_t sp = { R.net, c->nproc, c->my_node, locks, slots, R.slot_size,
                                   (int)arm_config.progress, (int)arm_config.poll_spins,
                                   server_yield_after, R.reply_eager_max };
        st = arm_server_start(&sp, &R.server);
        if (st != ARM_OK)
            return st;
        arm_server_stats_t ss;
        arm_server_get_stats(R.server, &ss);
        c->stats.server_buffer_bytes = ss.buffer_bytes;
    }
    /* auto|rma|server and auto|amo|server */
    R.use_rma = arm_config.rma_path == 1 || (arm_config.rma_path == 0 && R.rma_native);
    R.use_amo = arm_config.amo_path == 1;
    /* Where UCX emulates RMA and atomics, its own handler on the server's
     * worker answers a small get or an atomic a little sooner than our
     * request dispatch does (decision 009). It is used only for reads to a
     * node with no server-path writes outstanding, which would otherwise
     * need a fence first; with writes outstanding the read goes to the
     * server, queued behind them. Emulated atomics are done with CPU atomics
     * by the target's worker, so they stay atomic with same-node ones;
     * native (NIC) atomics are not, and are used only when forced. */
    R.clean_get_max = !R.use_rma && !R.rma_native && arm_config.rma_path == 0 ? CLEAN_GET_MAX : 0;
    R.clean_amo = !R.use_amo && !R.amo_native && arm_config.amo_path == 0;
    /* Where UCX reaches a node with a zero-copy transport (cma between the
     * processes of one host) but emulates small RMA, its put and get of
     * more than a few KiB are a single copy to or from the target's memory:
     * 1.2-2x faster than a request to the server (decision 017). Gets of
     * any size and puts too large to be aggregated take them when no
     * server-path writes to the node are outstanding; with writes
     * outstanding, those of 64 KiB or more, after completing the writes,
     * and smaller ones go behind them to the server. */
    int nzcopy = 0;
    for (int n = 0; n < c->nnodes && !R.use_rma && arm_config.rma_path == 0; n++) {
        arm_net_ep_t *ep = arm_net_server_ep(R.net, n);
        unsigned nc = 0;
        if (n != c->my_node && ep && arm_net_ep_caps(ep, &nc, NULL, 0) == ARM_OK &&
            (nc & ARM_NET_CAP_RMA_ZCOPY)) {
            R.zcopy[n] = 1;
            nzcopy++;
        }
    }
    arm_net_stats_t ns;
    arm_net_get_stats(R.net, &ns);
    c->stats.endpoints = ns.eps_to_server + ns.eps_to_client;
    R.active = 1;
    if (arm_config.stats && c->me == 0) {
        arm_log(ARM_LOG_WARN, "remote", "inter-node paths: contiguous=%s%s%s%s atomics=%s "
                "(transports %s; rma %s, amo %s)", R.use_rma ? "rma" : "server",
                R.clean_get_max ? " (small gets: UCX get when no writes are pending)" : "",
                nzcopy ? " (larger puts and gets: UCX zero-copy put/get when no writes "
                         "are pending, and from 64 KiB)" : "",
                R.reply_eager_max ? " (get replies eager up to 256 KiB)" : "",
                R.use_amo ? "amo" : R.clean_amo ? "amo when no writes are pending, else server"
                : "server", R.tls, R.rma_native ? "native" : "emulated",
                R.amo_native ? "native" : "emulated");
        char every[40] = "", progress[16];
        if (R.tcp && R.spins > CLIENT_POLL_YIELD)
            snprintf(every, sizeof every, " (yielding every %d)", CLIENT_POLL_YIELD);
        arm_log(ARM_LOG_WARN, "remote", "waiting: %d processes on %d cores of this host%s; "
                "a waiting client polls %d times%s, yields up to %ld us, then sleeps; servers "
                "(progress %s) yield after %d empty polls", c->host_size, c->host_cores,
                busy_host ? " (oversubscribed)" : "", R.spins, every,
                (long)arm_config.yield_us, arm_config_value("PROGRESS", progress, sizeof progress),
                server_yield_after);
    }
    return ARM_OK;
}

static void release_rkeys(remote_alloc_t *ra)
{
    if (!ra->rkeys)
        return;
    for (int n = 0; n < arm_core.nnodes; n++)
        if (ra->rkeys[n])
            arm_net_rkey_destroy(ra->rkeys[n]);
    free(ra->rkeys);
    ra->rkeys = NULL;
}

void arm_remote_finalize(arm_core_t *c)
{
    if (!R.active)
        return;
    for (arm_alloc_t *a = c->allocs; a; a = a->next)
        if (a->remote)
            release_rkeys(a->remote);
    if (R.server) {
        arm_server_stats_t ss;
        arm_server_stop(R.server);
        arm_server_get_stats(R.server, &ss);
        c->stats.server_requests = ss.requests;
    }
    R.active = 0;
    arm_net_finalize(R.net);
    arm_server_free(R.server);
    R.server = NULL;
    free(R.acc_locks);
    for (int i = 0; i < OP_POOL; i++) {
        free(R.ops[i].buf);
        free(R.ops[i].tab);
        free(R.ops[i].lptr);
    }
    free(R.credits);
    free(R.srv_dirty);
    free(R.zcopy);
    free(R.rma_dirty);
    free(R.dirty_list);
    memset(&R, 0, sizeof R);
}

/* ---- allocations -------------------------------------------------------------------- */
arm_status_t arm_remote_seg_register(arm_alloc_t *a, const char *name, size_t len)
{
    if (!R.active)
        return ARM_OK;
    remote_alloc_t *ra = calloc(1, sizeof *ra);
    if (!ra)
        return ARM_ERR_NO_MEMORY;
    a->remote = ra;
    rop_t *op = op_get(arm_core.my_node);
    op->req.op = ARM_SRV_REG;
    op->req.operand = (int64_t)len;
    op->req.target = arm_core.me;
    size_t nlen = strlen(name) + 1;
    memcpy(op->buf, name, nlen);
    arm_net_iov_t iov = { op->buf, nlen };
    op_send("ARMCI_Malloc", op, &iov, 1, 1, 0);
    op_finish("ARMCI_Malloc", op);
    ra->my_srv_base = (uint64_t)op->value;
    ra->rkey_len = op->data_len;
    ra->rkey_bytes = malloc(ra->rkey_len ? ra->rkey_len : 1);
    if (!ra->rkey_bytes)
        return ARM_ERR_NO_MEMORY;
    memcpy(ra->rkey_bytes, op->buf, ra->rkey_len);
    return ARM_OK;
}

arm_status_t arm_remote_alloc_publish(arm_alloc_t *a, const uint64_t **node_base)
{
    *node_base = NULL;
    if (!R.active)
        return ARM_OK;
    int gsize = a->gsize, nn = arm_core.nnodes;
    remote_alloc_t *ra = a->remote;
    if (!ra && !(ra = a->remote = calloc(1, sizeof *ra)))
        return ARM_ERR_NO_MEMORY;
    ra->node_base = calloc((size_t)nn, sizeof *ra->node_base);
    ra->node_rkey = calloc((size_t)nn, sizeof *ra->node_rkey);
    ra->node_rkey_len = calloc((size_t)nn, sizeof *ra->node_rkey_len);
    ra->rkeys = calloc((size_t)nn, sizeof *ra->rkeys);
    uint64_t mine[2] = { a->seg_owner ? ra->my_srv_base : 0, a->seg_owner ? ra->rkey_len : 0 };
    uint64_t *all = malloc((size_t)gsize * sizeof mine);
    int *counts = malloc((size_t)gsize * sizeof(int));
    int *displs = malloc((size_t)gsize * sizeof(int));
    if (!ra->node_base || !ra->node_rkey || !ra->node_rkey_len || !ra->rkeys || !all ||
        !counts || !displs) {
        free(all);
        free(counts);
        free(displs);
        return ARM_ERR_NO_MEMORY;
    }
    MPI_Allgather(mine, 2, MPI_UINT64_T, all, 2, MPI_UINT64_T, a->comm);
    int total = 0;
    for (int g = 0; g < gsize; g++) {
        counts[g] = (int)all[2 * g + 1];
        displs[g] = total;
        total += counts[g];
    }
    char *keys = malloc(total ? (size_t)total : 1);
    if (!keys) {
        free(all);
        free(counts);
        free(displs);
        return ARM_ERR_NO_MEMORY;
    }
    MPI_Allgatherv(a->seg_owner ? ra->rkey_bytes : NULL, (int)mine[1], MPI_BYTE, keys, counts,
                   displs, MPI_BYTE, a->comm);
    for (int g = 0; g < gsize; g++) {
        if (!counts[g])
            continue;
        int node = arm_core.node_of[a->members[g]];
        ra->node_base[node] = all[2 * g];
        if (node != arm_core.my_node && (ra->node_rkey[node] = malloc((size_t)counts[g]))) {
            memcpy(ra->node_rkey[node], keys + displs[g], (size_t)counts[g]);
            ra->node_rkey_len[node] = (size_t)counts[g];
        }
    }
    free(keys);
    free(all);
    free(counts);
    free(displs);
    *node_base = ra->node_base;
    return ARM_OK;
}

void arm_remote_alloc_release(arm_alloc_t *a)
{
    if (R.active)
        batch_send("ARMCI_Free", 0);
    remote_alloc_t *ra = a->remote;
    if (!ra)
        return;
    if (R.active) {
        release_rkeys(ra);
        if (a->seg_owner && ra->my_srv_base) {
            rop_t *op = op_get(arm_core.my_node);
            op->req.op = ARM_SRV_UNREG;
            op->req.raddr = ra->my_srv_base;
            op_send("ARMCI_Free", op, NULL, 0, 1, 0);
            op_finish("ARMCI_Free", op);
        }
    }
    if (ra->node_rkey)
        for (int n = 0; n < arm_core.nnodes; n++)
            free(ra->node_rkey[n]);
    free(ra->node_rkey);
    free(ra->node_rkey_len);
    free(ra->node_base);
    free(ra->rkey_bytes);
    free(ra->rkeys);
    free(ra);
    a->remote = NULL;
}

static arm_net_rkey_t *rkey_for(const char *call, const arm_slice_t *s, int node)
{
    remote_alloc_t *ra = s->alloc->remote;
    if (!ra->rkeys[node]) {
        arm_status_t st = arm_net_rkey_unpack(R.net, node, ra->node_rkey[node],
                                              &ra->rkeys[node]);
        if (st != ARM_OK)
            arm_fatal(call, "cannot use the memory key of node %d: %s", node,
                      arm_status_str(st));
    }
    return ra->rkeys[node];
}

/* ---- ordering ---------------------------------------------------------------------- */
static void fence_node(int node)
{
    if (R.rma_dirty[node]) {
        arm_net_comp_t c;
        arm_net_comp_init(&c, NULL, NULL);
        arm_net_ep_t *ep = arm_net_server_ep(R.net, node);
        if (arm_net_ep_flush(ep, &c) == ARM_INPROGRESS)
            arm_net_comp_wait(R.w, &c, R.spins, -1);
        R.rma_dirty[node] = 0;
    }
    if (R.batch && R.batch_node == node) {
        batch_send("ARMCI_Fence", 1);
        R.srv_dirty[node] = 0;
    }
    if (R.srv_dirty[node]) {
        rop_t *op = op_get(node);
        op->req.op = ARM_SRV_FENCE;
        op_send("ARMCI_Fence", op, NULL, 0, 1, 0);
        op_finish("ARMCI_Fence", op);
        R.srv_dirty[node] = 0;
    }
}

void arm_remote_fence(int proc)
{
    if (!R.active)
        return;
    int node = arm_core.node_of[proc];
    if (!R.srv_dirty[node] && !R.rma_dirty[node])
        return;
    fence_node(node);
    for (int i = 0; i < R.ndirty; i++)
        if (R.dirty_list[i] == node) {
            R.dirty_list[i] = R.dirty_list[--R.ndirty];
            break;
        }
    COUNT(ARMADA_OP_FENCE, ARMADA_PATH_SERVER, 0);
}

void arm_remote_fence_all(void)
{
    if (!R.active)
        return;
    /* Costs what is outstanding: only nodes written since their last fence. */
    while (R.ndirty > 0)
        fence_node(R.dirty_list[--R.ndirty]);
}

/* The path of a contiguous put or get of n bytes to node: direct RMA (1)
 * or the node's server (0). Forced or native RMA takes everything; where
 * RMA is emulated, a small clean get takes UCX's get (decision 009), and
 * where UCX has a zero-copy transport to the node, clean gets and clean
 * puts too large to aggregate take it, and with writes outstanding those
 * of ZCOPY_MIN bytes or more (decision 017). */
static int contig_via_rma(int node, size_t n, int get)
{
    if (R.use_rma)
        return 1;
    int clean = !R.srv_dirty[node];
    if (get && clean && n <= R.clean_get_max)
        return 1;
    return R.zcopy[node] && (n >= ZCOPY_MIN || (clean && (get || n > BATCH_MAX_OP)));
}

/* Location consistency: an operation sees, and lands after, this process's
 * earlier writes to the node whichever path they took. The server path is
 * ordered within itself (requests are served in order per client) and so is
 * UCX's; crossing from one to the other first completes what the other has
 * outstanding. Where nothing goes by RMA (emulated transports) rma_dirty is
 * never set and this costs two loads. */
static void order_paths(int node, int via_rma)
{
    if ((via_rma && R.srv_dirty[node]) || (!via_rma && R.rma_dirty[node]))
        arm_remote_fence(arm_core.node_leader[node]);
}

/* Completes a direct RMA or atomic operation issued with completion c. */
static void rma_complete(const char *call, arm_status_t st, arm_net_comp_t *c,
                         const char *what, int proc)
{
    if (st == ARM_INPROGRESS)
        st = arm_net_comp_wait(R.w, c, R.spins, -1);
    if (st != ARM_OK)
        arm_fatal(call, "%s rank %d failed: %s", what, proc, arm_status_str(st));
}

/* ---- contiguous ------------------------------------------------------------------ */
void arm_remote_put(const char *call, const void *src, const arm_slice_t *s, uintptr_t dst,
                    size_t n, int proc)
{
    int node = arm_core.node_of[proc];
    uint64_t raddr = s->raddr + (dst - s->base);
    int via_rma = contig_via_rma(node, n, 0);
    order_paths(node, via_rma);
    if (via_rma) {
        arm_net_comp_t c;
        arm_net_comp_init(&c, NULL, NULL);
        rma_complete(call, arm_net_put(rkey_for(call, s, node), src, n, raddr, &c), &c,
                     "put to", proc);
        mark_dirty(node, R.rma_dirty);
        COUNT(ARMADA_OP_PUT, ARMADA_PATH_RMA, n);
        return;
    }
    if (arm_config.aggregate && n <= BATCH_MAX_OP) {
        batch_add(call, ARM_SRV_PUT, 0, NULL, src, n, raddr, proc);
        COUNT(ARMADA_OP_PUT, ARMADA_PATH_SERVER, n);
        return;
    }
    batch_send(call, 0);
    rop_t *op = op_new(ARM_SRV_PUT, proc, raddr, n);
    if (n <= 4096) {
        /* Copied and sent without waiting. */
        memcpy(op->buf, src, n);
        arm_net_iov_t iov = { op->buf, n };
        op_send(call, op, &iov, 1, 0, 1);
    } else {
        /* One request sent from the source, whatever the size; locally
         * complete when the send is. Beyond a slot: eager up to
         * EAGER_WRITE_MAX (the server copies from UCX's buffer, which it
         * may keep while the request waits its turn), a rendezvous beyond,
         * which the server receives straight into the destination
         * (decision 013). */
        op_send_whole(call, op, src, n, n <= R.slot_size ? 0
                      : n <= EAGER_WRITE_MAX ? ARM_NET_AM_EAGER : ARM_NET_AM_RNDV);
    }
    mark_dirty(node, R.srv_dirty);
    COUNT(ARMADA_OP_PUT, ARMADA_PATH_SERVER, n);
}

void arm_remote_get(const char *call, const arm_slice_t *s, uintptr_t src, void *dst,
                    size_t n, int proc)
{
    batch_send(call, 0);
    int node = arm_core.node_of[proc];
    uint64_t raddr = s->raddr + (src - s->base);
    int via_rma = contig_via_rma(node, n, 1);
    order_paths(node, via_rma);
    if (via_rma && R.nb_cur) {
        /* Non-blocking: the request's own completion tracks the get. */
        rop_t *op = op_get(node);
        op->req.target = proc;
        arm_net_comp_init(&op->send, send_done, op);
        arm_status_t st = arm_net_get(rkey_for(call, s, node), dst, n, raddr, &op->send);
        if (st != ARM_OK && st != ARM_INPROGRESS)
            arm_fatal(call, "get from rank %d failed: %s", proc, arm_status_str(st));
        nb_attach(call, op);
        COUNT(ARMADA_OP_GET, ARMADA_PATH_RMA, n);
        return;
    }
    if (via_rma) {
        arm_net_comp_t c;
        arm_net_comp_init(&c, NULL, NULL);
        rma_complete(call, arm_net_get(rkey_for(call, s, node), dst, n, raddr, &c), &c,
                     "get from", proc);
        COUNT(ARMADA_OP_GET, ARMADA_PATH_RMA, n);
        return;
    }
    /* One request; the reply streams straight from the target's memory into
     * dst, whatever its size. (Splitting a large get into concurrent chunks
     * was measured slower on loopback TCP: 3.3 against 5.7 GB/s at 1 MiB.) */
    rop_t *op = op_new(ARM_SRV_GET, proc, raddr, n);
    op->dst = dst;
    if (!op_send(call, op, NULL, 0, 1, 0))
        op_finish(call, op);
    COUNT(ARMADA_OP_GET, ARMADA_PATH_SERVER, n);
}

/* ---- segmented requests (accumulate, strided, vector) ------------------------------ */
typedef struct seg_builder {
    const char *call;
    int kind;            /* ARM_SRV_PUTSEG, _ACCSEG, _GETSEG */
    int proc, node;
    int type;
    size_t elem;
    const void *scale;
    rop_t *cur;
    rop_t *gets[OP_POOL / 2];
    int ngets;
    size_t bytes;
} seg_builder_t;

static void sb_flush(seg_builder_t *b)
{
    rop_t *op = b->cur;
    if (!op)
        return;
    b->cur = NULL;
    op->req.nseg = (uint16_t)op->nseg;
    size_t tab_bytes = (size_t)op->nseg * sizeof(arm_srv_seg_t);
    if (b->kind == ARM_SRV_GETSEG) {
        arm_net_iov_t iov = { op->tab, tab_bytes };
        op->req.len = (uint32_t)tab_bytes;
        if (op_send(b->call, op, &iov, 1, 1, 0))
            return;
        b->gets[b->ngets++] = op;
        if (b->ngets == R.depth) {
            for (int i = 0; i < b->ngets; i++)
                op_finish(b->call, b->gets[i]);
            b->ngets = 0;
        }
        return;
    }
    arm_net_iov_t iov[2] = { { op->tab, tab_bytes }, { op->buf, op->data_len } };
    op->req.len = (uint32_t)(tab_bytes + op->data_len);
    op_send(b->call, op, iov, 2, 0, 1);
}

/* Adds one contiguous piece: local address, remote address at the server. */
static void sb_add(seg_builder_t *b, char *local, uint64_t raddr, size_t len)
{
    b->bytes += len;
    while (len > 0) {
        if (!b->cur) {
            rop_t *op = b->cur = op_get(b->node);
            op->req.op = (uint8_t)b->kind;
            op->req.sub = (uint8_t)b->type;
            op->req.target = b->proc;
            if (b->scale)
                memcpy(op->req.scale, b->scale, arm_acc_scale_size(b->type));
        }
        rop_t *op = b->cur;
        size_t used = (size_t)(op->nseg + 1) * sizeof(arm_srv_seg_t) + op->data_len;
        size_t room = used < R.slot_size ? R.slot_size - used : 0;
        if (b->kind == ARM_SRV_GETSEG)   /* table and reply data each fit a slot */
            room = (size_t)(op->nseg + 1) * sizeof(arm_srv_seg_t) <= R.slot_size
                       ? R.slot_size - op->data_len : 0;
        room -= room % b->elem;
        if (room == 0) {
            sb_flush(b);
            continue;
        }
        size_t take = len < room ? len : room;
        op->tab[op->nseg].raddr = raddr;
        op->tab[op->nseg].len = take;
        if (b->kind == ARM_SRV_GETSEG)
            op->lptr[op->nseg] = local;
        else
            memcpy(op->buf + op->data_len, local, take);
        op->nseg++;
        op->data_len += take;
        local += take;
        raddr += take;
        len -= take;
    }
}

static void sb_init(seg_builder_t *b, const char *call, int kind, int type,
                    const void *scale, int proc)
{
    memset(b, 0, sizeof *b);
    b->call = call;
    b->kind = kind;
    b->proc = proc;
    b->node = arm_core.node_of[proc];
    b->type = type;
    b->scale = scale;
    b->elem = kind == ARM_SRV_ACCSEG ? arm_acc_elem_size(type) : 1;
    order_paths(b->node, 0);
}

static void sb_done(seg_builder_t *b, int op_family)
{
    sb_flush(b);
    for (int i = 0; i < b->ngets; i++)
        op_finish(b->call, b->gets[i]);
    if (b->kind != ARM_SRV_GETSEG)
        mark_dirty(b->node, R.srv_dirty);
    COUNT(op_family, ARMADA_PATH_SERVER, b->bytes);
}

void arm_remote_acc(const char *call, int type, const void *scale, const void *src,
                    const arm_slice_t *s, uintptr_t dst, size_t n, int proc)
{
    int node = arm_core.node_of[proc];
    uint64_t raddr = s->raddr + (dst - s->base);
    order_paths(node, 0);
    if (arm_config.aggregate && n <= BATCH_MAX_OP) {
        batch_add(call, ARM_SRV_ACC, type, scale, src, n, raddr, proc);
        COUNT(ARMADA_OP_ACC, ARMADA_PATH_SERVER, n);
        return;
    }
    batch_send(call, 0);
    if (n <= R.slot_size) {
        rop_t *op = op_new(ARM_SRV_ACC, proc, raddr, n);
        op->req.sub = (uint8_t)type;
        memcpy(op->req.scale, scale, arm_acc_scale_size(type));
        memcpy(op->buf, src, n);
        arm_net_iov_t iov = { op->buf, n };
        op_send(call, op, &iov, 1, 0, 1);
        mark_dirty(node, R.srv_dirty);
        COUNT(ARMADA_OP_ACC, ARMADA_PATH_SERVER, n);
        return;
    }
    if (n <= EAGER_WRITE_MAX && R.tcp) {
        /* Over TCP, one eager request, combined from UCX's buffer (decision
         * 013); elsewhere the chunks below overlap transfer and combining. */
        rop_t *op = op_new(ARM_SRV_ACC, proc, raddr, n);
        op->req.sub = (uint8_t)type;
        memcpy(op->req.scale, scale, arm_acc_scale_size(type));
        op_send_whole(call, op, src, n, ARM_NET_AM_EAGER);
        mark_dirty(node, R.srv_dirty);
        COUNT(ARMADA_OP_ACC, ARMADA_PATH_SERVER, n);
        return;
    }
    seg_builder_t b;
    sb_init(&b, call, ARM_SRV_ACCSEG, type, scale, proc);
    sb_add(&b, (char *)src, raddr, n);
    sb_done(&b, ARMADA_OP_ACC);
}

typedef struct strided_remote {
    seg_builder_t *b;
    char *local;
    uint64_t rbase;
    int remote_is_src;
} strided_remote_t;

static void strided_piece(void *ctx, size_t soff, size_t doff, size_t len)
{
    strided_remote_t *x = ctx;
    if (x->remote_is_src)
        sb_add(x->b, x->local + doff, x->rbase + soff, len);
    else
        sb_add(x->b, x->local + soff, x->rbase + doff, len);
}

void arm_remote_strided(const char *call, int op, int type, const void *scale,
                        void *src, const int *src_stride, void *dst, const int *dst_stride,
                        const int *count, int levels, int proc)
{
    batch_send(call, 0);
    int remote_is_src = op == ARMADA_OP_GETS;
    void *remote = remote_is_src ? src : dst;
    arm_slice_t *s = arm_reg_lookup(proc, (uintptr_t)remote, 0);
    seg_builder_t b;
    int kind = op == ARMADA_OP_GETS ? ARM_SRV_GETSEG
             : op == ARMADA_OP_PUTS ? ARM_SRV_PUTSEG : ARM_SRV_ACCSEG;
    sb_init(&b, call, kind, type, scale, proc);
    strided_remote_t x = { &b, remote_is_src ? dst : src,
                           s->raddr + ((uintptr_t)remote - s->base), remote_is_src };
    arm_strided_for_each(levels, count, src_stride, dst_stride, strided_piece, &x);
    sb_done(&b, op);
}

void arm_remote_vector(const char *call, int op, int type, const void *scale,
                       const void *const *src, void *const *dst, int n, size_t bytes,
                       int proc)
{
    batch_send(call, 0);
    int remote_is_src = op == ARMADA_OP_GETV;
    int kind = op == ARMADA_OP_GETV ? ARM_SRV_GETSEG
             : op == ARMADA_OP_PUTV ? ARM_SRV_PUTSEG : ARM_SRV_ACCSEG;
    const char *arg = remote_is_src ? "iov.src_ptr_array" : "iov.dst_ptr_array";
    seg_builder_t b;
    sb_init(&b, call, kind, type, scale, proc);
    for (int i = 0; i < n; i++) {
        const void *rp = remote_is_src ? src[i] : dst[i];
        arm_slice_t *s = arm_reg_translate(call, arg, proc, rp, bytes);
        uint64_t raddr = s->raddr + ((uintptr_t)rp - s->base);
        sb_add(&b, remote_is_src ? (char *)dst[i] : (char *)src[i], raddr, bytes);
    }
    sb_done(&b, op);
}

/* ---- atomics and mutexes ------------------------------------------------------------ */
long arm_remote_rmw(const char *call, int op, const arm_slice_t *s, uintptr_t addr,
                    long value, long compare, int proc)
{
    batch_send(call, 0);
    int node = arm_core.node_of[proc];
    uint64_t raddr = s->raddr + (addr - s->base);
    int sub;
    switch (op) {
    case ARMCI_FETCH_AND_ADD:      sub = ARM_SRV_FADD32; break;
    case ARMCI_FETCH_AND_ADD_LONG: sub = ARM_SRV_FADD64; break;
    case ARMCI_SWAP:               sub = ARM_SRV_SWAP32; break;
    case ARMCI_SWAP_LONG:          sub = ARM_SRV_SWAP64; break;
    case 16:                       sub = ARM_SRV_CAS32; break;
    default:                       sub = ARM_SRV_CAS64; break;
    }
    if (R.use_amo || (R.clean_amo && !R.srv_dirty[node])) {
        static const arm_net_amo_op_t amo[] = { ARM_NET_AMO_FADD, ARM_NET_AMO_FADD,
                                                ARM_NET_AMO_SWAP, ARM_NET_AMO_SWAP,
                                                ARM_NET_AMO_CSWAP, ARM_NET_AMO_CSWAP };
        size_t size = (sub & 1) ? 8 : 4;
        int64_t operand = value, cmp = compare, result = 0;
        int32_t op32 = (int32_t)value, cmp32 = (int32_t)compare, res32 = 0;
        arm_net_comp_t c;
        arm_net_comp_init(&c, NULL, NULL);
        order_paths(node, 1);
        arm_status_t st = arm_net_amo(rkey_for(call, s, node), amo[sub], size,
                                      size == 8 ? (void *)&operand : (void *)&op32,
                                      size == 8 ? (void *)&cmp : (void *)&cmp32,
                                      size == 8 ? (void *)&result : (void *)&res32, raddr, &c);
        rma_complete(call, st, &c, "atomic on", proc);
        COUNT(ARMADA_OP_RMW, ARMADA_PATH_RMA, size);
        return size == 8 ? (long)result : (long)res32;
    }
    order_paths(node, 0);
    rop_t *o = op_new(ARM_SRV_RMW, proc, raddr, 0);
    o->req.sub = (uint8_t)sub;
    o->req.operand = value;
    o->req.compare = compare;
    op_send(call, o, NULL, 0, 1, 0);
    op_finish(call, o);
    COUNT(ARMADA_OP_RMW, ARMADA_PATH_SERVER, (sub & 1) ? 8 : 4);
    return (long)o->value;
}

static int mutex_request(const char *call, int kind, const arm_slice_t *s, uintptr_t addr,
                         int proc)
{
    batch_send(call, 0);
    int node = arm_core.node_of[proc];
    if (R.rma_dirty[node])
        arm_remote_fence(proc);
    rop_t *o = op_new(kind, proc, s->raddr + (addr - s->base), 0);
    if (kind == ARM_SRV_UNLOCK) {
        op_send(call, o, NULL, 0, 0, 1);
        mark_dirty(node, R.srv_dirty);
        return 1;
    }
    op_send(call, o, NULL, 0, 1, 0);
    op_finish(call, o);
    COUNT(ARMADA_OP_LOCK, ARMADA_PATH_SERVER, 0);
    return kind == ARM_SRV_LOCK ? 1 : (int)o->value;
}

int arm_remote_trylock(const char *call, const arm_slice_t *s, uintptr_t addr, int proc)
{
    return mutex_request(call, ARM_SRV_TRYLOCK, s, addr, proc);
}

void arm_remote_lock(const char *call, const arm_slice_t *s, uintptr_t addr, int proc)
{
    mutex_request(call, ARM_SRV_LOCK, s, addr, proc);
}

void arm_remote_unlock(const char *call, const arm_slice_t *s, uintptr_t addr, int proc)
{
    mutex_request(call, ARM_SRV_UNLOCK, s, addr, proc);
}

/* ---- armada-info -------------------------------------------------------------------- */
void arm_remote_print_info(FILE *out)
{
    char res[1024], rma[16], amo[16];
    int n = arm_net_list_resources(res, sizeof res);
    fprintf(out, "inter-node path: UCX %s; UCX_TLS=%s\n", arm_net_ucx_version(),
            getenv("UCX_TLS") ? getenv("UCX_TLS") : "(unset: UCX picks)");
    fprintf(out, "transports available to UCX here: %s\n",
            n > 0 ? res : "(none: UCX could not start)");
    fprintf(out, "paths: same node -> shared memory; other node: contiguous put/get -> %s, "
            "fetch-and-add/swap -> %s, accumulate/strided/vector/mutex/fence -> server\n",
            arm_config_value("RMA_PATH", rma, sizeof rma),
            arm_config_value("AMO_PATH", amo, sizeof amo));
    fprintf(out, "  (auto: direct RMA where the transport does RMA natively; where it emulates "
            "it, UCX's own get for small clean reads and its zero-copy put/get, if any, "
            "for larger transfers; a running job logs its choice with ARMADA_STATS=1)\n");
}
#endif /* ARMADA_HAVE_UCX */
