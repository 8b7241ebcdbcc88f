/* A server driven through the in-process fake transport, with the test as
 * its clients: no MPI, no UCX. The server's node memory is a plain buffer
 * registered as its one segment; clients count their credits the way the
 * runtime's do, from the replies they read. */
#ifndef ARMADA_TESTS_SRV_HARNESS_H
#define ARMADA_TESTS_SRV_HARNESS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "server/srv_int.h"
#include "server/srv_xport_fake.h"
#include "shm/arm_shm_sync.h"
#include "unit.h"

#ifndef ARM_SRV_REQ_NOREPLY
#define ARM_SRV_REQ_NOREPLY (1ull << 63)
#endif

#define H_MAXPROC 64

typedef struct harness {
    srv_fake_t f;
    struct arm_server *s;
    arm_shm_mutex_t locks[H_MAXPROC];
    arm_shm_mutex_t *lockp[H_MAXPROC];
    char *mem;                  /* the node's memory: one registered segment */
    size_t memlen;
    int nproc, slots;
    int credits[H_MAXPROC];     /* what each client holds                    */
    uint64_t next_id;
    size_t read;                /* next of f.sent to read                    */
} harness_t;

static inline void h_init(harness_t *h, int nproc, int slots, size_t slot_size, size_t memlen)
{
    memset(h, 0, sizeof *h);
    srv_fake_init(&h->f);
    for (int r = 0; r < nproc && r < H_MAXPROC; r++) {
        h->lockp[r] = &h->locks[r];
        h->credits[r] = slots;
    }
    h->nproc = nproc;
    h->slots = slots;
    arm_server_params_t p = { .nproc = nproc, .node = 1, .acc_lock = h->lockp, .slots = slots,
                              .slot_size = slot_size, .progress = ARM_SRV_PROGRESS_POLL };
    if (srv_create(&p, &srv_xport_fake, &h->f, &h->s) != ARM_OK) {
        fprintf(stderr, "srv_create failed\n");
        exit(2);
    }
    h->mem = aligned_alloc(64, memlen);
    memset(h->mem, 0, memlen);
    h->memlen = memlen;
    if (srv_seg_add(h->s, h->mem, memlen, 0, NULL) != ARM_OK) {
        fprintf(stderr, "srv_seg_add failed\n");
        exit(2);
    }
    h->next_id = 1;
}

static inline void h_fini(harness_t *h)
{
    srv_destroy(h->s);
    srv_fake_fini(&h->f);
    free(h->mem);
}

static inline uint64_t h_addr(const harness_t *h, size_t off)
{
    return (uint64_t)(uintptr_t)(h->mem + off);
}

/* A request header; ops that are answered get a plain req_id, the others
 * one with ARM_SRV_REQ_NOREPLY, as the runtime's clients send them. */
static inline arm_srv_req_t h_req(harness_t *h, int src, int op, uint64_t raddr, uint32_t len)
{
    arm_srv_req_t r;
    memset(&r, 0, sizeof r);
    r.op = (uint8_t)op;
    r.src = src;
    r.target = src;
    r.raddr = raddr;
    r.len = len;
    r.req_id = h->next_id++;
    int replies = op == ARM_SRV_GET || op == ARM_SRV_GETSEG || op == ARM_SRV_RMW ||
                  op == ARM_SRV_LOCK || op == ARM_SRV_TRYLOCK || op == ARM_SRV_FENCE ||
                  op == ARM_SRV_REG || op == ARM_SRV_UNREG;
    if (!replies)
        r.req_id |= ARM_SRV_REQ_NOREPLY;
    return r;
}

/* A segmented write's payload in buf: the nseg-entry table, zeros up to
 * where the data begins (arm_srv_seg_data_off), then bytes of data.
 * Returns the payload's length. */
static inline size_t h_segpay(void *buf, const arm_srv_seg_t *tab, unsigned nseg,
                              const void *data, size_t bytes)
{
    size_t off = arm_srv_seg_data_off(nseg);
    memset(buf, 0, off);
    memcpy(buf, tab, nseg * sizeof *tab);
    memcpy((char *)buf + off, data, bytes);
    return off + bytes;
}

/* Sends r with its payload; a request without ARM_SRV_SYNC spends a credit. */
static inline arm_status_t h_send(harness_t *h, const arm_srv_req_t *r, const void *data,
                                  size_t len, int rndv)
{
    if (!(r->op & ARM_SRV_SYNC))
        h->credits[r->src]--;
    return srv_fake_deliver(&h->f, r, sizeof *r, data, len, rndv);
}

static inline arm_srv_req_t h_sync(harness_t *h, int src, int op, uint64_t raddr, uint32_t len)
{
    arm_srv_req_t r = h_req(h, src, op, raddr, len);
    r.op |= ARM_SRV_SYNC;
    return r;
}

/* The next message the server sent (0 when none): credits are counted,
 * data points at its payload (NUL-terminated). */
static inline int h_reply(harness_t *h, int *to, arm_srv_rep_t *rep, const char **data)
{
    if (h->read >= h->f.nsent)
        return 0;
    srv_fake_sent_t *m = &h->f.sent[h->read++];
    memcpy(rep, m->hdr, sizeof *rep);
    if (to)
        *to = m->to;
    if (data)
        *data = m->data;
    if (m->to >= 0 && m->to < H_MAXPROC)
        h->credits[m->to] += (int)rep->credits;
    return 1;
}

/* Reads replies until the one answering req_id; 0 if it never came.
 * Credit-only replies on the way are counted. */
static inline int h_answer(harness_t *h, uint64_t req_id, arm_srv_rep_t *rep, const char **data)
{
    while (h_reply(h, NULL, rep, data))
        if (rep->req_id == req_id)
            return 1;
    return 0;
}

/* Reads (and counts) every reply not read yet; returns how many. */
static inline int h_drain_replies(harness_t *h)
{
    arm_srv_rep_t rep;
    int n = 0;
    while (h_reply(h, NULL, &rep, NULL))
        n++;
    return n;
}

#endif
