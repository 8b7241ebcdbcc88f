/* Right-looking blocked LU with partial pivoting over ARMCI: panels (and
 * their pivots) travel to the processes of their row and column by
 * non-blocking strided puts into double-buffered receive slots, announced by
 * a flag put after a fence; receivers hand a slot back with an
 * acknowledgement put. The next column panel is factored and sent before the
 * rest of the trailing update. */
#define _POSIX_C_SOURCE 200809L
#include "lu_ctx.h"
#include "lu_factor.h"

#include <armci.h>
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Flag words per rank: L (with pivots) and U arrival, two slots each, then
 * one acknowledgement word per peer (the last step it finished, plus one). */
enum { F_L = 0, F_U = 2, F_ACK = 4 };

static int rank_of(const lu_ctx *c, int r, int col)
{
    return r * c->L->pc + col;
}

static int *flag_at(const lu_ctx *c, int proc, int idx)
{
    return (int *)c->flags[proc] + idx;
}

/* Sleeps between reads of a flag; the probe drives MPI's progress, which an
 * MPI-based ARMCI (ARMCI-MPI on osc ucx) needs at the target of its puts. */
static void pause_briefly(int spins)
{
    struct timespec ts = {0, spins < 64 ? 2000 : 50000};
    int flag;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    nanosleep(&ts, NULL);
}

/* Waits until this rank's flag word idx reaches value; the wait counts as
 * communication time. */
static void wait_flag(lu_ctx *c, int idx, int value)
{
    int *f = flag_at(c, c->L->me, idx);
    if (ARMCI_GetValueInt(f, c->L->me) >= value)
        return;
    double t0 = MPI_Wtime();
    for (int spins = 0; ARMCI_GetValueInt(f, c->L->me) < value; spins++)
        pause_briefly(spins);
    c->comm += MPI_Wtime() - t0;
}

/* Slot k % 2 of target is free once target has finished step k - 2. */
static void wait_slot(lu_ctx *c, int target, int k)
{
    wait_flag(c, F_ACK + target, k - 1);
}

static void put_block(lu_ctx *c, const double *src, int src_ld, int rows, int cols,
                      double *dst, int dst_ld, int target, armci_hdl_t *h)
{
    int sst[1] = {src_ld * (int)sizeof(double)}, dst_st[1] = {dst_ld * (int)sizeof(double)};
    int count[2] = {rows * (int)sizeof(double), cols};
    ARMCI_INIT_HANDLE(h);
    if (rows > 0 && cols > 0)
        ARMCI_NbPutS((void *)src, sst, dst, dst_st, count, 1, target, h);
}

/* A put may wait at the origin (aggregated) until a fence: the fence after
 * the flag put makes it travel now. */
static void post_value(lu_ctx *c, int target, int idx, int value)
{
    ARMCI_PutValueInt(value, flag_at(c, target, idx), target);
    ARMCI_Fence(target);
}

/* Completes the puts to the targets and raises their flag idx to value. */
static void complete_and_flag(lu_ctx *c, const int *targets, int nt, int nh, int idx,
                              int value)
{
    double t0 = MPI_Wtime();
    for (int i = 0; i < nh; i++)
        ARMCI_Wait(&c->hdl[i]);
    for (int i = 0; i < nt; i++) {
        ARMCI_Fence(targets[i]);
        post_value(c, targets[i], idx, value);
    }
    c->comm += MPI_Wtime() - t0;
}

static void finish_panel(lu_ctx *c, int k)
{
    complete_and_flag(c, c->pend, c->npend, 2 * c->npend, F_L + k % 2, k + 1);
    c->npend = 0;
}

/* Column panel k on the processes of its process column: factored with
 * partial pivoting (lu_pivot.c), then every one puts the pivots and its part
 * of the panel (L11 included) along its process row. With defer, the row
 * flags are raised later by finish_panel. */
static void panel(lu_ctx *c, int k, int defer)
{
    const lu_layout *L = c->L;
    int slot = k % 2, kb = lu_block_size(L, k);
    int lr = lu_local_start(k, L->nb, L->myr, L->pr), lc = lu_local_start(k, L->nb, L->myc, L->pc);
    double *pan = c->a + (size_t)lc * L->lda, *piv = c->pstage + slot * L->nb;
    lu_panel_factor(c, k);
    for (int j = 0; j < kb; j++)
        piv[j] = (double)c->ipiv[k * L->nb + j];
    c->npend = 0;
    for (int cc = 0; cc < L->pc; cc++) {
        if (cc == L->myc)
            continue;
        int t = rank_of(c, L->myr, cc), h = 2 * c->npend;
        wait_slot(c, t, k);
        ARMCI_INIT_HANDLE(&c->hdl[h]);
        ARMCI_NbPut(piv, (double *)c->pbuf[t] + slot * c->pslot, kb * (int)sizeof(double), t,
                    &c->hdl[h]);
        put_block(c, pan + lr, L->lda, L->mloc - lr, kb,
                  (double *)c->lbuf[t] + slot * c->lslot + lr, c->ldl, t, &c->hdl[h + 1]);
        c->pend[c->npend++] = t;
    }
    if (!defer)
        finish_panel(c, k);
}

