/* unit.topo: the virtual topologies of src/topo (issue 20 item 1, decision
 * 040), with no MPI: names and shapes (automatic and from a dims setting,
 * with the refusals), then for every topology and every node count up to
 * 300 every ordered pair of nodes (route reaches its target through
 * existing neighbours within the dimension count, hops() matches the walk,
 * the neighbour and forwarding-neighbour lists match their predicates and
 * the forwarding predicate is exact against all routes), the buffer-wait
 * graph of all routes acyclic for every count up to 128 (and the paper's
 * paper's literal extension recorded for comparison), every dims setting
 * of a few nodes, and sampled routes up to 10^6 nodes.
 *
 * Arguments (optional): the largest count of the exhaustive part (300), of
 * the cycle check (128), the sampled routes per shape (20000), and the
 * largest count for which every accepted dims setting is checked (24). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "topo/arm_topo.h"
#include "unit.h"

static const arm_topo_kind_t KINDS[] = {ARM_TOPO_FCG, ARM_TOPO_MFCG, ARM_TOPO_CFCG,
                                        ARM_TOPO_HCUBE};
#define NKINDS 4

typedef int (*route_fn)(const arm_topo_t *t, int from, int to);

static int shape(arm_topo_t *t, arm_topo_kind_t kind, int n, const char *dims)
{
    char why[200];
    arm_status_t st = arm_topo_init(t, kind, n, dims, why, sizeof why);
    CHECK(st == ARM_OK, "%s %d nodes dims \"%s\": %s", arm_topo_name(kind), n,
          dims ? dims : "", why);
    return st == ARM_OK;
}

/* The hop bound issue 20 sets: FCG 1, MFCG 2, CFCG 3, Hypercube log2. */
static int hop_bound(const arm_topo_t *t)
{
    return t->kind == ARM_TOPO_FCG ? 1 : t->ndim;
}

static void test_names(void)
{
    for (int k = 0; k < NKINDS; k++) {
        arm_topo_kind_t got = ARM_TOPO_NKINDS;
        CHECK(arm_topo_parse_kind(arm_topo_name(KINDS[k]), &got) == ARM_OK && got == KINDS[k],
              "name %s does not parse back", arm_topo_name(KINDS[k]));
    }
    arm_topo_kind_t got = ARM_TOPO_FCG;
    CHECK(arm_topo_parse_kind("torus", &got) == ARM_ERR_INVALID_ARG, "torus accepted");
    CHECK(arm_topo_parse_kind("", &got) == ARM_ERR_INVALID_ARG, "empty name accepted");
    CHECK(strcmp(arm_topo_name(ARM_TOPO_HCUBE), "hypercube") == 0, "hypercube's name");
    unit_section("names and their parsing");
}

static void expect_auto(arm_topo_kind_t kind, int n, const char *want)
{
    arm_topo_t t;
    char buf[128];
    if (!shape(&t, kind, n, NULL))
        return;
    arm_topo_describe(&t, buf, sizeof buf);
    CHECK(strcmp(buf, want) == 0, "%s %d nodes: \"%s\", want \"%s\"", arm_topo_name(kind), n,
          buf, want);
}

