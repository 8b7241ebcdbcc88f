/* armci_msg_snd / rcv / rcvany: ring exchanges, message lengths, tags kept
 * apart, receives from anyone. */
#define _POSIX_C_SOURCE 200809L /* nanosleep, getpid */

#include <armci.h>

#include "tst.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    int me = armci_msg_me(), np = armci_msg_nproc();
    int right = (me + 1) % np, left = (me + np - 1) % np;

    /* Ring with a length that depends on the sender; even ranks send first so
     * that no rendezvous can deadlock. */
    enum { MAXLEN = 70000 };
    unsigned char *out = malloc(MAXLEN), *in = malloc(MAXLEN);
    for (int round = 0; round < 3; round++) {
        int len = 1000 * (me + 1) + round * 20000;
        int from_len = 1000 * (left + 1) + round * 20000;
        for (int i = 0; i < len; i++) out[i] = tst_byte(me + round, i);
        int got = -1;
        if (np == 1) {
            /* A blocking send to oneself may wait for its receive (MPI allows
             * it), so a lone process only checks its own pattern. */
            memcpy(in, out, (size_t)len);
            got = len;
        } else if (me % 2 == 0) {
            armci_msg_snd(7, out, len, right);
            armci_msg_rcv(7, in, MAXLEN, &got, left);
        } else {
            armci_msg_rcv(7, in, MAXLEN, &got, left);
            armci_msg_snd(7, out, len, right);
        }
        CHECK_EQ(got, from_len, "msglen of the ring message");
        int bad = 0;
        for (int i = 0; i < from_len && i < got; i++) bad += in[i] != tst_byte(left + round, i);
        CHECK_EQ(bad, 0, "ring bytes wrong");
        armci_msg_barrier();
    }

    /* Two tags from the same sender, received in the opposite order. */
    if (np >= 2) {
        if (me == 0) {
            int a = 111, b = 222;
            armci_msg_snd(1, &a, sizeof a, 1);
            armci_msg_snd(2, &b, sizeof b, 1);
        } else if (me == 1) {
            int a = 0, b = 0, la = 0, lb = 0;
            armci_msg_rcv(2, &b, sizeof b, &lb, 0);
            armci_msg_rcv(1, &a, sizeof a, &la, 0);
            CHECK(a == 111 && b == 222 && la == 4 && lb == 4, "tags: a %d b %d", a, b);
        }
        /* msglen may be NULL */
        if (me == 1) {
            double v = 2.5;
            armci_msg_snd(3, &v, sizeof v, 0);
        } else if (me == 0) {
            double v = 0;
            armci_msg_rcv(3, &v, sizeof v, NULL, 1);
            CHECK(v == 2.5, "rcv with NULL msglen: %g", v);
        }
    }
    armci_msg_barrier();

    /* rcvany: everyone else reports to rank 0, which must see each once. */
    if (me == 0) {
        int *seen = calloc((size_t)np, sizeof *seen);
        for (int k = 1; k < np; k++) {
            long v = -1;
            int len = 0;
            int from = armci_msg_rcvany(9, &v, sizeof v, &len);
            CHECK(from >= 1 && from < np, "rcvany source %d", from);
            if (from >= 1 && from < np) {
                seen[from]++;
                CHECK_EQ(v, 1000L * from, "rcvany payload");
            }
            CHECK_EQ(len, sizeof v, "rcvany length");
        }
        for (int r = 1; r < np; r++) CHECK_EQ(seen[r], 1, "rcvany saw each rank once");
        free(seen);
    } else {
        long v = 1000L * me;
        armci_msg_snd(9, &v, sizeof v, 0);
    }

    /* Zero-length messages carry nothing but still match. */
    if (np >= 2 && me < 2) {
        int got = -1;
        if (me == 0)
            armci_msg_snd(4, NULL, 0, 1);
        else
            armci_msg_rcv(4, NULL, 0, &got, 0);
        if (me == 1) CHECK_EQ(got, 0, "zero-length message");
    }
    armci_msg_barrier();
    free(out);
    free(in);
    tst_me(); /* cache the rank before MPI ends */
    ARMCI_Finalize();
    MPI_Finalize();
    return tst_finish("msg_p2p");
}
