/* Bad arguments to the msg and tcgmsg calls stop the job with a message that
 * names the call and the argument. argv[1] picks the mistake; every case
 * must fail (the CTest entries expect it). */
#include <armci.h>
#include <stdio.h>
#include <string.h>

long armci_tcgmsg_nxtval(long *mproc);
void armci_tcgmsg_igop(long *type, long *x, long *n, char *op, int oplen);

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    const char *what = argc > 1 ? argv[1] : "";
    int np = armci_msg_nproc();
    int x = 1;
    long lx = 1, type = 1, n = 1;

    if (strcmp(what, "op") == 0)
        armci_msg_igop(&x, 1, "average");
    else if (strcmp(what, "to") == 0)
        armci_msg_snd(1, &x, sizeof x, np);
    else if (strcmp(what, "buffer") == 0)
        armci_msg_bcast(NULL, 8, 0);
    else if (strcmp(what, "root") == 0)
        armci_msg_brdcst(&x, sizeof x, -1);
    else if (strcmp(what, "scope") == 0)
        armci_msg_gop_scope(7, &x, 1, "+", ARMCI_INT);
    else if (strcmp(what, "type") == 0)
        armci_msg_reduce(&x, 1, "+", 42);
    else if (strcmp(what, "float-or") == 0) {
        double d = 1;
        armci_msg_dgop(&d, 1, "or");
    } else if (strcmp(what, "double-band") == 0) {
        double d = 1;
        armci_msg_dgop(&d, 1, "&");
    } else if (strcmp(what, "domain") == 0)
        armci_domain_nprocs(ARMCI_DOMAIN_SMP, armci_domain_count(ARMCI_DOMAIN_SMP));
    else if (strcmp(what, "tcg-op") == 0)
        armci_tcgmsg_igop(&type, &lx, &n, "sum", 3);
    else if (strcmp(what, "group") == 0)
        armci_msg_group_igop(&x, 1, "+", NULL);
    else {
        fprintf(stderr, "unknown case '%s'\n", what);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    printf("case %s did not stop the job\n", what);
    ARMCI_Finalize();
    MPI_Finalize();
    return 0;
}
