/* Acknowledging forwarded writes (decision 078). A write that reached this
 * server through another one (MFCG, CFCG, hypercube) freed its slot at the
 * first hop when it was sent on, so the origin's credits say nothing of it.
 * The target therefore counts, per origin, the forwarded requests wanting no
 * reply that it has served, and hands the count to the origin in the
 * `credits` field of the next answer it sends that origin: the reply to a
 * forwarded get, fence or fetch-and-add, or, once the server has been idle
 * ack_us (fence_ack), an answer that carries only the count. The origin adds
 * it to what it knows served at this node; when that equals what it sent
 * there, a fence to the node needs no message.
 *
 * The counts live in a table by rank (open addressing, grown at half full)
 * holding only origins that sent forwarded writes here, and a list of the
 * ranks owed a count, which the idle pass walks. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include "server/srv_int.h"
#include "util/arm_log.h"
#include "util/arm_timer.h"

static uint32_t slot_of(uint32_t cap, int rank)
{
    return ((uint32_t)rank * 2654435761u) & (cap - 1);
}

/* The entry of rank, made when make is set; NULL when none (or no memory). */
static srv_fack_t *entry(struct arm_server *s, int rank, int make)
{
    if (s->fack_cap) {
        for (uint32_t i = slot_of(s->fack_cap, rank);; i = (i + 1) & (s->fack_cap - 1)) {
            if (s->fack[i].rank == rank)
                return &s->fack[i];
            if (s->fack[i].rank < 0)
                break;
        }
    }
    if (!make)
        return NULL;
    if (2 * (s->fack_used + 1) > s->fack_cap) {
        uint32_t cap = s->fack_cap ? 2 * s->fack_cap : 64;
        srv_fack_t *t = malloc(cap * sizeof *t);
        if (!t)
            return NULL;
        for (uint32_t i = 0; i < cap; i++)
            t[i] = (srv_fack_t){ -1, 0 };
        for (uint32_t k = 0; k < s->fack_cap; k++) {
            if (s->fack[k].rank < 0)
                continue;
            uint32_t i = slot_of(cap, s->fack[k].rank);
            while (t[i].rank >= 0)
                i = (i + 1) & (cap - 1);
            t[i] = s->fack[k];
        }
        free(s->fack);
        s->fack = t;
        s->fack_cap = cap;
    }
    uint32_t i = slot_of(s->fack_cap, rank);
    while (s->fack[i].rank >= 0)
        i = (i + 1) & (s->fack_cap - 1);
    s->fack[i] = (srv_fack_t){ rank, 0 };
    s->fack_used++;
    return &s->fack[i];
}

void srv_fack_note(struct arm_server *s, int rank, uint32_t n)
{
    if (rank < 0 || rank >= s->p.nproc)
        return;
    srv_fack_t *e = entry(s, rank, 1);
    if (!e) {
        /* Unacknowledged: the origin fences this node with a message. */
        arm_log(ARM_LOG_WARN, "server", "no memory to count rank %d's forwarded writes", rank);
        return;
    }
    int was = e->owed != 0;
    e->owed += n;
    if (was || !s->p.fence_ack)
        return;
    if (s->fack_ndue == s->fack_due_cap) {
        uint32_t cap = s->fack_due_cap ? 2 * s->fack_due_cap : 64;
        int32_t *d = realloc(s->fack_due, cap * sizeof *d);
        if (!d)
            return;   /* told with its next answer instead */
        s->fack_due = d;
        s->fack_due_cap = cap;
    }
    if (!s->acks && !s->fack_ndue)
        s->ack_since = arm_time_now();
    s->fack_due[s->fack_ndue++] = rank;
}

uint32_t srv_fack_take(struct arm_server *s, int rank)
{
    srv_fack_t *e = s->fack_used ? entry(s, rank, 0) : NULL;
    if (!e)
        return 0;
    uint32_t n = e->owed;
    e->owed = 0;
    return n;
}

int srv_fack_idle(struct arm_server *s)
{
    uint32_t i = 0;
    int did = 0;
    for (; i < s->fack_ndue; i++) {
        srv_fack_t *e = entry(s, s->fack_due[i], 0);
        if (!e || !e->owed)
            continue;   /* told already, with an answer */
        if (!srv_fwd_ack(s, s->fack_due[i]))
            break;      /* no reply record free: the rest at the next idle pass */
        did = 1;
    }
    memmove(s->fack_due, s->fack_due + i, (s->fack_ndue - i) * sizeof *s->fack_due);
    s->fack_ndue -= i;
    return did;
}

void srv_fack_fini(struct arm_server *s)
{
    free(s->fack);
    free(s->fack_due);
    s->fack = NULL;
    s->fack_due = NULL;
    s->fack_cap = s->fack_used = s->fack_ndue = s->fack_due_cap = 0;
}
