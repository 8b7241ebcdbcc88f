/* The Global Arrays side of armada-lj: the distributed state, the force
 * phase dealt out by a shared counter, and the integration of owned atoms. */
#ifndef ARMADA_LJ_GA_H
#define ARMADA_LJ_GA_H

#include "lj.h"

/* Kinds of GA call timed apart; LJ_SYNC covers GA_Sync, GA_Zero, GA_Dgop. */
enum { LJ_COUNTER, LJ_GET, LJ_ACC, LJ_PUT, LJ_SYNC, LJ_NKINDS };

typedef struct lj_par {
    int g_x, g_v, g_f, g_cnt;  /* positions, velocities, forces: N x 3; counter */
    int me, np;
    long lo, hi;               /* owned atoms [lo, hi) */
    long nblocks, ntasks;      /* m and m (m + 1) / 2 */
    double *xl, *vl, *fl;      /* owned rows */
    double *xs, *fs;           /* owned positions and forces after the check step */
    double *xa, *xc, *fa, *fc; /* one task's two atom blocks and their forces */
    long cached_a;             /* block whose positions xa holds, -1 if none */
    double pe;                 /* this process's share of the potential energy */
    double t_compute, t_comm;  /* seconds, this process */
    double t_kind[LJ_NKINDS];  /* t_comm by kind of GA call */
    long reads;                /* NGA_Read_inc calls, this process */
} lj_par;

/* Creates the arrays and writes the initial state of the owned atoms.
 * Returns 0, or -1 (message printed) when memory runs out. */
int lj_par_create(lj_par *p, const lj_opts *o, const lj_box *b);
void lj_par_destroy(lj_par *p);

/* One force evaluation: zero forces and counter, deal out the blocks, fetch
 * the owned forces. Leaves this process's potential energy in p->pe. */
void lj_par_forces(lj_par *p, const lj_opts *o, const lj_box *b);

/* First half of a step: kick and drift the owned atoms, publish them. */
void lj_par_drift(lj_par *p, const lj_opts *o, const lj_box *b);

/* Closing kick (when kick is set); returns the total energy (collective). */
double lj_par_close(lj_par *p, const lj_opts *o, int kick);

/* Keeps the owned positions and forces (local copies, no communication). */
void lj_par_snapshot(lj_par *p);
/* After the run (collective): rank 0 copies every atom's snapshot position
 * and force into x and f. */
void lj_par_gather(lj_par *p, long natoms, double *x, double *f);

#endif
