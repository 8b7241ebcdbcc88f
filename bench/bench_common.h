/* Shared timing, argument and reporting code for Armada's microbenchmarks.
 *
 * Every benchmark program is written against the ARMCI interface only (or, for
 * the reference programs, against OpenSHMEM or MPI-3 RMA); this file uses MPI
 * solely for ranks and coordination, never for the measured operations.
 *
 * Output: one line per figure, parsed by tools/bench/armada_bench.py:
 *   RESULT impl=<impl> suite=<suite> op=<op> size=<bytes> nproc=<n> \
 *          value=<median> unit=<unit> min=<..> max=<..> reps=<r> iters=<i> [k=v ...]
 * and, for a figure that could not be measured:
 *   SKIP impl=<impl> suite=<suite> op=<op> reason=<word>
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* Each program is compiled with BENCH_IMPL set to the implementation's
 * name ("armada", "armcimpi", "mpi-rma", "openshmem"). */
#ifndef BENCH_IMPL
#define BENCH_IMPL "unknown"
#endif

#define BENCH_MAX_REPS 64

/* The ops suite's transfers, shared by the ARMCI suite and the reference
 * programs so that every implementation moves the same bytes: the 1 MiB get
 * and put, and the 2-D strided put of BENCH_ROWS rows of BENCH_ROW_BYTES
 * into rows BENCH_DST_STRIDE apart, after the first MiB of the target. */
#define BENCH_BIG ((size_t)1 << 20)
#define BENCH_ROWS 64
#define BENCH_ROW_BYTES 512
#define BENCH_DST_STRIDE 1024
/* Bytes the ops suite needs at each target: the MiB, then the strided rows. */
#define BENCH_OPS_BYTES (BENCH_BIG + (size_t)BENCH_ROWS * BENCH_DST_STRIDE)

typedef struct bench_opts {
    int rank;
    int nproc;
    int iters;          /* timed operations per repetition (small sizes)   */
    int warmup;         /* untimed operations before each repetition       */
    int reps;           /* repetitions; each figure is their median        */
    size_t min_size;    /* smallest message in a size sweep                */
    size_t max_size;    /* largest message in a size sweep                 */
    size_t total;       /* fixed total of the strided / vector suites      */
    size_t byte_budget; /* bytes moved per repetition at most (large sizes)*/
    int window;         /* outstanding non-blocking operations (flood)     */
    int target;         /* target rank, -1 for the suite's default         */
    double seconds;     /* time budget for hot-spot hammering, per figure  */
    double rep_seconds; /* aim for repetitions at most this long (-R)       */
    const char *ops;    /* comma-separated list of ops to run, NULL = all  */
    const char *levels; /* contention levels in percent, e.g. "0,11,20,100"*/
    const char *suite;
    const char *impl;
} bench_opts_t;

/* Parses the common options (see bench_usage) into *o after MPI_Init.
 * Unknown options end the program with a usage message. */
void bench_parse(bench_opts_t *o, const char *impl, const char *suite, int argc,
                 char **argv);

/* For the reference programs: the suite is an optional first argument
 * (default "ops"), the common options follow. Returns o->suite. */
const char *bench_parse_ref(bench_opts_t *o, const char *impl, int argc, char **argv);

/* Prints the CHECK line of an exact final count; returns 0 when got equals
 * expected, else 3 (the programs' exit status for a wrong count). */
int bench_check(const bench_opts_t *o, const char *op, long expected, long got);

/* Whether op is selected by -o (always true without -o). */
int bench_want(const bench_opts_t *o, const char *op);

/* Monotonic wall clock in seconds. */
double bench_now(void);

/* Median of n samples (n >= 1); the array is sorted in place. */
double bench_median(double *v, int n);

/* Timed operations for one repetition at this size: o->iters for small
 * messages, fewer for large ones so that one repetition moves at most
 * o->byte_budget bytes, and never fewer than 4. */
int bench_iters_for(const bench_opts_t *o, size_t size);

/* Caps iters so that one repetition takes about o->rep_seconds, given the
 * time of one operation measured during warm-up; never fewer than 3
 * (or iters, if smaller). */
int bench_iters_timed(const bench_opts_t *o, int iters, double sec_per_op);

/* Prints one RESULT line from the samples (one per repetition): the value is
 * their median. extra is NULL or "k=v k=v" appended verbatim. */
void bench_report(const bench_opts_t *o, const char *op, size_t size,
                  const char *unit, double *samples, int n, int iters,
                  const char *extra);

/* fadd_all, the figures of origins hammering one counter: per repetition r,
 * bench_fadd_rep reduces each process's loop time `mine` (seconds, 0 where
 * it is no origin) over comm to comm's rank 0, which gets the mean time per
 * operation, the slowest origin's, and the aggregate rate. bench_fadd_report
 * prints them (fadd_all us, fadd_all_slowest us, fadd_all Mops/s). */
typedef struct bench_fadd {
    int origins;
    double mean[BENCH_MAX_REPS], slow[BENCH_MAX_REPS], rate[BENCH_MAX_REPS];
} bench_fadd_t;
void bench_fadd_rep(bench_fadd_t *f, int r, double mine, int iters, MPI_Comm comm);
void bench_fadd_report(const bench_opts_t *o, bench_fadd_t *f, int iters);

/* Completes r by testing it between naps of nap_us (BENCH_NAP_US
 * overrides), for ranks that sit out a measurement: one spinning in MPI
 * would take the processor the measured operation needs where cores are
 * fewer than processes and servers. Short naps keep this VM's processors
 * awake but wake often; 1 ms naps disturb a measurement least. */
void bench_sleep_wait(MPI_Request *r, long nap_us);
/* MPI_Barrier over comm, waiting as bench_sleep_wait does. */
void bench_sleep_barrier(MPI_Comm comm, long nap_us);

/* Prints a SKIP line for a figure that is not measured, with a reason. */
void bench_skip(const bench_opts_t *o, const char *op, const char *reason);
/* Removes "FLAG value" from argv (bench_parse refuses options it does not
 * know), for a suite's own options; returns the value, or def when absent. */
int bench_take_opt(int *argc, char **argv, const char *flag, int def);
/* One figure per process v, reported by rank 0 as its mean and its maximum
 * over the processes (stat=mean, stat=max), with extra ("key=value ...",
 * may be empty) appended. Collective. */
void bench_report_spread(const bench_opts_t *o, const char *op, const char *unit, double v,
                         const char *extra);

/* Prints an INFO line (free text after the key) from rank 0. */
void bench_info(const bench_opts_t *o, const char *fmt, ...);

/* Fills n bytes with a pattern derived from seed. */
void bench_fill(void *buf, size_t n, unsigned seed);

/* Next size of a sweep: doubles, saturating at max. */
size_t bench_next_size(size_t s, size_t max);

/* Parses a comma-separated list of integers into out (at most max);
 * returns how many. */
int bench_parse_ints(const char *s, int *out, int max);

/* Parses a size with an optional k/K/m/M/g/G suffix (powers of 1024). */
size_t bench_parse_size(const char *s);

#endif /* BENCH_COMMON_H */
