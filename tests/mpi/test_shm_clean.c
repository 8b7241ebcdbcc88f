/* shm_clean (Armada only): allocations and puts, then either a normal end
 * (mode "normal") or raise(SIGKILL) in one rank while the others wait in a
 * barrier (mode "kill"). shm_check.sh checks the exit status and that
 * /dev/shm holds no armada-* file afterwards. While running, rank 0 checks
 * that every armada-* segment it can see has mode 0600. */
#include <armci.h>
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include "tst.h"

static void check_modes(void)
{
    DIR *d = opendir("/dev/shm");
    if (!d)
        return;
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "armada-", 7) != 0)
            continue;
        char path[600];
        struct stat st;
        snprintf(path, sizeof path, "/dev/shm/%s", e->d_name);
        if (stat(path, &st) != 0)
            continue;   /* another job's segment went away meanwhile */
        n++;
        CHECK((st.st_mode & 0777) == 0600, "%s has mode %o, expected 600", path,
              (unsigned)(st.st_mode & 0777));
    }
    closedir(d);
    printf("shm_clean: %d armada-* segment(s) seen while running, modes checked\n", n);
}

int main(int argc, char **argv)
{
    int me, np;
    const char *mode = argc > 1 ? argv[1] : "normal";
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    tst_me();
    void **a = malloc(sizeof(void *) * np), **b = malloc(sizeof(void *) * np);
    CHECK_EQ(ARMCI_Malloc(a, 1 << 20), 0, "ARMCI_Malloc");
    CHECK_EQ(ARMCI_Malloc(b, 4096 + 64 * me), 0, "ARMCI_Malloc");
    CHECK_EQ(ARMCI_Create_mutexes(2), 0, "ARMCI_Create_mutexes");
    char buf[4096];
    memset(buf, me + 1, sizeof buf);
    for (int t = 0; t < np; t++) {
        ARMCI_Put(buf, (char *)a[t] + 4096 * me, sizeof buf, t);
        ARMCI_Put(buf, b[t], 64, t);
    }
    ARMCI_Barrier();
    char got[4096];
    int peer = (me + 1) % np;
    ARMCI_Get((char *)a[me] + 4096 * peer, got, sizeof got, me);
    CHECK(got[0] == peer + 1 && got[4095] == peer + 1, "data from rank %d", peer);
    if (me == 0)
        check_modes();
    ARMCI_Barrier();
    if (strcmp(mode, "kill") == 0) {
        if (me == np - 1) {
            printf("shm_clean: rank %d raises SIGKILL\n", me);
            fflush(stdout);
            raise(SIGKILL);
        }
        /* The survivors keep working on the victim's memory: on one node a
         * shared-memory read; across (virtual) nodes a request to a server that
         * may be gone. Then a barrier that can never complete: the job must end
         * by itself (shm_check.sh bounds how long that may take). */
        for (int i = 0; i < 1000; i++)
            ARMCI_Get(a[np - 1], got, 64, np - 1);
        ARMCI_Barrier();
        fprintf(stderr, "shm_clean: rank %d passed the barrier after a kill\n", me);
        return 4;
    }
    ARMCI_Destroy_mutexes();
    ARMCI_Free(b[me]);
    ARMCI_Free(a[me]);
    free(a);
    free(b);
    ARMCI_Finalize();
    MPI_Finalize();
    return tst_finish("shm_clean");
}
