/* Routes on a virtual topology: lowest dimension first, extended for the
 * partly populated highest layer (decision 040), the hop counts, the
 * servers that forward to a node and the request buffers a node holds.
 *
 * The nodes of a shape form full layers along its highest dimension m and
 * at most one partly populated layer, which is itself a shape of one
 * dimension fewer, nested the same way. A route from s to t:
 *   - s in a full layer at level m: plain lowest-dimension-first over the
 *     dimensions 0..m (every node it passes lies in s's full layer);
 *   - s in the partly populated layer, t in another layer: first the hop
 *     along dimension m into t's layer, which is full, then
 *     lowest-dimension-first there over the dimensions 0..m-1;
 *   - both in the partly populated layer: the same rule one level down. */
#include "topo/arm_topo.h"
#include "topo/topo_priv.h"

void topo_level_of(const arm_topo_t *t, int node, topo_level_t *lv)
{
    int64_t count = t->nnodes;
    for (int m = t->ndim - 1; m >= 0; m--) {
        int64_t full = count / t->stride[m];
        lv->full_at[m] = full;
        if (topo_c(t, node, m) < full) {
            lv->level = m;
            lv->full = full;
            lv->rest = count % t->stride[m];
            return;
        }
        count %= t->stride[m];
    }
    lv->level = 0;
    lv->full = count;
    lv->rest = 0;
}

int topo_lowest_wide_dim(const arm_topo_t *t)
{
    int d = 0;
    while (d < t->ndim && t->ext[d] < 2)
        d++;
    return d;
}

/* Level m at which the route from `from` to `to` is decided, and whether
 * `from` lies in a full layer there (1) or in the partly populated one
 * with `to` in another layer (0). -1 when from == to. */
static int topo_route_level(const arm_topo_t *t, int from, int to, int *full)
{
    int64_t count = t->nnodes;
    for (int m = t->ndim - 1; m >= 0; m--) {
        int cf = topo_c(t, from, m), ct = topo_c(t, to, m);
        if (cf < count / t->stride[m]) {
            *full = 1;
            return m;
        }
        if (cf != ct) {
            *full = 0;
            return m;
        }
        count %= t->stride[m];
    }
    return -1;
}

int arm_topo_next_hop(const arm_topo_t *t, int from, int to)
{
    int full = 0;
    int m = topo_route_level(t, from, to, &full);
    if (m < 0)
        return to;
    if (!full)
        return (int)(from + (int64_t)(topo_c(t, to, m) - topo_c(t, from, m)) * t->stride[m]);
    uint32_t qf = (uint32_t)from, qt = (uint32_t)to;
    for (int d = 0; d <= m; d++) {
        uint32_t e = (uint32_t)t->ext[d];
        int64_t cf = qf % e, ct = qt % e;
        if (cf != ct)
            return (int)(from + (ct - cf) * t->stride[d]);
        qf /= e;
        qt /= e;
    }
    return to;
}

int arm_topo_hops(const arm_topo_t *t, int from, int to)
{
    int full = 0;
    int m = topo_route_level(t, from, to, &full);
    if (m < 0)
        return 0;
    int hops = full ? 0 : 1;
    uint32_t qf = (uint32_t)from, qt = (uint32_t)to;
    for (int d = 0; d < (full ? m + 1 : m) && qf != qt; d++) {
        uint32_t e = (uint32_t)t->ext[d];
        hops += qf % e != qt % e;
        qf /= e;
        qt /= e;
    }
    return hops;
}

/* Longest route: at the highest level with two or more populated layers,
 * one hop in that dimension plus one in each wider dimension below it
 * (a full layer holds every combination of the lower coordinates); with
 * a single full layer, one hop in each wider dimension. */
