/* Private to the inter-node client (src/core/remote_*.c, src/core/proto/):
 * the request type, the client's one context struct, and the helpers the
 * protocol files share. */
#ifndef ARM_REMOTE_INT_H
#define ARM_REMOTE_INT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "core/arm_remote.h"
#include "core/arm_remote_info.h"
#include "core/arm_path.h"
#include "net/arm_net.h"
#include "server/arm_server.h"
#include "shm/arm_shm_seg.h"
#include "server/arm_srv_proto.h"
#include "topo/arm_topo.h"
#include "util/arm_acc.h"
#include "util/arm_config.h"
#include "util/arm_log.h"
#include "util/arm_strided.h"
#include "util/arm_timer.h"

#define OP_POOL 32
#define NB_MAX 256           /* non-blocking calls outstanding: gets, and transfers the
                                agent carries (remote_agent.c) */
#define NOREPLY_RING 1024    /* detached requests remembered for refusals */
#define NB_GEN_MASK 0xfffffu

/* Where a GETSEG table entry's data lands: a piece's or a run's first
 * address; in a run's second entry, the local step between its pieces. */
typedef union seg_local {
    char     *ptr;
    ptrdiff_t step;
} seg_local_t;

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
    char          *big;        /* a larger one for packed requests over a
                                  stream (decision 072): big_len bytes, made
                                  on first use, kept                       */
    size_t         big_len;
    const char    *rdata;      /* GETSEG: where the reply's data is read   */
    arm_srv_seg_t *tab;        /* segment table (slot_size / 16 entries,
                                  and room for the padding after them)     */
    seg_local_t   *loc;        /* GETSEG: where each entry lands locally   */
    size_t         data_len;
    int            nseg;
    unsigned       am_flags;   /* ARM_NET_AM_* for the request's send      */
    int            nb;         /* non-blocking get it belongs to, or -1    */
    const char    *call;       /* the ARMCI call, for errors found later   */
    uint64_t       hop_seq;    /* its number among the requests sent to its
                                  first hop's server (decision 078)         */
} rop_t;

typedef struct remote_alloc {
    uint64_t *node_base;        /* node -> segment base at its server       */
    uint64_t  my_srv_base;      /* creator: base at this node's server      */
    char     *rkey_bytes;       /* creator: packed key from the server      */
    size_t    rkey_len;
    char    **node_rkey;        /* node -> packed key (RMA path only)       */
    size_t   *node_rkey_len;
    arm_net_rkey_t **rkeys;     /* node -> unpacked key, made on first use  */
    arm_shm_seg_t *node_map;    /* node -> its segment mapped here, when the
                                   node is on this host (decision 068)      */
    char **fast;                /* node -> node_map's base once the path may
                                   use it (set under the lock with release,
                                   read without it): arm_rem_mapped_fast */
} remote_alloc_t;

