/* Dense LU kernel (gemini IV-C1): shared layout, matrix, options and checks. */
#ifndef ARMADA_APP_LU_H
#define ARMADA_APP_LU_H

#include <mpi.h>
#include <stddef.h>

/* A 2-D block-cyclic layout of an n x n matrix over a pr x pc process grid
 * (rank = row * pc + col, as BLACS "Row" order). Local blocks are stored
 * column-major with leading dimension lda = max(1, mloc). */
typedef struct {
    int n, nb, nblk;        /* order, block size, number of block rows/cols */
    int pr, pc, myr, myc;   /* grid and this rank's coordinates */
    int me, np;
    int mloc, nloc, lda;    /* local rows, local columns, leading dimension */
    int dd;                 /* diagonally dominant test matrix */
} lu_layout;

typedef struct {
    int n, nb, pr, pc;      /* pr == 0: choose the most square grid */
    int dd;                 /* --matrix dd (else random) */
} lu_opts;

/* Number of rows (or columns) of the n-long dimension owned by coordinate
 * p of q processes in blocks of nb (ScaLAPACK's numroc, source 0). */
int lu_numroc(int n, int nb, int p, int q);
/* Local index of the first row/column whose global block is >= k. */
int lu_local_start(int k, int nb, int p, int q);
/* Global index of local index l. */
int lu_global(int l, int nb, int p, int q);
int lu_block_size(const lu_layout *L, int k);

/* Parses -n, --nb, --grid, --matrix; returns 0, or prints (rank 0) and
 * returns 2. */
int lu_parse(int argc, char **argv, int np, int me, const char *prog, lu_opts *o);
void lu_layout_init(lu_layout *L, const lu_opts *o, int me, int np);

/* Entry (i, j) of the test matrix: uniform in [-0.5, 0.5) from a hash of
 * (i, j) (HPL's kind of matrix); with L->dd, plus n on the diagonal
 * (strictly diagonally dominant by rows and columns: no row is swapped). */
double lu_entry(const lu_layout *L, int i, int j);
double lu_xtrue(int i);
void lu_fill(const lu_layout *L, double *a);
/* out = A x and rowabs = |A| 1 (row sums of |a_ij|), replicated on all
 * ranks; x is replicated, A is regenerated from lu_entry. */
void lu_matvec(const lu_layout *L, const double *x, double *out, double *rowabs);

typedef struct {
    double resid;    /* ||Ax-b||_inf / ((||A||_inf ||x||_inf + ||b||_inf) n eps) */
    double err;      /* ||x - x_true||_inf */
    int ok;
} lu_check;

/* Checks x (replicated) against b = A x_true; all ranks get the result. */
lu_check lu_verify(const lu_layout *L, const double *x, const double *b);
#define LU_RESID_THRESHOLD 16.0

/* Prints the report and the RESULT line (rank 0); comm < 0 prints comm=na. */
void lu_report(const lu_layout *L, const char *impl, double t, double comm,
               const lu_check *c);

#endif
