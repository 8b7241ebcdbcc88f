/* The memory study (hicoo 4.1, Fig. 9): a server's request-buffer bytes
 * and endpoints at sample nodes of a job of any size, from the server's
 * own layout (arm_server_layout, the function srv_create allocates by).
 * Where the layout is at most SIM_MAKE_MAX bytes the server is also made,
 * with every record allocated, and its counted bytes compared. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "server/srv_int.h"
#include "sim_exp.h"

#define SIM_MAKE_MAX ((uint64_t)256 << 20)
#define SIM_SAMPLES 5

/* Servers this node's server exchanges messages with when connections
 * follow the topology: those it forwards to and those that forward to it. */
static int server_peers(const arm_topo_t *t, int node)
{
    int n = 0, deg = arm_topo_degree(t, node);
    for (int i = 0; i < deg; i++) {
        int nb = arm_topo_neighbour(t, node, i);
        n += arm_topo_is_fwd_in(t, nb, node) || arm_topo_is_fwd_in(t, node, nb);
    }
    return n;
}

/* Makes the server for real and returns its counted bytes (0: failed). */
static uint64_t make_and_count(const arm_server_params_t *sp)
{
    sim_node_t n;
    memset(&n, 0, sizeof n);
    arm_server_t *s = NULL;
    if (srv_create(sp, &sim_xport, &n, &s) != ARM_OK)
        return 0;
    uint64_t bytes = s->stats.buffer_bytes;
    srv_destroy(s);
    return bytes;
}

typedef struct mem_row {
    arm_server_layout_t l;
    int ep_client, ep_server, made, match;
} mem_row_t;

static void sample(const sim_params_t *p, const arm_topo_t *t, int use_topo, const int *node_of,
                   int nnodes, int node, mem_row_t *row)
{
    arm_server_params_t sp = {
        .nproc = p->nproc, .node = node, .slots = p->slots, .slot_size = p->slot_size,
        .progress = ARM_SRV_PROGRESS_POLL, .topo = use_topo ? t : NULL, .node_of = node_of,
        .edge_slots = p->edge_slots, .combine = p->combine, .split = p->split };
    memset(row, 0, sizeof *row);
    arm_server_layout(&sp, &row->l);
    int deg = use_topo ? arm_topo_degree(t, node) : nnodes - 1;
    int own = 0;
    for (int r = node * p->ppn; r < p->nproc && r < (node + 1) * p->ppn; r++)
        own++;
    row->ep_client = deg;
    row->ep_server = (int)row->l.clients - own + (use_topo ? server_peers(t, node) : 0);
    if (row->l.buffer_bytes <= SIM_MAKE_MAX) {
        row->made = 1;
        row->match = make_and_count(&sp) == row->l.buffer_bytes;
    }
}

static void print_row(FILE *out, const char *topo_name, const char *dims, const sim_params_t *p,
                      int nnodes, const char *node, const mem_row_t *r)
{
    fprintf(out, "SIM exp=memory topo=%s dims=%s procs=%d ppn=%d nodes=%d node=%s "
            "buffer_bytes=%llu clients=%llu edges_in=%llu edges_out=%llu ep_client=%d "
            "ep_server=%d slots=%d slot_size=%zu edge_slots=%d made=%d match=%d\n",
            topo_name, dims, p->nproc, p->ppn, nnodes, node,
            (unsigned long long)r->l.buffer_bytes, (unsigned long long)r->l.clients,
            (unsigned long long)r->l.edges_in, (unsigned long long)r->l.edges_out, r->ep_client,
            r->ep_server, p->slots, p->slot_size, p->edge_slots, r->made, r->match);
}

int sim_memory(const sim_params_t *p, const char *topo_name, FILE *out, char *why,
               size_t why_len)
{
    int nnodes = (p->nproc + p->ppn - 1) / p->ppn;
    arm_topo_t t;
    if (arm_topo_init(&t, p->kind, nnodes, p->dims, why, why_len) != ARM_OK)
        return -1;
    int *node_of = malloc((size_t)p->nproc * sizeof *node_of);
    if (!node_of) {
        snprintf(why, why_len, "out of memory for %d processes", p->nproc);
        return -1;
    }
    for (int r = 0; r < p->nproc; r++)
        node_of[r] = r / p->ppn;
    char dims[64] = "";
    for (int d = 0; d < t.ndim; d++)
        snprintf(dims + strlen(dims), sizeof dims - strlen(dims), d ? "x%d" : "%d", t.ext[d]);
    int nodes[SIM_SAMPLES] = { 0, nnodes / 3, nnodes / 2, (2 * nnodes) / 3, nnodes - 1 };
    mem_row_t mx, row;
    memset(&mx, 0, sizeof mx);
    int bad = 0;
    for (int i = 0; i < SIM_SAMPLES; i++) {
        if (i && nodes[i] == nodes[i - 1])
            continue;
        sample(p, &t, p->kind != ARM_TOPO_FCG, node_of, nnodes, nodes[i], &row);
        char name[16];
        snprintf(name, sizeof name, "%d", nodes[i]);
        print_row(out, topo_name, dims, p, nnodes, name, &row);
        bad += row.made && !row.match;
        if (row.l.buffer_bytes > mx.l.buffer_bytes)
            mx = row;
    }
    print_row(out, topo_name, dims, p, nnodes, "max", &mx);
    free(node_of);
    if (bad) {
        snprintf(why, why_len, "%d made servers counted other bytes than their layout", bad);
        return -1;
    }
    return 0;
}
