/* Virtual topologies: names, shapes (automatic or from a dims setting),
 * coordinates and neighbours (decision 040). */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "topo/arm_topo.h"
#include "topo/topo_priv.h"

static const char *const topo_names[ARM_TOPO_NKINDS] = {"fcg", "mfcg", "cfcg", "hypercube"};

const char *arm_topo_name(arm_topo_kind_t kind)
{
    if ((int)kind < 0 || kind >= ARM_TOPO_NKINDS)
        return "unknown";
    return topo_names[kind];
}

arm_status_t arm_topo_parse_kind(const char *name, arm_topo_kind_t *kind)
{
    if (name == NULL)
        return ARM_ERR_INVALID_ARG;
    for (int k = 0; k < ARM_TOPO_NKINDS; k++) {
        if (strcmp(name, topo_names[k]) == 0) {
            *kind = (arm_topo_kind_t)k;
            return ARM_OK;
        }
    }
    return ARM_ERR_INVALID_ARG;
}

/* Smallest x with x^root >= n (root 2 or 3), by bisection. */
static int topo_ceil_root(int n, int root)
{
    int64_t lo = 1, hi = 1;
    while (hi * hi * (root == 3 ? hi : 1) < n)
        hi *= 2;
    while (lo < hi) {
        int64_t mid = (lo + hi) / 2;
        if (mid * mid * (root == 3 ? mid : 1) >= n)
            hi = mid;
        else
            lo = mid + 1;
    }
    return (int)lo;
}

/* Dimensions a kind needs: FCG 1, MFCG 2, CFCG 3, Hypercube the fewest
 * (at least 1) whose 2^k covers nnodes. */
static int topo_kind_ndim(arm_topo_kind_t kind, int nnodes)
{
    if (kind == ARM_TOPO_MFCG)
        return 2;
    if (kind == ARM_TOPO_CFCG)
        return 3;
    if (kind == ARM_TOPO_HCUBE) {
        int k = 1;
        while (k < ARM_TOPO_MAX_DIM && ((int64_t)1 << k) < nnodes)
            k++;
        return k;
    }
    return 1;
}

static void topo_auto(arm_topo_t *t)
{
    int n = t->nnodes;
    if (t->kind == ARM_TOPO_FCG) {
        t->ext[0] = n;
    } else if (t->kind == ARM_TOPO_MFCG) {
        t->ext[0] = topo_ceil_root(n, 2);
        t->ext[1] = (n + t->ext[0] - 1) / t->ext[0];
    } else if (t->kind == ARM_TOPO_CFCG) {
        t->ext[0] = t->ext[1] = topo_ceil_root(n, 3);
        int64_t plane = (int64_t)t->ext[0] * t->ext[1];
        t->ext[2] = (int)((n + plane - 1) / plane);
    } else {
        for (int d = 0; d < t->ndim; d++)
            t->ext[d] = 2;
    }
}

static arm_status_t topo_refuse(char *why, size_t why_len, const char *fmt, ...)
{
    if (why != NULL && why_len > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, why_len, fmt, ap);
        va_end(ap);
    }
    return ARM_ERR_INVALID_ARG;
}

/* Reads "AxBxC" into t->ext; checks the count of extents and their range. */
static arm_status_t topo_parse_dims(arm_topo_t *t, const char *dims, char *why, size_t why_len)
{
    const char *p = dims;
    int count = 0;
    for (;;) {
        long long v = 0;
        const char *start = p;
        while (*p >= '0' && *p <= '9' && v <= INT_MAX)
            v = v * 10 + (*p++ - '0');
        if (p == start || v < 1 || v > INT_MAX)
            return topo_refuse(why, why_len,
                               "dims \"%s\": extent %d is not a whole number from 1 to %d",
                               dims, count + 1, INT_MAX);
        if (count == t->ndim)
            return topo_refuse(why, why_len, "dims \"%s\": more than the %d extent(s) %s has",
                               dims, t->ndim, arm_topo_name(t->kind));
        t->ext[count++] = (int)v;
        if (*p == '\0')
            break;
        if (*p != 'x')
            return topo_refuse(why, why_len, "dims \"%s\": '%c' where 'x' or a digit belongs",
                               dims, *p);
        p++;
    }
    if (count != t->ndim)
        return topo_refuse(why, why_len, "dims \"%s\": %d extent(s), %s needs %d", dims, count,
                           arm_topo_name(t->kind), t->ndim);
    return ARM_OK;
}

