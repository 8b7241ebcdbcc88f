/* net: Armada's UCX layer (UCP API, *_nbx calls only).
 *
 * One UCX context per process. Every process has a client worker, driven by
 * the application thread. The leader (lowest rank) of each node also has a
 * server worker, driven by the node's communication server thread.
 *
 * Connections follow the client/server pattern: a client worker holds at
 * most one endpoint to each remote node's server worker (ARM_NET_EP_TO_SERVER,
 * indexed by node), and a server worker holds one endpoint to each client of
 * the other nodes (ARM_NET_EP_TO_CLIENT, indexed by rank) for its replies.
 * There are no client-to-client endpoints. Every endpoint is made by
 * arm_net_ep_connect(); worker addresses are exchanged once at start-up
 * through the caller's allgather, so an endpoint can be made at start-up
 * (connect_eager) or on first use.
 *
 * Threads: each worker, with everything issued on it (endpoints, rkeys
 * unpacked on those endpoints, completions), belongs to one thread at a time.
 * arm_net_wakeup() may be called from any thread. Completion objects
 * (arm_net_comp_t) are touched only by the thread that owns the worker.
 *
 * This layer never calls MPI: the bootstrap goes through arm_net_allgather_fn.
 * Functions return arm_status_t (src/util/arm_status.h): ARM_OK done,
 * ARM_INPROGRESS tracked by the given completion, negative on error (the
 * layer logs the UCX error where it first sees it).
 */
#ifndef ARM_NET_H
#define ARM_NET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/arm_status.h"

/* Gather len_each bytes from every process: recv holds nproc blocks, block r
 * from rank r. Returns 0 on success. Also used as a barrier at finalize. */
typedef int (*arm_net_allgather_fn)(void *cb_ctx, const void *send, void *recv,
                                    size_t len_each);

/* A non-blocking barrier: start returns 0 once begun; test returns 1 when
 * every process has started it, 0 while not yet, negative on error. Used at
 * finalize so that a process keeps progressing its workers (which a peer's
 * endpoint close may still need) until every process has closed its own. */
typedef int (*arm_net_ibarrier_start_fn)(void *cb_ctx);
/* Gather blocks of different sizes: rank r sends lens[r] bytes, which land
 * at recv + displs[r] everywhere. Returns 0 on success. */
typedef int (*arm_net_allgatherv_fn)(void *cb_ctx, const void *send, void *recv,
                                     const size_t *lens, const size_t *displs);
/* The largest of every process's *v, into *v. Returns 0 on success. */
typedef int (*arm_net_allmax_fn)(void *cb_ctx, uint64_t *v);
typedef int (*arm_net_ibarrier_test_fn)(void *cb_ctx);

typedef struct arm_net        arm_net_t;
typedef struct arm_net_worker arm_net_worker_t;
typedef struct arm_net_ep     arm_net_ep_t;
typedef struct arm_net_reg    arm_net_reg_t;
typedef struct arm_net_rkey   arm_net_rkey_t;

/* ---- set-up and tear-down ------------------------------------------------ */

typedef struct arm_net_params {
    int nproc;                   /* processes in the job                      */
    int rank;                    /* my rank                                   */
    int nnodes;                  /* nodes (real or virtual)                   */
    const int *node_of;          /* [nproc] node of each rank (copied)        */
    const int *leader_of_node;   /* [nnodes] lowest rank of each node (copied)*/
    arm_net_allgather_fn allgather;
    arm_net_ibarrier_start_fn ibarrier_start;   /* optional, with ibarrier_test */
    arm_net_ibarrier_test_fn ibarrier_test;
    void *cb_ctx;
    int connect_eager;           /* 1: make all endpoints in arm_net_init     */
    /* 1: start-up exchanges only the nodes' server addresses (O(nodes) data
     * per process, with allgatherv and allmax). Clients are then reached
     * only over the connections they make (the server answers on UCX's
     * endpoint back from the client's hello). Needs connect_eager 0. */
    int lazy_addresses;
    arm_net_allgatherv_fn allgatherv;
    arm_net_allmax_fn allmax;
    int server_worker_mt;        /* 1: server worker in UCS_THREAD_MODE_MULTI */
    int finalize_timeout_ms;     /* bound on closing endpoints at finalize    */
} arm_net_params_t;

