/* Start-up loads nothing that MPI_Init did not (issue 57, decision 097):
 * the shared objects mapped after ARMCI_Init, its first ARMCI_Malloc and a
 * get from the next rank must all have been mapped after MPI_Init already.
 * Each process compares the file paths of its executable mappings before
 * and after, and names every object that appeared; any one fails the test.
 * The one exception is UCX's cma transport, where the job runs UCX between
 * processes of one host (virtual nodes): UCX 1.13 crashes without it
 * (decision 097). The 200 ms MPI tool-interface start-up that decision 097
 * removed mapped about forty of Open MPI's components here. */
#include <armci.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAXLIB = 1024, PATHLEN = 512 };

/* The paths of the shared objects with an executable mapping. */
static int mapped_objects(char (*out)[PATHLEN], int max)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[1024];
    int n = 0;
    while (f && fgets(line, sizeof line, f)) {
        char perm[8];
        int pos = 0;
        if (sscanf(line, "%*s %7s %*s %*s %*s %n", perm, &pos) < 1 || perm[2] != 'x' || !pos)
            continue;
        char *path = line + pos;
        path[strcspn(path, "\n")] = 0;
        if (path[0] != '/' || !strstr(path, ".so"))
            continue;
        int seen = 0;
        for (int i = 0; i < n && !seen; i++)
            seen = strcmp(out[i], path) == 0;
        if (!seen && n < max)
            snprintf(out[n++], PATHLEN, "%s", path);
    }
    if (f)
        fclose(f);
    return n;
}

int main(int argc, char **argv)
{
    static char before[MAXLIB][PATHLEN], after[MAXLIB][PATHLEN];
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int nb = mapped_objects(before, MAXLIB);
    ARMCI_Init();
    void **bases = malloc(sizeof(void *) * (size_t)np);
    ARMCI_Malloc(bases, 4096);
    long v = 0;
    ARMCI_Get(bases[(me + 1) % np], &v, (int)sizeof v, (me + 1) % np);
    ARMCI_Barrier();
    int na = mapped_objects(after, MAXLIB), extra = 0;
    for (int i = 0; i < na; i++) {
        int seen = 0;
        for (int j = 0; j < nb && !seen; j++)
            seen = strcmp(after[i], before[j]) == 0;
        /* UCX's shared-memory zero-copy transport between virtual nodes */
        if (!seen && getenv("ARMADA_PPN") && strstr(after[i], "/ucx/libuct_cma.so"))
            seen = 1;
        if (!seen) {
            fprintf(stderr, "startup_libs: rank %d: ARMCI start-up mapped %s\n", me, after[i]);
            extra++;
        }
    }
    int total = 0;
    MPI_Allreduce(&extra, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("startup_libs: %d objects after MPI_Init, %d after ARMCI start-up; %d new "
               "over %d ranks\n", nb, na, total, np);
    ARMCI_Free(bases[me]);
    free(bases);
    ARMCI_Finalize();
    MPI_Finalize();
    return total ? 1 : 0;
}
