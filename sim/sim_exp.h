/* The simulator's experiments: hot spots (sim_exp.c), the memory study
 * (sim_memory.c) and the connection counts (sim_conn.c). Each prints its SIM records (tools/sim/README.md). */
#ifndef SIM_EXP_H
#define SIM_EXP_H

#include <stdio.h>
#include "sim_int.h"

enum { SIM_PAT_ALL, SIM_PAT_CLIQUE, SIM_PAT_HOTSPOT, SIM_PAT_RANDOM };
enum { SIM_MODE_LAZY, SIM_MODE_EAGER, SIM_MODE_EDGES };

typedef struct sim_hot_opts {
    const char *topo_name;
    int op;                    /* SIM_OP_FADD or SIM_OP_PUTV                 */
    double level;              /* percent of the other ranks hammering       */
    int iters;                 /* counted operations per measuring rank      */
    int measure;               /* measuring ranks sampled (0: all)           */
    int spread;                /* hammers one in every 100/level ranks       */
    int ops;                   /* hot100: fetch-and-adds between barriers    */
    int per_rank;              /* print every rank's figure                  */
    int pattern;               /* connect: SIM_PAT_*                         */
    int k;                     /* connect: nodes of a clique                 */
    int mode;                  /* connect: SIM_MODE_*                        */
    int lazy_answers;          /* hotspot: a server answers straight only the
                                  clients that connected to it, others back
                                  along their route (ARMADA_CONNECT=lazy;
                                  since decision 070 a lazy client connects
                                  to the nodes it sends to, so every answer
                                  goes straight)                             */
} sim_hot_opts_t;

int sim_hotspot(sim_world_t *w, const sim_hot_opts_t *o, FILE *out);
int sim_hot100(sim_world_t *w, const sim_hot_opts_t *o, FILE *out);

/* Processes issue operations (o->op) by o->pattern; prints the endpoints
 * per process and per server under o->mode and a SIMCHECK line. 0: done,
 * invariants kept; 1: an invariant broke; -1: out of memory. */
int sim_connect(sim_world_t *w, const sim_hot_opts_t *o, FILE *out);
const char *sim_conn_pattern_name(int p);
const char *sim_conn_mode_name(int m);

/* The request-buffer bytes and endpoints of sample nodes, from the
 * server's own layout (arm_server_layout); nodes whose layout is small
 * enough are also made, and their allocation checked against it. */
int sim_memory(const sim_params_t *p, const char *topo_name, FILE *out, char *why,
               size_t why_len);

#endif
