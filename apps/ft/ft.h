/* NAS FT kernel over a 1-D (slab) decomposition: shared declarations.
 *
 * Data layouts (x is always the contiguous dimension):
 *   layout Z: rank r owns planes z in [r*nz/P, (r+1)*nz/P), stored [zl][y][x];
 *   layout Y: rank r owns planes y in [r*ny/P, (r+1)*ny/P), stored [yl][z][x].
 * Rows are stored ld = nx + pad elements apart (--pad, default 8): with
 * power-of-two rows every element of a column maps to the same few cache
 * sets, and the transforms along y and z run about twice as slowly.  The
 * padding is never transformed, sent or summed.
 * A 3-D FFT is one "transposing FFT": the source owns Al planes of the outer
 * dimension A and holds [al][b][x]; it transforms along b and x, moves every
 * row (al, b) to the rank owning b, where it lands as [bl][a][x], and the
 * destination finishes with the transform along a.  Forward: A = z, B = y;
 * inverse: A = y, B = z. */
#ifndef FT_H
#define FT_H

#include <complex.h>
#include <stddef.h>
#include <stdio.h>
#include <mpi.h>
#include <fftw3.h>
#include <armci.h>

typedef double _Complex ft_cplx;

/* ---- problem classes (ft_class.c) ------------------------------------- */
typedef struct ft_class {
    char name;
    int nx, ny, nz, niter;
    const double (*ref)[2];     /* niter official checksums (re, im) */
} ft_class;

const ft_class *ft_class_find(char name);

/* ---- random numbers, initial data, evolution, checksum (ft_data.c) ---- */
void   ft_initial_conditions(ft_cplx *u, const ft_class *cls, int ld, int z0, int nzl);
void   ft_twiddle(double *tw, const ft_class *cls, int ld, int y0, int nyl);
void   ft_evolve(ft_cplx *u0, ft_cplx *u1, const double *tw, size_t n);
ft_cplx ft_checksum_local(const ft_cplx *u, const ft_class *cls, int ld, int z0, int nzl);
int    ft_verify(const ft_class *cls, const ft_cplx *sums, int niter);

/* ---- one transposition ------------------------------------------------- */
typedef struct ft_xpose {
    int A, B, nx;               /* global extents: outer, middle, row length */
    int ld;                     /* row stride in elements (nx + padding)     */
    int Al, Bl;                 /* A/P and B/P                               */
    ft_cplx *src;               /* [Al][B][ld], transformed in place         */
    ft_cplx *dst;               /* my [Bl][A][ld]                            */
    ft_cplx **dst_all;          /* every rank's dst (ARMCI addresses)        */
    /* Optional (inverse transforms): each source plane is first made from
     * the spectrum, u0 *= tw and src = u0, plane by plane, so that the
     * transforms find it in cache instead of in memory. */
    ft_cplx *u0;
    const double *tw;
} ft_xpose;

static inline ft_cplx *ft_src_row(const ft_xpose *x, int al, int b)
{
    return x->src + ((size_t)al * x->B + b) * x->ld;
}

/* Row (bl, a) of a [Bl][A][ld] destination block starting at base. */
static inline ft_cplx *ft_dst_row(const ft_xpose *x, ft_cplx *base, int bl, int a)
{
    return base + ((size_t)bl * x->A + a) * x->ld;
}

/* ---- communication variants (ft_mpi.c, ft_armci.c) --------------------- */
typedef enum ft_grain { FT_GRAIN_BULK, FT_GRAIN_SLAB, FT_GRAIN_PENCIL } ft_grain;

/* Where a rank's timed seconds go, for --phases: initial conditions and
 * twiddles, the local work of the steps, and the two halves of every
 * transposition (the variant's send and finish calls). */
enum { FT_PH_SETUP, FT_PH_EVOLVE, FT_PH_FFT_B, FT_PH_SEND, FT_PH_FINISH, FT_PH_FFT_A,
       FT_PH_CHECK, FT_NPHASE };

typedef struct ft_stats {
    double t_init;              /* seconds inside initiation calls          */
    double t_wait;              /* seconds completing (wait, fence, barrier) */
    long   nmsg;                /* messages initiated                       */
    double t_phase[FT_NPHASE];  /* seconds per phase                        */
} ft_stats;

typedef struct ft_comm ft_comm;

typedef struct ft_variant {
    const char *name;
    ft_grain grain;
    int one_sided;
    const char *what;
    /* before the local transforms: post receives */
    void (*begin)(ft_comm *c, const ft_xpose *x);
    /* rows (al, q*Bl + bl0 .. + n-1) are transformed and may leave */
    void (*send)(ft_comm *c, const ft_xpose *x, int al, int q, int bl0, int n);
    /* after the local transforms: everything has arrived in every dst */
    void (*finish)(ft_comm *c, const ft_xpose *x);
} ft_variant;

struct ft_comm {
    MPI_Comm comm;
    int me, np;
    const ft_variant *v;
    ft_stats st;
    /* two-sided state */
    MPI_Request *reqs;
    int nreq, maxreq;
    int slab_A[2], rows_n[2];
    MPI_Datatype slab_type[2];  /* a slab as it lands: Bl rows, A*ld apart    */
    MPI_Datatype rows_type[2];  /* n rows as they leave: ld apart, keyed by n  */
    ft_cplx *sendbuf, *recvbuf; /* alltoall staging, Al*Bl*nx*P each       */
    /* one-sided state: a ring of explicit handles */
    armci_hdl_t *ring;
    char *ring_busy;
    int ring_n, ring_pos;
};

const ft_variant *ft_variant_find(const char *name);
void ft_variant_list(FILE *out);
int  ft_comm_init(ft_comm *c, const ft_variant *v, MPI_Comm comm, size_t max_rows,
                  size_t block_elems, int window);
void ft_comm_fini(ft_comm *c);
/* copy rows of my own source into my own destination */
void ft_copy_self(ft_comm *c, const ft_xpose *x, int al, int bl0, int n);

extern const ft_variant ft_mpi_alltoall, ft_mpi_slabs, ft_mpi_pencils;
extern const ft_variant ft_put_exchange, ft_put_slabs, ft_put_pencils;

/* ---- transforms (ft_fft.c) -------------------------------------------- */
typedef struct ft_plans {
    fftw_plan pre_b[2];         /* along b of one [B][ld] plane, per direction */
    fftw_plan rows[2];          /* Bl contiguous rows                          */
    fftw_plan row1[2];          /* one row                                     */
    fftw_plan post_a[2];        /* along a of one [A][ld] plane                */
} ft_plans;

enum { FT_FWD = 0, FT_INV = 1 };

int  ft_plans_create(ft_plans *p, const ft_class *cls, int np, int ld, ft_cplx *layz,
                     ft_cplx *layy, unsigned flags);
void ft_plans_destroy(ft_plans *p);
void ft_transpose_fft(ft_comm *c, const ft_plans *p, int dir, const ft_xpose *x);

static inline double ft_now(void) { return MPI_Wtime(); }

#endif
