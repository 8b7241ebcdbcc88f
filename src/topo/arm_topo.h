/* Virtual topologies of nodes (hicoo section 3.2): which node keeps request
 * buffers for which, and the route a request takes when its target node is
 * not a neighbour. Pure functions of a small value (arm_topo_t): no I/O, no
 * allocation, no per-node arrays; every call costs O(dimensions), so a call
 * at a million nodes costs what it costs at four. The runtime's servers and
 * clients and the simulator (sim/) share this code.
 *
 * Nodes 0..nnodes-1 are placed lowest dimension first: node id =
 * c[0] + ext[0] * (c[1] + ext[1] * (c[2] + ...)). Only the highest
 * dimension may be partly populated. Two nodes are neighbours when their
 * coordinates differ in exactly one dimension (FCG: every pair; Hypercube:
 * one bit). Routes are lowest-dimension-first, extended for partly
 * populated shapes (decision 040 gives the rule and why it has no cycle). */
#ifndef ARM_TOPO_H
#define ARM_TOPO_H

#include <stddef.h>
#include <stdint.h>
#include "util/arm_status.h"

typedef enum arm_topo_kind {
    ARM_TOPO_FCG = 0,      /* every node a neighbour of every other        */
    ARM_TOPO_MFCG = 1,     /* X x Y, fully connected along each dimension  */
    ARM_TOPO_CFCG = 2,     /* X x Y x Z                                    */
    ARM_TOPO_HCUBE = 3,    /* log2 dimensions of extent 2                  */
    ARM_TOPO_NKINDS = 4
} arm_topo_kind_t;

#define ARM_TOPO_MAX_DIM 31

typedef struct arm_topo {
    arm_topo_kind_t kind;
    int nnodes;
    int ndim;                        /* FCG: 1 (one dimension of nnodes)    */
    int ext[ARM_TOPO_MAX_DIM];       /* extent per dimension, lowest first  */
    int64_t stride[ARM_TOPO_MAX_DIM];/* id distance of one step per dimension */
} arm_topo_t;

/* Names as ARMADA_TOPOLOGY spells them: "fcg", "mfcg", "cfcg", "hypercube". */
const char *arm_topo_name(arm_topo_kind_t kind);
/* ARM_OK and *kind, or ARM_ERR_INVALID_ARG for an unknown name. */
arm_status_t arm_topo_parse_kind(const char *name, arm_topo_kind_t *kind);

/* Shapes t for nnodes (>= 1) nodes. dims: NULL or "" chooses the extents
 * (MFCG: X = ceil(sqrt n), CFCG: X = Y = ceil(cbrt n), highest dimension
 * ceil of what is left); otherwise extents separated by 'x' ("4x4",
 * "2x3x3"), lowest first, whose number matches the kind and whose product
 * covers nnodes with only the highest dimension partly used. On a bad shape
 * returns ARM_ERR_INVALID_ARG with the reason in why (why_len bytes). */
arm_status_t arm_topo_init(arm_topo_t *t, arm_topo_kind_t kind, int nnodes, const char *dims,
                           char *why, size_t why_len);

/* ARMADA_TOPOLOGY=auto (decisions 043, 049): of FCG, MFCG and CFCG, the
 * first whose request slots per server, processes with slots there x
 * slots x slot_size, stay within auto_max bytes (FCG: every process of the
 * job; MFCG and CFCG: the processes of a full node's neighbours and its
 * own, ceil(nproc / nnodes) per node); CFCG when none does, since its
 * buffers grow slowest of those with at most 3 hops. The runtime and the
 * simulator both choose by this. */
arm_topo_kind_t arm_topo_auto_kind(int nproc, int nnodes, int slots, size_t slot_size,
                                   size_t auto_max);

/* "mfcg 4x4 (16 nodes)" into buf. */
void arm_topo_describe(const arm_topo_t *t, char *buf, size_t len);

/* Coordinate of node in dimension d. */
int arm_topo_coord(const arm_topo_t *t, int node, int d);

/* Next node on the route from `from` to `to` (from != to), always a
 * neighbour of from; `to` itself when they are neighbours. */
int arm_topo_next_hop(const arm_topo_t *t, int from, int to);
/* Hops on the route from `from` to `to`: 0 when equal, 1 for neighbours. */
int arm_topo_hops(const arm_topo_t *t, int from, int to);
/* Largest number of hops of any route in t. */
int arm_topo_max_hops(const arm_topo_t *t);

int arm_topo_is_neighbour(const arm_topo_t *t, int a, int b);
/* Neighbours of node: how many, the i-th (0 <= i < degree, ascending id),
 * and the index of neighbour nb (-1 when nb is not one). */
int arm_topo_degree(const arm_topo_t *t, int node);
int arm_topo_neighbour(const arm_topo_t *t, int node, int i);
int arm_topo_neighbour_index(const arm_topo_t *t, int node, int nb);

/* Servers that forward requests to node: the neighbours `from` for which
 * some route has a hop from -> node that is not its first hop (the request
 * came to `from` from elsewhere). Each such neighbour is an incoming edge
 * of server-to-server buffers at node. May be conservative (a superset),
 * never missing one; tests/unit/test_topo.c checks it against every route. */
int arm_topo_is_fwd_in(const arm_topo_t *t, int node, int from);
int arm_topo_fwd_in_degree(const arm_topo_t *t, int node);
/* The i-th such neighbour (ascending id) and the index of `from` among them
 * (-1 when it is not one). */
int arm_topo_fwd_in(const arm_topo_t *t, int node, int i);
int arm_topo_fwd_in_index(const arm_topo_t *t, int node, int from);

/* Request buffers node holds: slots_per_client for each process of each
 * neighbour node (ppn processes per node), slots_per_edge for each server
 * that forwards to it. */
uint64_t arm_topo_buffers(const arm_topo_t *t, int node, int ppn, int slots_per_client,
                          int slots_per_edge);

#endif