int arm_topo_max_hops(const arm_topo_t *t)
{
    int64_t count = t->nnodes;
    for (int m = t->ndim - 1; m >= 0; m--) {
        int64_t full = count / t->stride[m], rest = count % t->stride[m];
        if (full == 0) {
            count = rest;
            continue;
        }
        int hops = (full + (rest > 0)) >= 2 ? 1 : 0;
        for (int d = 0; d < m; d++)
            hops += t->ext[d] >= 2;
        return hops;
    }
    return 0;
}

/* ---- servers that forward to a node ------------------------------------
 * A hop u -> v in dimension d that is not the first hop of its route
 * exists exactly when, with m the level of u's full layer,
 *   (a) d <= m and some dimension below d is 2 or wider: a source in u's
 *       layer that differs from u below d reaches u first by plain
 *       lowest-dimension-first and goes on to v; or
 *   (b) d < m and the partly populated layer at level m holds a node that
 *       agrees with u in the dimensions d..m-1: its route to v enters u's
 *       layer by its first hop and then reaches u, then v. */
int arm_topo_is_fwd_in(const arm_topo_t *t, int node, int from)
{
    if (!arm_topo_is_neighbour(t, node, from))
        return 0;
    int d = 0;
    while (topo_c(t, node, d) == topo_c(t, from, d))
        d++;
    topo_level_t lv;
    topo_level_of(t, from, &lv);
    if (d <= lv.level && d > topo_lowest_wide_dim(t))
        return 1;
    if (d >= lv.level || lv.rest == 0)
        return 0;
    int64_t upper = from % t->stride[lv.level] - from % t->stride[d];
    return upper < lv.rest;
}

/* Exclusive bound per dimension d of the coordinate x that a forwarding
 * neighbour of node (node with coordinate d set to x) has; the set is a
 * prefix of the values in every dimension (see arm_topo_is_fwd_in). */
static void topo_fwd_bounds(const arm_topo_t *t, int node, int *bound)
{
    topo_level_t lv;
    topo_level_of(t, node, &lv);
    int wide = topo_lowest_wide_dim(t);
    for (int d = 0; d < t->ndim; d++) {
        int64_t b;
        if (d >= lv.level) {
            b = d > wide ? lv.full_at[d] : 0;
        } else if (d > wide) {
            b = t->ext[d];
        } else if (lv.rest > 0) {
            int64_t base = node % t->stride[lv.level] - node % t->stride[d] -
                           (int64_t)topo_c(t, node, d) * t->stride[d];
            b = lv.rest > base ? (lv.rest - base - 1) / t->stride[d] + 1 : 0;
        } else {
            b = 0;
        }
        int exist = topo_exist_bound(t, node, d);
        bound[d] = (int)(b < exist ? b : exist);
    }
}

int arm_topo_fwd_in_degree(const arm_topo_t *t, int node)
{
    int bound[ARM_TOPO_MAX_DIM];
    if (!topo_exists(t, node))
        return 0;
    topo_fwd_bounds(t, node, bound);
    return topo_set_count(t, node, bound);
}

int arm_topo_fwd_in(const arm_topo_t *t, int node, int i)
{
    int bound[ARM_TOPO_MAX_DIM];
    if (!topo_exists(t, node))
        return -1;
    topo_fwd_bounds(t, node, bound);
    return topo_set_nth(t, node, bound, i);
}

int arm_topo_fwd_in_index(const arm_topo_t *t, int node, int from)
{
    int bound[ARM_TOPO_MAX_DIM];
    if (!arm_topo_is_neighbour(t, node, from))
        return -1;
    topo_fwd_bounds(t, node, bound);
    return topo_set_index(t, node, bound, from);
}

uint64_t arm_topo_buffers(const arm_topo_t *t, int node, int ppn, int slots_per_client,
                          int slots_per_edge)
{
    uint64_t clients = (uint64_t)arm_topo_degree(t, node) * (uint64_t)ppn;
    return clients * (uint64_t)slots_per_client +
           (uint64_t)arm_topo_fwd_in_degree(t, node) * (uint64_t)slots_per_edge;
}
