/* net: structures shared by the files of the layer (not for other layers). */
#ifndef ARM_NET_INT_H
#define ARM_NET_INT_H

#include <ucp/api/ucp.h>

#include "net/arm_net.h"
#include "util/arm_log.h"

#define ARM_NET_SUBSYS "net"

enum { ARM_NET_WORKER_CLIENT = 0, ARM_NET_WORKER_SERVER = 1 };

typedef struct arm_net_am_slot {
    arm_net_am_cb_t   cb;
    void             *arg;
    arm_net_worker_t *worker;
    unsigned          id;
} arm_net_am_slot_t;

struct arm_net_worker {
    ucp_worker_h     h;
    int              efd;
    int              kind;
    arm_net_t       *net;
    arm_net_stats_t  stats;          /* touched by the owning thread only */
    double           yield_s;        /* idle policy: seconds of yielding     */
    int              poll_yield;     /* and a yield every so many empty polls */
    void            *am_cur_data;    /* data of the message whose AM handler is
                                        running (UCX frees it when the handler
                                        returns OK), else NULL               */
    arm_net_am_slot_t am[ARM_NET_AM_MAX_ID];
};

/* A connection's life (arm_net_conn.c holds every transition). */
typedef enum arm_net_conn_state {
    ARM_NET_CONN_IDLE = 0,           /* no endpoint                            */
    ARM_NET_CONN_CONNECTING,         /* endpoint made, its hello not yet out:
                                        messages queue in UCX, in order       */
    ARM_NET_CONN_CONNECTED,          /* the hello went out                    */
    ARM_NET_CONN_FAILED              /* the endpoint or its hello failed      */
} arm_net_conn_state_t;

struct arm_net_ep {
    ucp_ep_h          h;             /* NULL: not connected */
    arm_net_worker_t *worker;
    int               kind;
    int               peer;          /* node (TO_SERVER, SRV_TO_SRV) or rank */
    int               caps_known;
    unsigned          caps;
    int               state;         /* arm_net_conn_state_t                  */
    arm_status_t      fail;          /* why, when FAILED                      */
};

/* Doubly linked list node for objects finalize may have to clean up. */
typedef struct arm_net_link {
    struct arm_net_link *prev, *next;
} arm_net_link_t;

struct arm_net_reg {
    arm_net_link_t link;             /* first member */
    arm_net_t     *net;
    ucp_mem_h      memh;
    void          *addr;
    size_t         len;
};

struct arm_net_rkey {
    arm_net_link_t link;             /* first member */
    ucp_rkey_h     h;
    arm_net_ep_t  *ep;
    char          *map;              /* decision 068: the memory mapped here */
    uint64_t       map_raddr;
    size_t         map_len;
};

struct arm_net {
    int nproc, rank, nnodes, my_node, leader;
    int *node_of;
    int *leader_of_node;
    arm_net_allgather_fn allgather;
    arm_net_ibarrier_start_fn ibarrier_start;
    arm_net_ibarrier_test_fn ibarrier_test;
    void *cb_ctx;
    int finalize_timeout_ms;
    int server_worker_mt;
    /* Endpoints are made with UCP_ERR_HANDLING_MODE_PEER: the context reaches
     * other processes by TCP alone (see tcp_only in arm_net_ctx.c). */
    int peer_errors;

    ucp_context_h    ctx;
    arm_net_worker_t client;
    arm_net_worker_t server_storage;
    arm_net_worker_t *server;        /* &server_storage or NULL */

    /* The address book (arm_net_conn.c). Eager exchange: every rank's block
     * of addr_stride bytes in addrs (uint32 client_len, uint32 server_len,
     * client address, server address). Lazy exchange (lazy_addrs): addrs
     * holds only the nodes' server addresses, nnodes blocks. */
    unsigned char *addrs;
    size_t         addr_stride;
    int            lazy_addrs;

    arm_net_ep_t *to_server;         /* [nnodes], on the client worker */
    arm_net_ep_t *to_client;         /* [nproc], on the server worker  */
    arm_net_ep_t *srv_to_srv;        /* [nnodes], on the server worker */

    arm_net_link_t regs;             /* live registrations */
    arm_net_link_t rkeys;            /* live unpacked rkeys */
};

arm_status_t arm_net_status_from_ucs(ucs_status_t st);

/* Log a UCX failure of `what` and return the mapped status. */
arm_status_t arm_net_ucs_error(const char *what, ucs_status_t st);

/* Request completion: the callbacks given to every *_nbx call. */
void arm_net_send_cb(void *request, ucs_status_t status, void *user_data);

/* Account a *_nbx return value against comp. */
static inline arm_status_t arm_net_track(ucs_status_ptr_t sp, arm_net_comp_t *comp,
                                         const char *what)
{
    if (sp == NULL)
        return ARM_OK;
    if (UCS_PTR_IS_ERR(sp))
        return arm_net_ucs_error(what, UCS_PTR_STATUS(sp));
    if (comp)
        comp->pending++;
    return ARM_INPROGRESS;
}

static inline void arm_net_list_init(arm_net_link_t *head) { head->prev = head->next = head; }

static inline void arm_net_list_add(arm_net_link_t *head, arm_net_link_t *l)
{
    l->next = head->next;
    l->prev = head;
    head->next->prev = l;
    head->next = l;
}

static inline void arm_net_list_del(arm_net_link_t *l)
{
    l->prev->next = l->next;
    l->next->prev = l->prev;
    l->prev = l->next = l;
}

/* Net-internal active message (hellos); user ids are below it. */
#define ARM_NET_AM_CONN (ARM_NET_AM_MAX_ID - 1)

/* arm_net_conn.c: the start-up exchange of addresses, the handler of hellos
 * (on every worker), and the release of the address book. */
arm_status_t arm_net_conn_exchange(arm_net_t *net, const arm_net_params_t *p);
arm_status_t arm_net_conn_listen(arm_net_worker_t *w);
void arm_net_conn_free(arm_net_t *net);

/* Endpoint part of finalize: close every endpoint with a bounded wait. */
void arm_net_ep_close_all(arm_net_t *net);
/* Endpoint part of init: make the eager endpoints. */
arm_status_t arm_net_ep_connect_eager(arm_net_t *net);

#endif
