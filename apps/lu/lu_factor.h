/* Dense LU kernel: the ARMCI factorisation and the distributed solve. */
#ifndef ARMADA_APP_LU_FACTOR_H
#define ARMADA_APP_LU_FACTOR_H

#include "lu.h"

/* Factors the local part a (layout L) in place, P A = L U with partial
 * pivoting (LAPACK's convention: row g was swapped with row ipiv[g] at step
 * g; the swaps are applied to whole rows). ipiv: n ints, replicated on
 * return. t_factor: seconds (max over ranks); t_comm: seconds spent waiting
 * on communication (mean over ranks). Collective; returns 0, or -1 when the
 * panel buffers cannot be allocated. */
int lu_factor(const lu_layout *L, double *a, int *ipiv, double *t_factor, double *t_comm);

/* Solves P A x = L U x = P b with the factors and pivots from lu_factor; b
 * and x are replicated n-vectors. Collective (MPI). */
void lu_solve(const lu_layout *L, const double *a, const int *ipiv, const double *b,
              double *x);

#endif
