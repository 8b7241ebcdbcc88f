#define _POSIX_C_SOURCE 200809L
#include "arm_build_config.h"
#if ARMADA_HAVE_UCX
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core/remote_int.h"

/* ---- aggregation -------------------------------------------------------------
 * Small puts and accumulates to one node are packed into one request and
 * sent when the process does anything else: another node, another kind of
 * operation, a fence (which then rides in the same message), or a call that
 * could let another process observe the data. ARMCI guarantees a put at the
 * target only after a fence, so holding it until then is within the
 * interface; ARMADA_AGGREGATE=0 sends every operation at once.
 *
 * A batch holds a slot's worth, or, to a node reached directly over a
 * stream, up to the path's seg_max in the op's larger buffer, sent eagerly
 * (decision 073): there every request costs a wake-up and a system call
 * at both ends. */

static char *batch_buf(rop_t *op)
{
    return arm_rc.batch_cap > arm_rc.slot_size ? op->big : op->buf;
}

/* ---- per-thread batches (decision 075) ---------------------------------------------
 * Under MPI_THREAD_MULTIPLE each thread aggregates into a batch of its own
 * shard (threads beyond TB_SHARDS share), guarded by the shard's mutex. A
 * write that joins the shard's open batch takes only that mutex
 * (arm_rem_batch_fast), so threads writing to other nodes do not meet on
 * the client lock. Opening, sending and flushing a batch happen under the
 * client lock, which is taken before a shard's mutex, never after it. Any
 * call that sends the process's batches (arm_rem_batch_send: another kind
 * of operation, a get, a free) sends every shard's, and a fence those of
 * its node, so the process-wide meaning of aggregation is unchanged. */
#define TB_SHARDS 8

typedef struct tbatch {
    _Alignas(64) pthread_mutex_t m;
    rop_t *op;                    /* open batch, or NULL                     */
    char *buf;                    /* its buffer, and its count of entries:
                                     kept here, so that appending touches only
                                     the shard's lines, not the request pool's
                                     (which other threads write)            */
    int node, nseg;
    size_t used, cap;
    unsigned gen;                 /* batches opened on the shard, and writes
                                     joined (the agent's sweep)             */
    unsigned long appends;
} tbatch_t;

static tbatch_t tb[TB_SHARDS];
static int tb_on;                 /* shards in use (MPI_THREAD_MULTIPLE)     */
static int tb_live;               /* shards with an open batch (atomic)      */
static unsigned tb_owned;         /* shards owned by a live thread (atomic)  */
static unsigned tb_next;          /* the next shard shared, when all are owned */
static pthread_key_t tb_key;      /* its destructor gives a shard back       */
static _Thread_local int tb_idx;  /* this thread's shard + 1                 */

/* A thread keeps its shard for its life and gives it back when it ends, so
 * that threads made and ended in turn do not pile onto one shard. Beyond
 * TB_SHARDS live threads they share, in turn. */
static void tb_give_back(void *v)
{
    unsigned i = (unsigned)(uintptr_t)v - 1;
    __atomic_fetch_and(&tb_owned, ~(1u << i), __ATOMIC_RELEASE);
}

