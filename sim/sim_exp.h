/* The simulator's experiments: hot spots (sim_exp.c) and the memory study
 * (sim_memory.c). Each prints its SIM records (tools/sim/README.md). */
#ifndef SIM_EXP_H
#define SIM_EXP_H

#include <stdio.h>
#include "sim_int.h"

typedef struct sim_hot_opts {
    const char *topo_name;
    int op;                    /* SIM_OP_FADD or SIM_OP_PUTV                 */
    double level;              /* percent of the other ranks hammering       */
    int iters;                 /* counted operations per measuring rank      */
    int measure;               /* measuring ranks sampled (0: all)           */
    int spread;                /* hammers one in every 100/level ranks       */
    int ops;                   /* hot100: fetch-and-adds between barriers    */
    int per_rank;              /* print every rank's figure                  */
} sim_hot_opts_t;

int sim_hotspot(sim_world_t *w, const sim_hot_opts_t *o, FILE *out);
int sim_hot100(sim_world_t *w, const sim_hot_opts_t *o, FILE *out);

/* The request-buffer bytes and endpoints of sample nodes, from the
 * server's own layout (arm_server_layout); nodes whose layout is small
 * enough are also made, and their allocation checked against it. */
int sim_memory(const sim_params_t *p, const char *topo_name, FILE *out, char *why,
               size_t why_len);

#endif