static void test_auto(void)
{
    expect_auto(ARM_TOPO_FCG, 16, "fcg (16 nodes)");
    expect_auto(ARM_TOPO_FCG, 1, "fcg (1 node)");
    expect_auto(ARM_TOPO_MFCG, 1, "mfcg 1x1 (1 node)");
    expect_auto(ARM_TOPO_MFCG, 2, "mfcg 2x1 (2 nodes)");
    expect_auto(ARM_TOPO_MFCG, 7, "mfcg 3x3 (7 nodes)");
    expect_auto(ARM_TOPO_MFCG, 16, "mfcg 4x4 (16 nodes)");
    expect_auto(ARM_TOPO_MFCG, 17, "mfcg 5x4 (17 nodes)");
    expect_auto(ARM_TOPO_MFCG, 1000000, "mfcg 1000x1000 (1000000 nodes)");
    expect_auto(ARM_TOPO_CFCG, 1, "cfcg 1x1x1 (1 node)");
    expect_auto(ARM_TOPO_CFCG, 2, "cfcg 2x2x1 (2 nodes)");
    expect_auto(ARM_TOPO_CFCG, 27, "cfcg 3x3x3 (27 nodes)");
    expect_auto(ARM_TOPO_CFCG, 28, "cfcg 4x4x2 (28 nodes)");
    expect_auto(ARM_TOPO_CFCG, 1000000, "cfcg 100x100x100 (1000000 nodes)");
    expect_auto(ARM_TOPO_HCUBE, 1, "hypercube 2 (1 node)");
    expect_auto(ARM_TOPO_HCUBE, 5, "hypercube 2x2x2 (5 nodes)");
    expect_auto(ARM_TOPO_HCUBE, 16, "hypercube 2x2x2x2 (16 nodes)");
    arm_topo_t t;
    if (shape(&t, ARM_TOPO_HCUBE, 1 << 30, NULL))
        CHECK(t.ndim == 30 && t.stride[29] == 1 << 29, "hypercube 2^30: %d dims", t.ndim);
    unit_section("automatic shapes and their descriptions");
}

static void expect_refused(arm_topo_kind_t kind, int n, const char *dims)
{
    arm_topo_t t;
    char why[200] = "untouched";
    arm_status_t st = arm_topo_init(&t, kind, n, dims, why, sizeof why);
    CHECK(st == ARM_ERR_INVALID_ARG && why[0] != '\0' && strcmp(why, "untouched") != 0,
          "%s %d nodes dims \"%s\" accepted (%d)", arm_topo_name(kind), n, dims ? dims : "",
          (int)st);
}

static void test_dims(void)
{
    char buf[128];
    arm_topo_t t;
    for (int n = 13; n <= 16; n++)
        if (shape(&t, ARM_TOPO_MFCG, n, "4x4"))
            CHECK(t.ext[0] == 4 && t.ext[1] == 4 && t.stride[1] == 4, "4x4 at %d", n);
    for (int n = 13; n <= 18; n++)
        if (shape(&t, ARM_TOPO_CFCG, n, "2x3x3"))
            CHECK(t.ext[0] == 2 && t.ext[1] == 3 && t.ext[2] == 3 && t.stride[2] == 6,
                  "2x3x3 at %d", n);
    if (shape(&t, ARM_TOPO_MFCG, 5, "1x5")) {
        arm_topo_describe(&t, buf, sizeof buf);
        CHECK(strcmp(buf, "mfcg 1x5 (5 nodes)") == 0, "1x5: %s", buf);
    }
    shape(&t, ARM_TOPO_MFCG, 5, "5x1");
    shape(&t, ARM_TOPO_CFCG, 3, "4x4x1");
    shape(&t, ARM_TOPO_HCUBE, 5, "2x2x2");
    shape(&t, ARM_TOPO_FCG, 5, "5");
    shape(&t, ARM_TOPO_MFCG, 5, "");
    expect_refused(ARM_TOPO_MFCG, 12, "4x4");     /* a row left empty    */
    expect_refused(ARM_TOPO_MFCG, 17, "4x4");     /* too few places      */
    expect_refused(ARM_TOPO_MFCG, 16, "4");
    expect_refused(ARM_TOPO_MFCG, 16, "4x4x1");
    expect_refused(ARM_TOPO_MFCG, 16, "4x0");
    expect_refused(ARM_TOPO_MFCG, 16, "x4");
    expect_refused(ARM_TOPO_MFCG, 16, "4x");
    expect_refused(ARM_TOPO_MFCG, 16, "4xa");
    expect_refused(ARM_TOPO_MFCG, 16, "4*4");
    expect_refused(ARM_TOPO_MFCG, 16, "-4x4");
    expect_refused(ARM_TOPO_MFCG, 16, "4x99999999999");
    expect_refused(ARM_TOPO_CFCG, 12, "2x3x3");
    expect_refused(ARM_TOPO_CFCG, 19, "2x3x3");
    expect_refused(ARM_TOPO_CFCG, 18, "6x3");
    expect_refused(ARM_TOPO_CFCG, 8, "2147483647x2147483647x2147483647");
    expect_refused(ARM_TOPO_HCUBE, 5, "2x2");
    expect_refused(ARM_TOPO_HCUBE, 5, "2x2x2x2");
    expect_refused(ARM_TOPO_HCUBE, 6, "2x3x1");
    expect_refused(ARM_TOPO_FCG, 5, "6");
    expect_refused(ARM_TOPO_FCG, 5, "5x1");
    expect_refused(ARM_TOPO_MFCG, 0, NULL);
    expect_refused(ARM_TOPO_CFCG, -3, NULL);
    expect_refused(ARM_TOPO_NKINDS, 4, NULL);
    unit_section("dims settings accepted and refused (with a reason)");
}