/* Pivots of step k: this rank's own (it factored the panel) or the received
 * copy; then the row swaps on the rest of the local columns. */
static void swaps(lu_ctx *c, int k)
{
    const lu_layout *L = c->L;
    if (L->myc != k % L->pc) {
        wait_flag(c, F_L + k % 2, k + 1);
        const double *piv = (const double *)c->pbuf[L->me] + (k % 2) * c->pslot;
        for (int j = 0; j < lu_block_size(L, k); j++)
            c->ipiv[k * L->nb + j] = (int)piv[j];
    }
    lu_apply_swaps(c, k);
}

/* L11 and L21 of step k as seen from this rank (its own panel or the
 * received copy); rows are local row indices. */
static const double *l_panel(lu_ctx *c, int k, int *ld)
{
    const lu_layout *L = c->L;
    if (L->myc == k % L->pc) {
        *ld = L->lda;
        return c->a + (size_t)lu_local_start(k, L->nb, L->myc, L->pc) * L->lda;
    }
    wait_flag(c, F_L + k % 2, k + 1);
    *ld = c->ldl;
    return (double *)c->lbuf[L->me] + (k % 2) * c->lslot;
}

static int clamp(int v, int hi)
{
    return v < hi ? v : hi;
}

/* Row panel k on the processes of its process row: U12 = L11^-1 A12, then
 * put down the process column. */
static void upanel(lu_ctx *c, int k)
{
    const lu_layout *L = c->L;
    int slot = k % 2, kb = lu_block_size(L, k), ldl, nt = 0, *targets = c->tgt;
    int lr = lu_local_start(k, L->nb, L->myr, L->pr);
    int j0 = clamp(lu_local_start(k + 1, L->nb, L->myc, L->pc), L->nloc);
    const double *l11 = l_panel(c, k, &ldl) + lr;
    double *u12 = c->a + (size_t)j0 * L->lda + lr;
    if (L->nloc > j0)
        cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit, kb,
                    L->nloc - j0, 1.0, l11, ldl, u12, L->lda);
    for (int rr = 0; rr < L->pr; rr++) {
        if (rr == L->myr)
            continue;
        int t = rank_of(c, rr, L->myc);
        wait_slot(c, t, k);
        put_block(c, u12, L->lda, kb, L->nloc - j0,
                  (double *)c->ubuf[t] + slot * c->uslot + (size_t)j0 * L->nb, L->nb, t,
                  &c->hdl[nt]);
        targets[nt++] = t;
    }
    complete_and_flag(c, targets, nt, nt, F_U + slot, k + 1);
}

static void gemm(const lu_layout *L, int m, int n, int kb, const double *l, int ldl,
                 const double *u, int ldu, double *a)
{
    if (m > 0 && n > 0)
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, kb, -1.0, l, ldl, u, ldu,
                    1.0, a, L->lda);
}

/* Trailing update of step k; the owners of block column k + 1 update it
 * first, factor and send panel k + 1, then update the rest. Ends by handing
 * the step's slots back to the row and column peers. */
