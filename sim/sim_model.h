/* The simulator's cost model (armada-sim, issue 21): what a simulated
 * operation costs in time. Every field is a parameter read from a model
 * file ("key = value" lines, '#' comments), derived from a benchmark report
 * by armada-sim --calibrate, and printed with every result.
 *
 * Time is charged in two kinds: CPU work, run by the thread that does it
 * (a client or a node's server) on one of `cores` shared processors, and
 * wire time, which needs no processor. The model knows no operation by its
 * code: the server's own handlers run; the model only says how long what
 * they did took. */
#ifndef SIM_MODEL_H
#define SIM_MODEL_H

#include <stddef.h>
#include <stdio.h>

typedef struct sim_model {
    /* Processors shared by every simulated thread: 0 gives each thread its
     * own (a large machine); the 2-core VM runs 8 ranks and 8 servers on 2. */
    int    cores;
    /* Wire: one-way latency between two nodes per message, and per byte. */
    double lat_us;
    double byte_ns;
    /* CPU of the sender and of the receiver per message (client or server). */
    double send_us;
    double recv_us;
    /* A sleeping thread (server or waiting client) takes this long to run
     * once a message arrives for it. */
    double wake_us;
    /* Client CPU per ARMCI call, besides its sends and receives. */
    double client_us;
    /* Server CPU per request served, by operation class, besides the
     * message's recv_us. */
    double svc_put_us;      /* PUT, BATCH entry                                */
    double svc_get_us;
    double svc_acc_us;      /* ACC, ACCSEG                                     */
    double svc_seg_us;      /* PUTSEG, GETSEG: per request                     */
    double svc_rmw_us;      /* RMW (fetch-and-add, swap, compare-and-swap)     */
    double svc_lock_us;     /* LOCK, TRYLOCK, UNLOCK                           */
    double svc_fence_us;
    /* Server CPU per request packed into an outgoing buffer (forwarding). */
    double fwd_us;
    /* A forwarded message's delay per hop beyond the wire, without a
     * processor: the forwarding stage's scheduling (decision 048). */
    double hop_us;
    /* On a machine with fewer processors than threads (cores > 0): each
     * process waiting outside the experiment (polling in MPI) slows the
     * clients, whose CPU it shares; a client's CPU is stretched by
     * 1 + poll_load x waiting processes / cores. Servers, which sleep and
     * are favoured when woken, are not (decision 048). */
    double poll_load;
    /* On such a machine, a server that must be woken shares the processors
     * with the clients that poll while they wait for an answer or a credit
     * (on the VM they burn most of the CPU: decision 055): the CPU of a
     * pass that began by waking the server is stretched by
     * 1 + srv_poll_load x polling clients / cores. A server still at work
     * keeps its processor and is not stretched. Fitted with the simulator
     * in the loop (tools/sim/sim_fit.py); 0 leaves servers unstretched. */
    double srv_poll_load;
    /* A waiting client polls (and yields) for this long, then sleeps until
     * its answer comes (ARMADA_YIELD_US); only clients within this window of
     * the start of their wait count as polling. */
    double poll_window_us;
    /* Client CPU per message sent or received (the servers' are send_us
     * and recv_us). */
    double cli_msg_us;
    /* Variation of every CPU cost: each is drawn with this coefficient of
     * variation around its mean (0: fixed costs; 1: exponential). */
    double jitter;
    /* Server CPU per payload byte copied (slots, forwarding, unpacking). */
    double copy_ns;
    /* An operation whose target is on the client's own node (shared memory):
     * CPU per call. */
    double local_us;
    /* A barrier: per stage, log2(processes) stages. */
    double barrier_us;
    /* Where the values came from: "defaults", a file name, or a report. */
    char   source[512];
} sim_model_t;

/* The built-in values (a 2-core VM over loopback TCP, measured 2026-11-24). */
void sim_model_defaults(sim_model_t *m);
/* Reads "key = value" lines into m (keys as the field names, unknown keys
 * and bad values are errors): 0, or -1 with the reason in why. */
int sim_model_load(sim_model_t *m, const char *path, char *why, size_t why_len);
/* Writes every field as a loadable file. */
int sim_model_save(const sim_model_t *m, FILE *out);
/* One line "MODEL source=... cores=2 lat_us=... ..." with every field. */
void sim_model_print(const sim_model_t *m, FILE *out);
/* Sets one field from text ("lat_us", "12.5"): 0, or -1 when the key is
 * unknown or the value bad. */
int sim_model_set(sim_model_t *m, const char *key, const char *value);

/* Derives m from a benchmark report (report/bench-DATE/results.json, written
 * by tools/bench/armada_bench.py), preferring the vnode-tcp configuration;
 * results_json may name more reports after commas, whose idle hot-spot
 * figures at other process counts give the client/server split and
 * poll_load. jitter, a model choice,
 * keeps the value m holds (start from sim_model_defaults):
 * 0, or -1 with the reason in why (missing figures are named). Fields no
 * figure informs keep their defaults, and the report says which. */
int sim_model_calibrate(sim_model_t *m, const char *results_json, char *why, size_t why_len);

#endif
