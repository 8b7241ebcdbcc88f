/* Wire format between clients and a node's communication server.
 *
 * A client sends requests (active message ARM_SRV_AM_REQ) on its one
 * endpoint to the server of the target node; the server answers (ARM_SRV_AM_REP)
 * on its endpoint to that client. Every request occupies one of the slots
 * the server keeps for that client until it is fully served, and the client
 * sends only while it holds a credit for a slot (or uses its one sync slot,
 * see ARM_SRV_SYNC): nothing is ever queued without a bound. Freed slots travel back as credits inside replies, or in a
 * reply with req_id 0 when no reply is due.
 *
 * Segmented requests (ARM_SRV_PUTSEG, _ACCSEG, _GETSEG: strided and vector
 * operations, and pipelined chunks of large ones) carry a table of
 * `nseg` arm_srv_seg_t followed, for puts and accumulates, by the packed
 * data of the segments in order; the server unpacks it. */
#ifndef ARM_SRV_PROTO_H
#define ARM_SRV_PROTO_H

#include <stddef.h>
#include <stdint.h>

/* REQ: client -> server; REP: server -> client; FWD and CREDIT: server ->
 * server, along the edges of the virtual topology (src/topo). */
enum { ARM_SRV_AM_REQ = 1, ARM_SRV_AM_REP = 2, ARM_SRV_AM_FWD = 3, ARM_SRV_AM_CREDIT = 4,
       ARM_SRV_AM_SPLIT = 5, ARM_SRV_AM_RELAY = 6 };

typedef enum arm_srv_op {
    ARM_SRV_PUT = 1,      /* data -> raddr                                   */
    ARM_SRV_GET,          /* reply carries len bytes from raddr              */
    ARM_SRV_ACC,          /* raddr += scale * data, under the target's lock  */
    ARM_SRV_PUTSEG,       /* segment table + packed data                     */
    ARM_SRV_GETSEG,       /* segment table; reply carries packed data        */
    ARM_SRV_ACCSEG,       /* segment table + packed data, accumulated        */
    ARM_SRV_RMW,          /* rmw_op on raddr; reply value = old value        */
    ARM_SRV_LOCK,         /* reply when the mutex word at raddr is held      */
    ARM_SRV_UNLOCK,       /* release the mutex word at raddr                 */
    ARM_SRV_FENCE,        /* reply once every earlier request is served      */
    ARM_SRV_REG,          /* map + register a node segment; reply rkey       */
    ARM_SRV_UNREG,        /* deregister + unmap the segment at raddr         */
    ARM_SRV_TRYLOCK,      /* reply value 1 if the mutex was taken, 0 if held */
    ARM_SRV_BATCH,        /* nseg aggregated small puts and accumulates, each an
                             arm_srv_batch_ent_t + data padded to 8 bytes;
                             sub = 1: reply when done (a fence rides along)  */
    ARM_SRV_ACCLOCK,      /* reply when the accumulate lock of rank target is
                             held for src (an accumulate done at the origin,
                             decision 060); other accumulates to target wait */
    ARM_SRV_ACCUNLOCK     /* release it                                      */
} arm_srv_op_t;

/* Set in arm_srv_req_t.op: a blocking request without payload (get, rmw,
 * fence, lock, trylock). Each client has exactly one such request
 * outstanding at most, so it travels in the client's one sync slot and
 * spends no credit. */
#define ARM_SRV_SYNC 0x80

/* Set in arm_srv_req_t.req_id of a request that wants no reply (its low
 * bits are the client's sequence number). The server answers such a
 * request only to refuse it. Every request carries a non-zero req_id; a
 * refusal is a reply with a negative status, the request's req_id (0 when
 * the header could not be read) and, as payload, the server's reason as
 * text (len bytes, no NUL). */
#define ARM_SRV_REQ_NOREPLY (UINT64_C(1) << 63)

typedef enum arm_srv_rmw_op {
    ARM_SRV_FADD32 = 0, ARM_SRV_FADD64, ARM_SRV_SWAP32, ARM_SRV_SWAP64,
    ARM_SRV_CAS32, ARM_SRV_CAS64
} arm_srv_rmw_op_t;

typedef struct arm_srv_req {
    uint8_t  op;          /* arm_srv_op_t                                    */
    uint8_t  sub;         /* accumulate type or arm_srv_rmw_op_t             */
    uint16_t nseg;        /* segments in the table (segmented ops)           */
    int32_t  src;         /* requesting rank                                 */
    int32_t  target;      /* rank whose memory is touched (accumulate lock)  */
    uint32_t len;         /* payload bytes, or bytes wanted by a get         */
    uint64_t raddr;       /* address in the server's mapping                 */
    uint64_t req_id;      /* 0: no reply due                                 */
    int64_t  operand;     /* rmw operand                                     */
    int64_t  compare;     /* rmw compare                                     */
    double   scale[2];    /* accumulate scale (up to double complex)         */
} arm_srv_req_t;

typedef struct arm_srv_seg {
    uint64_t raddr;
    uint64_t len;
} arm_srv_seg_t;

/* A run in a segment table (decision 077): an entry whose len has
 * ARM_SRV_SEG_RUN set is followed by a second entry whose raddr field holds
 * a stride (> 0) and whose len field holds a count (>= 2). The pair stands
 * for `count` pieces of (len & ~ARM_SRV_SEG_RUN) bytes (> 0) at raddr,
 * raddr + stride, ..., served in that order, their data packed in order as
 * for plain entries. nseg counts both entries of a pair. A strided transfer
 * of many small rows thus carries 32 bytes of table per run of rows, not 16
 * per row. */
#define ARM_SRV_SEG_RUN (UINT64_C(1) << 63)

