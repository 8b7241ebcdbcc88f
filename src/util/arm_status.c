#include "util/arm_status.h"

const char *arm_status_str(arm_status_t st)
{
    switch (st) {
    case ARM_OK:              return "success";
    case ARM_INPROGRESS:      return "in progress";
    case ARM_ERR_INVALID_ARG: return "invalid argument";
    case ARM_ERR_NO_MEMORY:   return "out of memory";
    case ARM_ERR_SYSTEM:      return "system call failed";
    case ARM_ERR_UNSUPPORTED: return "not supported";
    case ARM_ERR_TRANSPORT:   return "transport error";
    case ARM_ERR_TIMEOUT:     return "timed out";
    case ARM_ERR_PEER_DIED:   return "peer process died";
    case ARM_ERR_NOT_FOUND:   return "not found";
    case ARM_ERR_EXISTS:      return "already exists";
    }
    return "unknown status";
}