/* Defaults: connect_eager 1, server_worker_mt 1, finalize_timeout_ms 5000. */
void arm_net_params_init(arm_net_params_t *p);

/* Collective over all processes (uses the allgather). */
arm_status_t arm_net_init(const arm_net_params_t *p, arm_net_t **net_p);

/* Collective. Call when all communication is complete everywhere and the
 * server thread has been joined (this thread then owns both workers).
 * Closes every endpoint (flush mode, progress bounded by
 * finalize_timeout_ms, then given up), destroys rkeys and registrations the
 * caller left, the workers and the context. Never blocks unboundedly except
 * inside the caller's allgather. */
arm_status_t arm_net_finalize(arm_net_t *net);

arm_net_worker_t *arm_net_client_worker(arm_net_t *net);
arm_net_worker_t *arm_net_server_worker(arm_net_t *net);  /* NULL unless leader */
int arm_net_is_leader(const arm_net_t *net);

/* ---- progress ------------------------------------------------------------ */

/* Progress once; returns non-zero when something happened. */
int arm_net_progress(arm_net_worker_t *w);

/* Block (sleeping, no spin) until the worker has events, arm_net_wakeup()
 * was called, or timeout_ms passes (-1: no limit). ARM_OK when woken or
 * events are pending (call arm_net_progress), ARM_ERR_TIMEOUT otherwise. */
arm_status_t arm_net_wait(arm_net_worker_t *w, int timeout_ms);

/* Wake a thread blocked in arm_net_wait() on w. Safe from any thread. */
arm_status_t arm_net_wakeup(arm_net_worker_t *w);

/* How a thread waiting on w spends its idle time. After its empty polls it
 * yields the CPU (sched_yield) for up to yield_us microseconds before it
 * sleeps on the event descriptor: threads sharing its core run, and it
 * stays runnable, so the answer costs it no wake-up. 0: sleep at once.
 * With poll_yield > 0 it also yields once every poll_yield empty polls
 * while it still polls, so that a thread it shares a core with (the server
 * it waits for, if the scheduler put them together) is not kept off the CPU
 * for the whole polling phase (decision 016). 0: polls without yielding. */
void arm_net_set_yield(arm_net_worker_t *w, int yield_us, int poll_yield);

/* One idle step of a wait on w, after an empty arm_net_progress: counts the
 * poll in *idle; past spins polls, yields (within w's yield time, from the
 * time kept in *since), then sleeps up to sleep_ms. Returns 1 when it
 * slept (and restarts the count), with arm_net_wait's status in *st when st
 * is not NULL. Start with *idle = 0. */
int arm_net_idle(arm_net_worker_t *w, int *idle, double *since, int spins, int sleep_ms,
                 arm_status_t *st);

/* For callers that poll the worker's event descriptor together with other
 * fds: arm_net_arm() returns ARM_OK when the fd is armed (safe to sleep on),
 * ARM_INPROGRESS when events are pending (progress first). */
int arm_net_worker_efd(const arm_net_worker_t *w);
arm_status_t arm_net_arm(arm_net_worker_t *w);

/* ---- completion ---------------------------------------------------------- */

/* A caller-owned completion counter: any number of operations may be
 * tracked by one. pending counts operations not yet complete; status keeps
 * the first error. cb (optional) runs when pending drops to 0 from an
 * asynchronous completion (not for operations that returned ARM_OK). */
typedef struct arm_net_comp arm_net_comp_t;
typedef void (*arm_net_comp_cb_t)(arm_net_comp_t *comp);
struct arm_net_comp {
    int64_t pending;
    arm_status_t status;
    arm_net_comp_cb_t cb;
    void *arg;
};

