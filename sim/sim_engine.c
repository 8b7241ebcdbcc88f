/* The simulated job and its event loop: a binary heap of events ordered by
 * time, then by the order they were scheduled (so one seed gives one
 * result), and `cores` processors that CPU work queues for. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "server/srv_int.h"
#include "sim_int.h"

static int ev_before(const sim_ev_t *a, const sim_ev_t *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

void sim_push(sim_world_t *w, double t, int kind, int who, void *p)
{
    if (w->nheap == w->heap_cap) {
        size_t cap = w->heap_cap ? 2 * w->heap_cap : 1024;
        sim_ev_t *h = realloc(w->heap, cap * sizeof *h);
        if (!h) {
            fprintf(stderr, "armada-sim: out of memory for events\n");
            exit(3);
        }
        w->heap = h;
        w->heap_cap = cap;
    }
    size_t i = w->nheap++;
    sim_ev_t e = { t < w->now ? w->now : t, w->seq++, kind, who, p };
    while (i > 0) {
        size_t up = (i - 1) / 2;
        if (!ev_before(&e, &w->heap[up]))
            break;
        w->heap[i] = w->heap[up];
        i = up;
    }
    w->heap[i] = e;
}

static sim_ev_t pop(sim_world_t *w)
{
    sim_ev_t top = w->heap[0], last = w->heap[--w->nheap];
    size_t i = 0, n = w->nheap;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && ev_before(&w->heap[c + 1], &w->heap[c]))
            c++;
        if (!ev_before(&w->heap[c], &last))
            break;
        w->heap[i] = w->heap[c];
        i = c;
    }
    if (n)
        w->heap[i] = last;
    return top;
}

void sim_run(sim_world_t *w, int (*stop)(sim_world_t *w))
{
    while (w->nheap && !(stop && stop(w))) {
        sim_ev_t e = pop(w);
        w->now = e.t;
        w->events++;
        switch (e.kind) {
        case EV_SRV_MSG: sim_server_msg(w, e.who, e.p); break;
        case EV_SRV_RUN: sim_server_run(w, e.who); break;
        case EV_CLI_MSG: sim_client_msg(w, e.who, e.p); break;
        case EV_CLI_RUN: sim_client_run(w, e.who); break;
        default: break;
        }
    }
}

double sim_core_take(sim_world_t *w, double t, int *core)
{
    *core = -1;
    if (w->m.cores <= 0)
        return t;
    int best = 0;
    for (int i = 1; i < w->m.cores; i++)
        if (w->core_free[i] < w->core_free[best])
            best = i;
    *core = best;
    return w->core_free[best] > t ? w->core_free[best] : t;
}

void sim_core_release(sim_world_t *w, int core, double end)
{
    if (core >= 0)
        w->core_free[core] = end;
}

void sim_poll_push(sim_world_t *w, sim_client_t *c)
{
    if (w->poll_len == w->poll_cap) {
        size_t cap = w->poll_cap ? 2 * w->poll_cap : 256;
        struct sim_poll *p = malloc(cap * sizeof *p);
        if (!p) {
            fprintf(stderr, "armada-sim: out of memory\n");
            exit(3);
        }
        for (size_t i = 0; i < w->poll_len; i++)
            p[i] = w->polls[(w->poll_head + i) % w->poll_cap];
        free(w->polls);
        w->polls = p;
        w->poll_head = 0;
        w->poll_cap = cap;
    }
    w->polls[(w->poll_head + w->poll_len++) % w->poll_cap] =
        (struct sim_poll){ w->now, c->rank, c->wait_epoch };
}

long sim_polling(sim_world_t *w)
{
    while (w->poll_len) {
        struct sim_poll *p = &w->polls[w->poll_head];
        sim_client_t *c = &w->cl[p->rank];
        int live = c->polling && c->wait_epoch == p->epoch;
        if (live && p->t > w->now - w->m.poll_window_us)
            break;
        if (live) {            /* past its window: it sleeps now */
            c->polling = 0;
            w->npoll--;
        }
        w->poll_head = (w->poll_head + 1) % w->poll_cap;
        w->poll_len--;
    }
    return w->npoll;
}

