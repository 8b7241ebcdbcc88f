/* Internals of the communication server, shared by its files:
 * srv_admit.c (admission and refusals), srv_slots.c (slots, credits,
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
    char           why[SRV_WHY_MAX];
} srv_rec_t;

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
};

struct srv_client {
    int          rank;
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
    struct arm_server *srv;
};

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
    srv_client_t *clients;
    char *slab;
    size_t slab_bytes;
    srv_seg_t *segs;
    int nsegs, segcap;
    srv_client_t *blocked;     /* clients whose head waits (a held lock),    */
    srv_client_t *blocked_tail;/* oldest first                               */
    int nblocked;
    arm_server_stats_t stats;
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
#define SRV_NOPS (ARM_SRV_BATCH + 1)
extern const srv_handler_t srv_handlers[SRV_NOPS];

const srv_handler_t *srv_handler_of(unsigned op);
/* Does a served request want a reply (BATCH: when it carries a fence)? */
int srv_wants_reply(const arm_srv_req_t *r);

/* srv_admit.c: the transport's handler for requests. */
arm_status_t srv_on_request(void *arg, const arm_net_am_msg_t *msg);

/* srv_slots.c */
/* Serves cl's queue from its head until it is empty or the head waits. */
void srv_drain(struct arm_server *s, srv_client_t *cl);
void srv_slot_free(srv_slot_t *sl);
void srv_send_credits(srv_client_t *cl);
/* Completion of a payload received into a slot. */
void srv_recv_done(arm_net_comp_t *c);
/* Sends a refusal prepared in rec (req_id, status, why) with rec->why as
 * its payload. */
void srv_post_refusal(srv_client_t *cl, srv_rec_t *rec);
/* Drains every waiting client once; non-zero when one stopped waiting. */
int srv_retry_blocked(struct arm_server *s);

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