/* Failures of one property over a shape: counted, the first one kept. */
typedef struct tally {
    long bad;
    int a, b, c;
} tally_t;

static void note(tally_t *tl, int a, int b, int c)
{
    if (tl->bad++ == 0) {
        tl->a = a;
        tl->b = b;
        tl->c = c;
    }
}

enum { T_HOP, T_REACH, T_LONG, T_HOPS, T_DIRECT, T_FWDMISS, T_FWDEXACT, T_NBR, T_FWDLIST,
       T_MAX, NT };
static const char *const TNAME[NT] = {
    "hop to a non-neighbour or nonexistent node (from, to, hop)",
    "target not reached (from, to, last)", "route longer than the bound (from, to, hops)",
    "hops() differs from the walk (from, to, walked)",
    "next hop of neighbours is not the target (from, to, hop)",
    "forwarded hop not in is_fwd_in (node, from, source)",
    "is_fwd_in differs from the routes (node, from, routes)",
    "neighbour list inconsistent (node, i or nb, value)",
    "fwd_in list inconsistent (node, i or from, value)", "max_hops wrong (max, walked, -)"};

/* Walks every route from s; marks the forwarded hops in fwd[to * n + from]. */
static int walk_from(const arm_topo_t *t, int s, unsigned char *fwd, tally_t *tl)
{
    int n = t->nnodes, bound = hop_bound(t), longest = 0;
    for (int to = 0; to < n; to++) {
        int cur = s, h = 0;
        while (cur != to && h <= bound) {
            int nx = arm_topo_next_hop(t, cur, to);
            if (nx < 0 || nx >= n || !arm_topo_is_neighbour(t, cur, nx)) {
                note(&tl[T_HOP], s, to, nx);
                break;
            }
            if (h > 0) {
                fwd[(size_t)nx * n + cur] = 1;
                if (!arm_topo_is_fwd_in(t, nx, cur))
                    note(&tl[T_FWDMISS], nx, cur, s);
            }
            cur = nx;
            h++;
        }
        if (cur != to)
            note(&tl[T_REACH], s, to, cur);
        if (h > bound)
            note(&tl[T_LONG], s, to, h);
        if (arm_topo_hops(t, s, to) != h)
            note(&tl[T_HOPS], s, to, h);
        if (arm_topo_is_neighbour(t, s, to) != (h == 1) ||
            (h == 1 && arm_topo_next_hop(t, s, to) != to))
            note(&tl[T_DIRECT], s, to, arm_topo_next_hop(t, s, to));
        longest = h > longest ? h : longest;
    }
    return longest;
}