static tbatch_t *my_tb(void)
{
    if (tb_idx)
        return &tb[tb_idx - 1];
    unsigned owned = __atomic_load_n(&tb_owned, __ATOMIC_ACQUIRE);
    int i;
    for (;;) {
        for (i = 0; i < TB_SHARDS && (owned >> i & 1u); i++)
            ;
        if (i == TB_SHARDS) {
            i = (int)(__atomic_fetch_add(&tb_next, 1, __ATOMIC_RELAXED) % TB_SHARDS);
            break;
        }
        if (__atomic_compare_exchange_n(&tb_owned, &owned, owned | 1u << i, 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            pthread_setspecific(tb_key, (void *)(uintptr_t)(i + 1));
            break;
        }
    }
    tb_idx = i + 1;
    return &tb[i];
}

void arm_rem_tb_init(void)
{
    for (int i = 0; i < TB_SHARDS; i++) {
        pthread_mutex_init(&tb[i].m, NULL);
        tb[i].op = NULL;
    }
    tb_live = 0;
    tb_owned = 0;
    tb_idx = 0;
    pthread_key_create(&tb_key, tb_give_back);
    tb_on = 1;
}

void arm_rem_tb_fini(void)
{
    if (!tb_on)
        return;
    tb_on = 0;
    pthread_key_delete(tb_key);
    for (int i = 0; i < TB_SHARDS; i++)
        pthread_mutex_destroy(&tb[i].m);
}

/* Sends a batch taken off its shard; under the client lock. */
static void tb_send(const char *call, rop_t *op, char *buf, int nseg, size_t used)
{
    op->req.op = ARM_SRV_BATCH;
    op->req.sub = 0;
    op->req.len = (uint32_t)used;
    op->nseg = nseg;
    op->req.nseg = (uint16_t)nseg;
    arm_net_iov_t iov = { buf, used };
    if (used > arm_rc.slot_size)
        op->am_flags = ARM_NET_AM_EAGER;
    int node = op->node;
    arm_rc.unsent[node]++;
    arm_rem_op_send(call, op, &iov, 1, 0, 1);
    arm_rc.unsent[node]--;
}

/* Takes the shard's open batch off it and sends it; under the client lock
 * and the shard's mutex, which it drops. */
static void tb_take_send(const char *call, tbatch_t *sh)
{
    rop_t *op = sh->op;
    char *buf = sh->buf;
    int nseg = sh->nseg;
    size_t used = sh->used;
    sh->op = NULL;
    pthread_mutex_unlock(&sh->m);
    __atomic_sub_fetch(&tb_live, 1, __ATOMIC_RELEASE);
    tb_send(call, op, buf, nseg, used);
}

/* Sends the open batches of node (every node: -1); under the client lock.
 * Returns how many were sent. */
int arm_rem_tb_flush(const char *call, int node)
{
    int sent = 0;
    for (int i = 0; tb_on && i < TB_SHARDS && __atomic_load_n(&tb_live, __ATOMIC_ACQUIRE); i++) {
        tbatch_t *sh = &tb[i];
        pthread_mutex_lock(&sh->m);
        if (!sh->op || (node >= 0 && sh->node != node)) {
            pthread_mutex_unlock(&sh->m);
            continue;
        }
        tb_take_send(call, sh);
        sent++;
    }
    return sent;
}

/* Whether some shard holds an open batch for node; under the client lock. */
int arm_rem_tb_holds(int node)
{
    int held = 0;
    for (int i = 0; tb_on && !held && i < TB_SHARDS && __atomic_load_n(&tb_live, __ATOMIC_ACQUIRE);
         i++) {
        pthread_mutex_lock(&tb[i].m);
        held = tb[i].op && tb[i].node == node;
        pthread_mutex_unlock(&tb[i].m);
    }
    return held;
}

/* Writes one batch entry (its header, then the data) at dst. */
static void put_entry(char *dst, int kind, int type, const void *scale, const void *src,
                      size_t n, uint64_t raddr, int proc)
{
    arm_srv_batch_ent_t e;
    memset(&e, 0, sizeof e);
    e.op = (uint8_t)kind;
    e.type = (uint8_t)type;
    e.target = proc;
    e.len = (uint32_t)n;
    e.raddr = raddr;
    if (scale)
        memcpy(e.scale, scale, arm_acc_scale_size(type));
    memcpy(dst, &e, sizeof e);
    memcpy(dst + sizeof e, src, n);
}

static void tb_append(tbatch_t *sh, int kind, int type, const void *scale, const void *src,
                      size_t n, uint64_t raddr, int proc, size_t need)
{
    put_entry(sh->buf + sh->used, kind, type, scale, src, n, raddr, proc);
    sh->used += need;
    sh->nseg++;
    sh->appends++;
}

static int tb_fits(const tbatch_t *sh, int node, size_t cap, size_t need)
{
    return sh->op && sh->node == node && sh->cap == cap && sh->used + need <= cap &&
           sh->nseg < 65535;
}

/* Joins the thread's open batch without the client lock, when the write's
 * path is the batch and nothing of this thread's to node must go first
 * (RMA writes, a fence under way, agent jobs: set under the lock by the
 * thread that issues them, so a thread always sees its own). Returns 0
 * when the caller must take the locked path. */
int arm_rem_batch_fast(int fam, int kind, int type, const void *scale, const void *src,
                       size_t n, uint64_t raddr, int proc)
{
    if (!tb_on || arm_rem_in_agent)
        return 0;
    int node = arm_core.node_of[proc];
    unsigned caps = __atomic_load_n(&arm_rc.node_caps[node], __ATOMIC_ACQUIRE);
    if (!(caps & CAPS_KNOWN) || __atomic_load_n(&arm_rc.rma_dirty[node], __ATOMIC_RELAXED) ||
        __atomic_load_n(&arm_rc.fencing[node], __ATOMIC_RELAXED) ||
        (arm_rc.agent_pending && __atomic_load_n(&arm_rc.agent_pending[node], __ATOMIC_RELAXED)))
        return 0;
    arm_path_t p = arm_path_choose((arm_path_family_t)fam, n,
                                   caps | (arm_rem_nb_cur ? ARM_PATH_CAP_NB : 0u),
                                   __atomic_load_n(&arm_rc.srv_dirty[node], __ATOMIC_RELAXED),
                                   &arm_rc.ps);
    if (p.proto != ARM_PROTO_BATCH)
        return 0;
    size_t cap = p.seg_max > arm_rc.slot_size ? p.seg_max : arm_rc.slot_size;
    size_t need = sizeof(arm_srv_batch_ent_t) + ((n + 7) & ~(size_t)7);
    tbatch_t *sh = my_tb();
    pthread_mutex_lock(&sh->m);
    int ok = tb_fits(sh, node, cap, need);
    if (ok)
        tb_append(sh, kind, type, scale, src, n, raddr, proc, need);
    pthread_mutex_unlock(&sh->m);
    return ok;
}

/* The locked path of a write that joins a batch under threads: sends the
 * thread's batch if the write does not fit, opens a new one. */
static void tb_add_locked(const char *call, int kind, int type, const void *scale,
                          const void *src, size_t n, uint64_t raddr, int proc, size_t cap)
{
    int node = arm_core.node_of[proc];
    size_t need = sizeof(arm_srv_batch_ent_t) + ((n + 7) & ~(size_t)7);
    tbatch_t *sh = my_tb();
    for (;;) {
        pthread_mutex_lock(&sh->m);
        if (tb_fits(sh, node, cap, need)) {
            tb_append(sh, kind, type, scale, src, n, raddr, proc, need);
            pthread_mutex_unlock(&sh->m);
            break;
        }
        if (sh->op) {
            tb_take_send(call, sh);
            continue;
        }
        pthread_mutex_unlock(&sh->m);
        /* May wait for a free request, the lock dropped: another thread of
         * this shard may open a batch meanwhile. */
        rop_t *op = arm_rem_op_get(node);
        size_t c = cap > arm_rc.slot_size && arm_rem_op_big(op, cap) ? cap : arm_rc.slot_size;
        pthread_mutex_lock(&sh->m);
        if (sh->op) {
            pthread_mutex_unlock(&sh->m);
            arm_rem_op_release(op);
            continue;
        }
        sh->op = op;
        sh->buf = c > arm_rc.slot_size ? op->big : op->buf;
        sh->node = node;
        sh->nseg = 0;
        sh->used = 0;
        sh->cap = c;
        sh->gen++;
        __atomic_add_fetch(&tb_live, 1, __ATOMIC_RELEASE);
        arm_rem_agent_kick();
        tb_append(sh, kind, type, scale, src, n, raddr, proc, need);
        pthread_mutex_unlock(&sh->m);
        break;
    }
    arm_rem_mark_dirty(node, arm_rc.srv_dirty);
}

/* ---- the process's batch ------------------------------------------------------------ */
static unsigned proc_gen;         /* process batches opened, and writes that
                                     joined them (the agent's sweep)        */
static unsigned long proc_appends;

static void proc_batch_send(const char *call, int with_fence)
{
    rop_t *op = arm_rc.batch;
    if (!op)
        return;
    arm_rc.batch = NULL;
    op->req.op = ARM_SRV_BATCH;
    op->req.sub = (uint8_t)with_fence;
    op->req.len = (uint32_t)arm_rc.batch_used;
    arm_net_iov_t iov = { batch_buf(op), arm_rc.batch_used };
    if (arm_rc.batch_used > arm_rc.slot_size)
        op->am_flags = ARM_NET_AM_EAGER;
    /* Under threads the send may wait for a credit with the process lock
     * dropped: the batch may carry other threads' writes, whose fences must
     * not overtake it (fence_node waits for unsent to drop). */
    int node = op->node;
    arm_rc.unsent[node]++;
    arm_rem_op_send(call, op, &iov, 1, with_fence, !with_fence);
    arm_rc.unsent[node]--;
    if (with_fence)
        arm_rem_op_finish(call, op);
}

void arm_rem_batch_send(const char *call, int with_fence)
{
    if (tb_on)
        arm_rem_tb_flush(call, -1);
    proc_batch_send(call, with_fence);
}

/* Callers have ordered the write against the RMA path (order_paths). */
void arm_rem_batch_add(const char *call, int kind, int type, const void *scale,
                      const void *src, size_t n, uint64_t raddr, int proc, size_t cap)
{
    if (cap < arm_rc.slot_size)
        cap = arm_rc.slot_size;
    if (tb_on) {
        tb_add_locked(call, kind, type, scale, src, n, raddr, proc, cap);
        return;
    }
    int node = arm_core.node_of[proc];
    size_t need = sizeof(arm_srv_batch_ent_t) + ((n + 7) & ~(size_t)7);
    /* A wait (for a request, a credit) lets other threads change the batch
     * under MPI_THREAD_MULTIPLE: look again after each. */
    for (;;) {
        rop_t *b = arm_rc.batch;
        if (b && (arm_rc.batch_node != node || arm_rc.batch_cap != cap ||
                  arm_rc.batch_used + need > cap || b->nseg == 65535)) {
            arm_rem_batch_send(call, 0);
            continue;
        }
        if (b)
            break;
        rop_t *op = arm_rem_op_get(node);
        if (arm_rc.batch) {
            arm_rem_op_release(op);
            continue;
        }
        /* Without memory for the larger buffer, a slot's worth. */
        if (cap > arm_rc.slot_size && !arm_rem_op_big(op, cap))
            cap = arm_rc.slot_size;
        arm_rc.batch = op;
        arm_rc.batch_node = node;
        arm_rc.batch_used = 0;
        arm_rc.batch_cap = cap;
        proc_gen++;
        arm_rem_agent_kick();
        break;
    }
    put_entry(batch_buf(arm_rc.batch) + arm_rc.batch_used, kind, type, scale, src, n, raddr,
              proc);
    arm_rc.batch_used += need;
    /* Read without the lock by the agent's watch (decision 081). */
    __atomic_store_n(&proc_appends, proc_appends + 1, __ATOMIC_RELAXED);
    arm_rc.batch->req.nseg = (uint16_t)++arm_rc.batch->nseg;
    arm_rem_mark_dirty(node, arm_rc.srv_dirty);
}

/* ---- the agent's sweep (decision 076) ------------------------------------------------
 * A batch waits for the process's next call; a lone small put before a long
 * computation would wait through it. While any batch is open the progress
 * agent looks at them every ARMADA_BATCH_IDLE_US and sends each that
 * nothing joined since its last look (same batch, same length). The server
 * acknowledges it once idle (ARMADA_FENCE_ACK_US), so that a fence after
 * the caller's computation sends nothing. A batch being filled is left to
 * fill. */
typedef struct sweep_seen {
    int open;
    unsigned gen;
    size_t used;
} sweep_seen_t;
static sweep_seen_t seen_proc, seen_tb[TB_SHARDS];
static unsigned long seen_appends;   /* writes batched, at the last look */

/* One open batch against what the last sweep saw of it: 1 to send it now,
 * else records it. */
static int sweep_one(sweep_seen_t *s, int open, unsigned gen, size_t used)
{
    if (open && s->open && s->gen == gen && s->used == used) {
        s->open = 0;
        return 1;
    }
    s->open = open;
    s->gen = gen;
    s->used = used;
    return 0;
}

int arm_rem_batch_open(void)
{
    return arm_rc.batch != NULL || (tb_on && __atomic_load_n(&tb_live, __ATOMIC_ACQUIRE));
}

/* Whether a batch to node leaves at once, without waiting for a credit.
 * The sweep sends only then: waiting, it would drop the lock with the batch
 * taken but not sent, and the caller's next operation by another path
 * could overtake the writes in it. Sent, the batch is ordered before what
 * follows (the server path in itself, the RMA path by order_paths). */
static int leaves_now(int node)
{
    return arm_rc.credits[arm_rc.hop[node]] > 0;
}

unsigned long arm_rem_batch_appends(void)
{
    return __atomic_load_n(&proc_appends, __ATOMIC_RELAXED);
}

int arm_rem_batch_send_idle(const char *call)
{
    if (!arm_rc.batch || !leaves_now(arm_rc.batch_node))
        return 0;
    proc_batch_send(call, 0);
    arm_stat_add(&arm_rc.batches_swept, 1);
    return 1;
}

void arm_rem_batch_sweep(const char *call, int *busy)
{
    int sent = 0;
    unsigned long appends = proc_appends;
    if (sweep_one(&seen_proc, arm_rc.batch != NULL && leaves_now(arm_rc.batch_node), proc_gen,
                  arm_rc.batch_used)) {
        proc_batch_send(call, 0);
        sent++;
    }
    for (int i = 0; tb_on && i < TB_SHARDS; i++) {
        tbatch_t *sh = &tb[i];
        pthread_mutex_lock(&sh->m);
        appends += sh->appends;
        if (sweep_one(&seen_tb[i], sh->op != NULL && leaves_now(sh->node), sh->gen, sh->used)) {
            tb_take_send(call, sh);
            sent++;
        } else {
            pthread_mutex_unlock(&sh->m);
        }
    }
    /* More than one write joined since the last look: writes are coming
     * in a stream, and the batches fill and leave by themselves. */
    *busy = appends - seen_appends > 1;
    seen_appends = appends;
    if (sent)
        arm_stat_add(&arm_rc.batches_swept, (uint64_t)sent);
}

static void locked_flush(void)
{
    if (arm_rc.active)
        arm_rem_batch_send("ARMCI", 0);
}
void arm_remote_flush(void)
{
    arm_rem_enter();
    locked_flush();
    arm_rem_leave();
}
#endif /* ARMADA_HAVE_UCX */
