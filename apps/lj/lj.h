/* armada-lj: a Lennard-Jones molecular dynamics kernel on Global Arrays,
 * force decomposition with a shared task counter (decision 063).
 * Reduced units: sigma = epsilon = mass = 1. */
#ifndef ARMADA_LJ_H
#define ARMADA_LJ_H

#include <stddef.h>
#include <stdio.h>

#ifndef LJ_IMPL
#define LJ_IMPL "armada"
#endif

typedef struct lj_opts {
    long natoms;       /* -N */
    long steps;        /* -s: timed steps after the initial force evaluation */
    long blocks;       /* m: atom blocks per side of the force matrix */
    long check_steps;  /* -k: steps the serial reference replays */
    double dt;         /* -d */
    double density;    /* -r */
    double cutoff;     /* -c (0: half the box) */
    double temp;       /* -T */
    double energy_tol; /* -e */
    double force_tol;  /* -f: serial comparison tolerance */
    int inject_fault;  /* --inject-fault: drop one block's j-side forces */
} lj_opts;

/* The periodic box and the truncated, shifted potential. */
typedef struct lj_box {
    double len, half, inv;
    double rc2, ecut;
} lj_box;

/* Parses argv; returns 0 (run), 1 (help shown) or -1 (bad input, message
 * printed on rank 0). */
int lj_parse(int argc, char **argv, lj_opts *o, int me);

/* Box and cutoff from the options; -1 with a message when the cutoff does not
 * fit in half the box. */
int lj_box_init(lj_box *b, const lj_opts *o, int me);

/* Initial state of atoms [lo, hi): a perturbed cubic lattice and velocities
 * from a hash of the atom index, so every process count sees the same state. */
void lj_init_atoms(const lj_opts *o, const lj_box *b, long lo, long hi, double *x, double *v);
/* Velocity scale and mean (3 values) that give temperature temp and zero
 * momentum: computed over every atom, identically on each process. */
void lj_init_scale(const lj_opts *o, double *scale, double mean[3]);

/* Forces between atom blocks a (na atoms) and c (nc atoms): fa and fc are
 * incremented (Newton's third law); returns the potential energy. */
double lj_block_pair(const lj_box *b, const double *xa, long na, const double *xc, long nc,
                     double *fa, double *fc);
/* Forces among the atoms of one block (each pair once). */
double lj_block_self(const lj_box *b, const double *x, long n, double *f);

/* Velocity Verlet halves on n local atoms: v += dt/2 f, then x += dt v
 * (wrapped into the box); and the closing v += dt/2 f. */
void lj_kick_drift(const lj_box *b, double dt, long n, double *x, double *v, const double *f);
void lj_kick(double dt, long n, double *v, const double *f);
double lj_kinetic(long n, const double *v);

/* The serial reference: k steps from the initial state on one process;
 * x, v, f (3 n each) hold the state after step k; e[0..k] the total energies. */
void lj_serial_run(const lj_opts *o, const lj_box *b, long k, double *x, double *v, double *f,
                   double *e);

/* Largest |a - r| over the largest |r|. */
double lj_max_rel_diff(const double *a, const double *r, size_t n);

double lj_now(void);

#endif
