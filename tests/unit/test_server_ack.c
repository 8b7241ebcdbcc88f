/* The server's acknowledgement of served writes (decision 058), through the
 * fake transport: once idle ack_us, a client whose requests are all served
 * gets its credits back in a credit-only reply; a reply that comes first
 * carries them instead; nothing is sent before the delay, while requests
 * are still queued, or with fence_ack off. */
#include <stdio.h>
#include "srv_harness.h"

#define SLOT 4096
#define MEM (1 << 20)

static arm_status_t put(harness_t *h, int src, size_t off)
{
    static char data[256];
    arm_srv_req_t r = h_req(h, src, ARM_SRV_PUT, h_addr(h, off), sizeof data);
    return h_send(h, &r, data, sizeof data, 0);
}

static void test_idle_ack(void)
{
    harness_t h;
    h_init(&h, 4, 4, SLOT, MEM);
    h.s->p.fence_ack = 1;
    h.s->p.ack_us = 0;
    put(&h, 1, 0);
    srv_progress(h.s);
    CHECK(h_drain_replies(&h) == 0 && h.credits[1] == 3,
          "one put served: no reply before the server is idle (credits %d)", h.credits[1]);
    CHECK(srv_ack_idle(h.s) == 1, "idle past ack_us: acknowledgements go");
    arm_srv_rep_t rep;
    CHECK(h_reply(&h, NULL, &rep, NULL) && rep.req_id == 0 && rep.credits == 1,
          "a credit-only reply with the put's credit (req_id %llu, credits %u)",
          (unsigned long long)rep.req_id, rep.credits);
    CHECK(h.credits[1] == 4, "every credit home: the client knows its put served");
    CHECK(srv_ack_idle(h.s) == 1 && h_drain_replies(&h) == 0, "nothing owed: nothing sent");

    /* Two clients, three puts each in one burst: one reply per client. */
    for (int i = 0; i < 3; i++) {
        put(&h, 2, 1024 + (size_t)i * 256);
        put(&h, 3, 8192 + (size_t)i * 256);
    }
    srv_progress(h.s);
    h_drain_replies(&h);   /* half the slots came back on their own */
    srv_ack_idle(h.s);
    int n = h_drain_replies(&h);
    CHECK(n == 2 && h.credits[2] == 4 && h.credits[3] == 4,
          "one acknowledgement per client for the rest (%d replies, credits %d %d)", n,
          h.credits[2], h.credits[3]);

    /* A fence that comes before the server is idle takes the credit along. */
    put(&h, 1, 2048);
    arm_srv_req_t f = h_sync(&h, 1, ARM_SRV_FENCE, 0, 0);
    h_send(&h, &f, NULL, 0, 0);
    srv_progress(h.s);
    CHECK(h_answer(&h, f.req_id, &rep, NULL) && rep.credits == 1 && h.credits[1] == 4,
          "the fence's reply carries the put's credit (%u)", rep.credits);
    srv_ack_idle(h.s);
    CHECK(h_drain_replies(&h) == 0, "no acknowledgement after it");
    h_fini(&h);
    unit_section("acknowledged once idle: one credit reply per client, none after a reply");
}

static void test_delay_and_off(void)
{
    harness_t h;
    h_init(&h, 4, 4, SLOT, MEM);
    h.s->p.fence_ack = 1;
    h.s->p.ack_us = 60000000;   /* a minute: not due within this test */
    put(&h, 1, 0);
    srv_progress(h.s);
    CHECK(srv_ack_idle(h.s) == 0 && h_drain_replies(&h) == 0 && h.credits[1] == 3,
          "before ack_us nothing is sent");
    h_fini(&h);

    h_init(&h, 4, 4, SLOT, MEM);
    put(&h, 1, 0);
    srv_progress(h.s);
    CHECK(h.s->acks == NULL, "fence_ack off: no client noted");
    CHECK(h_drain_replies(&h) == 0 && h.credits[1] == 3, "and no reply (credits %d)",
          h.credits[1]);
    h_fini(&h);
    unit_section("not before ack_us; never with fence_ack off");
}

int main(void)
{
    printf("unit.server_ack: acknowledgements of served writes (decision 058)\n");
    test_idle_ack();
    test_delay_and_off();
    return unit_finish("unit.server_ack");
}