void sim_set_idle(sim_world_t *w, int idle)
{
    w->stretch = w->m.cores > 0 ? 1.0 + w->m.poll_load * idle / w->m.cores : 1.0;
}

double sim_cli_cpu(sim_world_t *w, double us)
{
    return sim_cpu(w, us * w->stretch);
}

double sim_cpu(sim_world_t *w, double us)
{
    double j = w->m.jitter;
    if (j <= 0.0 || us <= 0.0)
        return us;
    /* An exponential draw of mean 1, mixed in with weight j: mean us,
     * coefficient of variation j. */
    double u = ((double)(sim_rand(w) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
    return us * ((1.0 - j) - j * log(u));
}

uint64_t sim_rand(sim_world_t *w)
{
    /* splitmix64 */
    uint64_t z = (w->rng += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static int make_servers(sim_world_t *w, char *why, size_t why_len)
{
    const sim_params_t *p = &w->prm;
    for (int k = 0; k < w->nnodes; k++) {
        sim_node_t *n = &w->nodes[k];
        n->w = w;
        n->node = k;
        arm_server_params_t sp = {
            .nproc = p->nproc, .node = k, .acc_lock = w->lockp, .slots = p->slots,
            .slot_size = p->slot_size, .progress = ARM_SRV_PROGRESS_POLL,
            .topo = w->use_topo ? &w->topo : NULL, .node_of = w->node_of,
            .edge_slots = p->edge_slots, .combine = p->combine, .split = p->split,
            .lazy_clients = 1, .bound_replies = p->bound };
        arm_status_t st = srv_create(&sp, &sim_xport, n, &n->srv);
        if (st == ARM_OK) {
            int first = k * p->ppn, last = first + p->ppn;
            if (last > p->nproc)
                last = p->nproc;
            st = srv_seg_add(n->srv, w->mem + (size_t)first * SIM_WIN,
                             (size_t)(last - first) * SIM_WIN, 0, NULL);
        }
        if (st != ARM_OK) {
            snprintf(why, why_len, "the server of node %d could not be made: %s", k,
                     arm_status_str(st));
            return -1;
        }
    }
    return 0;
}

int sim_world_init(sim_world_t *w, const sim_model_t *m, const sim_params_t *p, char *why,
                   size_t why_len)
{
    memset(w, 0, sizeof *w);
    w->m = *m;
    w->prm = *p;
    w->rng = p->seed;
    sim_set_idle(w, 0);
    if (p->nproc < 2 || p->ppn < 1) {
        snprintf(why, why_len, "needs at least 2 processes and 1 per node");
        return -1;
    }
    w->nnodes = (p->nproc + p->ppn - 1) / p->ppn;
    w->use_topo = p->kind != ARM_TOPO_FCG;
    if (arm_topo_init(&w->topo, p->kind, w->nnodes, p->dims, why, why_len) != ARM_OK)
        return -1;
    size_t n = (size_t)p->nproc;
    w->node_of = malloc(n * sizeof *w->node_of);
    w->locks = calloc(n, sizeof *w->locks);
    w->lockp = malloc(n * sizeof *w->lockp);
    w->mem = calloc(n, SIM_WIN);
    w->nodes = calloc((size_t)w->nnodes, sizeof *w->nodes);
    w->cl = calloc(n, sizeof *w->cl);
    w->core_free = calloc((size_t)(m->cores > 0 ? m->cores : 1), sizeof *w->core_free);
    if (!w->node_of || !w->locks || !w->lockp || !w->mem || !w->nodes || !w->cl ||
        !w->core_free) {
        snprintf(why, why_len, "out of memory for %d processes", p->nproc);
        return -1;
    }
    for (int r = 0; r < p->nproc; r++) {
        w->node_of[r] = r / p->ppn;
        w->lockp[r] = &w->locks[r];
        w->cl[r].rank = r;
        w->cl[r].node = r / p->ppn;
    }
    return make_servers(w, why, why_len);
}

void sim_world_fini(sim_world_t *w)
{
    for (int k = 0; w->nodes && k < w->nnodes; k++) {
        sim_node_t *n = &w->nodes[k];
        srv_destroy(n->srv);
        while (n->inbox) {
            sim_msg_t *msg = n->inbox;
            n->inbox = msg->next;
            free(msg->data);
            free(msg);
        }
        free(n->fwd_inflight);
    }
    for (size_t i = 0; i < w->nheap; i++) {
        if (w->heap[i].kind == EV_SRV_MSG || w->heap[i].kind == EV_CLI_MSG) {
            sim_msg_t *msg = w->heap[i].p;
            free(msg->data);
            free(msg);
        }
    }
    for (int r = 0; w->cl && r < w->prm.nproc; r++)
        free(w->cl[r].cred);
    sim_conn_fini(w);
    free(w->heap);
    free(w->node_of);
    free(w->locks);
    free(w->lockp);
    free(w->mem);
    free(w->nodes);
    free(w->cl);
    free(w->core_free);
    free(w->fadd_seen);
    free(w->polls);
    memset(w, 0, sizeof *w);
}

/* With ARMADA_SIM_SERVERS set: each server's counters, CPU, passes and
 * wake-ups (SIMSRV lines), to set beside the runtime's ARMADA_STATS. */
static void print_servers(const sim_world_t *w, FILE *out)
{
    if (!getenv("ARMADA_SIM_SERVERS"))
        return;
    for (int k = 0; k < w->nnodes; k++) {
        const sim_node_t *n = &w->nodes[k];
        const arm_server_stats_t *st = &n->srv->stats;
        fprintf(out, "SIMSRV node=%d requests=%llu fwd_requests=%llu fwd_messages=%llu "
                "fwd_combined=%llu fwd_in_messages=%llu split_sent=%llu split_replies=%llu "
                "relayed=%llu cpu_us=%.1f passes=%ld wakes=%ld\n", k,
                (unsigned long long)st->requests,
                (unsigned long long)st->fwd_requests, (unsigned long long)st->fwd_messages,
                (unsigned long long)st->fwd_combined,
                (unsigned long long)st->fwd_in_messages, (unsigned long long)st->split_sent,
                (unsigned long long)st->split_replies, (unsigned long long)st->relayed,
                n->cpu_us, n->passes, n->wakes);
    }
}

/* The invariants of a run: every operation completed, every fetch-and-add
 * value handed out once, no request beyond a credit, nothing refused. */
int sim_check(sim_world_t *w, FILE *out)
{
    int stuck = 0;
    for (int r = 0; r < w->prm.nproc; r++)
        stuck += w->cl[r].state != CL_IDLE;
    uint64_t seen = 0;
    for (uint64_t i = 0; i < w->fadd_cap; i++)
        seen += (w->fadd_seen[i / 8] >> (i % 8)) & 1u;
    int32_t counter;
    memcpy(&counter, w->mem + SIM_FADD_OFF, sizeof counter);
    uint64_t refused = w->refused, lost = 0;
    for (int k = 0; k < w->nnodes; k++) {
        const arm_server_stats_t *st = &w->nodes[k].srv->stats;
        refused += st->refused;
        lost += st->refusals_lost;
    }
    int ok = stuck == 0 && seen == w->fadd_issued && (uint64_t)counter == w->fadd_issued &&
             w->fadd_dup == 0 && w->fadd_range == 0 && w->credit_over == 0 &&
             w->edge_over == 0 && refused == 0 && lost == 0 && w->nheap == 0;
    print_servers(w, out);
    fprintf(out, "SIMCHECK stuck=%d fadd_issued=%llu fadd_values=%llu counter=%d fadd_dup=%llu "
            "credit_over=%llu edge_over=%llu edge_inflight_max=%d edge_slots=%d refused=%llu "
            "lost=%llu ok=%d\n", stuck, (unsigned long long)w->fadd_issued,
            (unsigned long long)seen, counter, (unsigned long long)w->fadd_dup,
            (unsigned long long)w->credit_over, (unsigned long long)w->edge_over,
            w->edge_inflight_max, w->prm.edge_slots, (unsigned long long)refused,
            (unsigned long long)lost, ok);
    return ok;
}