/* The neighbour and forwarding lists of node against their predicates. */
static void check_lists(const arm_topo_t *t, int v, const unsigned char *fwd, tally_t *tl)
{
    int n = t->nnodes, deg = 0, fdeg = 0;
    for (int u = 0; u < n; u++) {
        int nb = arm_topo_is_neighbour(t, v, u), fw = arm_topo_is_fwd_in(t, v, u);
        if (nb != arm_topo_is_neighbour(t, u, v) || (u == v && nb))
            note(&tl[T_NBR], v, u, nb);
        if (fw != fwd[(size_t)v * n + u] || (fw && !nb))
            note(&tl[T_FWDEXACT], v, u, fwd[(size_t)v * n + u]);
        int ni = arm_topo_neighbour_index(t, v, u), fi = arm_topo_fwd_in_index(t, v, u);
        if (nb ? (ni < 0 || arm_topo_neighbour(t, v, ni) != u) : ni != -1)
            note(&tl[T_NBR], v, u, ni);
        if (fw ? (fi < 0 || arm_topo_fwd_in(t, v, fi) != u) : fi != -1)
            note(&tl[T_FWDLIST], v, u, fi);
        deg += nb;
        fdeg += fw;
    }
    if (arm_topo_degree(t, v) != deg)
        note(&tl[T_NBR], v, -1, arm_topo_degree(t, v));
    if (arm_topo_fwd_in_degree(t, v) != fdeg)
        note(&tl[T_FWDLIST], v, -1, arm_topo_fwd_in_degree(t, v));
    for (int i = 0, prev = -1; i < deg; i++) {
        int u = arm_topo_neighbour(t, v, i);
        if (u <= prev || arm_topo_neighbour_index(t, v, u) != i)
            note(&tl[T_NBR], v, i, u);
        prev = u;
    }
    for (int i = 0, prev = -1; i < fdeg; i++) {
        int u = arm_topo_fwd_in(t, v, i);
        if (u <= prev || !arm_topo_is_fwd_in(t, v, u))
            note(&tl[T_FWDLIST], v, i, u);
        prev = u;
    }
    if (arm_topo_neighbour(t, v, deg) != -1 || arm_topo_fwd_in(t, v, fdeg) != -1)
        note(&tl[T_NBR], v, deg, fdeg);
}

static void check_shape(const arm_topo_t *t, unsigned char *fwd, long *routes)
{
    int n = t->nnodes, longest = 0;
    tally_t tl[NT];
    memset(tl, 0, sizeof tl);
    memset(fwd, 0, (size_t)n * n);
    for (int s = 0; s < n; s++) {
        int l = walk_from(t, s, fwd, tl);
        longest = l > longest ? l : longest;
    }
    for (int v = 0; v < n; v++)
        check_lists(t, v, fwd, tl);
    if (arm_topo_max_hops(t) != longest)
        note(&tl[T_MAX], arm_topo_max_hops(t), longest, 0);
    *routes += (long)n * n;
    char desc[128];
    arm_topo_describe(t, desc, sizeof desc);
    for (int k = 0; k < NT; k++)
        CHECK(tl[k].bad == 0, "%s: %ld x %s, first %d %d %d", desc, tl[k].bad, TNAME[k],
              tl[k].a, tl[k].b, tl[k].c);
}

static void test_exhaustive(int max_n)
{
    int cap = max_n > 70 ? max_n : 70; /* the dims shapes go up to 70 nodes */
    unsigned char *fwd = malloc((size_t)cap * cap);
    long routes = 0;
    for (int k = 0; k < NKINDS; k++) {
        for (int n = 1; n <= max_n; n++) {
            arm_topo_t t;
            if (shape(&t, KINDS[k], n, NULL))
                check_shape(&t, fwd, &routes);
        }
    }
    /* Shapes of a dims setting, degenerate extents included. */
    static const struct { arm_topo_kind_t kind; const char *dims; int lo, hi; } SET[] = {
        {ARM_TOPO_MFCG, "1x7", 7, 7},     {ARM_TOPO_MFCG, "7x1", 7, 7},
        {ARM_TOPO_MFCG, "3x5", 13, 15},   {ARM_TOPO_MFCG, "8x3", 17, 24},
        {ARM_TOPO_CFCG, "1x3x4", 10, 12}, {ARM_TOPO_CFCG, "3x1x4", 10, 12},
        {ARM_TOPO_CFCG, "4x4x1", 1, 16},  {ARM_TOPO_CFCG, "2x3x5", 25, 30},
        {ARM_TOPO_CFCG, "5x2x7", 61, 70}, {ARM_TOPO_CFCG, "4x5x2", 21, 40}};
    for (size_t i = 0; i < sizeof SET / sizeof SET[0]; i++) {
        for (int n = SET[i].lo; n <= SET[i].hi; n++) {
            arm_topo_t t;
            if (shape(&t, SET[i].kind, n, SET[i].dims))
                check_shape(&t, fwd, &routes);
        }
    }
    free(fwd);
    char what[100];
    snprintf(what, sizeof what, "all %ld routes, every kind, 1..%d nodes + dims shapes", routes,
             max_n);
    unit_section(what);
}

