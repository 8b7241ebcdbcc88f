/* Armada: the reduction operators of armci_msg_*gop and armci_tcgmsg_*gop
 * (decision 030).
 *
 * Operator names are matched by prefix, in the order ARMCI-MPI tries them,
 * so every string ARMCI-MPI accepts means here what it means there:
 * "+", "*", "max", "min", "or", "absmax", "absmin", then "land" or "&&",
 * "lor" or "||", "band" or "&", "bor" or "|". Armada also keeps "and"
 * (bitwise, as "band"), which TCGMSG names.
 *
 * Logical "and"/"or" yield 1 or 0 for every type and process count (an
 * element is true when it is not zero; MPI alone would hand a single
 * process its input back unchanged): on float and double the result is 1.0
 * or 0.0 (what MPICH's MPI_LAND and MPI_LOR give for floating types; Open
 * MPI refuses them, so Armada computes them itself). Bitwise operators need an integer
 * type: float and double are refused by name. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"

static const struct {
    const char *prefix;
    arm_gop_t   op;
} gop_prefixes[] = {
    { "+", ARM_GOP_SUM },      { "*", ARM_GOP_PROD },     { "max", ARM_GOP_MAX },
    { "min", ARM_GOP_MIN },    { "or", ARM_GOP_BOR },     { "absmax", ARM_GOP_ABSMAX },
    { "absmin", ARM_GOP_ABSMIN }, { "land", ARM_GOP_LAND }, { "&&", ARM_GOP_LAND },
    { "lor", ARM_GOP_LOR },    { "||", ARM_GOP_LOR },     { "band", ARM_GOP_BAND },
    { "&", ARM_GOP_BAND },     { "bor", ARM_GOP_BOR },    { "|", ARM_GOP_BOR },
    { "and", ARM_GOP_BAND },
};

static const char *const gop_names[] = {
    [ARM_GOP_SUM] = "+",         [ARM_GOP_PROD] = "*",        [ARM_GOP_MAX] = "max",
    [ARM_GOP_MIN] = "min",       [ARM_GOP_ABSMAX] = "absmax", [ARM_GOP_ABSMIN] = "absmin",
    [ARM_GOP_BOR] = "|",         [ARM_GOP_BAND] = "&",        [ARM_GOP_LOR] = "||",
    [ARM_GOP_LAND] = "&&",
};

arm_gop_t arm_api_gop_parse(const char *call, const char *op)
{
    if (op == NULL)
        arm_api_fatal(call, "argument 'op' is NULL");
    for (size_t i = 0; i < sizeof gop_prefixes / sizeof gop_prefixes[0]; i++)
        if (strncmp(op, gop_prefixes[i].prefix, strlen(gop_prefixes[i].prefix)) == 0)
            return gop_prefixes[i].op;
    arm_api_fatal(call, "argument 'op' (\"%.16s\") is not one of +, *, max, min, absmax,"
                  " absmin, or, and, land (&&), lor (||), band (&), bor (|)", op);
}

const char *arm_api_gop_name(arm_gop_t op) { return gop_names[op]; }

int arm_api_gop_is_bitwise(arm_gop_t op) { return op == ARM_GOP_BOR || op == ARM_GOP_BAND; }

MPI_Datatype arm_api_msg_type(const char *call, int type, size_t *size)
{
    switch (type) {
    case ARMCI_INT:       *size = sizeof(int);       return MPI_INT;
    case ARMCI_LONG:      *size = sizeof(long);      return MPI_LONG;
    case ARMCI_LONG_LONG: *size = sizeof(long long); return MPI_LONG_LONG;
    case ARMCI_FLOAT:     *size = sizeof(float);     return MPI_FLOAT;
    case ARMCI_DOUBLE:    *size = sizeof(double);    return MPI_DOUBLE;
    default:
        arm_api_fatal(call, "argument 'type' (%d) is not an armci_type_e value", type);
    }
}

/* Replaces every element by its magnitude (absmax, absmin). The most
 * negative integer has none that fits; it saturates to the maximum. */
