/* One-sided variants: rows are put straight into the destination rank's
 * ARMCI-allocated array; a barrier after the last put (ARMCI_Barrier fences
 * every target first) tells every rank that its destination is complete. */
#include "ft.h"

/* Next handle of the ring, waiting first for the put it last carried. */
static armci_hdl_t *ring_next(ft_comm *c)
{
    int i = c->ring_pos;
    armci_hdl_t *h = &c->ring[i];
    if (++c->ring_pos == c->ring_n)
        c->ring_pos = 0;
    if (c->ring_busy[i]) {
        double t0 = ft_now();
        ARMCI_Wait(h);
        c->st.t_wait += ft_now() - t0;
    }
    ARMCI_INIT_HANDLE(h);
    c->ring_busy[i] = 1;
    return h;
}

static void ring_drain(ft_comm *c)
{
    for (int i = 0; i < c->ring_n; i++)
        if (c->ring_busy[i]) {
            ARMCI_Wait(&c->ring[i]);
            c->ring_busy[i] = 0;
        }
}

static void put_begin(ft_comm *c, const ft_xpose *x)
{
}

/* Rows (al, q*Bl+bl0 ..) land in q's destination at (bl, me*Al+al), A rows
 * apart: one contiguous put for a single row, one strided put for a slab. */
static void put_rows(ft_comm *c, const ft_xpose *x, int al, int q, int bl0, int n)
{
    int row_bytes = x->nx * (int)sizeof(ft_cplx), ld_bytes = x->ld * (int)sizeof(ft_cplx);
    ft_cplx *src = ft_src_row(x, al, q * x->Bl + bl0);
    ft_cplx *dst = ft_dst_row(x, x->dst_all[q], bl0, c->me * x->Al + al);
    armci_hdl_t *h = ring_next(c);
    double t0 = ft_now();
    if (n == 1) {
        ARMCI_NbPut(src, dst, row_bytes, q, h);
    } else {
        int src_stride[1] = {ld_bytes};
        int dst_stride[1] = {x->A * ld_bytes};
        int count[2] = {row_bytes, n};
        ARMCI_NbPutS(src, src_stride, dst, dst_stride, count, 1, q, h);
    }
    c->st.t_init += ft_now() - t0;
    c->st.nmsg++;
}

static void put_send(ft_comm *c, const ft_xpose *x, int al, int q, int bl0, int n)
{
    if (q == c->me)
        ft_copy_self(c, x, al, bl0, n);
    else
        put_rows(c, x, al, q, bl0, n);
}

static void put_finish(ft_comm *c, const ft_xpose *x)
{
    double t0 = ft_now();
    ring_drain(c);
    ARMCI_Barrier();
    c->st.t_wait += ft_now() - t0;
}

const ft_variant ft_put_slabs = {
    "put-slabs", FT_GRAIN_SLAB, 1,
    "ARMCI_NbPutS per slab as soon as it is transformed, then one barrier",
    put_begin, put_send, put_finish,
};

const ft_variant ft_put_pencils = {
    "put-pencils", FT_GRAIN_PENCIL, 1,
    "ARMCI_NbPut per row as soon as it is transformed (paper's Figure 6)",
    put_begin, put_send, put_finish,
};

/* ---- put-exchange: all transforms first, then one strided put per peer -- */
static void xchg_send(ft_comm *c, const ft_xpose *x, int al, int q, int bl0, int n)
{
    if (q == c->me)
        ft_copy_self(c, x, al, bl0, n);
}

/* Everything q owns in my source, [al][bl][x] with al B rows apart, lands
 * at (bl, me*Al+al) in q's destination: a two-level strided put. */
static void xchg_finish(ft_comm *c, const ft_xpose *x)
{
    int row_bytes = x->nx * (int)sizeof(ft_cplx), ld_bytes = x->ld * (int)sizeof(ft_cplx);
    int src_stride[2] = {ld_bytes, x->B * ld_bytes};
    int dst_stride[2] = {x->A * ld_bytes, ld_bytes};
    int count[3] = {row_bytes, x->Bl, x->Al};
    for (int k = 1; k < c->np; k++) {
        int q = c->me + k;
        if (q >= c->np)
            q -= c->np;
        armci_hdl_t *h = ring_next(c);
        double t0 = ft_now();
        ARMCI_NbPutS(ft_src_row(x, 0, q * x->Bl), src_stride,
                     ft_dst_row(x, x->dst_all[q], 0, c->me * x->Al), dst_stride, count, 2,
                     q, h);
        c->st.t_init += ft_now() - t0;
        c->st.nmsg++;
    }
    put_finish(c, x);
}

const ft_variant ft_put_exchange = {
    "put-exchange", FT_GRAIN_BULK, 1,
    "all transforms, then one ARMCI_NbPutS per peer and one barrier",
    put_begin, xchg_send, xchg_finish,
};