static inline void arm_net_comp_init(arm_net_comp_t *c, arm_net_comp_cb_t cb, void *arg)
{
    c->pending = 0;
    c->status = ARM_OK;
    c->cb = cb;
    c->arg = arg;
}

static inline int arm_net_comp_done(const arm_net_comp_t *c) { return c->pending == 0; }

/* Progress w until c->pending is 0: poll spin times after the last event,
 * yield as arm_net_set_yield says, then block in arm_net_wait. timeout_ms
 * -1: no limit. Returns c->status, or ARM_ERR_TIMEOUT. */
arm_status_t arm_net_comp_wait(arm_net_worker_t *w, arm_net_comp_t *c, int spin,
                               int timeout_ms);

/* ---- endpoints ----------------------------------------------------------- */

typedef enum arm_net_ep_kind {
    ARM_NET_EP_TO_SERVER = 0,    /* client worker -> server of node `peer`    */
    ARM_NET_EP_TO_CLIENT = 1,    /* server worker -> client worker of rank `peer` */
    ARM_NET_EP_SRV_TO_SRV = 2    /* server worker -> server of node `peer` (a
                                    neighbour in the virtual topology: made
                                    on first use, for forwarding)            */
} arm_net_ep_kind_t;

/* The one place endpoints are made. Returns the existing endpoint if there is
 * one. TO_SERVER of one's own node is allowed (a loopback used by tests);
 * the eager set-up never makes it. */
arm_status_t arm_net_ep_connect(arm_net_t *net, arm_net_ep_kind_t kind, int peer,
                                arm_net_ep_t **ep_p);

/* Whether this server holds its endpoint to client `rank`: made at start
 * (eager), or adopted from the client's hello, which may arrive after a
 * request it preceded (UCX orders the messages of one lane, and an
 * endpoint may have several). */
int arm_net_client_connected(const arm_net_t *net, int rank);

/* Lookup, connecting on first use; NULL on error (logged). */
arm_net_ep_t *arm_net_server_ep(arm_net_t *net, int node);
arm_net_ep_t *arm_net_client_ep(arm_net_t *net, int rank);
arm_net_ep_t *arm_net_peer_server_ep(arm_net_t *net, int node);

/* Flush: every RMA/atomic issued before on ep (or on every endpoint of w)
 * is complete at the target when this completes. */
arm_status_t arm_net_ep_flush(arm_net_ep_t *ep, arm_net_comp_t *comp);
arm_status_t arm_net_worker_flush(arm_net_worker_t *w, arm_net_comp_t *comp);

/* ---- capabilities and information --------------------------------------- */

enum {
    ARM_NET_CAP_RMA_NATIVE = 1u << 0,  /* put/get by a transport, no target CPU */
    ARM_NET_CAP_AMO_NATIVE = 1u << 1,  /* atomics by a transport               */
    ARM_NET_CAP_RMA_ZCOPY  = 1u << 2,  /* large put/get by a zero-copy transport */
    ARM_NET_CAP_STREAM     = 1u << 3,  /* messages travel on a byte stream (TCP):
                                          a rendezvous costs round trips that
                                          eager replies save, and each poll is
                                          a system call                      */
    ARM_NET_CAP_HOST_SHM   = 1u << 4   /* UCX reaches the node through this
                                          host's shared memory (cma, knem,
                                          xpmem, sysv or posix): the node is a
                                          virtual node of this host (decision
                                          068)                               */
};

/* Capabilities of an endpoint (cached after the first call) and the names
 * of the transports its lanes use ("rc_mlx5,ud_mlx5", "tcp"); tls may be
 * NULL. Decided from the lanes UCX prints for the endpoint: an "rma"/"amo"
 * lane on a transport that acts on registered memory without the target's
 * CPU (not tcp, sysv, posix, self) counts as native. Emulated operations
 * still work; they need the target server worker to progress. An "rma_bw"
 * lane on such a transport (cma or knem between the processes of a host, or
 * an RDMA one) sets ARM_NET_CAP_RMA_ZCOPY: UCX's put and get copy large
 * blocks straight to or from the target's memory. */