/* The client's state: one per process. */
typedef struct arm_remote_ctx {
    int active;                 /* more than one node                       */
    arm_net_t *net;
    arm_net_worker_t *w;
    arm_server_t *server;
    arm_shm_mutex_t **acc_locks; /* rank -> accumulate lock, for the server */
    arm_path_settings_t ps;     /* what arm_path_choose needs to know      */
    unsigned *node_caps;        /* node -> ARM_NET_CAP_* | CAPS_KNOWN       */
    int stream;                 /* some node is reached over a stream (TCP) */
    int amo_alloc;              /* allocations are marked for transport
                                   atomics (decision 061), agreed at start */
    uint64_t srv_eps_c, srv_eps_s;  /* the server's endpoints to clients and to
                                       neighbour servers, as last read      */
    double srv_connect_s;           /* and its time making them             */
    char tls[128];
    size_t slot_size;
    int spins;
    int depth;                  /* chunks of one transfer in flight (<= OP_POOL / 2) */
    int *credits;               /* node -> credits held at its server       */
    int *hop;                   /* node -> the node whose server a request to
                                   it goes to: the first hop of its route in
                                   the virtual topology (itself in FCG)     */
    /* Forwarded writes (decision 078): node -> requests wanting no reply
     * sent to it through another server, and how many of them its server
     * has said it served (the credits field of its answers). Equal: all
     * served, a fence needs no message. */
    uint32_t *fwd_sent, *fwd_acked;
    /* Requests to each node's server are numbered (node -> the last
     * number given); the server serves them in order, so an answer to
     * number n means every earlier one is served or sent on: node -> the
     * highest such n, and the number of the last write to the node itself.
     * A fence to a node whose last write is answered for needs no message
     * even while credits spent on requests forwarded through it are away. */
    uint64_t *seq_sent, *seq_answered, *seq_write;
    arm_topo_t topo;
    int topo_on;                /* a topology other than FCG               */
    unsigned char *srv_dirty;   /* node -> writes sent since the last fence */
    unsigned char *rma_dirty;   /* node -> RMA writes not flushed           */
    int *dirty_list, ndirty;
    int *fencing, nfencing;     /* node -> fences in flight (threads)       */
    int *unsent;                /* node -> batches taken off arm_rc.batch whose
                                   send is not issued yet (a thread waiting for
                                   a credit): a fence must not overtake them */
    rop_t *batch;               /* small puts/accs held for one node        */
    int batch_node;
    size_t batch_used;
    size_t batch_cap;           /* its capacity: a slot, or over a stream the
                                   path's seg_max (op->big; decision 073)   */
    rop_t ops[OP_POOL];
    int free_ops[OP_POOL], nfree;
    uint64_t gen;
    /* Non-blocking gets: each ARMCI_NbGet* call owns one entry while its
     * requests are outstanding; they complete on their own as replies
     * arrive, so an entry is free again once live drops to 0. */
    struct {
        uint32_t gen;
        int live;               /* requests (and agent jobs) outstanding    */
        int jobs;               /* of which agent jobs: no deadline of their
                                   own, the agent's waits have theirs       */
        int proc;               /* target, for ARMCI_WaitProc               */
        int open;               /* its call has not returned yet            */
    } nb[NB_MAX];
    int nb_next;
    int nb_live;                /* sum of nb[].live: WaitAll and the count of
                                   outstanding calls read it, not the table */
    /* Requests that want no reply, remembered so that a refusal of one
     * names its call (ARM_SRV_REQ_NOREPLY | sequence number). */
    uint64_t noreply_seq;
    struct {
        const char *call, *arg;
        int target;
    } noreply[NOREPLY_RING];
    int mt;                     /* MPI_THREAD_MULTIPLE granted              */
    int locking;                /* mt, or the agent runs: one lock          */
    pthread_mutex_t lock;       /* serializes the client's path when locking */
    struct arm_rem_agent *agent; /* the progress agent, or NULL             */
    int *agent_pending;         /* node -> calls queued at or run by the agent */
    _Atomic uint64_t agent_jobs; /* jobs the agent has carried              */
    _Atomic uint64_t credit_replies; /* replies with credits only (statistics) */
    _Atomic uint64_t fence_reads;    /* worker passes a fence made that found
                                        answers (statistics, decision 080)  */
    _Atomic uint64_t batches_swept; /* batches the agent's sweep sent        */
    int inject;                 /* ARMADA_TEST_INJECT, until used           */
    char *inject_buf;           /* oversize injection: 2 slots              */
    char *acc_buf;              /* accumulates at the origin: 3 chunks      */
    size_t acc_buf_len;
} arm_remote_ctx_t;

extern arm_remote_ctx_t arm_rc;

/* The non-blocking call under way in this thread: entry + 1; -1 while it
 * has no entry yet (its operations so far stayed on this node, or were
 * complete when they returned); 0 outside one (decision 067). */
extern _Thread_local int arm_rem_nb_cur;

/* remote_lock.c: under MPI_THREAD_MULTIPLE one process-wide lock
 * serializes the client's inter-node path (decision 020). Taken by every
 * arm_remote_* entry, re-entrant in one thread, dropped while a wait
 * sleeps; neither taken nor costing more than a load and a branch when the
 * level granted is lower. */
void arm_rem_lock_take(void);
void arm_rem_lock_drop(void);
int arm_rem_lock_release_all(void);        /* returns the depth to restore */
void arm_rem_lock_restore(int depth);
/* Takes the lock at depth if it is free at once: 1, else 0. */
int arm_rem_lock_try(int depth);
/* Entries into the lock from depth 0: the agent reads it without the lock,
 * to tell whether the caller has been inside ARMCI since its last look. */
extern unsigned arm_rem_calls;

static inline void arm_rem_enter(void)
{
    if (arm_rc.locking)
        arm_rem_lock_take();
}

static inline void arm_rem_leave(void)
{
    if (arm_rc.locking)
        arm_rem_lock_drop();
}

/* remote_agent.c: the progress agent (decision 056). A non-blocking
 * transfer to another node that it takes is queued as a job and returns;
 * the agent thread runs the blocking protocol of the call meanwhile, and
 * the call's non-blocking entry stays live until the job is done. */
typedef enum arm_rem_job_kind {
    ARM_JOB_PUT, ARM_JOB_GET, ARM_JOB_ACC, ARM_JOB_STRIDED, ARM_JOB_VECTOR
} arm_rem_job_kind_t;

