/* Dense LU kernel: the state of one ARMCI factorisation (private to
 * lu_factor.c and lu_pivot.c). */
#ifndef ARMADA_APP_LU_CTX_H
#define ARMADA_APP_LU_CTX_H

#include "lu.h"

#include <armci.h>

typedef struct {
    const lu_layout *L;
    double *a;
    int *ipiv;                  /* global pivot rows (n), filled step by step */
    MPI_Comm col;               /* this rank's process column, ranked by row */
    void **pbuf, **lbuf, **ubuf, **flags;
    size_t pslot, lslot, uslot; /* doubles per slot */
    int ldl;                    /* leading dimension of the L slots */
    double *pstage;             /* pivots as doubles, two slots, put from here */
    double *prow, *swap;        /* pivot row (nb), packed local row (nloc) */
    armci_hdl_t *hdl;           /* two per peer of a row or column */
    int *pend;                  /* targets of the deferred L puts */
    int *tgt;                   /* targets of the immediate U puts */
    int npend;
    double comm;
} lu_ctx;

/* Factors block column k (rows of blocks >= k) with partial pivoting over
 * the process column: per matrix column, a MAXLOC reduction, a swap of the
 * two panel rows, a broadcast of the pivot row, a rank-1 update. Records
 * the pivots in c->ipiv. Collective over the process column. */
void lu_panel_factor(lu_ctx *c, int k);

/* Applies the row swaps of step k to the local columns outside block
 * column k. Collective over the process column. */
void lu_apply_swaps(lu_ctx *c, int k);

#endif
