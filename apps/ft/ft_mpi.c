/* Two-sided variants: the MPI_Alltoall exchange (the NAS structure) and the
 * overlapped slabs and pencils with receives posted before any transform. */
#include <string.h>
#include "ft.h"

#define FT_TAG 7

/* ---- mpi-alltoall ------------------------------------------------------ */
static void a2a_begin(ft_comm *c, const ft_xpose *x)
{
}

/* Pack rows into the staging buffer [q][al][bl][x] (no padding). */
static void a2a_send(ft_comm *c, const ft_xpose *x, int al, int q, int bl0, int n)
{
    ft_cplx *out = c->sendbuf + (((size_t)q * x->Al + al) * x->Bl + bl0) * x->nx;
    for (int bl = bl0; bl < bl0 + n; bl++, out += x->nx)
        memcpy(out, ft_src_row(x, al, q * x->Bl + bl), (size_t)x->nx * sizeof(ft_cplx));
}

static void a2a_finish(ft_comm *c, const ft_xpose *x)
{
    int count = 2 * x->Al * x->Bl * x->nx;     /* doubles per peer */
    double t0 = ft_now();
    MPI_Alltoall(c->sendbuf, count, MPI_DOUBLE, c->recvbuf, count, MPI_DOUBLE, c->comm);
    c->st.t_wait += ft_now() - t0;
    c->st.nmsg += c->np - 1;
    const ft_cplx *r = c->recvbuf;
    for (int p = 0; p < c->np; p++)
        for (int al = 0; al < x->Al; al++)
            for (int bl = 0; bl < x->Bl; bl++, r += x->nx)
                memcpy(ft_dst_row(x, x->dst, bl, p * x->Al + al), r,
                       (size_t)x->nx * sizeof(ft_cplx));
}

const ft_variant ft_mpi_alltoall = {
    "mpi-alltoall", FT_GRAIN_BULK, 0,
    "pack, MPI_Alltoall, unpack (the NAS structure)",
    a2a_begin, a2a_send, a2a_finish,
};

/* ---- mpi-slabs / mpi-pencils ------------------------------------------- */
/* n rows of nx, `stride` elements apart, cached under key: the two
 * directions need at most two of each kind. */
static MPI_Datatype rows_type(MPI_Datatype *types, int *keys, int key, int n, int nx,
                              int stride)
{
    for (int i = 0; i < 2; i++)
        if (types[i] != MPI_DATATYPE_NULL && keys[i] == key)
            return types[i];
    int i = types[0] == MPI_DATATYPE_NULL ? 0 : 1;
    MPI_Type_vector(n, 2 * nx, 2 * stride, MPI_DOUBLE, &types[i]);
    MPI_Type_commit(&types[i]);
    keys[i] = key;
    return types[i];
}

/* Bl rows, A rows apart: one slab as it lands in the destination. */
static MPI_Datatype slab_type(ft_comm *c, const ft_xpose *x)
{
    return rows_type(c->slab_type, c->slab_A, x->A, x->Bl, x->nx, x->A * x->ld);
}

/* Receives are posted per peer in the order that peer sends (al, then bl),
 * all with one tag, so matching always takes the head of the queue. */
static void p2p_begin(ft_comm *c, const ft_xpose *x)
{
    MPI_Datatype slab = c->v->grain == FT_GRAIN_SLAB ? slab_type(c, x) : MPI_DATATYPE_NULL;
    double t0 = ft_now();
    c->nreq = 0;
    for (int k = 1; k < c->np; k++) {
        int p = c->me + k;
        if (p >= c->np)
            p -= c->np;
        for (int al = 0; al < x->Al; al++) {
            int a = p * x->Al + al;
            if (c->v->grain == FT_GRAIN_SLAB) {
                MPI_Irecv(ft_dst_row(x, x->dst, 0, a), 1, slab, p, FT_TAG, c->comm,
                          &c->reqs[c->nreq++]);
                continue;
            }
            for (int bl = 0; bl < x->Bl; bl++)
                MPI_Irecv(ft_dst_row(x, x->dst, bl, a), 2 * x->nx, MPI_DOUBLE, p, FT_TAG,
                          c->comm, &c->reqs[c->nreq++]);
        }
    }
    c->st.t_init += ft_now() - t0;
}

static void p2p_send(ft_comm *c, const ft_xpose *x, int al, int q, int bl0, int n)
{
    if (q == c->me) {
        ft_copy_self(c, x, al, bl0, n);
        return;
    }
    /* the rows leave ld apart (a pencil is one row, a slab Bl of them);
     * the type is made, once, before the clock starts */
    MPI_Datatype type = rows_type(c->rows_type, c->rows_n, n, n, x->nx, x->ld);
    double t0 = ft_now();
    MPI_Isend(ft_src_row(x, al, q * x->Bl + bl0), 1, type, q, FT_TAG, c->comm,
              &c->reqs[c->nreq++]);
    c->st.t_init += ft_now() - t0;
    c->st.nmsg++;
}

static void p2p_finish(ft_comm *c, const ft_xpose *x)
{
    double t0 = ft_now();
    MPI_Waitall(c->nreq, c->reqs, MPI_STATUSES_IGNORE);
    c->st.t_wait += ft_now() - t0;
    c->nreq = 0;
}

const ft_variant ft_mpi_slabs = {
    "mpi-slabs", FT_GRAIN_SLAB, 0,
    "MPI_Isend per slab as soon as it is transformed, receives preposted",
    p2p_begin, p2p_send, p2p_finish,
};

const ft_variant ft_mpi_pencils = {
    "mpi-pencils", FT_GRAIN_PENCIL, 0,
    "MPI_Isend per row as soon as it is transformed, receives preposted",
    p2p_begin, p2p_send, p2p_finish,
};