static void update(lu_ctx *c, int k)
{
    const lu_layout *L = c->L;
    int kb = lu_block_size(L, k), ldl, ldu;
    int i0 = clamp(lu_local_start(k + 1, L->nb, L->myr, L->pr), L->mloc);
    int j0 = clamp(lu_local_start(k + 1, L->nb, L->myc, L->pc), L->nloc);
    int m = L->mloc - i0, n = L->nloc - j0;
    const double *l21 = l_panel(c, k, &ldl) + i0, *u12;
    if (L->myr == k % L->pr) {
        ldu = L->lda;
        u12 = c->a + (size_t)j0 * L->lda + lu_local_start(k, L->nb, L->myr, L->pr);
    } else {
        wait_flag(c, F_U + k % 2, k + 1);
        ldu = L->nb;
        u12 = (double *)c->ubuf[L->me] + (k % 2) * c->uslot + (size_t)j0 * L->nb;
    }
    double *a12 = c->a + (size_t)j0 * L->lda + i0;
    if (k + 1 < L->nblk && L->myc == (k + 1) % L->pc) {
        int kb1 = lu_block_size(L, k + 1);
        gemm(L, m, kb1, kb, l21, ldl, u12, ldu, a12);
        panel(c, k + 1, 1);
        gemm(L, m, n - kb1, kb, l21, ldl, u12 + (size_t)kb1 * ldu, ldu,
             a12 + (size_t)kb1 * L->lda);
        finish_panel(c, k + 1);
    } else {
        gemm(L, m, n, kb, l21, ldl, u12, ldu, a12);
    }
    double t0 = MPI_Wtime();
    for (int q = 0; q < L->np; q++)
        if (q != L->me && (q / L->pc == L->myr || q % L->pc == L->myc))
            post_value(c, q, F_ACK + L->me, k + 1);
    c->comm += MPI_Wtime() - t0;
}

static void *alloc_shared(void ***ptrs, size_t bytes, int np)
{
    *ptrs = malloc((size_t)np * sizeof **ptrs);
    if (!*ptrs || ARMCI_Malloc(*ptrs, (armci_size_t)(bytes > 0 ? bytes : 8)) != 0)
        return NULL;
    return (*ptrs)[0];
}

static int setup(lu_ctx *c, const lu_layout *L, double *a, int *ipiv)
{
    int npeer = L->pr + L->pc;
    c->L = L;
    c->a = a;
    c->ipiv = ipiv;
    c->ldl = lu_numroc(L->n, L->nb, 0, L->pr);
    c->pslot = (size_t)L->nb;
    c->lslot = (size_t)c->ldl * L->nb;
    c->uslot = (size_t)L->nb * lu_numroc(L->n, L->nb, 0, L->pc);
    c->hdl = malloc(2 * (size_t)npeer * sizeof *c->hdl);
    c->pend = malloc((size_t)npeer * sizeof *c->pend);
    c->tgt = malloc((size_t)npeer * sizeof *c->tgt);
    c->pstage = malloc(2 * (size_t)L->nb * sizeof *c->pstage);
    c->prow = malloc((size_t)L->nb * sizeof *c->prow);
    c->swap = malloc(((size_t)L->nloc + 1) * sizeof *c->swap);
    MPI_Comm_split(MPI_COMM_WORLD, L->myc, L->myr, &c->col);
    if (!c->hdl || !c->pend || !c->tgt || !c->pstage || !c->prow || !c->swap ||
        !alloc_shared(&c->pbuf, 2 * c->pslot * sizeof(double), L->np) ||
        !alloc_shared(&c->lbuf, 2 * c->lslot * sizeof(double), L->np) ||
        !alloc_shared(&c->ubuf, 2 * c->uslot * sizeof(double), L->np) ||
        !alloc_shared(&c->flags, (size_t)(F_ACK + L->np) * sizeof(int), L->np)) {
        fprintf(stderr, "armada-lu: rank %d: ARMCI_Malloc of the panel buffers failed\n",
                L->me);
        return -1;
    }
    int *mine = flag_at(c, L->me, 0);
    for (int i = 0; i < F_ACK + L->np; i++)
        mine[i] = 0;
    return 0;
}

static void teardown(lu_ctx *c)
{
    void **shared[4] = {c->pbuf, c->lbuf, c->ubuf, c->flags};
    for (int i = 0; i < 4; i++) {
        ARMCI_Free(shared[i][c->L->me]);
        free(shared[i]);
    }
    MPI_Comm_free(&c->col);
    free(c->hdl);
    free(c->pend);
    free(c->tgt);
    free(c->pstage);
    free(c->prow);
    free(c->swap);
}

int lu_factor(const lu_layout *L, double *a, int *ipiv, double *t_factor, double *t_comm)
{
    lu_ctx c = {0};
    if (setup(&c, L, a, ipiv) != 0)
        return -1;
    ARMCI_Barrier();
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (L->myc == 0)
        panel(&c, 0, 0);
    for (int k = 0; k < L->nblk; k++) {
        swaps(&c, k);
        if (L->myr == k % L->pr)
            upanel(&c, k);
        update(&c, k);
    }
    ARMCI_Barrier();
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime() - t0;
    MPI_Allreduce(&t, t_factor, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&c.comm, t_comm, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    *t_comm /= L->np;
    teardown(&c);
    return 0;
}
