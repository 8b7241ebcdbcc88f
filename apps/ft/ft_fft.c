/* FFTW plans and the transposing 3-D FFT that every variant shares.
 * The variants differ only in when and how rows leave (ft_variant). */
#include "ft.h"

static fftw_plan plan_strided(int n, int nx, int ld, ft_cplx *buf, int sign, unsigned flags)
{
    /* n-point transforms along a dimension of stride ld, nx of them, in place */
    fftw_complex *b = (fftw_complex *)buf;
    return fftw_plan_many_dft(1, &n, nx, b, NULL, ld, 1, b, NULL, ld, 1, sign, flags);
}

static fftw_plan plan_rows(int nx, int ld, int howmany, ft_cplx *buf, int sign, unsigned flags)
{
    fftw_complex *b = (fftw_complex *)buf;
    return fftw_plan_many_dft(1, &nx, howmany, b, NULL, 1, ld, b, NULL, 1, ld, sign, flags);
}

int ft_plans_create(ft_plans *p, const ft_class *cls, int np, int ld, ft_cplx *layz,
                    ft_cplx *layy, unsigned flags)
{
    int nx = cls->nx, ny = cls->ny, nz = cls->nz;
    /* forward: source layout Z (A = z, B = y), destination layout Y */
    p->pre_b[FT_FWD]  = plan_strided(ny, nx, ld, layz, FFTW_FORWARD, flags);
    p->rows[FT_FWD]   = plan_rows(nx, ld, ny / np, layz, FFTW_FORWARD, flags);
    p->row1[FT_FWD]   = plan_rows(nx, ld, 1, layz, FFTW_FORWARD, flags);
    p->post_a[FT_FWD] = plan_strided(nz, nx, ld, layy, FFTW_FORWARD, flags);
    /* inverse: source layout Y (A = y, B = z), destination layout Z */
    p->pre_b[FT_INV]  = plan_strided(nz, nx, ld, layy, FFTW_BACKWARD, flags);
    p->rows[FT_INV]   = plan_rows(nx, ld, nz / np, layy, FFTW_BACKWARD, flags);
    p->row1[FT_INV]   = plan_rows(nx, ld, 1, layy, FFTW_BACKWARD, flags);
    p->post_a[FT_INV] = plan_strided(ny, nx, ld, layz, FFTW_BACKWARD, flags);
    for (int d = 0; d < 2; d++)
        if (!p->pre_b[d] || !p->rows[d] || !p->row1[d] || !p->post_a[d])
            return -1;
    return 0;
}

void ft_plans_destroy(ft_plans *p)
{
    for (int d = 0; d < 2; d++) {
        fftw_destroy_plan(p->pre_b[d]);
        fftw_destroy_plan(p->rows[d]);
        fftw_destroy_plan(p->row1[d]);
        fftw_destroy_plan(p->post_a[d]);
    }
}

static void run(fftw_plan plan, ft_cplx *buf)
{
    fftw_execute_dft(plan, (fftw_complex *)buf, (fftw_complex *)buf);
}

/* Adds the seconds since *t to the phase and restarts the clock. */
static void lap(double *phase, double *t)
{
    double now = ft_now();
    *phase += now - *t;
    *t = now;
}

/* One 3-D transform with its transposition.  Per source plane: the evolution
 * into it (inverse transforms), the strided transform along b, then the
 * contiguous row transforms grouped by the rank that owns them next; each
 * group (slab) or row (pencil) is handed to the variant as soon as it is
 * final.  Our own rows go last so that remote traffic starts as early as
 * possible. */
void ft_transpose_fft(ft_comm *c, const ft_plans *p, int dir, const ft_xpose *x)
{
    const ft_variant *v = c->v;
    const int np = c->np, Bl = x->Bl;
    double *ph = c->st.t_phase, t = ft_now();

    v->begin(c, x);
    lap(&ph[FT_PH_SEND], &t);
    for (int al = 0; al < x->Al; al++) {
        if (x->tw) {
            size_t off = (size_t)al * x->B * x->ld;
            ft_evolve(x->u0 + off, x->src + off, x->tw + off, (size_t)x->B * x->ld);
            lap(&ph[FT_PH_EVOLVE], &t);
        }
        run(p->pre_b[dir], ft_src_row(x, al, 0));
        lap(&ph[FT_PH_FFT_B], &t);
        for (int k = 1; k <= np; k++) {
            int q = c->me + k;
            if (q >= np)
                q -= np;
            if (v->grain == FT_GRAIN_PENCIL) {
                for (int bl = 0; bl < Bl; bl++) {
                    run(p->row1[dir], ft_src_row(x, al, q * Bl + bl));
                    lap(&ph[FT_PH_FFT_B], &t);
                    v->send(c, x, al, q, bl, 1);
                    lap(&ph[FT_PH_SEND], &t);
                }
            } else {
                run(p->rows[dir], ft_src_row(x, al, q * Bl));
                lap(&ph[FT_PH_FFT_B], &t);
                v->send(c, x, al, q, 0, Bl);
                lap(&ph[FT_PH_SEND], &t);
            }
        }
    }
    v->finish(c, x);
    lap(&ph[FT_PH_FINISH], &t);
    for (int bl = 0; bl < Bl; bl++)
        run(p->post_a[dir], ft_dst_row(x, x->dst, bl, 0));
    lap(&ph[FT_PH_FFT_A], &t);
}
