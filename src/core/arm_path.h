/* The one place that picks the inter-node path and protocol of an
 * operation: a pure function of the operation's family and size, the
 * target node's capability bits (filled by the net layer when the node's
 * endpoint is made), the node's state and the settings. No MPI, no UCX: the
 * unit test tests/unit/test_path.c checks its choices directly. */
#ifndef ARM_PATH_H
#define ARM_PATH_H

#include <stddef.h>

typedef enum arm_path_family {
    ARM_FAM_PUT,        /* contiguous put                                 */
    ARM_FAM_GET,        /* contiguous get                                 */
    ARM_FAM_STRIDED,
    ARM_FAM_VECTOR,
    ARM_FAM_ACC,        /* contiguous accumulate                          */
    ARM_FAM_RMW,        /* fetch-and-add, swap, compare-and-swap          */
    ARM_FAM_LOCK,
    ARM_FAM_FENCE,
    ARM_FAM_COUNT
} arm_path_family_t;

typedef enum arm_proto {
    ARM_PROTO_RMA,      /* the transport's put, get or atomic             */
    ARM_PROTO_BATCH,    /* aggregated with other small writes to the node */
    ARM_PROTO_COPY,     /* one request, payload copied, sent at once      */
    ARM_PROTO_WHOLE,    /* one request sent from the source (am_flags)    */
    ARM_PROTO_SEG,      /* segmented requests, pipelined in slot chunks   */
    ARM_PROTO_SERVER,   /* one request to the server, with a reply        */
    ARM_PROTO_ORIGIN,   /* accumulate at the origin: the target rank's
                           accumulate lock, pipelined get, local combine
                           and put, three chunks in flight (decision 060) */
    ARM_PROTO_MAPPED    /* strided or vector put or get to a node mapped
                           here: one local copy (decision 079)            */
} arm_proto_t;

/* Capability bits of a remote node (the values of ARM_NET_CAP_*). */
enum {
    ARM_PATH_CAP_RMA_NATIVE = 1u << 0,  /* put/get without the target's CPU  */
    ARM_PATH_CAP_AMO_NATIVE = 1u << 1,  /* atomics without the target's CPU  */
    ARM_PATH_CAP_RMA_ZCOPY  = 1u << 2,  /* large put/get copy zero-copy      */
    ARM_PATH_CAP_STREAM     = 1u << 3,  /* a byte stream (TCP) carries the
                                           messages: eager replies pay, each
                                           poll is a system call          */
    ARM_PATH_CAP_MAPPED     = 1u << 4,  /* a node of this host whose segments
                                           are mapped here: the transport's
                                           put and get are a memcpy
                                           (decision 068)                 */
    ARM_PATH_CAP_FORWARDED  = 1u << 8,  /* not a neighbour in the virtual
                                           topology: server requests are
                                           forwarded, one slot at most each,
                                           and atomics go through the servers
                                           (where they combine)           */
    ARM_PATH_CAP_NO_DIRECT  = 1u << 9,  /* no endpoint to this node may be
                                           made (ARMADA_CONNECT=edges):
                                           everything goes to the servers,
                                           forced paths included          */
    ARM_PATH_CAP_ALLOC_AMO  = 1u << 10, /* not the node's: the operation's
                                           allocation is marked for
                                           transport atomics (decision 061,
                                           never under CONNECT=edges)     */
    ARM_PATH_CAP_NB         = 1u << 11  /* not the node's: the call is
                                           non-blocking (ARMCI_Nb*), so
                                           more calls are likely before its
                                           wait (decision 073)            */
};

/* Values of ARMADA_RMA_PATH and ARMADA_AMO_PATH (their choices in order). */
enum { ARM_PATH_AUTO = 0, ARM_PATH_FORCE_RMA = 1, ARM_PATH_FORCE_SERVER = 2 };

/* Values of ARMADA_ACC_PROTO (its choices in order). */
enum { ARM_ACC_AUTO = 0, ARM_ACC_SERVER = 1, ARM_ACC_ORIGIN = 2 };

/* The settings the choice uses, with the limits a slot imposes applied
 * (arm_path_settings_init). */
typedef struct arm_path_settings {
    int    rma_mode, amo_mode;     /* ARM_PATH_AUTO / FORCE_RMA / FORCE_SERVER */
    int    aggregate;
    size_t slot_size;
    size_t clean_get_max;
    size_t zcopy_min;
    size_t batch_max_op;           /* <= what one batch entry in a slot holds */
    size_t copy_put_max;           /* <= slot_size                            */
    size_t batch_stream_op;        /* over a stream, non-blocking puts and
                                      accumulates up to this join the batch:
                                      COPY_PUT_MAX, within a slot's batch
                                      entry (decision 073)                   */
    size_t eager_write_max;
    size_t strided_rma_min;        /* ARMADA_STRIDED_RMA_MIN                  */
    size_t seg_stream_max;         /* ARMADA_SEG_STREAM_MAX, bounded by the
                                      eager write and eager reply limits     */
    int    agent;                  /* ARMADA_NB_AGENT                         */
    size_t agent_min;              /* ARMADA_NB_AGENT_MIN                     */
    int    acc_mode;               /* ARM_ACC_AUTO / SERVER / ORIGIN          */
    size_t acc_origin_min;         /* auto: origin protocol from this size; 0 never */
} arm_path_settings_t;

typedef struct arm_path {
    arm_proto_t proto;
    unsigned    am_flags;          /* ARM_PROTO_WHOLE: 0, or eager / rndv    */
    size_t      seg_max;           /* ARM_PROTO_SEG: data bytes one request
                                      carries, sent eagerly (decision 072);
                                      0: one slot's worth                  */
} arm_path_t;

/* What the protocol of a WHOLE request asks of the transport. */
enum { ARM_PATH_AM_EAGER = 1u << 0, ARM_PATH_AM_RNDV = 1u << 1 };

/* Settings from the configuration in force, limits derived from the slot
 * size (batch entry header: batch_ent bytes). */
void arm_path_settings_init(arm_path_settings_t *s, size_t slot_size, size_t batch_ent);

/* The path of one operation of family fam moving n bytes to a node with
 * capability bits caps; srv_dirty: server-path writes to the node are not
 * yet fenced. */
arm_path_t arm_path_choose(arm_path_family_t fam, size_t n, unsigned caps, int srv_dirty,
                           const arm_path_settings_t *s);

/* The path of a strided or vector transfer (fam: ARM_FAM_STRIDED or
 * _VECTOR; put: it writes) of count contiguous chunks of chunk bytes each:
 * ARM_PROTO_RMA (each chunk by the transport's own put or get, straight
 * between the user's memory and the target's segment, a few in flight:
 * gemini III-B2) or ARM_PROTO_SEG (packed into requests to the server, of
 * up to seg_max bytes each over a stream, decision 072). Strided and
 * vector accumulates always take ARM_PROTO_SEG (acc: 1). */
arm_path_t arm_path_choose_chunks(arm_path_family_t fam, int put, int acc, size_t chunk,
                                  size_t count, unsigned caps, int srv_dirty,
                                  const arm_path_settings_t *s);

/* Whether a non-blocking call of family fam moving n bytes to another node
 * is handed to the progress agent (decision 056), which runs it while the
 * caller computes, rather than run before the call returns. */
int arm_path_offload(arm_path_family_t fam, size_t n, const arm_path_settings_t *s);

const char *arm_proto_name(arm_proto_t p);

#endif
