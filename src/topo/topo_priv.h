/* Helpers shared by the files of src/topo (not part of the layer's
 * interface). A node set that varies one coordinate d of a node v over the
 * values x < bound[d] (x != v's own) is listed in ascending id order: the
 * lower ones (x < c_d) from the highest dimension down, then the higher
 * ones from the lowest dimension up; a step in dimension d moves the id by
 * more than all steps in the dimensions below it together. */
#ifndef ARM_TOPO_PRIV_H
#define ARM_TOPO_PRIV_H

#include <limits.h>
#include <stdint.h>
#include "topo/arm_topo.h"

/* Coordinate d of node (0 <= node < nnodes): a bit of a hypercube's id,
 * else in 32-bit arithmetic (a stride above INT_MAX only occurs for a
 * highest extent of 1). */
static inline int topo_c(const arm_topo_t *t, int64_t node, int d)
{
    if (t->kind == ARM_TOPO_HCUBE)
        return (int)((uint32_t)node >> d & 1u);
    if (t->stride[d] > INT_MAX)
        return 0;
    return (int)((uint32_t)node / (uint32_t)t->stride[d] % (uint32_t)t->ext[d]);
}

static inline int topo_exists(const arm_topo_t *t, int64_t node)
{
    return node >= 0 && node < t->nnodes;
}

/* Exclusive bound of the values coordinate d of node may take with the
 * node still existing (the ids grow with the coordinate). */
static inline int topo_exist_bound(const arm_topo_t *t, int node, int d)
{
    int64_t v = topo_c(t, node, d) + (t->nnodes - 1 - (int64_t)node) / t->stride[d];
    return (int)(v + 1 < t->ext[d] ? v + 1 : t->ext[d]);
}

/* Where node sits in the nesting of partly populated layers: the highest
 * dimension `level` at which it lies in a fully populated layer (all
 * dimensions above hold the coordinates of the partly populated layer),
 * the full layers at that level (`full`) and the nodes of the partly
 * populated one there (`rest`, 0 when there is none). full_at[m] is the
 * number of full layers at each level m >= level. */
typedef struct topo_level {
    int level;
    int64_t full;
    int64_t rest;
    int64_t full_at[ARM_TOPO_MAX_DIM];
} topo_level_t;

void topo_level_of(const arm_topo_t *t, int node, topo_level_t *lv);

/* Lowest dimension with an extent of 2 or more (ndim when none). */
int topo_lowest_wide_dim(const arm_topo_t *t);

int topo_set_count(const arm_topo_t *t, int node, const int *bound);
int topo_set_nth(const arm_topo_t *t, int node, const int *bound, int i);
int topo_set_index(const arm_topo_t *t, int node, const int *bound, int member);

#endif
