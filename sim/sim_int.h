/* armada-sim's internals (issue 21): a discrete-event simulation of a job
 * whose every node runs Armada's own communication server (src/server,
 * made with lazy_clients) over an in-process transport table (sim_xport.c),
 * and whose processes are simulated clients that speak the server's wire
 * protocol (arm_srv_proto.h): credits, the sync slot, first hops of the
 * virtual topology (src/topo). Time advances by the cost model
 * (sim_model.h). Single-threaded, no MPI, no UCX.
 *
 * Files: sim_engine.c (events, processors), sim_xport.c (the transport and
 * the servers' turns), sim_client.c (clients and their operations),
 * sim_exp.c (the hot-spot experiments), sim_memory.c (the memory study),
 * sim_main.c (the command line). */
#ifndef SIM_INT_H
#define SIM_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "server/arm_server.h"
#include "server/srv_xport.h"
#include "sim_model.h"
#include "topo/arm_topo.h"

/* ---- events -------------------------------------------------------------- */
enum { EV_SRV_MSG, EV_SRV_RUN, EV_CLI_MSG, EV_CLI_RUN };

typedef struct sim_ev {
    double   t;
    uint64_t seq;              /* ties broken by scheduling order           */
    int      kind;
    int      who;              /* node (server events) or rank (client)     */
    void    *p;                /* the message, for *_MSG                    */
} sim_ev_t;

/* A message on the wire: a copy of the header and the gathered data. */
typedef struct sim_msg {
    struct sim_msg *next;      /* a server's inbox                          */
    unsigned am;               /* ARM_SRV_AM_*                              */
    int      from_node;
    double   arrive;
    size_t   hdr_len, len;
    unsigned char hdr[80];
    char    *data;             /* malloc'd; NULL when len is 0              */
} sim_msg_t;

/* ---- the simulated job ---------------------------------------------------- */
typedef struct sim_node sim_node_t;
typedef struct sim_client sim_client_t;
typedef struct sim_world sim_world_t;

/* A node: its server and the transport context the server was made with. */
struct sim_node {
    sim_world_t *w;
    int node;
    arm_server_t *srv;
    arm_net_am_cb_t cbs[8];
    void *cb_args[8];
    sim_msg_t *inbox, *inbox_tail;
    int ninbox;
    int run_scheduled;
    int woke;                  /* this pass began by waking the thread      */
    double busy_until;
    double cpu_us;             /* processor time its passes took            */
    long passes, wakes;        /* passes, and of them the ones that woke it */
    /* Flow checks: forwarded messages in flight to each neighbour. */
    int *fwd_inflight;         /* by arm_topo_neighbour index (lazy)        */
};

typedef struct sim_credit {
    int node;
    int credits;
    int out;                   /* credited requests sent, not yet credited back */
} sim_credit_t;

enum { CL_IDLE = 0, CL_WAIT_CREDIT, CL_WAIT_REPLY };
enum { SIM_OP_FADD = 0, SIM_OP_PUTV = 1 };

struct sim_client {
    int rank, node;
    int state;
    unsigned wait_epoch;       /* counts its waits                           */
    int polling;               /* counted in the world's npoll               */
    int op, target;            /* the operation under way                   */
    int phase;                 /* putv: 0 sending the vector, 1 the fence   */
    uint64_t want_id;          /* the reply awaited                         */
    uint64_t seq;
    sim_credit_t *cred;        /* credits by server node (first hops)       */
    int ncred, cred_cap;
    int inflight;              /* credited requests not yet credited back   */
    double busy_until;
    /* The experiment's view. */
    int active;                /* repeats operations while set              */
    long ops_left;             /* -1: until told to stop                    */
    long ops_done;
    double t_first, t_last;    /* start of the first counted op, end of last */
    long counted;
    int skip;                  /* operations not counted (warm-up)          */
};

typedef struct sim_params {
    arm_topo_kind_t kind;
    const char *dims;
    int nproc, ppn;
    int slots, edge_slots, combine, split;
    int bound;              /* answers along the topology's edges (edges mode) */
    size_t slot_size;
    uint64_t seed;
} sim_params_t;

/* Connections a run uses (sim_conn.c): the distinct pairs the clients and
 * servers sent to, in one hash set (memory grows with the pairs used, not
 * with the square of the processes), and per-end counts. */
enum { SIM_CONN_C2S = 1, SIM_CONN_S2C = 2, SIM_CONN_S2S = 3 };

typedef struct sim_conn {
    int on;                    /* recording (the connect experiment)        */
    uint64_t *keys;            /* open addressing, 0 empty                  */
    size_t cap, n;
    int *c2s;                  /* by rank: servers the client sent to       */
    int *s2c;                  /* by node: clients its server replied to    */
    int *s2s;                  /* by node: servers its server sent to       */
    uint64_t off_edge[4];      /* by kind: pairs not along a topology edge  */
} sim_conn_t;

#define SIM_WIN 4096           /* bytes of each rank's window               */
#define SIM_FADD_OFF 0         /* the counter in rank 0's window            */
#define SIM_PUTV_OFF 256       /* the vector put's segments                 */
#define SIM_PUTV_SEGS 16
#define SIM_PUTV_SEG 64

