/* armada-lu-scalapack: the MPI reference for armada-lu. ScaLAPACK's pdgetrf
 * (partial pivoting) on the same matrix, block size and process grid, then
 * pdgetrs, and the same residual check and RESULT line (impl=scalapack). */
#include "lu.h"

#include <stdio.h>
#include <stdlib.h>

void Cblacs_get(int ctxt, int what, int *val);
void Cblacs_gridinit(int *ctxt, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int ctxt);
void Cblacs_exit(int notdone);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb,
               const int *irsrc, const int *icsrc, const int *ictxt, const int *lld, int *info);
void pdgetrf_(const int *m, const int *n, double *a, const int *ia, const int *ja,
              const int *desca, int *ipiv, int *info);
void pdgetrs_(const char *trans, const int *n, const int *nrhs, const double *a, const int *ia,
              const int *ja, const int *desca, const int *ipiv, double *b, const int *ib,
              const int *jb, const int *descb, int *info);

static int run(const lu_opts *o, int me, int np)
{
    lu_layout L;
    int ctxt, pr, pc, myr, myc, info, one = 1, zero = 0, desca[9], descb[9];
    size_t n = (size_t)o->n;
    lu_layout_init(&L, o, me, np);
    Cblacs_get(-1, 0, &ctxt);
    Cblacs_gridinit(&ctxt, "Row", L.pr, L.pc);
    Cblacs_gridinfo(ctxt, &pr, &pc, &myr, &myc);
    if (myr != L.myr || myc != L.myc) {
        fprintf(stderr, "armada-lu-scalapack: rank %d: BLACS placed it at (%d,%d), not (%d,%d)\n",
                me, myr, myc, L.myr, L.myc);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    size_t local = (size_t)L.lda * (size_t)(L.nloc > 0 ? L.nloc : 1);
    double *a = malloc(local * sizeof *a), *bl = calloc((size_t)L.lda, sizeof *bl);
    double *xt = malloc(n * sizeof *xt), *b = malloc(n * sizeof *b), *x = calloc(n, sizeof *x);
    double *xs = malloc(n * sizeof *xs);
    int *ipiv = malloc(((size_t)L.mloc + (size_t)L.nb) * sizeof *ipiv);
    if (!a || !bl || !xt || !b || !x || !xs || !ipiv) {
        fprintf(stderr, "armada-lu-scalapack: rank %d: out of memory for n=%d\n", me, o->n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    descinit_(desca, &o->n, &o->n, &o->nb, &o->nb, &zero, &zero, &ctxt, &L.lda, &info);
    descinit_(descb, &o->n, &one, &o->nb, &o->nb, &zero, &zero, &ctxt, &L.lda, &info);
    for (size_t i = 0; i < n; i++)
        xt[i] = lu_xtrue((int)i);
    lu_fill(&L, a);
    lu_matvec(&L, xt, b, NULL);
    if (L.myc == 0)
        for (int il = 0; il < L.mloc; il++)
            bl[il] = b[lu_global(il, L.nb, L.myr, L.pr)];
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    pdgetrf_(&o->n, &o->n, a, &one, &one, desca, ipiv, &info);
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime() - t0, tmax;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (info != 0 && me == 0)
        fprintf(stderr, "armada-lu-scalapack: pdgetrf info=%d\n", info);
    pdgetrs_("N", &o->n, &one, a, &one, &one, desca, ipiv, bl, &one, &one, descb, &info);
    if (L.myc == 0)
        for (int il = 0; il < L.mloc; il++)
            x[lu_global(il, L.nb, L.myr, L.pr)] = bl[il];
    MPI_Allreduce(x, xs, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    lu_check c = lu_verify(&L, xs, b);
    lu_report(&L, "scalapack", tmax, -1.0, &c);
    free(a);
    free(bl);
    free(xt);
    free(b);
    free(x);
    free(xs);
    free(ipiv);
    Cblacs_gridexit(ctxt);
    return c.ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    int me, np, rc;
    lu_opts o;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    rc = lu_parse(argc, argv, np, me, "armada-lu-scalapack", &o);
    if (rc == 0)
        rc = run(&o, me, np);
    Cblacs_exit(1);
    MPI_Finalize();
    return rc;
}