arm_status_t arm_net_ep_caps(arm_net_ep_t *ep, unsigned *caps, char *tls, size_t tls_len);

/* The capability bits of node's server endpoint, computed when that
 * endpoint was made (connecting it now if it was not); 0 on error. */
unsigned arm_net_node_caps(arm_net_t *net, int node);

/* AND of the capabilities of every connected TO_SERVER endpoint (all bits set
 * when there is none), and the union of their transports. */
arm_status_t arm_net_caps(arm_net_t *net, unsigned *caps, char *tls, size_t tls_len);

const char *arm_net_ucx_version(void);

/* Whether messages to other nodes will travel on a byte stream (TCP), told
 * from the transports this process's UCX context offers, before any
 * endpoint exists: TCP and no RDMA transport, and (other_hosts 0: every
 * node on this host) no shared-memory transport either. */
int arm_net_predict_stream(arm_net_t *net, int other_hosts);
/* Whether the context holds a transport that may do atomics natively (not
 * one whose atomics UCX emulates or does with the CPU): without one, no
 * endpoint needs to be asked (decision 061). */
int arm_net_may_amo_native(arm_net_t *net);

/* The transport resources ("tl/device", space separated) UCX offers with the
 * current environment (UCX_TLS and friends), from a throw-away context.
 * Returns how many, or -1 when UCX cannot start. */
int arm_net_list_resources(char *buf, size_t len);

/* UCX's own description of an endpoint (lanes, protocols), for armada-info. */
void arm_net_ep_print(arm_net_ep_t *ep, FILE *f);

typedef struct arm_net_stats {
    uint64_t eps_to_server;      /* endpoints opened, by kind */
    uint64_t eps_to_client;
    uint64_t eps_srv_to_srv;
    double   connect_time_s;     /* time spent in ucp_ep_create */
    uint64_t puts, gets, amos, flushes;
    uint64_t am_sent, am_recv;
    uint64_t bytes_put, bytes_get, bytes_am_sent;
    uint64_t mapped;             /* puts and gets done by memcpy (decision 068) */
} arm_net_stats_t;

/* Sum over this process's workers. */
void arm_net_get_stats(const arm_net_t *net, arm_net_stats_t *s);
/* One worker's counters; only its owning thread may call this while the
 * worker runs. */
void arm_net_worker_stats(const arm_net_worker_t *w, arm_net_stats_t *s);

/* ---- memory registration and remote keys -------------------------------- */

/* Register existing memory (nothing is allocated). */
arm_status_t arm_net_mem_reg(arm_net_t *net, void *addr, size_t len, arm_net_reg_t **reg_p);
arm_status_t arm_net_mem_dereg(arm_net_reg_t *reg);

/* Pack the remote key into buf of *len bytes; on return *len is the packed
 * size. buf NULL (or too small: ARM_ERR_INVALID_ARG) just reports the size. */
arm_status_t arm_net_rkey_pack(arm_net_reg_t *reg, void *buf, size_t *len);

/* Unpack a key packed by a process of `node`, for use on this process's
 * endpoint to that node's server (connected if needed). */
arm_status_t arm_net_rkey_unpack(arm_net_t *net, int node, const void *buf,
                                 arm_net_rkey_t **rkey_p);
/* Destroy after operations using it are flushed. */
void arm_net_rkey_destroy(arm_net_rkey_t *rkey);
/* Decision 068: the remote memory [raddr, raddr + len) is also mapped at
 * ptr in this process (a virtual node of this host). arm_net_put and
 * arm_net_get inside that range then copy with memcpy and complete at
 * once, as UCX's cma would, but without a system call per transfer;
 * atomics still go to UCX. ptr NULL removes the mapping. */
void arm_net_rkey_map(arm_net_rkey_t *rkey, uint64_t raddr, void *ptr, size_t len);
arm_net_ep_t *arm_net_rkey_ep(const arm_net_rkey_t *rkey);

/* ---- RMA and atomics (to the endpoint the rkey was unpacked on) ---------- */

