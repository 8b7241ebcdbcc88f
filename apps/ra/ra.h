/* armada-ra: the RandomAccess (GUPS) kernel on ARMCI accumulates. */
#ifndef RA_H
#define RA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <mpi.h>
#include <armci.h>

/* The implementation the program is linked against, set by CMake. */
#ifndef RA_IMPL
#define RA_IMPL "armada"
#endif

/* ---- HPCC's random stream ------------------------------------------------
 * Element n of the stream is x^n in GF(2)[x] modulo x^64 + x^2 + x + 1 (the
 * low bits of the reduction are RA_POLY); element 0 is 1 and each element is
 * the previous one times x.  Update u (counting from 0) of the whole run uses
 * element u + 1. */
#define RA_POLY UINT64_C(0x7)
#define RA_PERIOD INT64_C(1317624576693539401)

static inline uint64_t ra_next(uint64_t r)
{
    return (r << 1) ^ ((r >> 63) ? RA_POLY : 0);
}
/* Element n of the stream (n taken modulo the period; negative n allowed). */
uint64_t ra_starts(int64_t n);

/* ---- the table's distribution ----------------------------------------------
 * 2^log2 words in blocks: the first `rem` processes hold base + 1 words, the
 * others base; `cut` is the first global index of the short blocks. */
typedef struct ra_layout {
    uint64_t size, mask, base, rem, cut;
    int np;
} ra_layout;

void ra_layout_init(ra_layout *l, int log2, int np);
static inline int ra_owner(const ra_layout *l, uint64_t g, uint64_t *off)
{
    uint64_t p;
    if (g < l->cut) {
        p = g / (l->base + 1);
        *off = g - p * (l->base + 1);
    } else {
        p = l->rem + (g - l->cut) / l->base;
        *off = g - l->cut - (p - l->rem) * l->base;
    }
    return (int)p;
}
/* First global index and word count of process p's block. */
uint64_t ra_first(const ra_layout *l, int p);
uint64_t ra_count(const ra_layout *l, int p);

/* ---- options ---------------------------------------------------------------- */
typedef enum ra_mode { RA_MODE_VECTOR, RA_MODE_SINGLE } ra_mode;

typedef struct ra_opts {
    int log2;           /* -k: the table holds 2^log2 words                  */
    uint64_t updates;   /* -u: updates in all (0: 4 x the table)             */
    int batch;          /* -b: updates per accumulate to one owner           */
    int window;         /* -w: accumulates in flight per owner               */
    double bound;       /* -t: seconds after which no update starts (0: none) */
    ra_mode mode;
} ra_opts;

/* ---- the timed phase ---------------------------------------------------------
 * Applies up to `count` updates, starting after stream element `start`, to
 * the table whose per-process base pointers are `base`; stops early once
 * MPI_Wtime() passes `deadline` (0: never).  Sets *done to
 * the updates applied.  Returns the number of accumulate calls made, or -1
 * when out of memory (nothing was sent). */
typedef struct ra_run {
    const ra_layout *lay;
    const ra_opts *o;
    void **base;
    int me;
    double deadline;
} ra_run;

long ra_update(const ra_run *r, int64_t start, uint64_t count, uint64_t *done);

/* Counts the words of process me's block that differ from i + the sum of the
 * updates applied to i: process p planned the stream's updates start[p] ..
 * start[p + 1] - 1 and applied the first done[p] of them.  The stream is
 * regenerated step by step from element 0, without the jump-ahead the update
 * phase uses (except over the updates a time bound left out).  Returns -1
 * when out of memory. */
int64_t ra_verify(const ra_layout *l, const uint64_t *mine, int me, const uint64_t *start,
                  const uint64_t *done);

#endif