typedef struct arm_rem_job {
    arm_rem_job_kind_t kind;
    const char *call;
    int op, type, proc, levels, nb;
    unsigned char scale[16];
    void *src, *dst;                 /* PUT/ACC: src local; GET: dst local      */
    const arm_slice_t *slice;        /* PUT/GET/ACC: the remote allocation      */
    uintptr_t addr;                  /* PUT/ACC: dst, GET: src (remote)         */
    size_t n;                        /* bytes (VECTOR: per segment)             */
    int src_stride[ARM_MAX_STRIDE_LEVELS], dst_stride[ARM_MAX_STRIDE_LEVELS];
    int count[ARM_MAX_STRIDE_LEVELS + 1];
    void **vec;                      /* VECTOR: 2 x n pointers (src, then dst)  */
    int vn;
} arm_rem_job_t;

extern _Thread_local int arm_rem_in_agent;

arm_status_t arm_rem_agent_start(void);
void arm_rem_agent_stop(void);
/* Whether a call of family fam moving n bytes to node goes to the agent:
 * inside a non-blocking call only, and always once the node has jobs
 * queued (the calls to a node keep their order). */
int arm_rem_agent_takes(arm_path_family_t fam, size_t n, int node);
void arm_rem_agent_submit(const arm_rem_job_t *job);
int arm_rem_agent_busy(void);   /* jobs queued or running */
void arm_rem_agent_sleep(void); /* until a job is done; under the lock */
/* Waits until the agent has no job for node (-1: none at all). */
void arm_rem_agent_drain(const char *call, int node);
/* A batch was opened: wakes the agent if it sleeps without a deadline, so
 * that it sweeps (decision 076). Under the lock. */
void arm_rem_agent_kick(void);
/* A write without reply was sent: wakes the agent if it sleeps without a
 * deadline, so that it reads the servers' acknowledgements while the caller
 * computes (decision 080). Under the lock. */
void arm_rem_agent_owed(void);
static inline void arm_rem_agent_order(const char *call, int node)
{
    if (arm_rc.agent && !arm_rem_in_agent && arm_rc.agent_pending[node])
        arm_rem_agent_drain(call, node);
}

/* ARMADA_CONNECT, in the order of its choices. */
enum { ARM_CONNECT_LAZY = 0, ARM_CONNECT_EAGER = 1, ARM_CONNECT_EDGES = 2 };

#define CAPS_KNOWN 0x80000000u

/* The capability bits of node (the net layer computed them when it made
 * the node's endpoint; asked once). */
unsigned arm_rem_caps_learn(int node);
static inline unsigned arm_rem_caps(int node)
{
    unsigned c = arm_rc.node_caps[node];
    return c & CAPS_KNOWN ? c : arm_rem_caps_learn(node);
}

static inline arm_path_t arm_rem_path(arm_path_family_t fam, size_t n, int node)
{
    return arm_path_choose(fam, n, arm_rem_caps(node) | (arm_rem_nb_cur ? ARM_PATH_CAP_NB : 0u),
                           arm_rc.srv_dirty[node] || arm_rc.fencing[node], &arm_rc.ps);
}

#define COUNT(op, path, n) ARM_COUNT(op, path, n)

/* remote_init.c: the client's per-node arrays and its pool of requests,
 * for c's nodes, with arm_rc.slot_size and ARMADA_SERVER_SLOTS in force
 * (the fuzz driver of the answers makes its client with it too). */
arm_status_t arm_rem_state_alloc(const arm_core_t *c);

/* remote_wait.c */
void arm_rem_wake_sleepers(void);
int arm_rem_wait_step(int *idle, double *since, int sleep_ms);
void arm_rem_wait_on(const volatile int *v, int until_zero, const char *call, int node,
                     int bounded);
void arm_rem_wait_sent(rop_t *op);
/* Waits for an answer from proc's node: ends the job after
 * ARMADA_PEER_TIMEOUT seconds, naming the call, proc and its node. */
typedef struct arm_rem_deadline {
    int idle;
    double since, start;
} arm_rem_deadline_t;
void arm_rem_deadline_step(arm_rem_deadline_t *d, const char *call, int proc, int sleep_ms);
void arm_rem_rma_complete(const char *call, arm_status_t st, arm_net_comp_t *c, int proc);

/* remote_pool.c */
void arm_rem_op_release(rop_t *op);
void arm_rem_maybe_release(rop_t *op);
void arm_rem_send_done(arm_net_comp_t *c);
rop_t *arm_rem_op_get(int node);
rop_t *arm_rem_op_new(int kind, int proc, uint64_t raddr, size_t len);
void arm_rem_take_credit(const char *call, int node, int proc);
int arm_rem_op_send(const char *call, rop_t *op, const arm_net_iov_t *iov, size_t iovcnt,
                    int want_reply, int detach);
