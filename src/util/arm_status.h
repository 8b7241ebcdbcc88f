/* One status type for the whole runtime: 0 ok, positive "in progress",
 * negative errors grouped by what broke. ARMCI's int returns exist only at
 * the api layer. */
#ifndef ARM_STATUS_H
#define ARM_STATUS_H

typedef enum arm_status {
    ARM_OK = 0,
    ARM_INPROGRESS = 1,
    ARM_ERR_INVALID_ARG = -1,   /* caller passed something wrong        */
    ARM_ERR_NO_MEMORY = -2,     /* allocation failed                    */
    ARM_ERR_SYSTEM = -3,        /* a system call failed (errno logged)  */
    ARM_ERR_UNSUPPORTED = -4,   /* not implemented for this path        */
    ARM_ERR_TRANSPORT = -5,     /* the network transport reported error */
    ARM_ERR_TIMEOUT = -6,       /* a bounded wait ran out               */
    ARM_ERR_PEER_DIED = -7,     /* another process is gone              */
    ARM_ERR_NOT_FOUND = -8,     /* no such object                       */
    ARM_ERR_EXISTS = -9         /* object already exists                */
} arm_status_t;

const char *arm_status_str(arm_status_t st);

#endif
