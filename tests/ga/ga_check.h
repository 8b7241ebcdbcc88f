/* What the Global Arrays tests share: the rank and size, a check that
 * counts and reports (at most 20 failures per rank), and the closing
 * summary, summed over the job. */
#ifndef ARMADA_TESTS_GA_CHECK_H
#define ARMADA_TESTS_GA_CHECK_H

#include <ga.h>
#include <macdecls.h>
#include <mpi.h>
#include <stdio.h>

static int me, np;
static long failures, checks;

#define EXPECT(cond, ...)                                                      \
    do {                                                                       \
        checks++;                                                              \
        if (!(cond)) {                                                         \
            if (++failures <= 20) {                                            \
                fprintf(stderr, "FAIL rank %d line %d: ", me, __LINE__);       \
                fprintf(stderr, __VA_ARGS__);                                  \
                fprintf(stderr, "\n");                                         \
            }                                                                  \
        }                                                                      \
    } while (0)

/* MPI, then GA with 1 MiB of MA stack and heap; sets me and np. */
static inline void ga_check_start(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    GA_Initialize();
    MA_init(C_DBL, 1 << 20, 1 << 20);
    me = GA_Nodeid();
    np = GA_Nnodes();
}

/* Rank 0 says which part starts, so a hang or a failure points at it. */
static inline void ga_check_part(const char *what)
{
    if (me == 0) {
        printf("%s\n", what);
        fflush(stdout);
    }
}

/* Sums the checks and failures of every rank, prints the verdict on rank 0
 * and returns the exit status. Collective. */
static inline int ga_check_summary(const char *test)
{
    GA_Sync();
    long totals[2] = { checks, failures };
    MPI_Allreduce(MPI_IN_PLACE, totals, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("%s: %d processes: %ld checks, %ld failed: %s\n", test, np, totals[0], totals[1],
               totals[1] ? "FAILED" : "PASSED");
    return totals[1] ? 1 : 0;
}

#endif
