/* unit.srv_acclock: the accumulate lock an origin takes for an accumulate
 * done at the origin (ARM_SRV_ACCLOCK / ACCUNLOCK, decision 060), through
 * the fake transport: granted at once when free, held in the target rank's
 * shared-memory accumulate lock; while it is held, the server-path
 * accumulates to that rank (whole and batched) and a second origin's lock
 * wait at the head of their clients' queues without the server sleeping,
 * an accumulate to another rank goes through, and the unlock lets the
 * waiters through in order. An unlock by a rank that does not hold it is
 * refused. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include "srv_harness.h"
#include "util/arm_acc.h"

#define SLOT 16384
#define MEM (1u << 16)

static arm_srv_req_t acc_req(harness_t *h, int src, int target, size_t off)
{
    arm_srv_req_t r = h_req(h, src, ARM_SRV_ACC, h_addr(h, off), sizeof(int));
    int one = 1;
    r.sub = ARM_ACC_INT;
    r.target = target;
    memcpy(r.scale, &one, sizeof one);
    return r;
}

static arm_srv_req_t lock_req(harness_t *h, int src, int target, int op)
{
    arm_srv_req_t r = h_req(h, src, op, 0, 0);
    r.target = target;
    if (op == ARM_SRV_ACCLOCK)
        r.req_id &= ~ARM_SRV_REQ_NOREPLY;
    return r;
}

static int answered(harness_t *h, uint64_t id)
{
    for (size_t i = 0; i < h->f.nsent; i++) {
        arm_srv_rep_t rep;
        memcpy(&rep, h->f.sent[i].hdr, sizeof rep);
        if (rep.req_id == id)
            return rep.status == ARM_OK ? 1 : -1;
    }
    return 0;
}

static int at(const harness_t *h, size_t off)
{
    int v;
    memcpy(&v, h->mem + off, sizeof v);
    return v;
}

int main(void)
{
    printf("unit.srv_acclock: the origin's accumulate lock at the server\n");
    harness_t h;
    h_init(&h, 8, 4, SLOT, MEM);
    int five = 5;
    arm_srv_req_t l1 = lock_req(&h, 1, 0, ARM_SRV_ACCLOCK);
    h_send(&h, &l1, NULL, 0, 0);
    CHECK(answered(&h, l1.req_id) == 1, "a free accumulate lock is granted at once");
    CHECK(atomic_load(&h.locks[0].state) != 0, "it is rank 0's shared-memory lock");

    arm_srv_req_t a2 = acc_req(&h, 2, 0, 64);
    h_send(&h, &a2, &five, sizeof five, 0);
    arm_srv_batch_ent_t e;
    memset(&e, 0, sizeof e);
    e.op = ARM_SRV_ACC;
    e.type = ARM_ACC_INT;
    e.target = 0;
    e.len = sizeof(int);
    e.raddr = h_addr(&h, 128);
    memcpy(e.scale, &five, sizeof five);   /* scale 5 */
    char batch[sizeof e + 8];
    memset(batch, 0, sizeof batch);
    memcpy(batch, &e, sizeof e);
    memcpy(batch + sizeof e, &five, sizeof five);
    arm_srv_req_t b3 = h_req(&h, 3, ARM_SRV_BATCH, 0, sizeof batch);
    b3.nseg = 1;
    h_send(&h, &b3, batch, sizeof batch, 0);
    arm_srv_req_t l4 = lock_req(&h, 4, 0, ARM_SRV_ACCLOCK);
    h_send(&h, &l4, NULL, 0, 0);
    arm_srv_req_t a5 = acc_req(&h, 5, 1, 192);
    h_send(&h, &a5, &five, sizeof five, 0);
    srv_progress(h.s);
    CHECK(at(&h, 64) == 0 && at(&h, 128) == 0, "accumulates to rank 0 wait (%d, %d)",
          at(&h, 64), at(&h, 128));
    CHECK(!answered(&h, l4.req_id), "a second origin's lock waits");
    CHECK(h.s->nblocked == 3, "three clients wait (%d)", h.s->nblocked);
    CHECK(at(&h, 192) == 5, "an accumulate to rank 1 goes through (%d)", at(&h, 192));

    arm_srv_req_t u6 = lock_req(&h, 6, 0, ARM_SRV_ACCUNLOCK);
    h_send(&h, &u6, NULL, 0, 0);
    srv_progress(h.s);
    CHECK(at(&h, 64) == 0, "an unlock by a rank that does not hold it frees nothing");
    int refused = 0;
    for (size_t i = 0; i < h.f.nsent; i++) {
        arm_srv_rep_t rep;
        memcpy(&rep, h.f.sent[i].hdr, sizeof rep);
        refused += rep.req_id == u6.req_id && rep.status < 0 &&
                   strstr(h.f.sent[i].data, "does not hold") != NULL;
    }
    CHECK(refused == 1, "and is refused, saying so");

    arm_srv_req_t u1 = lock_req(&h, 1, 0, ARM_SRV_ACCUNLOCK);
    h_send(&h, &u1, NULL, 0, 0);
    srv_progress(h.s);
    CHECK(at(&h, 64) == 5 && at(&h, 128) == 25, "after the unlock both apply (%d, %d)",
          at(&h, 64), at(&h, 128));
    CHECK(answered(&h, l4.req_id) == 1 && h.s->nblocked == 0,
          "and the second origin holds the lock, nobody waits");
    arm_srv_req_t a7 = acc_req(&h, 7, 0, 64);
    h_send(&h, &a7, &five, sizeof five, 0);
    srv_progress(h.s);
    CHECK(at(&h, 64) == 5 && h.s->nblocked == 1, "held again: a new accumulate waits");
    arm_srv_req_t u4 = lock_req(&h, 4, 0, ARM_SRV_ACCUNLOCK);
    h_send(&h, &u4, NULL, 0, 0);
    srv_progress(h.s);
    CHECK(at(&h, 64) == 10 && h.s->nblocked == 0, "released: it applies (%d)", at(&h, 64));
    CHECK(atomic_load(&h.locks[0].state) == 0, "rank 0's lock is free at the end");
    h_fini(&h);
    unit_section("acc lock: grant, waiting accumulates and locks, release in order");
    return unit_finish("unit.srv_acclock");
}