/* The paper's extension read literally: at each node the lowest dimension
 * in which it differs from the target and whose next node exists (id <= M).
 * Kept to record how it fares (decision 040). */
static int naive_next(const arm_topo_t *t, int from, int to)
{
    for (int d = 0; d < t->ndim; d++) {
        int cf = arm_topo_coord(t, from, d), ct = arm_topo_coord(t, to, d);
        int64_t next = from + (int64_t)(ct - cf) * t->stride[d];
        if (cf != ct && next < t->nnodes)
            return (int)next;
    }
    return -1;
}

/* A rule known to deadlock, so that the check below is seen to fail: the
 * nodes as a ring, every request going round it. */
static int ring_next(const arm_topo_t *t, int from, int to)
{
    (void)to;
    return (from + 1) % t->nnodes;
}

/* Buffer-wait graph: a vertex per directed edge a->b, an arc (a->b) ->
 * (b->c) for consecutive hops of some route. Arcs as bits a*n*n + b*n + c.
 * Returns 1 when acyclic (Kahn), 0 with a cycle, -1 when a route failed. */
static int wait_graph_acyclic(const arm_topo_t *t, route_fn next, unsigned char *arc,
                              int *indeg, int *queue)
{
    int n = t->nnodes, bound = n;
    size_t nn = (size_t)n * n;
    memset(arc, 0, (nn * n + 7) / 8);
    memset(indeg, 0, nn * sizeof *indeg);
    for (int s = 0; s < n; s++) {
        for (int to = 0; to < n; to++) {
            int prev = -1, cur = s, h = 0;
            while (cur != to) {
                int nx = next(t, cur, to);
                if (nx < 0 || ++h > bound)
                    return -1;
                size_t bit = (size_t)prev * nn + (size_t)cur * n + (size_t)nx;
                if (prev >= 0 && !(arc[bit / 8] & (1u << (bit % 8)))) {
                    arc[bit / 8] |= (unsigned char)(1u << (bit % 8));
                    indeg[(size_t)cur * n + nx]++;
                }
                prev = cur;
                cur = nx;
            }
        }
    }
    size_t head = 0, tail = 0;
    for (size_t e = 0; e < nn; e++)
        if (indeg[e] == 0)
            queue[tail++] = (int)e;
    while (head < tail) {
        size_t e = (size_t)queue[head++], base = e * n;
        int b = (int)(e % n);
        for (int c = 0; c < n; c++) {
            size_t bit = base + (size_t)c;
            if ((arc[bit / 8] & (1u << (bit % 8))) && --indeg[(size_t)b * n + c] == 0)
                queue[tail++] = b * n + c;
        }
    }
    return tail == nn;
}

static void test_deadlock(int max_n)
{
    if (max_n < 5)
        max_n = 5;
    size_t cap = (size_t)max_n * max_n;
    unsigned char *arc = malloc((cap * max_n + 7) / 8);
    int *indeg = malloc(cap * sizeof *indeg), *queue = malloc(cap * sizeof *queue);
    int naive_cycles = 0, naive_first[NKINDS] = {0}, naive_fail = 0;
    for (int k = 0; k < NKINDS; k++) {
        for (int n = 1; n <= max_n; n++) {
            arm_topo_t t;
            if (!shape(&t, KINDS[k], n, NULL))
                continue;
            int ok = wait_graph_acyclic(&t, arm_topo_next_hop, arc, indeg, queue);
            CHECK(ok == 1, "%s %d nodes: buffer-wait graph %s", arm_topo_name(KINDS[k]), n,
                  ok < 0 ? "not built (a route failed)" : "has a cycle");
            int naive = wait_graph_acyclic(&t, naive_next, arc, indeg, queue);
            naive_fail += naive < 0;
            if (naive == 0 && naive_cycles++ >= 0 && naive_first[k] == 0)
                naive_first[k] = n; /* 0 below: it never cycled */
        }
    }
    /* The check can fail: requests sent round a ring wait on each other. */
    arm_topo_t ring;
    if (shape(&ring, ARM_TOPO_FCG, 5, NULL))
        CHECK(wait_graph_acyclic(&ring, ring_next, arc, indeg, queue) == 0,
              "routing round a ring of 5 shows no cycle");
    printf("  paper's literal rule (lowest dimension whose next node exists): %d of %d "
           "shapes cycle (first: fcg %d mfcg %d cfcg %d hypercube %d nodes), %d fail to "
           "route\n", naive_cycles, NKINDS * max_n, naive_first[0], naive_first[1],
           naive_first[2], naive_first[3], naive_fail);
    free(arc);
    free(indeg);
    free(queue);
    char what[100];
    snprintf(what, sizeof what, "buffer-wait graphs acyclic, every kind, 1..%d nodes", max_n);
    unit_section(what);
}

