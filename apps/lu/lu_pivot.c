/* Dense LU kernel: partial pivoting over a process column (the panel
 * factorisation and the row swaps that follow it). */
#include "lu_ctx.h"

#include <cblas.h>
#include <string.h>

static int owner_row(const lu_layout *L, int g)
{
    return (g / L->nb) % L->pr;
}

static int local_row(const lu_layout *L, int g)
{
    return (g / L->nb / L->pr) * L->nb + g % L->nb;
}

/* Swaps global rows g and p over local columns [j0, j1) (none of them in
 * another process column), exchanging with the partner process row. */
static void swap_rows(lu_ctx *c, int g, int p, const int *ranges, int nranges)
{
    const lu_layout *L = c->L;
    int rg = owner_row(L, g), rp = owner_row(L, p);
    if (L->myr != rg && L->myr != rp)
        return;
    if (rg == rp) {
        int ig = local_row(L, g), ip = local_row(L, p);
        for (int i = 0; i < nranges; i++) {
            int j0 = ranges[2 * i], j1 = ranges[2 * i + 1];
            if (j1 > j0)
                cblas_dswap(j1 - j0, c->a + (size_t)j0 * L->lda + ig, L->lda,
                            c->a + (size_t)j0 * L->lda + ip, L->lda);
        }
        return;
    }
    int mine = local_row(L, L->myr == rg ? g : p), partner = L->myr == rg ? rp : rg, cnt = 0;
    for (int i = 0; i < nranges; i++)
        for (int j = ranges[2 * i]; j < ranges[2 * i + 1]; j++)
            c->swap[cnt++] = c->a[(size_t)j * L->lda + mine];
    if (cnt == 0)
        return;
    double t0 = MPI_Wtime();
    MPI_Sendrecv_replace(c->swap, cnt, MPI_DOUBLE, partner, 7, partner, 7, c->col,
                         MPI_STATUS_IGNORE);
    c->comm += MPI_Wtime() - t0;
    cnt = 0;
    for (int i = 0; i < nranges; i++)
        for (int j = ranges[2 * i]; j < ranges[2 * i + 1]; j++)
            c->a[(size_t)j * L->lda + mine] = c->swap[cnt++];
}

void lu_panel_factor(lu_ctx *c, int k)
{
    const lu_layout *L = c->L;
    int r = k % L->pr, kb = lu_block_size(L, k);
    int lr = lu_local_start(k, L->nb, L->myr, L->pr), lc = lu_local_start(k, L->nb, L->myc, L->pc);
    double *pan = c->a + (size_t)lc * L->lda;
    int panel_cols[2] = {lc, lc + kb};
    for (int j = 0; j < kb; j++) {
        int gj = k * L->nb + j, first = L->myr == r ? lr + j : lr;
        struct {
            double v;
            int i;
        } loc = {-1.0, gj}, glob;
        for (int il = first; il < L->mloc; il++) {
            double v = pan[(size_t)j * L->lda + il];
            v = v < 0 ? -v : v;
            if (v > loc.v) {
                loc.v = v;
                loc.i = lu_global(il, L->nb, L->myr, L->pr);
            }
        }
        double t0 = MPI_Wtime();
        MPI_Allreduce(&loc, &glob, 1, MPI_DOUBLE_INT, MPI_MAXLOC, c->col);
        c->comm += MPI_Wtime() - t0;
        c->ipiv[gj] = glob.i;
        if (glob.i != gj)
            swap_rows(c, gj, glob.i, panel_cols, 1);
        if (L->myr == r)
            for (int cc = j; cc < kb; cc++)
                c->prow[cc - j] = pan[(size_t)cc * L->lda + lr + j];
        t0 = MPI_Wtime();
        MPI_Bcast(c->prow, kb - j, MPI_DOUBLE, r, c->col);
        c->comm += MPI_Wtime() - t0;
        int start = L->myr == r ? lr + j + 1 : lr, m = L->mloc - start;
        if (m <= 0 || c->prow[0] == 0.0)
            continue;
        double *colj = pan + (size_t)j * L->lda + start;
        cblas_dscal(m, 1.0 / c->prow[0], colj, 1);
        if (kb - j - 1 > 0)
            cblas_dger(CblasColMajor, m, kb - j - 1, -1.0, colj, 1, c->prow + 1, 1,
                       colj + L->lda, L->lda);
    }
}

void lu_apply_swaps(lu_ctx *c, int k)
{
    const lu_layout *L = c->L;
    int kb = lu_block_size(L, k), ranges[4], nranges;
    if (L->myc == k % L->pc) {
        int lc = lu_local_start(k, L->nb, L->myc, L->pc);
        ranges[0] = 0;
        ranges[1] = lc;
        ranges[2] = lc + kb;
        ranges[3] = L->nloc;
        nranges = 2;
    } else {
        ranges[0] = 0;
        ranges[1] = L->nloc;
        nranges = 1;
    }
    for (int j = 0; j < kb; j++) {
        int g = k * L->nb + j;
        if (c->ipiv[g] != g)
            swap_rows(c, g, c->ipiv[g], ranges, nranges);
    }
}
