/* An in-process transport for the server: requests are handed to it by a
 * call, and what it sends is recorded for the caller to read. Unit tests
 * drive every handler through it with no MPI and no UCX; the simulator
 * will run the server's own code through it.
 *
 * Sends complete at once, at the next progress, or only when the caller
 * says (send_mode), so tests can hold a reply's completion back as a slow
 * network would. Memory registration records nothing in a NIC: the key it
 * packs is the text "fake-rkey <base>". */
#ifndef SRV_XPORT_FAKE_H
#define SRV_XPORT_FAKE_H

#include <stddef.h>
#include "server/srv_xport.h"

enum { SRV_FAKE_SEND_NOW = 0, SRV_FAKE_SEND_PROGRESS, SRV_FAKE_SEND_HOLD };

/* A message the server sent. */
typedef struct srv_fake_sent {
    int            to;          /* rank (reply) or node (request)            */
    int            is_request;  /* 0: a reply; else the server-to-server
                                   message kind (ARM_SRV_AM_FWD, _CREDIT)  */
    unsigned char  hdr[64];
    size_t         hdr_len;
    char          *data;        /* the gathered payload, copied at the send  */
    size_t         len;
    size_t         iovcnt;      /* pieces the payload was handed over in     */
    unsigned       flags;
    arm_net_comp_t *comp;       /* while not complete                        */
} srv_fake_sent_t;

#define SRV_FAKE_AM_IDS 8

typedef struct srv_fake {
    arm_net_am_cb_t cb;         /* requests (ARM_SRV_AM_REQ)                 */
    void           *cb_arg;
    arm_net_am_cb_t cbs[SRV_FAKE_AM_IDS];   /* by message kind              */
    void           *cb_args[SRV_FAKE_AM_IDS];
    int             send_mode;  /* SRV_FAKE_SEND_*                           */
    int             hold_recvs; /* rendezvous receives complete at progress  */
    int             fail_sends; /* sends fail at once (ARM_ERR_TRANSPORT)    */
    srv_fake_sent_t *sent;      /* every send, in order                      */
    size_t          nsent, sent_cap;
    size_t          ndone;      /* sends before this index are complete      */
    struct srv_fake_rx { arm_net_comp_t *comp; void *buf; void *src; size_t len; } *rx;
    size_t          nrx, rx_cap;
    void          **live;       /* payload buffers the server may still use  */
    size_t          nlive, live_cap;
    int             nreg;       /* registrations held                        */
    int             bad_release;/* releases of buffers it did not hold       */
} srv_fake_t;

extern const srv_xport_ops_t srv_xport_fake;

void srv_fake_init(srv_fake_t *f);
void srv_fake_fini(srv_fake_t *f);
/* Delivers a request as the network would: eager (data copied into a
 * buffer of the fake's, kept if the handler keeps it) or rendezvous (data
 * received when the server asks for it). Returns the handler's status. */
arm_status_t srv_fake_deliver(srv_fake_t *f, const void *hdr, size_t hdr_len, const void *data,
                              size_t len, int rndv);
/* Delivers a message of kind am_id (ARM_SRV_AM_FWD, _CREDIT) eagerly, as
 * from another server. */
arm_status_t srv_fake_deliver_am(srv_fake_t *f, unsigned am_id, const void *hdr, size_t hdr_len,
                                 const void *data, size_t len);
/* Completes the oldest n sends still pending; returns how many it did. */
size_t srv_fake_complete(srv_fake_t *f, size_t n);
/* Payload buffers the server kept past their handler and still holds. */
size_t srv_fake_kept(const srv_fake_t *f);

#endif
