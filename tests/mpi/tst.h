/* Tiny helpers shared by the MPI-launched semantics tests.
 *
 * CHECK(cond, fmt, ...) counts a pass or a failure; a failure prints the rank,
 * file, line and message (the first TST_MAX_REPORTS of them per rank).
 * tst_finish() prints "<test>: rank R: N passed, M failed" and returns the exit
 * status for main (0 only when nothing failed and something was checked). */
#ifndef ARMADA_TESTS_MPI_TST_H
#define ARMADA_TESTS_MPI_TST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <mpi.h>

#define TST_MAX_REPORTS 20

static long tst_passed;
static long tst_failed;
static int tst_rank = -1;

static inline int tst_me(void)
{
    int init = 0, fini = 0;
    if (tst_rank < 0) {
        MPI_Initialized(&init);
        MPI_Finalized(&fini);
        if (init && !fini) {
            MPI_Comm_rank(MPI_COMM_WORLD, &tst_rank);
        } else {
            const char *r = getenv("OMPI_COMM_WORLD_RANK");
            if (!r)
                r = getenv("PMI_RANK");
            return r ? atoi(r) : -1;
        }
    }
    return tst_rank;
}

static inline void tst_fail_report(const char *file, int line, const char *cond)
{
    tst_failed++;
    if (tst_failed <= TST_MAX_REPORTS)
        fprintf(stderr, "FAIL rank %d %s:%d: %s\n", tst_me(), file, line, cond);
    else if (tst_failed == TST_MAX_REPORTS + 1)
        fprintf(stderr, "FAIL rank %d: further failures not shown\n", tst_me());
}

/* CHECK(cond, "fmt", args...): the message explains a failure. */
#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (cond) {                                                             \
            tst_passed++;                                                       \
        } else {                                                                \
            char tst_msg_[512];                                                 \
            int tst_n_ = snprintf(tst_msg_, sizeof tst_msg_, "%s: ", #cond);    \
            if (tst_n_ > 0 && tst_n_ < (int)sizeof tst_msg_)                    \
                snprintf(tst_msg_ + tst_n_, sizeof tst_msg_ - tst_n_, __VA_ARGS__); \
            tst_fail_report(__FILE__, __LINE__, tst_msg_);                      \
        }                                                                       \
    } while (0)

/* Exact comparison of two integers, printing both on failure. */
#define CHECK_EQ(got, want, what)                                               \
    CHECK((long long)(got) == (long long)(want), "%s: got %lld, expected %lld", \
          (what), (long long)(got), (long long)(want))

/* Prints what was checked (rank 0 only) so the log reads like a list. */
#define TST_SAY(...)                                                            \
    do {                                                                        \
        if (tst_me() == 0) {                                                    \
            printf(__VA_ARGS__);                                                \
            printf("\n");                                                       \
            fflush(stdout);                                                     \
        }                                                                       \
    } while (0)

/* Summary for this rank; call after MPI_Finalize is fine (rank is cached). */
static inline int tst_finish(const char *name)
{
    int me = tst_me();
    printf("%s: rank %d: %ld passed, %ld failed\n", name, me, tst_passed, tst_failed);
    fflush(stdout);
    if (tst_passed == 0 && tst_failed == 0) {
        fprintf(stderr, "%s: rank %d: nothing was checked\n", name, me);
        return 2;
    }
    return tst_failed ? 1 : 0;
}

/* MPI_Init and ARMCI_Init; this process's rank and the job's size. */
#define TST_START(argc, argv, me, np)                                           \
    do {                                                                        \
        MPI_Init((argc), (argv));                                               \
        ARMCI_Init();                                                           \
        MPI_Comm_rank(MPI_COMM_WORLD, (me));                                    \
        MPI_Comm_size(MPI_COMM_WORLD, (np));                                    \
    } while (0)

/* Sleeps us microseconds (polling loops must not spin). */
static inline void tst_nap(long us)
{
    struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
    nanosleep(&ts, NULL);
}

/* Small deterministic generator (xorshift64*) so every rank can rebuild the
 * same "random" shapes and data from a seed. */
static inline unsigned long long tst_rand(unsigned long long *s)
{
    unsigned long long x = *s ? *s : 0x9e3779b97f4a7c15ULL;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 2685821657736338717ULL;
}

/* Uniform in [lo, hi]. */
static inline int tst_range(unsigned long long *s, int lo, int hi)
{
    return lo + (int)(tst_rand(s) % (unsigned long long)(hi - lo + 1));
}

/* The byte that pattern `tag` holds at offset i. */
static inline unsigned char tst_byte(int tag, long i)
{
    return (unsigned char)((i * 131 + tag * 17 + (i >> 8) * 7 + 1) & 0xff);
}

#endif