struct sim_world {
    sim_model_t m;
    sim_params_t prm;
    int nnodes;
    arm_topo_t topo;
    int use_topo;              /* 0: FCG (servers without a topology)      */
    int *node_of;
    arm_shm_mutex_t *locks;
    arm_shm_mutex_t **lockp;
    char *mem;                 /* every rank's window, SIM_WIN bytes each   */
    sim_node_t *nodes;
    sim_client_t *cl;
    /* events */
    sim_ev_t *heap;
    size_t nheap, heap_cap;
    uint64_t seq;
    double now;
    uint64_t events;
    double *core_free;         /* model.cores processors                    */
    double stretch;            /* of clients' CPU: the pollers' share       */
    double srv_stretch;        /* of the running server's pass              */
    /* Clients polling: waiting, within poll_window_us of their wait's start.
     * Their wait starts in time order, in a ring; one past its window or
     * ended is dropped when met. */
    long npoll;
    struct sim_poll { double t; int rank; unsigned epoch; } *polls;
    size_t poll_head, poll_len, poll_cap;
    /* the node whose server runs now, and its clock within the turn */
    sim_node_t *cur;
    double cursor;
    /* invariants */
    uint64_t fadd_issued;
    unsigned char *fadd_seen;  /* bitmap of fetch-and-add values handed out */
    uint64_t fadd_cap;
    uint64_t fadd_dup, fadd_range;
    uint64_t credit_over;      /* more credited requests out at a server than
                                  its slots, or credits back never spent     */
    uint64_t edge_over;        /* forwarded messages beyond an edge's slots  */
    int edge_inflight_max;
    uint64_t refused;
    uint64_t rng;
    sim_conn_t conn;
    /* the experiment's hook: a client finished an operation */
    void (*on_done)(sim_world_t *w, sim_client_t *c, double t);
    void *exp;
};

/* sim_engine.c */
int  sim_world_init(sim_world_t *w, const sim_model_t *m, const sim_params_t *p, char *why,
                    size_t why_len);
void sim_world_fini(sim_world_t *w);
void sim_push(sim_world_t *w, double t, int kind, int who, void *p);
/* Runs events until none is left or until stop() says so. */
void sim_run(sim_world_t *w, int (*stop)(sim_world_t *w));
/* A processor for a job ready at t: the time it can start; taken until
 * sim_core_release(w, core, end). cores 0: every job starts at t. */
double sim_core_take(sim_world_t *w, double t, int *core);
void sim_core_release(sim_world_t *w, int core, double end);
uint64_t sim_rand(sim_world_t *w);
/* idle processes wait outside the experiment, polling (poll_load). */
void sim_set_idle(sim_world_t *w, int idle);
/* Polling clients: the start of c's wait now, and how many poll at w->now. */
void sim_poll_push(sim_world_t *w, sim_client_t *c);
long sim_polling(sim_world_t *w);
/* A client's CPU cost of mean us: stretched by the pollers, then as
 * sim_cpu. */
double sim_cli_cpu(sim_world_t *w, double us);
/* A CPU cost of mean us, varied by the model's jitter (seeded). */
double sim_cpu(sim_world_t *w, double us);
/* Prints SIMCHECK and returns 1 when every invariant holds: every client
 * idle, no event left, each fetch-and-add value 0..issued-1 handed out
 * exactly once and the counter at issued, no send beyond a credit, no
 * forwarded message beyond an edge's slots, nothing refused or lost. */
int  sim_check(sim_world_t *w, FILE *out);

/* sim_xport.c */
extern const srv_xport_ops_t sim_xport;
/* A message from a client (node from_node) to the server of node to,
 * leaving at t. */
void sim_send_to_server(sim_world_t *w, double t, int from_node, int to, unsigned am,
                        const void *hdr, size_t hdr_len, const void *data, size_t len);
void sim_server_msg(sim_world_t *w, int node, sim_msg_t *msg);
void sim_server_run(sim_world_t *w, int node);
double sim_wire(const sim_world_t *w, size_t bytes);

/* sim_conn.c */
/* Records that a (kind) message went from a to b: C2S rank -> node, S2C
 * node -> rank, S2S node -> node; nothing unless w->conn.on, nothing
 * within a node. */
void sim_conn_use(sim_world_t *w, int kind, int a, int b);
/* Whether the pair was recorded (0 when not recording). */
int  sim_conn_has(const sim_world_t *w, int kind, int a, int b);
int  sim_conn_init(sim_world_t *w);
void sim_conn_fini(sim_world_t *w);

/* sim_client.c */
/* Starts operation op of client c toward rank target at time t. */
void sim_client_start(sim_world_t *w, sim_client_t *c, int op, int target, double t);
void sim_client_msg(sim_world_t *w, int rank, sim_msg_t *msg);
void sim_client_run(sim_world_t *w, int rank);
/* The server node a request of c for node tnode goes to first. */
int  sim_first_hop(const sim_world_t *w, int from_node, int tnode);

#endif
