/* Distributed block forward and back substitution with the factors of
 * lu_factor (the pivots applied to b first): per block row, the owners of that row sum their part of the
 * off-diagonal product, the diagonal owner solves its block, and the block
 * of the solution is broadcast to every rank. O(n^2) work, 2 n/nb steps. */
#include "lu_factor.h"

#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const lu_layout *L;
    const double *a;
    MPI_Comm row;
    double *s, *sum;
} solve_ctx;

/* One block step: rhs(global block k) minus the product of the local row
 * block k, columns [j0, j1), with v (indexed by local column); the diagonal
 * owner solves with the triangle tri; the result lands in out (replicated)
 * and, on the owners of block column k, in v. */
static void block_step(solve_ctx *c, int k, int j0, int j1, double *v, const double *rhs,
                       double *out, CBLAS_UPLO tri, CBLAS_DIAG diag)
{
    const lu_layout *L = c->L;
    int r = k % L->pr, col = k % L->pc, kb = lu_block_size(L, k), g0 = k * L->nb;
    int lr = lu_local_start(k, L->nb, L->myr, L->pr), lc = lu_local_start(k, L->nb, L->myc, L->pc);
    double *blk = out + g0;
    if (L->myr == r) {
        memset(c->s, 0, (size_t)kb * sizeof *c->s);
        if (j1 > j0)
            cblas_dgemv(CblasColMajor, CblasNoTrans, kb, j1 - j0, 1.0,
                        c->a + (size_t)j0 * L->lda + lr, L->lda, v + j0, 1, 0.0, c->s, 1);
        MPI_Reduce(c->s, c->sum, kb, MPI_DOUBLE, MPI_SUM, col, c->row);
        if (L->myc == col) {
            for (int i = 0; i < kb; i++)
                blk[i] = rhs[g0 + i] - c->sum[i];
            cblas_dtrsv(CblasColMajor, tri, CblasNoTrans, diag, kb,
                        c->a + (size_t)lc * L->lda + lr, L->lda, blk, 1);
        }
    }
    MPI_Bcast(blk, kb, MPI_DOUBLE, r * L->pc + col, MPI_COMM_WORLD);
    if (L->myc == col)
        memcpy(v + lc, blk, (size_t)kb * sizeof *v);
}

void lu_solve(const lu_layout *L, const double *a, const int *ipiv, const double *b,
              double *x)
{
    size_t n = (size_t)L->n;
    solve_ctx c = {L, a, MPI_COMM_NULL, NULL, NULL};
    double *y = malloc(n * sizeof *y), *v = calloc((size_t)L->nloc + 1, sizeof *v);
    double *pb = malloc(n * sizeof *pb);
    c.s = malloc((size_t)L->nb * sizeof *c.s);
    c.sum = malloc((size_t)L->nb * sizeof *c.sum);
    if (!y || !v || !pb || !c.s || !c.sum) {
        fprintf(stderr, "lu: rank %d: out of memory for the solve\n", L->me);
        MPI_Abort(MPI_COMM_WORLD, 1);
        return;
    }
    memcpy(pb, b, n * sizeof *pb);
    for (size_t i = 0; i < n; i++) {
        double t = pb[i];
        pb[i] = pb[ipiv[i]];
        pb[ipiv[i]] = t;
    }
    MPI_Comm_split(MPI_COMM_WORLD, L->myr, L->myc, &c.row);
    for (int k = 0; k < L->nblk; k++)
        block_step(&c, k, 0, lu_local_start(k, L->nb, L->myc, L->pc), v, pb, y, CblasLower,
                   CblasUnit);
    memset(v, 0, ((size_t)L->nloc + 1) * sizeof *v);
    for (int k = L->nblk - 1; k >= 0; k--) {
        int j0 = lu_local_start(k + 1, L->nb, L->myc, L->pc);
        if (j0 > L->nloc)
            j0 = L->nloc;
        block_step(&c, k, j0, L->nloc, v, y, x, CblasUpper, CblasNonUnit);
    }
    MPI_Comm_free(&c.row);
    free(y);
    free(pb);
    free(v);
    free(c.s);
    free(c.sum);
}