void arm_rem_op_send_whole(const char *call, rop_t *op, const void *src, size_t n,
                           unsigned flags);
void arm_rem_op_finish(const char *call, rop_t *op);
void arm_rem_set_req_id(const char *call, rop_t *op, int want_reply);

/* remote_nb.c */
int arm_rem_nb_index(void);     /* the call's entry, taken on first need; under the lock */
void arm_rem_nb_attach(const char *call, rop_t *op);

/* remote_fence.c: whether a write sent to some node is not yet known
 * served there (its acknowledgement not read). Under the lock. */
int arm_rem_writes_owed(void);

/* remote_batch.c */
void arm_rem_batch_send(const char *call, int with_fence);
/* Per-thread batches under MPI_THREAD_MULTIPLE (decision 075). */
void arm_rem_tb_init(void);
void arm_rem_tb_fini(void);
int arm_rem_tb_flush(const char *call, int node);
int arm_rem_tb_holds(int node);
/* The agent's sweep (decision 076), under the lock: whether a batch is
 * open; and sending each one nothing joined since the last sweep (*busy:
 * more than one write joined batches since the last sweep). */
int arm_rem_batch_open(void);
void arm_rem_batch_sweep(const char *call, int *busy);
/* The progress agent's watch, the caller away from ARMCI for a whole nap
 * (decision 080): sends the process's batch, if open, when it can leave
 * without waiting. 1 when sent. Under the lock. */
int arm_rem_batch_send_idle(const char *call);
/* Writes that joined the process's batch, ever; read without the lock. */
unsigned long arm_rem_batch_appends(void);
int arm_rem_batch_fast(int fam, int kind, int type, const void *scale, const void *src,
                       size_t n, uint64_t raddr, int proc);
void arm_rem_batch_add(const char *call, int kind, int type, const void *scale,
                       const void *src, size_t n, uint64_t raddr, int proc, size_t cap);

/* remote_reply.c */
arm_status_t arm_rem_on_reply(void *arg, const arm_net_am_msg_t *msg);
const char *arm_rem_arg_name(int kind);

/* remote_inject.c: ARMADA_TEST_INJECT (tests only). Called for each
 * request before it is sent while an injection is pending; may change the
 * request, its payload and header length, and send more requests. */
void arm_rem_inject(const char *call, rop_t *op, arm_net_iov_t *iov, size_t *iovcnt,
                    size_t *hdr_len);
void arm_rem_inject_after(const char *call, rop_t *op);

/* remote_alloc.c */
void arm_rem_release_rkeys(remote_alloc_t *ra);
arm_net_rkey_t *arm_rem_rkey_for(const char *call, const arm_slice_t *s, int node);

/* proto/proto_rmw.c: whether allocations get marked for transport atomics
 * (ARMADA_AMO_ALLOC, decision 061); collective over the world, at start. */
void arm_rem_amo_agree(void);

/* remote_fence.c */
void arm_rem_mark_dirty(int node, unsigned char *flags);
void arm_rem_order_paths(int node, int via_rma);

/* proto/proto_seg.c: segmented requests (accumulate, strided, vector). */
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
    size_t cap;          /* data bytes one request carries               */
    int large;           /* cap is beyond a slot: op->big, sent eagerly  */
    int last;            /* cur's last entry (a run's first), -1: none   */
} seg_builder_t;

/* seg_max: the path's (arm_path_t.seg_max), 0 for a slot's worth. */
void arm_rem_sb_init(seg_builder_t *b, const char *call, int kind, int type,
                     const void *scale, int proc, size_t seg_max);
/* op's larger buffer of at least n bytes (made or grown now); NULL when
 * memory runs out. */
char *arm_rem_op_big(rop_t *op, size_t n);
void arm_rem_sb_add(seg_builder_t *b, char *local, uint64_t raddr, size_t len);
/* n pieces of len bytes, the k-th at local + k * lstep, raddr + k * rstride. */
void arm_rem_sb_add_run(seg_builder_t *b, char *local, ptrdiff_t lstep, uint64_t raddr,
                        uint64_t rstride, size_t len, size_t n);
void arm_rem_sb_done(seg_builder_t *b, int op_family);

/* proto/proto_acc_origin.c: a contiguous accumulate of n bytes at raddr
 * (server mapping) of proc, done at the origin under proc's accumulate
 * lock (ARM_PROTO_ORIGIN). */
void arm_rem_acc_origin(const char *call, int type, const void *scale, const void *src,
                        const arm_slice_t *s, uint64_t raddr, size_t n, int proc);

#endif
