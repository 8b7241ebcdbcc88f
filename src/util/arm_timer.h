/* Monotonic wall-clock time in seconds. */
#ifndef ARM_TIMER_H
#define ARM_TIMER_H
#include <time.h>

static inline double arm_time_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
#endif
