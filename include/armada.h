/* Armada's own extensions to the ARMCI interface. */
#ifndef ARMADA_H
#define ARMADA_H

#include <stdint.h>
#include <armci.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ARMADA_VERSION_MAJOR 0
#define ARMADA_VERSION_MINOR 1
#define ARMADA_VERSION_PATCH 0

/* Version of the library actually linked; returns a static string such as
 * "0.1.0" and fills the numbers when the pointers are not NULL. */
const char *armada_version(int *major, int *minor, int *patch);

/* Paths an operation can take (see docs/decisions). */
enum armada_path {
    ARMADA_PATH_SHM = 0,     /* same node: load/store and CPU atomics      */
    ARMADA_PATH_RMA = 1,     /* other node: direct RMA / transport atomics;
                                any node: the atomics of an allocation
                                marked for them (ARMADA_AMO_ALLOC)        */
    ARMADA_PATH_SERVER = 2,  /* other node: request to the node's server   */
    ARMADA_PATH_COUNT = 3
};

/* Operation families counted per path. */
enum armada_op {
    ARMADA_OP_PUT = 0, ARMADA_OP_GET, ARMADA_OP_ACC,
    ARMADA_OP_PUTS, ARMADA_OP_GETS, ARMADA_OP_ACCS,
    ARMADA_OP_PUTV, ARMADA_OP_GETV, ARMADA_OP_ACCV,
    ARMADA_OP_RMW, ARMADA_OP_LOCK, ARMADA_OP_FENCE,
    ARMADA_OP_COUNT
};

typedef struct armada_stats {
    uint64_t ops[ARMADA_OP_COUNT][ARMADA_PATH_COUNT];    /* operations issued  */
    uint64_t bytes[ARMADA_OP_COUNT][ARMADA_PATH_COUNT];  /* payload bytes      */
    uint64_t shm_bytes_mapped;       /* shared memory this process maps      */
    uint64_t server_buffer_bytes;    /* request buffers held by this node's
                                        server (0 where this process runs none) */
    uint64_t server_requests;        /* requests served by this process's server */
    uint64_t endpoints;              /* transport endpoints this process opened */
    uint64_t handles_in_use;         /* non-blocking get requests to other
                                        nodes still in flight               */
    /* This process's server under the virtual topology (ARMADA_TOPOLOGY);
     * final after ARMCI_Finalize (ARMADA_STATS=1 prints them). */
    uint64_t server_clients;         /* processes it keeps slots for         */
    uint64_t server_edges_in;        /* neighbour servers it keeps slots for */
    uint64_t server_edges_out;       /* neighbour servers it forwarded to    */
    uint64_t server_fwd_requests;    /* requests it sent on                  */
    uint64_t server_fwd_messages;    /* messages those travelled in          */
    uint64_t server_fwd_combined;    /* fetch-and-adds it folded into others */
    uint64_t server_fwd_in_requests; /* requests that reached it forwarded   */
    uint64_t server_fwd_in_messages; /* messages those arrived in            */
    uint64_t server_split_sent;      /* combined answers sent as one message  */
    uint64_t server_split_replies;   /* origins it answered for a target      */
    /* Connections (ARMADA_CONNECT): endpoints this process created, by kind,
     * and the time it spent creating them; its server's counts are final
     * after ARMCI_Finalize. */
    uint64_t eps_client_to_server;   /* its client's endpoints to servers    */
    uint64_t eps_server_to_client;   /* its server's endpoints to clients    */
    uint64_t eps_server_to_server;   /* its server's endpoints to neighbours */
    uint64_t connect_ns;             /* time spent making endpoints          */
    uint64_t server_relayed;         /* answers its server sent on toward a
                                        client's first hop                  */
    uint64_t server_cpu_ns;          /* processor time of its server thread
                                        so far (as of the call; final after
                                        ARMCI_Finalize)                     */
    uint64_t process_cpu_ns;         /* processor time of the whole process,
                                        server thread included (as of the
                                        call; at ARMCI_Finalize for the
                                        ARMADA_STATS line)                  */
    uint64_t server_fwd_in_early;    /* forwarded messages that reached its
                                        server ahead of an earlier one of
                                        their edge (served after it)        */
    uint64_t agent_jobs;             /* non-blocking calls its progress agent
                                        carried (ARMADA_NB_AGENT)           */
    uint64_t credit_replies;         /* answers carrying only credits that its
                                        client received: half its slots back,
                                        or its writes acknowledged (ARMADA_FENCE_ACK) */
    uint64_t mapped_copies;          /* puts and gets to other nodes of this
                                        host done by memcpy on their mapped
                                        segment (ARMADA_VNODE_MAP), since
                                        ARMCI_Init                          */
    uint64_t server_packed_replies;  /* segmented get answers its server
                                        packed into one buffer
                                        (ARMADA_REPLY_PACK_BELOW)           */
    uint64_t batches_swept;          /* aggregation batches its progress agent
                                        sent because nothing joined them for
                                        ARMADA_BATCH_IDLE_US                */
    uint64_t server_fwd_acks;        /* answers its server sent only to tell an
                                        origin how many of its forwarded writes
                                        were served (decision 078; final at
                                        ARMCI_Finalize)                     */
    uint64_t fence_reads;            /* times a fence found its writes' answers
                                        waiting and read them itself; the
                                        progress agent reads them while the
                                        caller computes (decision 080)      */
} armada_stats_t;

/* Copies this process's counters into *out. Returns 0, or -1 when ARMCI is
 * not initialised or out is NULL. */
int armada_stats_get(armada_stats_t *out);
/* Sets every counter that counts operations back to zero. */
void armada_stats_reset(void);

/* Process layout: the node of a rank, the number of nodes, processes per
 * node of the node a rank is on. -1 for an invalid rank. */
int armada_node_of(int rank);
int armada_node_count(void);

/* The steps of this process's last ARMCI_Init (decision 098), at most max:
 * names[i] (static strings), wall_us[i] and cpu_us[i] (the process's CPU
 * time, every thread). Returns how many steps there are, -1 when ARMCI was
 * never initialised. Any of the arrays may be NULL. */
int armada_startup_steps(const char **names, double *wall_us, double *cpu_us, int max);

/* Compare-and-swap on an int or long of ARMCI_Malloc memory at proc:
 * returns the old value; the new value is stored if old == expected. */
int  armada_cas_int(int *prem, int expected, int desired, int proc);
long armada_cas_long(long *prem, long expected, long desired, int proc);

#ifdef __cplusplus
}
#endif
#endif /* ARMADA_H */
