/* Armada: ARMCIX extensions (ABI of ARMCI-MPI 0.3's armcix.h). */
#ifndef ARMADA_ARMCIX_H
#define ARMADA_ARMCIX_H

#include <stdint.h>
#include <armci.h>

#ifdef __cplusplus
extern "C" {
#endif

int ARMCIX_Group_split(ARMCI_Group *parent, int color, int key, ARMCI_Group *new_group);
int ARMCIX_Group_dup(ARMCI_Group *parent, ARMCI_Group *new_group);

/* A batch of mutexes owned by a library. The layout matches ARMCI-MPI;
 * Armada keeps its own state behind `bases` and leaves `windows` NULL. */
struct armcix_mutex_hdl_s {
    int         my_count;
    int         max_count;
    ARMCI_Group grp;
    MPI_Win    *windows;
    uint8_t   **bases;
};
typedef struct armcix_mutex_hdl_s *armcix_mutex_hdl_t;

armcix_mutex_hdl_t ARMCIX_Create_mutexes_hdl(int count, ARMCI_Group *pgroup);
int  ARMCIX_Destroy_mutexes_hdl(armcix_mutex_hdl_t hdl);
void ARMCIX_Lock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc);
int  ARMCIX_Trylock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc);
void ARMCIX_Unlock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc);
void ARMCIX_Progress(void);

#ifdef __cplusplus
}
#endif
#endif /* ARMADA_ARMCIX_H */
