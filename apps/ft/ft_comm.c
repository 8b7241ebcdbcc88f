/* The variant registry and the communication state every variant shares. */
#include <stdlib.h>
#include <string.h>
#include "ft.h"

static const ft_variant *const variants[] = {
    &ft_mpi_alltoall, &ft_put_exchange, &ft_put_slabs,
    &ft_put_pencils, &ft_mpi_slabs, &ft_mpi_pencils,
};

const ft_variant *ft_variant_find(const char *name)
{
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++)
        if (strcmp(variants[i]->name, name) == 0)
            return variants[i];
    return NULL;
}

void ft_variant_list(FILE *out)
{
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++)
        fprintf(out, "  %-14s %s\n", variants[i]->name, variants[i]->what);
}

/* max_rows: rows one rank receives from one peer in a transposition (Al*Bl);
 * block_elems: elements one rank sends to one peer (Al*Bl*nx);
 * window: outstanding one-sided handles before the oldest is waited on. */
int ft_comm_init(ft_comm *c, const ft_variant *v, MPI_Comm comm, size_t max_rows,
                 size_t block_elems, int window)
{
    memset(c, 0, sizeof *c);
    c->comm = comm;
    c->v = v;
    c->slab_type[0] = c->slab_type[1] = MPI_DATATYPE_NULL;
    c->rows_type[0] = c->rows_type[1] = MPI_DATATYPE_NULL;
    MPI_Comm_rank(comm, &c->me);
    MPI_Comm_size(comm, &c->np);
    if (!v->one_sided && v->grain != FT_GRAIN_BULK) {
        /* pencils: one request per row each way; slabs need fewer */
        c->maxreq = (int)(2 * max_rows * (size_t)c->np);
        c->reqs = malloc((size_t)c->maxreq * sizeof *c->reqs);
        if (!c->reqs)
            goto fail;
    }
    if (!v->one_sided && v->grain == FT_GRAIN_BULK) {
        c->sendbuf = fftw_malloc(block_elems * c->np * sizeof(ft_cplx));
        c->recvbuf = fftw_malloc(block_elems * c->np * sizeof(ft_cplx));
        if (!c->sendbuf || !c->recvbuf)
            goto fail;
    }
    if (v->one_sided) {
        c->ring_n = window > 0 ? window : 1;
        c->ring = calloc((size_t)c->ring_n, sizeof *c->ring);
        c->ring_busy = calloc((size_t)c->ring_n, 1);
        if (!c->ring || !c->ring_busy)
            goto fail;
    }
    return 0;
fail:
    ft_comm_fini(c);
    return -1;
}

void ft_comm_fini(ft_comm *c)
{
    for (int i = 0; i < 2; i++) {
        if (c->slab_type[i] != MPI_DATATYPE_NULL)
            MPI_Type_free(&c->slab_type[i]);
        if (c->rows_type[i] != MPI_DATATYPE_NULL)
            MPI_Type_free(&c->rows_type[i]);
    }
    free(c->reqs);
    fftw_free(c->sendbuf);
    fftw_free(c->recvbuf);
    free(c->ring);
    free(c->ring_busy);
    c->reqs = NULL;
    c->sendbuf = c->recvbuf = NULL;
    c->ring = NULL;
    c->ring_busy = NULL;
}

void ft_copy_self(ft_comm *c, const ft_xpose *x, int al, int bl0, int n)
{
    int a = c->me * x->Al + al;
    for (int bl = bl0; bl < bl0 + n; bl++)
        memcpy(ft_dst_row(x, x->dst, bl, a), ft_src_row(x, al, c->me * x->Bl + bl),
               (size_t)x->nx * sizeof(ft_cplx));
}