/* The extents must cover nnodes with only the highest dimension partly
 * used: product >= nnodes > product / ext[top] * (ext[top] - 1). */
static arm_status_t topo_check_cover(const arm_topo_t *t, const char *dims, char *why,
                                     size_t why_len)
{
    int top = t->ndim - 1;
    int64_t below = 1;
    for (int d = 0; d < top; d++) {
        if (t->kind == ARM_TOPO_HCUBE && t->ext[d] != 2)
            return topo_refuse(why, why_len, "dims \"%s\": every hypercube extent is 2", dims);
        below *= t->ext[d];
    }
    if (t->kind == ARM_TOPO_HCUBE && t->ext[top] != 2)
        return topo_refuse(why, why_len, "dims \"%s\": every hypercube extent is 2", dims);
    if (below > INT_MAX && t->ext[top] > 1)
        return topo_refuse(why, why_len, "dims \"%s\": the highest extent %d leaves a layer "
                           "empty for %d nodes", dims, t->ext[top], t->nnodes);
    if (below * t->ext[top] < t->nnodes)
        return topo_refuse(why, why_len, "dims \"%s\": %lld places for %d nodes", dims,
                           (long long)(below * t->ext[top]), t->nnodes);
    if (below * (t->ext[top] - 1) >= t->nnodes)
        return topo_refuse(why, why_len,
                           "dims \"%s\": the highest extent %d leaves a layer empty for %d "
                           "nodes (only the highest dimension may be partly populated)",
                           dims, t->ext[top], t->nnodes);
    return ARM_OK;
}

arm_status_t arm_topo_init(arm_topo_t *t, arm_topo_kind_t kind, int nnodes, const char *dims,
                           char *why, size_t why_len)
{
    if (why != NULL && why_len > 0)
        why[0] = '\0';
    memset(t, 0, sizeof *t);
    if ((int)kind < 0 || kind >= ARM_TOPO_NKINDS)
        return topo_refuse(why, why_len, "unknown topology kind %d", (int)kind);
    if (nnodes < 1)
        return topo_refuse(why, why_len, "%d nodes (at least 1 needed)", nnodes);
    t->kind = kind;
    t->nnodes = nnodes;
    t->ndim = topo_kind_ndim(kind, nnodes);
    if (dims == NULL || dims[0] == '\0') {
        topo_auto(t);
    } else {
        arm_status_t st = topo_parse_dims(t, dims, why, why_len);
        if (st == ARM_OK)
            st = topo_check_cover(t, dims, why, why_len);
        if (st != ARM_OK)
            return st;
    }
    t->stride[0] = 1;
    for (int d = 1; d < t->ndim; d++)
        t->stride[d] = t->stride[d - 1] * t->ext[d - 1];
    return ARM_OK;
}

void arm_topo_describe(const arm_topo_t *t, char *buf, size_t len)
{
    if (len == 0)
        return;
    int n = snprintf(buf, len, "%s", arm_topo_name(t->kind));
    for (int d = 0; t->kind != ARM_TOPO_FCG && d < t->ndim && n > 0 && (size_t)n < len; d++)
        n += snprintf(buf + n, len - (size_t)n, "%s%d", d == 0 ? " " : "x", t->ext[d]);
    if (n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, " (%d node%s)", t->nnodes, t->nnodes == 1 ? "" : "s");
}

int arm_topo_coord(const arm_topo_t *t, int node, int d)
{
    return topo_c(t, node, d);
}

/* ---- neighbours: coordinates differing in exactly one dimension -------- */

int topo_set_count(const arm_topo_t *t, int node, const int *bound)
{
    int count = 0;
    for (int d = 0; d < t->ndim; d++)
        if (bound[d] > 0)
            count += bound[d] - (topo_c(t, node, d) < bound[d] ? 1 : 0);
    return count;
}

