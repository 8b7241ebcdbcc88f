#include "util/arm_log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static struct {
    int rank;
    arm_log_level_t level;
    arm_abort_hook_fn abort_hook;
} log_state = { -1, ARM_LOG_WARN, NULL };

static const char *level_names[] = { "ERROR", "WARN", "INFO", "DEBUG" };

void arm_log_set_rank(int rank) { log_state.rank = rank; }
int  arm_log_rank(void) { return log_state.rank; }
void arm_log_set_level(arm_log_level_t level) { log_state.level = level; }
void arm_log_set_abort_hook(arm_abort_hook_fn hook) { log_state.abort_hook = hook; }

void arm_log_v(arm_log_level_t level, const char *subsys, const char *fmt, va_list ap)
{
    if (level > log_state.level)
        return;
    int saved = errno;
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    fprintf(stderr, "armada[rank %d] %s %s: %s\n", log_state.rank, level_names[level],
            subsys, msg);
    fflush(stderr);
    errno = saved;
}

void arm_log(arm_log_level_t level, const char *subsys, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    arm_log_v(level, subsys, fmt, ap);
    va_end(ap);
}

_Noreturn void arm_fatal_v(const char *call, const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (log_state.level != ARM_LOG_OFF) {   /* only a fuzz driver turns it off */
        fprintf(stderr, "armada[rank %d]: %s: %s\n", log_state.rank, call, msg);
        fflush(stderr);
    }
    if (log_state.abort_hook)
        log_state.abort_hook(1);
    _exit(1);
}

_Noreturn void arm_fatal(const char *call, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    arm_fatal_v(call, fmt, ap);
}