/* Non-blocking; src/dst must stay untouched until completion (ARM_OK now, or
 * comp). comp may be NULL: the operation then completes by a flush. */
arm_status_t arm_net_put(arm_net_rkey_t *rkey, const void *src, size_t len,
                         uint64_t raddr, arm_net_comp_t *comp);
arm_status_t arm_net_get(arm_net_rkey_t *rkey, void *dst, size_t len,
                         uint64_t raddr, arm_net_comp_t *comp);

typedef enum arm_net_amo_op {
    ARM_NET_AMO_ADD,    /* *r += operand (no result)                        */
    ARM_NET_AMO_FADD,   /* result = *r; *r += operand                       */
    ARM_NET_AMO_SWAP,   /* result = *r; *r = operand                        */
    ARM_NET_AMO_CSWAP   /* result = *r; if (*r == *compare) *r = operand    */
} arm_net_amo_op_t;

/* size 4 or 8; operand/compare/result point to values of that size, aligned,
 * valid until completion; raddr aligned to size. */
arm_status_t arm_net_amo(arm_net_rkey_t *rkey, arm_net_amo_op_t op, size_t size,
                         const void *operand, const void *compare, void *result,
                         uint64_t raddr, arm_net_comp_t *comp);

/* ---- active messages ------------------------------------------------------ */

#define ARM_NET_AM_MAX_ID 32

typedef struct arm_net_iov {      /* layout of ucp_dt_iov_t */
    void  *buf;
    size_t len;
} arm_net_iov_t;

/* What a handler sees. For rndv messages data is a descriptor: receive it
 * with arm_net_am_recv_data() (in the handler, or later after returning
 * ARM_INPROGRESS). Eager data may be kept past the handler by returning
 * ARM_INPROGRESS and then freed with arm_net_am_release(). msg itself lives
 * on the stack of the call: copy it to keep it. */
typedef struct arm_net_am_msg {
    arm_net_worker_t *worker;
    unsigned    id;
    const void *hdr;
    size_t      hdr_len;     /* hdr valid during the handler only */
    void       *data;
    size_t      data_len;
    int         rndv;
    int         keepable;    /* data may be kept past the handler */
    void       *reply_ep;    /* UCX's endpoint back to the sender, when it
                                sent with ARM_NET_AM_REPLY (net internal)  */
} arm_net_am_msg_t;

/* Runs inside arm_net_progress of the worker; must not progress it. Returns
 * ARM_OK (data no longer needed) or ARM_INPROGRESS (kept, see above). */
typedef arm_status_t (*arm_net_am_cb_t)(void *arg, const arm_net_am_msg_t *msg);

arm_status_t arm_net_am_set_handler(arm_net_worker_t *w, unsigned id,
                                    arm_net_am_cb_t cb, void *arg);

enum {
    ARM_NET_AM_EAGER = 1u << 0,  /* force the eager protocol  */
    ARM_NET_AM_RNDV  = 1u << 1,  /* force the rendezvous protocol */
    ARM_NET_AM_REPLY = 1u << 2   /* hand the receiver UCX's endpoint back */
};

/* Send header + payload (either may be empty). hdr and data (iov array and
 * buffers) stay valid until completion. */
arm_status_t arm_net_am_send(arm_net_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                             const void *data, size_t len, unsigned flags,
                             arm_net_comp_t *comp);
arm_status_t arm_net_am_sendv(arm_net_ep_t *ep, unsigned id, const void *hdr,
                              size_t hdr_len, const arm_net_iov_t *iov, size_t iovcnt,
                              unsigned flags, arm_net_comp_t *comp);

/* Receive the payload of msg into buf (len >= msg->data_len): starts the
 * rendezvous transfer, or copies eager data (freeing it when it was kept
 * past the handler). Callable in the handler or after it kept the message. */
arm_status_t arm_net_am_recv_data(const arm_net_am_msg_t *msg, void *buf, size_t len,
                                  arm_net_comp_t *comp);
/* Free a message kept past its handler without receiving it. */
void arm_net_am_release(const arm_net_am_msg_t *msg);

#endif
