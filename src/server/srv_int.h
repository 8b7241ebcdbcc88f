/* Internals of the communication server, shared by its files:
 * srv_layout.c (who holds slots here, and the bytes: made at start or at
 * first use), srv_admit.c (admission and refusals), srv_slots.c (slots, credits,
 * replies, in-order service, the list of waiting clients), srv_handlers.c
 * (one handler per operation, in a const table), srv_segs.c (registered
 * segments), srv_main.c (making a server over a transport, progress, the
 * thread) and arm_server.c (the server the runtime starts, over UCX). The
 * transports are srv_xport_ucx.c and srv_xport_fake.c (srv_xport.h). */
#ifndef SRV_INT_H
#define SRV_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include "server/arm_server.h"
#include "server/arm_srv_proto.h"
#include "server/srv_xport.h"
#include "topo/arm_topo.h"

/* Sums of fetch-and-add operands wrap as the atomic itself does (two's
 * complement), without the undefined overflow of int64_t arithmetic. */
static inline int64_t srv_wrap_add(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

/* DEFERRED: a large put whose data the transport still holds; it is
 * received straight into its destination once it reaches the head. */
enum { SLOT_FREE = 0, SLOT_RECEIVING, SLOT_READY, SLOT_REPLYING, SLOT_DEFERRED };

/* Room for a refusal's reason, sent as the reply's payload. */
#define SRV_WHY_MAX 160

/* Sync replies that may be in flight per client at once: the sync slot is
 * free again as soon as its reply is posted (decision 027), so the next
 * sync request may arrive before the transport reports the last reply sent. */
#define SRV_SYNC_RECS 2

typedef struct srv_client srv_client_t;
typedef struct srv_slot srv_slot_t;

/* A reply on its way: its header, completion and reason text live here
 * until the transport reports it sent, independently of any slot. */
typedef struct srv_rec {
    arm_srv_rep_t  rep;
    arm_net_comp_t comp;
    srv_client_t  *cl;
    srv_slot_t    *slot;       /* freed when the send completes; NULL: none */
    int            busy;
    arm_net_iov_t  iov1;       /* a reply's one data buffer                  */
    void          *owned;      /* srv_out_t.owned: freed when the send completes */
    char           why[SRV_WHY_MAX];
} srv_rec_t;

/* A reply pool record: replies to requests that reached this server through
 * an edge (forwarded), which have no client record here. */
#define SRV_POOL_RECS 256
/* Outgoing buffers per edge to a neighbour server: one filling, the others
 * waiting for a credit or being sent. */
#define SRV_OBUFS 3
/* Origins one combined fetch-and-add carries at most. */
#define SRV_COMB_MAX 64

struct srv_slot {
    arm_srv_req_t  req;
    int            state;
    int            idx;
    char          *dptr;       /* payload: in data[], or the transport's buffer */
    uint32_t       dlen;
    arm_net_comp_t comp;       /* receiving the payload                      */
    arm_net_am_msg_t rmsg;     /* DEFERRED: the rendezvous descriptor, or the
                                  eager buffer of a big put or accumulate   */
    srv_client_t  *cl;
    char          *data;       /* slot_size bytes, preallocated (NULL: sync) */
    int            kept;       /* dptr is rmsg's buffer, kept past its
                                  handler: release it once served           */
    arm_status_t   rx_status;  /* receiving the payload failed: refused     */
    srv_rec_t      rec;        /* credited slots: their reply               */
    /* Edge slots (a forwarded message): the next entry to serve, and the
     * replies of its entries still being sent (the slot holds their data). */
    uint32_t       cursor, nent;
    int            pending;
    uint32_t       seq;        /* the message's number on its edge           */
    int            held;       /* arrived before an earlier one: not queued  */
};

/* A client: a process that sends requests here (this node's and the
 * neighbour nodes' processes), or an incoming edge: a neighbour server that
 * forwards requests here (edge = 1, node its node, rank -1). */
struct srv_client {
    int          rank;
    int          edge;
    int          node;
    int          nslots;       /* credited slots; slots[nslots] is the sync slot */
    srv_slot_t  *slots;
    int         *free_stack;   /* indices of free credited slots            */
    int          nfree;
    int         *order;        /* ring of queued slot indices, arrival order */
    int          qhead, qcount;
    uint32_t     unreturned;   /* freed slots not yet returned as credits    */
    int          blocked;      /* on the server's list of waiting clients    */
    srv_client_t *bnext, *bprev;
    srv_rec_t    sync_rec[SRV_SYNC_RECS];
    srv_rec_t    credit_rec;   /* credit-only replies                        */
    srv_rec_t    refuse_rec;   /* refusals of requests that got no slot      */
    arm_srv_fwd_hdr_t credit_hdr; /* edges: the credits message on its way  */
    uint32_t     seq_next;     /* edges: the message number served next     */
    int          nheld;        /* edges: slots held for an earlier message  */
    int          ack_due;      /* on the server's list of clients that may be
                                  owed an acknowledgement (fence_ack)      */
    srv_client_t *anext;
    struct arm_server *srv;
};

/* An outgoing buffer: forwarded requests for one next node, packed as
 * ARM_SRV_AM_FWD entries until sent as one message. */
typedef struct srv_obuf {
    arm_srv_fwd_hdr_t hdr;
    char          *data;       /* edge_cap bytes                             */
    size_t         used;
    size_t         last;       /* offset of the last entry (combining)       */
    int            state;      /* OBUF_FREE, _FILLING, _WAITING, _SENDING    */
    arm_net_comp_t comp;
    struct srv_oedge *e;
} srv_obuf_t;

enum { OBUF_FREE = 0, OBUF_FILLING, OBUF_WAITING, OBUF_SENDING };

/* An outgoing edge: to the server of neighbour node `node`. Buffers are
 * made at its first use. */
typedef struct srv_oedge {
    int            node;
    int            credits;    /* edge slots free at node for this server   */
    srv_obuf_t     buf[SRV_OBUFS];
    int            order[SRV_OBUFS];  /* buffers not free, oldest first     */
    int            norder;
    int            dirty;      /* on the list of edges to flush              */
    struct srv_oedge *dnext;
    struct arm_server *srv;
    uint64_t       reqs, msgs, combined;
    uint32_t       seq;        /* the next message's number on this edge     */
} srv_oedge_t;

/* A reply from the pool (forwarded requests) or a parked lock request. */
typedef struct srv_prec {
    srv_rec_t      rec;
    arm_srv_split_hdr_t split; /* a split answer's header                   */
    srv_slot_t    *agg;        /* edge slot whose data the reply uses        */
    int            dest;       /* origin rank                                */
    struct arm_server *srv;
    struct srv_prec *next;
} srv_prec_t;

/* A split answer waiting for reply records: its origins from `next` on. */
typedef struct srv_split {
    arm_srv_split_hdr_t hdr;
    uint32_t       next;
    struct srv_split *link;
    arm_srv_comb_t ent[];
} srv_split_t;

/* A count of forwarded writes served for one origin (srv_fack.c). */
typedef struct srv_fack {
    int32_t        rank;       /* -1: empty                                 */
    uint32_t       owed;       /* served, not yet told to the origin        */
} srv_fack_t;

typedef struct srv_park {
    arm_srv_req_t  req;
    struct srv_park *next;
} srv_park_t;

/* Payload memory of records made lazily. */
typedef struct srv_chunk {
    struct srv_chunk *next;
} srv_chunk_t;

typedef struct srv_seg {
    char  *base;
    size_t len;
    void  *reg;                /* the transport's registration              */
    int    mapped;             /* mapped by the server (REG): unmap at removal */
} srv_seg_t;

struct arm_server {
    arm_server_params_t p;
    const srv_xport_ops_t *x;
    void *xctx;
    pthread_t thread;
    int thread_started;
    _Atomic int stop;
    srv_client_t **clients;    /* made at start: sorted by rank              */
    int nclients;
    int all_ranks;             /* clients[r] is rank r (no topology)         */
    srv_client_t **ltab;       /* lazy_clients: by rank, open addressing     */
    size_t lcap, lcount;
    srv_chunk_t *chunks;       /* lazy_clients: their payload memory         */
    int nchunks;
    char *arena;
    size_t arena_left;
    srv_client_t **edges;      /* incoming edges, by arm_topo_fwd_in index   */
    int nedges;                /* (NULL until made, with lazy_clients)       */
    srv_oedge_t **oedges;      /* outgoing, by arm_topo_neighbour index      */
    int noedges;               /* (NULL until first used)                    */
    srv_oedge_t *dirty;        /* outgoing edges with a buffer filling       */
    size_t edge_cap;           /* bytes of one forwarded message at most     */
    srv_prec_t *precs, *pfree; /* reply pool                                 */
    int npfree;
    srv_park_t *parked, *parked_tail;
    int nparked;
    srv_split_t *splits, *splits_tail;  /* split answers waiting for records */
    int nsplits;
    char *slab;
    size_t slab_bytes;
    srv_seg_t *segs;
    int nsegs, segcap;
    srv_client_t *blocked;     /* clients whose head waits (a held lock),    */
    srv_client_t *blocked_tail;/* oldest first                               */
    int nblocked;
    int *acc_owner;            /* rank -> 1 + the rank holding its accumulate
                                  lock by ARM_SRV_ACCLOCK, 0: none (made at
                                  the first)                              */
    srv_client_t *acks;        /* clients with ack_due set                   */
    double ack_since;          /* when the first of them was noted           */
    srv_fack_t *fack;          /* forwarded writes served, by origin rank    */
    uint32_t fack_cap, fack_used;
    int32_t *fack_due;         /* origins owed a count (fence_ack)           */
    uint32_t fack_ndue, fack_due_cap;
    arm_server_stats_t stats;
    uint64_t start_bytes;      /* stats.buffer_bytes before the thread ran   */
};

/* What a handler hands back besides its status: the reply's value and
 * data, whether a reply is due, and on refusal the reason. */
typedef struct srv_out {
    int64_t value;
    const arm_net_iov_t *iov;
    size_t iovcnt;
    size_t bytes;
    arm_net_iov_t one;         /* where iov points for one buffer            */
    int reply;
    char *why;                 /* SRV_WHY_MAX bytes                          */
    void *owned;               /* memory the reply's iov reads, freed once it
                                  is sent (a get's table with runs)          */
} srv_out_t;

/* A handler serves the request in the slot at the head of its client's
 * queue. ARM_OK: served (replied if out->reply); ARM_INPROGRESS: must wait
 * (a held lock), retried later; negative: refused, out->why says why. */
typedef arm_status_t (*srv_handler_fn)(struct arm_server *s, srv_slot_t *sl, srv_out_t *out);

typedef struct srv_handler {
    const char    *name;
    srv_handler_fn fn;
    int            replies;    /* a reply is due when served                */
} srv_handler_t;

/* Indexed by arm_srv_op_t; entries without fn are unknown operations. */
#define SRV_NOPS (ARM_SRV_ACCUNLOCK + 1)
extern const srv_handler_t srv_handlers[SRV_NOPS];

const srv_handler_t *srv_handler_of(unsigned op);
/* Does a served request want a reply (BATCH: when it carries a fence)? */
int srv_wants_reply(const arm_srv_req_t *r);
/* Must request r (payload data, dlen bytes) wait because it accumulates to
 * a rank whose accumulate lock an origin holds (ARM_SRV_ACCLOCK)? The
 * server never sleeps on such a lock: the holder's unlock comes through it. */
int srv_acc_waits(const struct arm_server *s, const arm_srv_req_t *r, const char *data,
                  size_t dlen);

/* srv_layout.c */
/* Bytes of one forwarded message at most. */
size_t srv_edge_cap(const arm_server_params_t *p);
/* The records of clients and incoming edges (eager: all, now). */
arm_status_t srv_clients_init(struct arm_server *s);
/* Gives back the transport buffers requests still hold (before the
 * transport ends: arm_server_stop, srv_destroy). */
void srv_clients_release(struct arm_server *s);
void srv_clients_fini(struct arm_server *s);
void srv_client_free(srv_client_t *cl);
/* The client record of rank (made now with lazy_clients), NULL when rank
 * is not a client here. */
srv_client_t *srv_client_of(struct arm_server *s, int rank);
/* The incoming edge of arm_topo_fwd_in index e, NULL when none. */
srv_client_t *srv_edge_of(struct arm_server *s, int e);

/* srv_admit.c: the transport's handler for requests. */
arm_status_t srv_on_request(void *arg, const arm_net_am_msg_t *msg);
/* Sets up a slot for a message with data_len bytes of payload and queues
 * it at the tail of cl's queue (the payload is taken by the caller). */
void srv_enqueue(srv_client_t *cl, srv_slot_t *sl);

/* srv_fwd.c: forwarding, aggregation and combining (hicoo 3.1). */
/* The node whose server serves r (its target's node), -1 if unknown. */
int srv_target_node(const struct arm_server *s, const arm_srv_req_t *r);
/* Sends request r with data on toward node dst (!= this node): ARM_OK when
 * packed into an outgoing buffer (data no longer needed), ARM_INPROGRESS
 * when none has room or credit yet (retry later), negative when it cannot
 * be forwarded (why says why). */
arm_status_t srv_fwd_add(struct arm_server *s, int dst, const arm_srv_req_t *r,
                         const void *data, size_t dlen, char *why);
/* The same for a forwarded entry, which may carry ncomb combined origins. */
/* Whether a combined entry of ncomb origins (dlen bytes of their records)
 * is one a server makes: fetch-and-adds, or one-int accumulates. */
int srv_fwd_comb_ok(const arm_srv_req_t *r, size_t dlen, uint32_t ncomb);
arm_status_t srv_fwd_add_ent(struct arm_server *s, int dst, const arm_srv_req_t *r,
                             uint32_t ncomb, const void *data, size_t dlen, char *why);
/* Sends every outgoing buffer that is filling and has a credit; non-zero
 * when it sent one. */
int srv_fwd_flush(struct arm_server *s);
/* Serves the forwarded entries of edge slot sl from its cursor: 1 when all
 * are done, 0 when one must wait (credit, reply record). */
int srv_fwd_serve(struct arm_server *s, srv_slot_t *sl);
/* Retries parked lock requests; non-zero when one was granted. */
int srv_fwd_retry_parked(struct arm_server *s);
/* Credits of an incoming edge go back to its server. */
void srv_fwd_send_credits(srv_client_t *edge);
/* An answer to rank carrying only its forwarded writes served here
 * (decision 078), from the reply pool; 0 when no record is free. */
int srv_fwd_ack(struct arm_server *s, int rank);
/* Refuses a request of rank (not a client here) from the reply pool. */
arm_status_t srv_fwd_refuse_to(struct arm_server *s, int rank, uint64_t req_id, arm_status_t st,
                               const char *why);
arm_status_t srv_on_fwd(void *arg, const arm_net_am_msg_t *msg);
arm_status_t srv_on_credit(void *arg, const arm_net_am_msg_t *msg);
/* A split answer from a target: each origin answered from the pool. */
arm_status_t srv_on_split(void *arg, const arm_net_am_msg_t *msg);

/* srv_relay.c: the one way a server answers a client: straight, or under
 * bound_replies through the servers on the client's route. */
arm_status_t srv_reply(struct arm_server *s, int rank, const void *hdr, size_t hdr_len,
                       const arm_net_iov_t *iov, size_t iovcnt, unsigned flags,
                       arm_net_comp_t *comp);
arm_status_t srv_on_relay(void *arg, const arm_net_am_msg_t *msg);
/* Answers origins of waiting split answers; non-zero when one was. */
int srv_split_retry(struct arm_server *s);
arm_status_t srv_fwd_init(struct arm_server *s);
/* The reply pool (made at start, or at first use with lazy_clients). */
arm_status_t srv_pool_make(struct arm_server *s);
void srv_fwd_fini(struct arm_server *s);

/* srv_slots.c */
/* Serves cl's queue from its head until it is empty or the head waits. */
void srv_drain(struct arm_server *s, srv_client_t *cl);
void srv_slot_free(srv_slot_t *sl);
void srv_send_credits(srv_client_t *cl);
/* Completion of a payload received into a slot. */
void srv_recv_done(arm_net_comp_t *c);
/* Receives a rendezvous payload into sl->data: the slot is RECEIVING until
 * srv_recv_done, or READY at once with rx_status set. */
void srv_slot_receive(struct arm_server *s, srv_slot_t *sl, const arm_net_am_msg_t *msg);
/* Sends a refusal prepared in rec (req_id, status, why) with rec->why as
 * its payload. */
void srv_post_refusal(srv_client_t *cl, srv_rec_t *rec);
/* Drains every waiting client once; non-zero when one stopped waiting. */
int srv_retry_blocked(struct arm_server *s);
int srv_ack_idle(struct arm_server *s);

/* srv_fack.c: acknowledging forwarded writes (decision 078). */
/* n forwarded requests of rank wanting no reply were served here. */
void srv_fack_note(struct arm_server *s, int rank, uint32_t n);
/* What rank is owed, now told (an answer to rank carries it). */
uint32_t srv_fack_take(struct arm_server *s, int rank);
/* Tells every origin owed a count (server idle); non-zero when one was. */
int srv_fack_idle(struct arm_server *s);
void srv_fack_fini(struct arm_server *s);

/* srv_segs.c */
/* The address of [raddr, +len) when one registered segment holds it;
 * otherwise NULL with the reason in why (SRV_WHY_MAX bytes). */
char *srv_addr(struct arm_server *s, uint64_t raddr, uint64_t len, char *why);
/* Adds [base, +len) as a segment registered with the transport; mapped:
 * the server mapped it and unmaps it at removal. */
arm_status_t srv_seg_add(struct arm_server *s, void *base, size_t len, int mapped,
                         srv_seg_t *out);
/* Maps a node segment by name and adds it. */
arm_status_t srv_seg_map(struct arm_server *s, const char *name, size_t len, srv_seg_t *out);
/* Deregisters (and unmaps) the segment starting at base; ARM_ERR_NOT_FOUND
 * when none does. */
arm_status_t srv_seg_remove(struct arm_server *s, uint64_t base);
void srv_segs_clear(struct arm_server *s);

/* srv_main.c */
/* Makes a server over transport x (not started: no thread). */
arm_status_t srv_create(const arm_server_params_t *p, const srv_xport_ops_t *x, void *xctx,
                        struct arm_server **out);
/* One pass: transport progress, then the waiting clients. */
int srv_progress(struct arm_server *s);
/* The thread's body: progress until stop, sleeping when idle. */
void *srv_thread(void *arg);
void srv_destroy(struct arm_server *s);

#endif