static void take_abs(void *x, int n, int type)
{
    switch (type) {
    case ARMCI_INT:
        for (int i = 0; i < n; i++) {
            int *v = (int *)x + i;
            *v = *v == INT_MIN ? INT_MAX : abs(*v);
        }
        break;
    case ARMCI_LONG:
        for (int i = 0; i < n; i++) {
            long *v = (long *)x + i;
            *v = *v == LONG_MIN ? LONG_MAX : labs(*v);
        }
        break;
    case ARMCI_LONG_LONG:
        for (int i = 0; i < n; i++) {
            long long *v = (long long *)x + i;
            *v = *v == LLONG_MIN ? LLONG_MAX : llabs(*v);
        }
        break;
    case ARMCI_FLOAT:
        for (int i = 0; i < n; i++)
            ((float *)x)[i] = fabsf(((float *)x)[i]);
        break;
    default:
        for (int i = 0; i < n; i++)
            ((double *)x)[i] = fabs(((double *)x)[i]);
        break;
    }
}

/* Logical and/or of float or double elements: reduced as int truth values,
 * written back as 1.0 or 0.0. */
static void logical_floating(const char *call, void *x, int n, int type, MPI_Op mop,
                             MPI_Comm comm)
{
    int *truth = malloc((size_t)n * sizeof *truth);
    if (truth == NULL)
        arm_api_fatal(call, "out of memory for %d truth values", n);
    for (int i = 0; i < n; i++)
        truth[i] = type == ARMCI_FLOAT ? ((float *)x)[i] != 0.0f : ((double *)x)[i] != 0.0;
    MPI_Allreduce(MPI_IN_PLACE, truth, n, MPI_INT, mop, comm);
    for (int i = 0; i < n; i++) {
        if (type == ARMCI_FLOAT)
            ((float *)x)[i] = truth[i] ? 1.0f : 0.0f;
        else
            ((double *)x)[i] = truth[i] ? 1.0 : 0.0;
    }
    free(truth);
}

/* Integer elements become 1 (not zero) or 0. */
static void truth_values(void *x, int n, int type)
{
    for (int i = 0; i < n; i++) {
        if (type == ARMCI_INT)
            ((int *)x)[i] = ((int *)x)[i] != 0;
        else if (type == ARMCI_LONG)
            ((long *)x)[i] = ((long *)x)[i] != 0;
        else
            ((long long *)x)[i] = ((long long *)x)[i] != 0;
    }
}

void arm_api_gop_check(const char *call, const char *op, arm_gop_t kind, int type)
{
    if (arm_api_gop_is_bitwise(kind) && (type == ARMCI_FLOAT || type == ARMCI_DOUBLE))
        arm_api_fatal(call, "argument 'op' (\"%.16s\", bitwise) needs an integer type, not %s",
                      op, type == ARMCI_FLOAT ? "float" : "double");
}

void arm_api_gop_allreduce(const char *call, void *x, int n, int type, arm_gop_t kind,
                           MPI_Comm comm)
{
    size_t size;
    MPI_Datatype dt = arm_api_msg_type(call, type, &size);
    int floating = type == ARMCI_FLOAT || type == ARMCI_DOUBLE;
    MPI_Op mop = MPI_SUM;
    switch (kind) {
    case ARM_GOP_SUM:    mop = MPI_SUM;  break;
    case ARM_GOP_PROD:   mop = MPI_PROD; break;
    case ARM_GOP_MAX:    mop = MPI_MAX;  break;
    case ARM_GOP_MIN:    mop = MPI_MIN;  break;
    case ARM_GOP_ABSMAX: take_abs(x, n, type); mop = MPI_MAX; break;
    case ARM_GOP_ABSMIN: take_abs(x, n, type); mop = MPI_MIN; break;
    case ARM_GOP_BOR:    mop = MPI_BOR;  break;
    case ARM_GOP_BAND:   mop = MPI_BAND; break;
    case ARM_GOP_LOR:    mop = MPI_LOR;  break;
    case ARM_GOP_LAND:   mop = MPI_LAND; break;
    }
    if (floating && (kind == ARM_GOP_LOR || kind == ARM_GOP_LAND)) {
        logical_floating(call, x, n, type, mop, comm);
        return;
    }
    if (kind == ARM_GOP_LOR || kind == ARM_GOP_LAND)
        truth_values(x, n, type);
    MPI_Allreduce(MPI_IN_PLACE, x, n, dt, mop, comm);
}
