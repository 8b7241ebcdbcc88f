/* The server's one way to the network: a const table of transport
 * operations, chosen once when the server is made. Two implementations:
 * srv_xport_ucx (the net layer) and srv_xport_fake (in-process, for unit
 * tests and the simulator). Handlers never see which one runs.
 *
 * Messages and completions are the net layer's plain types
 * (arm_net_am_msg_t, arm_net_comp_t, arm_net_iov_t); a transport fills
 * them, so nothing here calls UCX. Every operation returns ARM_OK (done),
 * ARM_INPROGRESS (comp completes it later, its callback runs inside
 * progress) or a negative status. */
#ifndef SRV_XPORT_H
#define SRV_XPORT_H

#include <stddef.h>
#include "net/arm_net.h"
#include "util/arm_status.h"

typedef struct srv_xport_ops {
    const char *name;
    /* Makes cb(arg, msg) run, inside progress, for each message of kind
     * am_id (ARM_SRV_AM_REQ, _FWD, _CREDIT) that arrives. cb returns ARM_OK
     * (data no longer needed) or ARM_INPROGRESS (kept: later recv_data or
     * release). */
    arm_status_t (*listen)(void *ctx, unsigned am_id, arm_net_am_cb_t cb, void *arg);
    /* A reply (ARM_SRV_AM_REP) to the client of rank `rank`: header and
     * gathered data, which stay untouched until completion. */
    arm_status_t (*send_reply)(void *ctx, int rank, const void *hdr, size_t hdr_len,
                               const arm_net_iov_t *iov, size_t iovcnt, unsigned flags,
                               arm_net_comp_t *comp);
    /* A message of kind am_id (ARM_SRV_AM_FWD or _CREDIT) to the server of
     * node `node`, a neighbour in the virtual topology. */
    arm_status_t (*send_server)(void *ctx, int node, unsigned am_id, const void *hdr,
                                size_t hdr_len, const arm_net_iov_t *iov, size_t iovcnt,
                                unsigned flags, arm_net_comp_t *comp);
    /* The payload of a message into buf (rendezvous transfer or copy). */
    arm_status_t (*recv_data)(void *ctx, const arm_net_am_msg_t *msg, void *buf, size_t len,
                              arm_net_comp_t *comp);
    /* Frees a message kept past its handler without receiving it. */
    void (*release)(void *ctx, const arm_net_am_msg_t *msg);
    /* One pass of progress; non-zero when something happened. */
    int (*progress)(void *ctx);
    /* Sleeps until events, a wakeup, or timeout_ms. */
    arm_status_t (*wait)(void *ctx, int timeout_ms);
    /* Ends a wait from any thread. */
    void (*wakeup)(void *ctx);
    /* Optional: whether send_reply can reach the client of `rank` itself
     * (it connected to this server). NULL: always. A server of a topology
     * answers a client it cannot reach back along the client's route
     * (srv_relay.c). */
    int (*reachable)(void *ctx, int rank);
    /* Registers memory for the clients' direct RMA; *reg is the transport's. */
    arm_status_t (*mem_reg)(void *ctx, void *addr, size_t len, void **reg);
    void (*mem_dereg)(void *ctx, void *reg);
    /* Packs reg's remote key into buf of *len bytes; *len becomes its size. */
    arm_status_t (*rkey_pack)(void *ctx, void *reg, void *buf, size_t *len);
} srv_xport_ops_t;

/* wait and wakeup of transports without a thread to wake (the fake
 * transport, the simulator's): wait returns at once. */
arm_status_t srv_xport_wait_none(void *ctx, int timeout_ms);
void srv_xport_wakeup_none(void *ctx);

/* The net layer's: ctx is a srv_xport_ucx_t. */
typedef struct srv_xport_late srv_xport_late_t;
typedef struct srv_xport_ucx {
    arm_net_t *net;
    arm_net_worker_t *w;          /* the server worker                         */
    /* Test only (ARMADA_SERVER_COMP_DELAY_US): reply completions reach the
     * server delay_s late, through ncap preallocated wrappers. */
    double delay_s;
    srv_xport_late_t *late;
    int ncap;
    int *free_idx, nfree;
    int *due, due_head, ndue;     /* ring of completed wrappers, oldest first  */
    /* Answers to clients whose hello has not arrived yet (it may come after
     * the request behind it: UCX orders one lane, and an endpoint may have
     * several), sent at the next progress once it has. */
    struct srv_parked *parked;
} srv_xport_ucx_t;

/* Sets up the late completions for up to ncap sends in flight (delay_us 0:
 * none). */
arm_status_t srv_xport_ucx_init(srv_xport_ucx_t *u, arm_net_t *net, int delay_us, int ncap);
void srv_xport_ucx_fini(srv_xport_ucx_t *u);

extern const srv_xport_ops_t srv_xport_ucx;

#endif