/* Every dims setting MFCG and CFCG accept for 1..max_n nodes (extents of
 * 1 included): all routes and lists, and the buffer-wait graph. */
static void test_every_dims(int max_n)
{
    size_t cap = (size_t)max_n * max_n;
    unsigned char *fwd = malloc(cap), *arc = malloc((cap * max_n + 7) / 8);
    int *indeg = malloc(cap * sizeof *indeg), *queue = malloc(cap * sizeof *queue);
    long routes = 0, shapes = 0;
    for (int n = 1; n <= max_n; n++) {
        for (int x = 1; x <= n; x++) {
            for (int y = 1; y <= n; y++) {
                for (int z = 0; z <= n; z++) {
                    char dims[64], why[200];
                    arm_topo_t t;
                    arm_topo_kind_t kind = z == 0 ? ARM_TOPO_MFCG : ARM_TOPO_CFCG;
                    if (z == 0)
                        snprintf(dims, sizeof dims, "%dx%d", x, y);
                    else
                        snprintf(dims, sizeof dims, "%dx%dx%d", x, y, z);
                    if (arm_topo_init(&t, kind, n, dims, why, sizeof why) != ARM_OK)
                        continue;
                    shapes++;
                    check_shape(&t, fwd, &routes);
                    CHECK(wait_graph_acyclic(&t, arm_topo_next_hop, arc, indeg, queue) == 1,
                          "%s %s, %d nodes: buffer-wait graph has a cycle",
                          arm_topo_name(kind), dims, n);
                }
            }
        }
    }
    free(fwd);
    free(arc);
    free(indeg);
    free(queue);
    char what[100];
    snprintf(what, sizeof what, "%ld dims shapes of 1..%d nodes: %ld routes, no cycle", shapes,
             max_n, routes);
    unit_section(what);
}

static int rand_node(int n)
{
    return (int)unit_range(0, n - 1);
}

/* Random routes and random list entries on one large shape. */
static void sample_shape(const arm_topo_t *t, int pairs, long *routes)
{
    int n = t->nnodes, bound = hop_bound(t), maxh = arm_topo_max_hops(t);
    tally_t tl[NT];
    memset(tl, 0, sizeof tl);
    for (int p = 0; p < pairs; p++) {
        int s = rand_node(n), to = rand_node(n), cur = s, h = 0;
        while (cur != to && h <= bound) {
            int nx = arm_topo_next_hop(t, cur, to);
            if (nx < 0 || nx >= n || !arm_topo_is_neighbour(t, cur, nx)) {
                note(&tl[T_HOP], s, to, nx);
                break;
            }
            if (h > 0 && (!arm_topo_is_fwd_in(t, nx, cur) ||
                          arm_topo_fwd_in(t, nx, arm_topo_fwd_in_index(t, nx, cur)) != cur))
                note(&tl[T_FWDMISS], nx, cur, s);
            cur = nx;
            h++;
        }
        if (cur != to)
            note(&tl[T_REACH], s, to, cur);
        if (h > bound || h > maxh)
            note(&tl[T_LONG], s, to, h);
        if (arm_topo_hops(t, s, to) != h)
            note(&tl[T_HOPS], s, to, h);
        /* A random neighbour and a random forwarding neighbour of s. */
        int deg = arm_topo_degree(t, s), fdeg = arm_topo_fwd_in_degree(t, s);
        int i = deg > 0 ? rand_node(deg) : 0, u = arm_topo_neighbour(t, s, i);
        if (deg > 0 && (!arm_topo_is_neighbour(t, s, u) || arm_topo_neighbour_index(t, s, u) != i))
            note(&tl[T_NBR], s, i, u);
        i = fdeg > 0 ? rand_node(fdeg) : 0;
        u = arm_topo_fwd_in(t, s, i);
        if (fdeg > 0 && (!arm_topo_is_fwd_in(t, s, u) || arm_topo_fwd_in_index(t, s, u) != i))
            note(&tl[T_FWDLIST], s, i, u);
    }
    *routes += pairs;
    char desc[128];
    arm_topo_describe(t, desc, sizeof desc);
    for (int k = 0; k < NT; k++)
        CHECK(tl[k].bad == 0, "%s: %ld x %s, first %d %d %d", desc, tl[k].bad, TNAME[k],
              tl[k].a, tl[k].b, tl[k].c);
}

