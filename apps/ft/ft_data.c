/* Initial conditions, evolution and checksum of NAS FT.
 *
 * The pseudo-random stream is the NPB linear congruential generator
 * x_{k+1} = a x_k mod 2^46 with a = 5^13 and x_0 = 314159265, each value
 * returned as x_{k+1} / 2^46.  The initial field takes consecutive values in
 * storage order (x fastest, then y, then z), real part first.  Unsigned
 * 64-bit products wrap modulo 2^64, a multiple of 2^46, so masking the
 * product gives the residue exactly. */
#include <math.h>
#include <stdint.h>
#include "ft.h"

#define FT_SEED  314159265ull
#define FT_MULT  1220703125ull          /* 5^13 */
#define FT_MASK  ((1ull << 46) - 1)
#define FT_ALPHA 1.0e-6
#define FT_EPS   1.0e-12
#define FT_PI    3.141592653589793238462643

static uint64_t lcg_mul(uint64_t a, uint64_t b)
{
    return (a * b) & FT_MASK;
}

static uint64_t lcg_pow(uint64_t a, uint64_t e)
{
    uint64_t r = 1;
    while (e) {
        if (e & 1)
            r = lcg_mul(r, a);
        a = lcg_mul(a, a);
        e >>= 1;
    }
    return r;
}

void ft_initial_conditions(ft_cplx *u, const ft_class *cls, int ld, int z0, int nzl)
{
    const double scale = 1.0 / (double)(1ull << 46);
    size_t rows = (size_t)cls->ny * nzl;
    uint64_t skip = 2ull * cls->nx * cls->ny * (uint64_t)z0;
    uint64_t x = lcg_mul(FT_SEED, lcg_pow(FT_MULT, skip));
    for (size_t r = 0; r < rows; r++, u += ld) {
        for (int i = 0; i < cls->nx; i++) {
            x = lcg_mul(x, FT_MULT);
            double re = (double)x * scale;
            x = lcg_mul(x, FT_MULT);
            double im = (double)x * scale;
            u[i] = CMPLX(re, im);
        }
        for (int i = cls->nx; i < ld; i++)
            u[i] = 0;
    }
}

/* Signed frequency of index i on an n-point grid: 0..n/2-1, then -n/2..-1. */
static int freq(int i, int n)
{
    return i < n / 2 ? i : i - n;
}

/* exp(-4 alpha pi^2 |k|^2) in layout Y ([yl][z][x], rows ld apart, zero in
 * the padding); evolve applies it once per step, so after t steps the
 * spectrum carries exp(-4 alpha pi^2 |k|^2 t). */
void ft_twiddle(double *tw, const ft_class *cls, int ld, int y0, int nyl)
{
    const double ap = -4.0 * FT_ALPHA * FT_PI * FT_PI;
    size_t i = 0;
    for (int yl = 0; yl < nyl; yl++) {
        int ky = freq(y0 + yl, cls->ny);
        for (int z = 0; z < cls->nz; z++) {
            int kz = freq(z, cls->nz);
            for (int x = 0; x < cls->nx; x++) {
                int kx = freq(x, cls->nx);
                tw[i++] = exp(ap * (double)(kx * kx + ky * ky + kz * kz));
            }
            for (int x = cls->nx; x < ld; x++)
                tw[i++] = 0;
        }
    }
}

void ft_evolve(ft_cplx *u0, ft_cplx *u1, const double *tw, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        u0[i] *= tw[i];
        u1[i] = u0[i];
    }
}

/* Sum of the 1024 probe points (j mod nx, 3j mod ny, 5j mod nz), j = 1..1024,
 * that fall in this rank's planes of layout Z, divided by the grid size. */
ft_cplx ft_checksum_local(const ft_cplx *u, const ft_class *cls, int ld, int z0, int nzl)
{
    ft_cplx sum = 0;
    for (int j = 1; j <= 1024; j++) {
        int x = j % cls->nx, y = (3 * j) % cls->ny, z = (5 * j) % cls->nz;
        if (z >= z0 && z < z0 + nzl)
            sum += u[((size_t)(z - z0) * cls->ny + y) * ld + x];
    }
    return sum / ((double)cls->nx * cls->ny * cls->nz);
}

int ft_verify(const ft_class *cls, const ft_cplx *sums, int niter)
{
    if (niter != cls->niter)
        return 0;
    for (int t = 0; t < niter; t++) {
        double er = fabs((creal(sums[t]) - cls->ref[t][0]) / cls->ref[t][0]);
        double ei = fabs((cimag(sums[t]) - cls->ref[t][1]) / cls->ref[t][1]);
        if (!(er <= FT_EPS && ei <= FT_EPS))
            return 0;
    }
    return 1;
}
