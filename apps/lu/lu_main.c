/* armada-lu: dense LU factorisation over ARMCI (gemini IV-C1), verified by
 * the residual of a solve with a known solution. */
#include "lu_factor.h"

#include <armci.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef ARMADA_APP_IMPL
#define ARMADA_APP_IMPL "armada"
#endif

static int run(const lu_opts *o, int me, int np)
{
    lu_layout L;
    size_t n = (size_t)o->n, local;
    double t = 0, comm = 0;
    lu_layout_init(&L, o, me, np);
    local = (size_t)L.lda * (size_t)(L.nloc > 0 ? L.nloc : 1);
    double *a = ARMCI_Malloc_local((armci_size_t)(local * sizeof(double)));
    double *xt = malloc(n * sizeof *xt), *b = malloc(n * sizeof *b), *x = malloc(n * sizeof *x);
    int *ipiv = malloc(n * sizeof *ipiv);
    if (!a || !xt || !b || !x || !ipiv) {
        fprintf(stderr, "armada-lu: rank %d: out of memory for n=%d (%zu local doubles)\n", me,
                o->n, local);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (size_t i = 0; i < n; i++)
        xt[i] = lu_xtrue((int)i);
    lu_fill(&L, a);
    lu_matvec(&L, xt, b, NULL);
    if (lu_factor(&L, a, ipiv, &t, &comm) != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    lu_solve(&L, a, ipiv, b, x);
    lu_check c = lu_verify(&L, x, b);
    lu_report(&L, ARMADA_APP_IMPL, t, comm, &c);
    ARMCI_Free_local(a);
    free(xt);
    free(b);
    free(x);
    free(ipiv);
    return c.ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    int me, np, rc;
    lu_opts o;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    rc = lu_parse(argc, argv, np, me, "armada-lu", &o);
    if (rc != 0) {
        MPI_Finalize();
        return rc;
    }
    ARMCI_Init();
    rc = run(&o, me, np);
    ARMCI_Finalize();
    MPI_Finalize();
    return rc;
}
