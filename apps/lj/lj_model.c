/* The physics of armada-lj, with no communication: initial state, the
 * Lennard-Jones block kernels, velocity Verlet and the serial reference. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lj.h"

double lj_now(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A uniform value in [-1, 1) from (atom, component, stream): SplitMix64. */
static double lj_hash(long atom, int comp, int stream)
{
    uint64_t z = (uint64_t)atom * 8u + (uint64_t)comp + (uint64_t)stream * 0x9E3779B97F4A7C15u;
    z += 0x9E3779B97F4A7C15u;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    z ^= z >> 31;
    return (double)(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

static long lj_side(long natoms)
{
    long n = 1;
    while (n * n * n < natoms)
        n++;
    return n;
}

int lj_box_init(lj_box *b, const lj_opts *o, int me)
{
    b->len = (double)lj_side(o->natoms) * cbrt(1.0 / o->density);
    b->half = 0.5 * b->len;
    b->inv = 1.0 / b->len;
    double rc = o->cutoff > 0 ? o->cutoff : b->half;
    if (rc > b->half) {
        if (me == 0)
            fprintf(stderr, "armada-lj: -c %g is larger than half the box (%g for -N %ld -r %g);"
                            " use more atoms or a smaller cutoff\n",
                    o->cutoff, b->half, o->natoms, o->density);
        return -1;
    }
    b->rc2 = rc * rc;
    double ir6 = 1.0 / (b->rc2 * b->rc2 * b->rc2);
    b->ecut = 4.0 * ir6 * (ir6 - 1.0);
    return 0;
}

void lj_init_scale(const lj_opts *o, double *scale, double mean[3])
{
    double sum[3] = { 0, 0, 0 }, sq = 0;
    for (long a = 0; a < o->natoms; a++)
        for (int d = 0; d < 3; d++)
            sum[d] += lj_hash(a, d, 2);
    for (int d = 0; d < 3; d++)
        mean[d] = sum[d] / (double)o->natoms;
    for (long a = 0; a < o->natoms; a++)
        for (int d = 0; d < 3; d++) {
            double u = lj_hash(a, d, 2) - mean[d];
            sq += u * u;
        }
    /* kinetic energy 3/2 N T with unit mass: sum v^2 = 3 N T */
    *scale = sq > 0 ? sqrt(3.0 * (double)o->natoms * o->temp / sq) : 0.0;
}

void lj_init_atoms(const lj_opts *o, const lj_box *b, long lo, long hi, double *x, double *v)
{
    long n = lj_side(o->natoms);
    double a = b->len / (double)n, scale, mean[3];
    lj_init_scale(o, &scale, mean);
    long long sites = (long long)n * n * n;
    for (long i = lo; i < hi; i++) {
        long k = (long)((long long)i * sites / o->natoms); /* vacancies spread out */
        long site[3] = { k % n, (k / n) % n, k / (n * n) };
        double *xi = x + 3 * (i - lo), *vi = v + 3 * (i - lo);
        for (int d = 0; d < 3; d++) {
            xi[d] = a * ((double)site[d] + 0.5 + 0.02 * lj_hash(i, d, 1));
            vi[d] = scale * (lj_hash(i, d, 2) - mean[d]);
        }
    }
}

static inline double lj_wrap(const lj_box *b, double d)
{
    if (d > b->half)
        return d - b->len;
    if (d < -b->half)
        return d + b->len;
    return d;
}

double lj_block_pair(const lj_box *b, const double *xa, long na, const double *xc, long nc,
                     double *fa, double *fc)
{
    double pe = 0;
    for (long p = 0; p < na; p++) {
        double fx = 0, fy = 0, fz = 0;
        const double x0 = xa[3 * p], y0 = xa[3 * p + 1], z0 = xa[3 * p + 2];
        for (long q = 0; q < nc; q++) {
            double dx = lj_wrap(b, x0 - xc[3 * q]);
            double dy = lj_wrap(b, y0 - xc[3 * q + 1]);
            double dz = lj_wrap(b, z0 - xc[3 * q + 2]);
            double r2 = dx * dx + dy * dy + dz * dz;
            if (r2 >= b->rc2)
                continue;
            double ir2 = 1.0 / r2, ir6 = ir2 * ir2 * ir2;
            double s = 24.0 * ir2 * ir6 * (2.0 * ir6 - 1.0);
            pe += 4.0 * ir6 * (ir6 - 1.0) - b->ecut;
            fx += s * dx;
            fy += s * dy;
            fz += s * dz;
            fc[3 * q] -= s * dx;
            fc[3 * q + 1] -= s * dy;
            fc[3 * q + 2] -= s * dz;
        }
        fa[3 * p] += fx;
        fa[3 * p + 1] += fy;
        fa[3 * p + 2] += fz;
    }
    return pe;
}

double lj_block_self(const lj_box *b, const double *x, long n, double *f)
{
    double pe = 0;
    for (long p = 0; p + 1 < n; p++)
        pe += lj_block_pair(b, x + 3 * p, 1, x + 3 * (p + 1), n - p - 1, f + 3 * p,
                            f + 3 * (p + 1));
    return pe;
}

void lj_kick_drift(const lj_box *b, double dt, long n, double *x, double *v, const double *f)
{
    for (long i = 0; i < 3 * n; i++) {
        v[i] += 0.5 * dt * f[i];
        double xi = x[i] + dt * v[i];
        x[i] = xi - b->len * floor(xi * b->inv);
    }
}

void lj_kick(double dt, long n, double *v, const double *f)
{
    for (long i = 0; i < 3 * n; i++)
        v[i] += 0.5 * dt * f[i];
}

double lj_kinetic(long n, const double *v)
{
    double s = 0;
    for (long i = 0; i < 3 * n; i++)
        s += v[i] * v[i];
    return 0.5 * s;
}

void lj_serial_run(const lj_opts *o, const lj_box *b, long k, double *x, double *v, double *f,
                   double *e)
{
    long n = o->natoms;
    lj_init_atoms(o, b, 0, n, x, v);
    memset(f, 0, sizeof(double) * 3 * (size_t)n);
    double pe = lj_block_self(b, x, n, f);
    e[0] = pe + lj_kinetic(n, v);
    for (long s = 1; s <= k; s++) {
        lj_kick_drift(b, o->dt, n, x, v, f);
        memset(f, 0, sizeof(double) * 3 * (size_t)n);
        pe = lj_block_self(b, x, n, f);
        lj_kick(o->dt, n, v, f);
        e[s] = pe + lj_kinetic(n, v);
    }
}

double lj_max_rel_diff(const double *a, const double *r, size_t n)
{
    double dmax = 0, rmax = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs(a[i] - r[i]), m = fabs(r[i]);
        if (d > dmax || d != d)
            dmax = d != d ? INFINITY : d;
        if (m > rmax)
            rmax = m;
    }
    return rmax > 0 ? dmax / rmax : dmax;
}
