/* The per-node communication server: a thread in the lowest rank of each
 * node that serves every request of processes on other nodes against the
 * node's shared memory, so no operation needs the target process's help.
 *
 * Each remote client owns `slots` preallocated request slots of
 * `slot_size` payload bytes; a client sends only while it holds a credit, so
 * the server's memory for requests is fixed at start and counted. Requests
 * of one client are served in order (a fence is answered once everything
 * before it is done); a lock request that cannot be granted waits in its
 * slot, and the server retries it, never spinning on the network.
 *
 * A request the server cannot serve is answered with a refusal, whether or
 * not it wanted a reply: status a negative arm_status_t, req_id the
 * request's (0 when the header was too short to hold it), credits as in any
 * reply, and the reason as len bytes of text (no terminating NUL). */
#ifndef ARM_SERVER_H
#define ARM_SERVER_H

#include <stddef.h>
#include <stdint.h>
#include "net/arm_net.h"
#include "shm/arm_shm_sync.h"
#include "topo/arm_topo.h"
#include "util/arm_status.h"

typedef struct arm_server arm_server_t;

enum { ARM_SRV_PROGRESS_POLL = 0, ARM_SRV_PROGRESS_BLOCK = 1, ARM_SRV_PROGRESS_HYBRID = 2 };

typedef struct arm_server_params {
    arm_net_t *net;
    int nproc;
    int node;                     /* this server's node                        */
    arm_shm_mutex_t **acc_lock;   /* rank -> its accumulate lock (this node's ranks) */
    unsigned acc_stride;          /* words between its stripes; 0: one mutex
                                     (decision 069)                           */
    int slots;                    /* per client                                */
    size_t slot_size;             /* payload bytes per slot                    */
    int progress;                 /* ARM_SRV_PROGRESS_*                        */
    int poll_spins;               /* hybrid: empty polls before blocking       */
    int yield_after;              /* hybrid: empty polls before yielding the CPU
                                     between polls                             */
    size_t reply_eager_max;       /* replies with up to this many data bytes go
                                     eagerly (0: UCX's threshold decides)      */
    size_t reply_pack_below;      /* a reply of several pieces averaging fewer
                                     bytes is packed into one buffer (0: never) */
    /* The virtual topology (NULL: every node reaches every other directly,
     * each server keeps slots for every process). With one, a server keeps
     * slots for the processes of its own and its neighbour nodes, and
     * edge_slots slots of one forwarded message each for every neighbour
     * server that forwards to it; requests for other nodes are sent on. */
    const arm_topo_t *topo;
    const int *node_of;           /* [nproc] node of each rank                 */
    int edge_slots;
    int combine;                  /* combine fetch-and-adds (and one-int
                                     accumulates) on the way                  */
    int split;                    /* answer a combined fetch-and-add through the
                                     server that sent it (decision 047)       */
    /* Records of clients and incoming edges, and outgoing buffers, are made
     * at their first message instead of at start (the simulator, sim/: a
     * job of a million processes cannot hold every server's records). The
     * statistics then count what was made. */
    int lazy_clients;
    /* With a topology: answers to clients of nodes that are not neighbours
     * go back through the servers on the clients' routes, so that a server
     * talks only to its neighbours' clients (ARMADA_CONNECT=edges). */
    int bound_replies;
    /* Acknowledged writes (decision 058), with fence_ack: a client whose
     * requests are all served gets its credits back once the server has
     * been idle for ack_us microseconds, so that it knows its writes
     * complete and fences without a message (a reply meanwhile carries
     * them). */
    int fence_ack;
    int ack_us;
} arm_server_params_t;

/* What a server with given parameters holds for requests at start: the
 * layout its creation allocates, counted without allocating it. */
typedef struct arm_server_layout {
    uint64_t clients;             /* processes with slots                      */
    uint64_t edges_in;            /* neighbour servers with edge slots         */
    uint64_t edges_out;           /* neighbours with outgoing buffers at start */
    uint64_t client_bytes;        /* clients' slots: payload and records       */
    uint64_t edge_bytes;          /* incoming edges' slots                     */
    uint64_t obuf_bytes;          /* outgoing buffers                          */
    uint64_t pool_bytes;          /* reply pool (forwarded requests)           */
    uint64_t buffer_bytes;        /* the sum: stats.buffer_bytes at start      */
} arm_server_layout_t;

/* ARM_OK and the layout of the server of node p->node (p->net unused). */
arm_status_t arm_server_layout(const arm_server_params_t *p, arm_server_layout_t *out);

typedef struct arm_server_stats {
    uint64_t buffer_bytes;        /* request slot memory held                  */
    uint64_t requests;            /* requests served                           */
    uint64_t lock_waits;          /* lock requests that had to wait            */
    uint64_t refused;             /* requests answered with a refusal          */
    uint64_t refusals_lost;       /* refusals not sent: no valid source rank, or
                                     that client's last refusal still in flight */
    uint64_t clients;             /* processes with slots here                 */
    uint64_t edges_in;            /* neighbour servers with slots here         */
    uint64_t edges_out;           /* neighbour servers forwarded to (so far)   */
    uint64_t fwd_requests;        /* requests sent on toward their target      */
    uint64_t fwd_messages;        /* messages those travelled in               */
    uint64_t fwd_combined;        /* requests folded into another (fetch-and-adds,
                                     one-int accumulates)                      */
    uint64_t fwd_in_requests;     /* requests that arrived from a server       */
    uint64_t fwd_in_messages;     /* messages those arrived in                 */
    uint64_t fwd_in_early;        /* of them, arrived before an earlier one of
                                     their edge (held until it came)           */
    uint64_t credit_waits;        /* times a forward waited for an edge credit */
    uint64_t split_sent;          /* combined answers sent as one message      */
    uint64_t split_replies;       /* origins answered here for another target  */
    uint64_t relayed;             /* answers sent on toward a client's first hop
                                     (bound_replies)                           */
    uint64_t packed_replies;      /* segmented answers packed into one buffer  */
    uint64_t cpu_ns;              /* processor time of the server thread       */
    uint64_t fwd_acks;            /* answers telling an origin only how many of
                                     its forwarded writes were served here
                                     (decision 078)                           */
} arm_server_stats_t;

/* Starts the server thread on the net layer's server worker. */
arm_status_t arm_server_start(const arm_server_params_t *p, arm_server_t **out);
/* Stops and joins the thread; unmaps and deregisters what it registered. */
void arm_server_stop(arm_server_t *s);
/* Frees the slots; after the net layer is finalised (replies may be in flight
 * until then). */
void arm_server_free(arm_server_t *s);
/* Once the server is stopped (its thread owns the counters until then). */
void arm_server_get_stats(const arm_server_t *s, arm_server_stats_t *out);
/* Request-buffer bytes made at start, readable while the server runs. */
uint64_t arm_server_start_bytes(const arm_server_t *s);
/* Processor time of the server thread so far (ns), readable from any
 * thread while it runs; its final figure once stopped. */
uint64_t arm_server_cpu_ns(const arm_server_t *s);
/* Forwarding per outgoing edge (per hop): the i-th neighbour of this
 * server's node, what it sent there. 0 when i is past the last. */
int arm_server_edge_stats(const arm_server_t *s, int i, int *node, uint64_t *requests,
                          uint64_t *messages, uint64_t *combined);

#endif