int topo_set_nth(const arm_topo_t *t, int node, const int *bound, int i)
{
    if (i < 0)
        return -1;
    for (int d = t->ndim - 1; d >= 0; d--) {
        int c = topo_c(t, node, d);
        int lo = c < bound[d] ? c : bound[d];
        if (i < lo)
            return (int)(node + (int64_t)(i - c) * t->stride[d]);
        i -= lo;
    }
    for (int d = 0; d < t->ndim; d++) {
        int c = topo_c(t, node, d);
        int hi = bound[d] - c - 1 > 0 ? bound[d] - c - 1 : 0;
        if (i < hi)
            return (int)(node + (int64_t)(i + 1) * t->stride[d]);
        i -= hi;
    }
    return -1;
}

/* Dimension in which a and b differ, -1 unless exactly one. */
static int topo_diff_dim(const arm_topo_t *t, int a, int b)
{
    int dim = -1;
    uint32_t qa = (uint32_t)a, qb = (uint32_t)b;
    for (int d = 0; d < t->ndim && qa != qb; d++) {
        uint32_t e = (uint32_t)t->ext[d];
        if (qa % e != qb % e) {
            if (dim >= 0)
                return -1;
            dim = d;
        }
        qa /= e;
        qb /= e;
    }
    return dim;
}

int topo_set_index(const arm_topo_t *t, int node, const int *bound, int member)
{
    if (!topo_exists(t, node) || !topo_exists(t, member))
        return -1;
    int dim = topo_diff_dim(t, node, member);
    if (dim < 0)
        return -1;
    int c = topo_c(t, node, dim), x = topo_c(t, member, dim);
    if (x >= bound[dim])
        return -1;
    int index = 0;
    for (int d = t->ndim - 1; d > dim; d--) {
        int cd = topo_c(t, node, d);
        index += cd < bound[d] ? cd : bound[d];
    }
    if (x < c)
        return index + x;
    for (int d = dim; d >= 0; d--) {
        int cd = topo_c(t, node, d);
        index += cd < bound[d] ? cd : bound[d];
    }
    for (int d = 0; d < dim; d++) {
        int cd = topo_c(t, node, d);
        index += bound[d] - cd - 1 > 0 ? bound[d] - cd - 1 : 0;
    }
    return index + (x - c - 1);
}

static void topo_nbr_bounds(const arm_topo_t *t, int node, int *bound)
{
    for (int d = 0; d < t->ndim; d++)
        bound[d] = topo_exist_bound(t, node, d);
}

int arm_topo_is_neighbour(const arm_topo_t *t, int a, int b)
{
    return topo_exists(t, a) && topo_exists(t, b) && topo_diff_dim(t, a, b) >= 0;
}

int arm_topo_degree(const arm_topo_t *t, int node)
{
    int bound[ARM_TOPO_MAX_DIM];
    if (!topo_exists(t, node))
        return 0;
    topo_nbr_bounds(t, node, bound);
    return topo_set_count(t, node, bound);
}

int arm_topo_neighbour(const arm_topo_t *t, int node, int i)
{
    int bound[ARM_TOPO_MAX_DIM];
    if (!topo_exists(t, node))
        return -1;
    topo_nbr_bounds(t, node, bound);
    return topo_set_nth(t, node, bound, i);
}

int arm_topo_neighbour_index(const arm_topo_t *t, int node, int nb)
{
    int bound[ARM_TOPO_MAX_DIM];
    if (!arm_topo_is_neighbour(t, node, nb))
        return -1;
    topo_nbr_bounds(t, node, bound);
    return topo_set_index(t, node, bound, nb);
}

arm_topo_kind_t arm_topo_auto_kind(int nproc, int nnodes, int slots, size_t slot_size,
                                   size_t auto_max)
{
    double per_slot = (double)slots * (double)slot_size;
    if ((double)nproc * per_slot <= (double)auto_max || nnodes < 2)
        return ARM_TOPO_FCG;
    int ppn = (nproc + nnodes - 1) / nnodes;
    static const arm_topo_kind_t next[] = { ARM_TOPO_MFCG };
    for (size_t i = 0; i < sizeof next / sizeof next[0]; i++) {
        arm_topo_t t;
        char why[8];
        if (arm_topo_init(&t, next[i], nnodes, NULL, why, sizeof why) != ARM_OK)
            continue;
        double clients = (double)(arm_topo_degree(&t, 0) + 1) * ppn;
        if (clients * per_slot <= (double)auto_max)
            return next[i];
    }
    return ARM_TOPO_CFCG;
}