/* Where a segmented put's or accumulate's data begins in its payload: after
 * the table, padded to 64 bytes (the padding is not read). The server copies
 * each piece from there; a source that is not aligned as its destination
 * made `rep movsb` copies of 16-128 KiB pieces a fifth slower (decision 077). */
static inline size_t arm_srv_seg_data_off(unsigned nseg)
{
    return ((size_t)nseg * 16 + 63) & ~(size_t)63;
}

typedef struct arm_srv_batch_ent {
    uint8_t  op;          /* ARM_SRV_PUT or ARM_SRV_ACC                      */
    uint8_t  type;        /* accumulate type                                 */
    uint16_t pad;
    int32_t  target;      /* rank whose memory is touched                    */
    uint32_t len;
    uint32_t pad2;
    uint64_t raddr;
    double   scale[2];
} arm_srv_batch_ent_t;

typedef struct arm_srv_rep {
    uint64_t req_id;      /* 0: credits only                                 */
    int64_t  value;       /* rmw old value; REG: the segment's base          */
    uint32_t credits;     /* slots freed since the last reply to this client;
                             from a node the client reaches through another
                             server: its forwarded requests wanting no reply
                             served there since the last answer (decision 078) */
    int32_t  status;      /* arm_status_t of the request                     */
    uint32_t len;         /* payload bytes following                         */
    int32_t  node;        /* the replying server's node (credits are per node) */
} arm_srv_rep_t;

/* Forwarding (hicoo 3.1): a server whose client's request targets a node
 * that is not this one sends it on to the next node of the route, in an
 * ARM_SRV_AM_FWD message: this header, then `nreq` entries, each an
 * arm_srv_fwd_ent_t followed by its dlen data bytes padded to 8. Several
 * requests for the same next node travel in one message (aggregation); the
 * message occupies one slot of the edge at the receiver, which gives the
 * slot back in an ARM_SRV_AM_CREDIT message once every entry is served or
 * sent on. The target replies straight to each request's origin.
 *
 * Combining: an entry with ncomb > 0 is a fetch-and-add, or an accumulate
 * of one int or long wanting no reply, whose operand is the sum of ncomb
 * origins' operands (for an accumulate: scale x element); its data is ncomb
 * arm_srv_comb_t in the order they were combined. The target adds the sum
 * once; a fetch-and-add answers each origin with the old value plus the
 * operands before its own.
 *
 * Order: the receiver serves an edge's messages by their seq (0, 1, ...
 * per sending server), not by arrival. UCX may deliver messages of one
 * endpoint out of order while it is being wired up (a message it queued
 * during the wire-up can arrive after a later one sent once it was up),
 * and the requests of one origin must reach its target in the order
 * issued (decision 054). */
typedef struct arm_srv_fwd_hdr {
    int32_t  from_node;   /* the sending server's node                       */
    uint32_t nreq;        /* entries                                         */
    uint32_t bytes;       /* payload bytes                                   */
    union {
        uint32_t credits; /* CREDIT: edge slots given back to from_node      */
        uint32_t seq;     /* FWD: the message's number on its edge, from 0   */
    };
} arm_srv_fwd_hdr_t;

typedef struct arm_srv_fwd_ent {
    arm_srv_req_t req;
    uint32_t dlen;        /* data bytes following                            */
    uint32_t ncomb;       /* combined fetch-and-adds (0: a plain request)    */
} arm_srv_fwd_ent_t;

typedef struct arm_srv_comb {
    int32_t  src;         /* origin rank                                     */
    int32_t  pad;
    uint64_t req_id;
    int64_t  operand;
} arm_srv_comb_t;

/* Splitting a combined fetch-and-add's answer (decision 047): with split
 * replies on, the target answers a combined entry with one ARM_SRV_AM_SPLIT
 * message to the server that sent it, this header then `nent`
 * arm_srv_comb_t whose operand field holds the value for that origin; the
 * receiver answers each origin as the target would have. */
typedef struct arm_srv_split_hdr {
    int32_t  from_node;   /* the target's node                               */
    uint32_t nent;        /* origins                                         */
    int32_t  status;      /* arm_status_t of the combined operation          */
    uint32_t pad;
} arm_srv_split_hdr_t;

_Static_assert(sizeof(arm_srv_split_hdr_t) == 16, "split header size is pinned");
/* Answers along the topology's edges (ARMADA_CONNECT=edges): a server
 * whose answer is for a client of a node that is not its neighbour sends it
 * in an ARM_SRV_AM_RELAY message, this header then the reply header and its
 * data, to the node before it on the route from the client's node; the
 * server that is the client's first hop delivers it as the reply. */
typedef struct arm_srv_relay_hdr {
    int32_t  from_node;   /* the sending server's node                       */
    int32_t  rank;        /* the client answered                             */
    uint32_t rep_len;     /* reply header bytes at the start of the data     */
    uint32_t hops;        /* relays so far (bounded)                         */
} arm_srv_relay_hdr_t;

_Static_assert(sizeof(arm_srv_fwd_hdr_t) == 16, "forward header size is pinned");
_Static_assert(sizeof(arm_srv_relay_hdr_t) == 16, "relay header size is pinned");
_Static_assert(sizeof(arm_srv_fwd_ent_t) == 72, "forward entry size is pinned");
_Static_assert(sizeof(arm_srv_comb_t) == 24, "combined origin size is pinned");
_Static_assert(sizeof(arm_srv_req_t) == 64, "request header is one cache line");
_Static_assert(sizeof(arm_srv_rep_t) == 32, "reply header size is pinned");
_Static_assert(sizeof(arm_srv_batch_ent_t) == 40, "batch entry size is pinned");

#endif