static void test_sampled(int pairs)
{
    static const int COUNTS[] = {1000, 1024, 4096, 12288, 65536, 99991, 1000000};
    long routes = 0;
    for (int k = 0; k < NKINDS; k++) {
        for (size_t c = 0; c < sizeof COUNTS / sizeof COUNTS[0]; c++) {
            arm_topo_t t;
            if (shape(&t, KINDS[k], COUNTS[c], NULL))
                sample_shape(&t, pairs, &routes);
        }
    }
    char what[100];
    snprintf(what, sizeof what, "%ld random routes, every kind, 1000..10^6 nodes", routes);
    unit_section(what);
}

static void test_buffers(void)
{
    arm_topo_t t;
    if (shape(&t, ARM_TOPO_FCG, 16, NULL))
        CHECK(arm_topo_buffers(&t, 3, 1, 4, 8) == 15 * 4 && arm_topo_fwd_in_degree(&t, 3) == 0,
              "fcg 16: %llu", (unsigned long long)arm_topo_buffers(&t, 3, 1, 4, 8));
    if (shape(&t, ARM_TOPO_MFCG, 16, NULL)) {
        /* 4x4: 6 neighbours; node 0 is forwarded to along its column only
         * (3 of them), a row hop being always a route's first. */
        CHECK(arm_topo_degree(&t, 0) == 6 && arm_topo_fwd_in_degree(&t, 0) == 3,
              "mfcg 4x4 node 0: degree %d, fwd in %d", arm_topo_degree(&t, 0),
              arm_topo_fwd_in_degree(&t, 0));
        CHECK(arm_topo_buffers(&t, 0, 2, 4, 8) == 6 * 2 * 4 + 3 * 8, "mfcg 4x4: %llu",
              (unsigned long long)arm_topo_buffers(&t, 0, 2, 4, 8));
    }
    if (shape(&t, ARM_TOPO_HCUBE, 1 << 20, NULL)) {
        uint64_t b = arm_topo_buffers(&t, 12345, 16, 2, 4);
        CHECK(arm_topo_degree(&t, 12345) == 20 && b == 20 * 16 * 2 +
              (uint64_t)arm_topo_fwd_in_degree(&t, 12345) * 4, "hypercube 2^20: %llu",
              (unsigned long long)b);
    }
    unit_section("request buffers per node");
}

int main(int argc, char **argv)
{
    int max_n = argc > 1 ? atoi(argv[1]) : 300;
    int max_cycle = argc > 2 ? atoi(argv[2]) : 128;
    int pairs = argc > 3 ? atoi(argv[3]) : 20000;
    int every = argc > 4 ? atoi(argv[4]) : 24;
    test_names();
    test_auto();
    test_dims();
    test_buffers();
    test_exhaustive(max_n);
    test_deadlock(max_cycle);
    test_every_dims(every);
    test_sampled(pairs);
    return unit_finish("unit.topo");
}
