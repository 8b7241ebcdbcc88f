/* Armada: the armci_msg_* message-passing helpers of the ARMCI interface
 * (ABI of ARMCI-MPI 0.3's message.h). They run over MPI and are meant for
 * set-up and collectives, never for Armada's data path. */
#ifndef ARMADA_MESSAGE_H
#define ARMADA_MESSAGE_H

#include <armci.h>

#ifdef __cplusplus
extern "C" {
#endif

/* SCOPE_NODE: the caller's node; SCOPE_MASTERS: the lowest rank of each
 * node; SCOPE_ALL: every process. */
enum armci_scope_e { SCOPE_ALL = 0, SCOPE_NODE = 1, SCOPE_MASTERS = 2 };
enum armci_type_e  { ARMCI_INT = 0, ARMCI_LONG = 1, ARMCI_LONG_LONG = 2,
                     ARMCI_FLOAT = 3, ARMCI_DOUBLE = 4 };

int    armci_msg_me(void);
int    armci_msg_nproc(void);
void   armci_msg_abort(int code);
double armci_timer(void);

void armci_msg_snd(int tag, void *buffer, int len, int to);
void armci_msg_rcv(int tag, void *buffer, int buflen, int *msglen, int from);
int  armci_msg_rcvany(int tag, void *buffer, int buflen, int *msglen);

void armci_msg_barrier(void);
void armci_msg_group_barrier(ARMCI_Group *group);
void armci_msg_bintree(int scope, int *Root, int *Up, int *Left, int *Right);

void armci_msg_bcast(void *buffer, int len, int root);
void armci_msg_bcast_scope(int scope, void *buffer, int len, int root);
void armci_msg_brdcst(void *buffer, int len, int root);
void armci_msg_group_bcast_scope(int scope, void *buf, int len, int root, ARMCI_Group *group);

void armci_msg_reduce(void *x, int n, char *op, int type);
void armci_msg_reduce_scope(int scope, void *x, int n, char *op, int type);
void armci_msg_sel(void *x, int n, char *op, int type, int contribute);
void armci_msg_sel_scope(int scope, void *x, int n, char *op, int type, int contribute);

void armci_exchange_address(void *ptr_ar[], int n);
void armci_msg_clus_brdcst(void *buf, int len);
void armci_msg_clus_igop(int *x, int n, char *op);
void armci_msg_clus_fgop(float *x, int n, char *op);
void armci_msg_clus_lgop(long *x, int n, char *op);
void armci_msg_clus_llgop(long long *x, int n, char *op);
void armci_msg_clus_dgop(double *x, int n, char *op);
void armci_exchange_address_grp(void *ptr_arr[], int n, ARMCI_Group *group);
void armci_grp_clus_brdcst(void *buf, int len, int grp_master, int grp_clus_nproc,
                           ARMCI_Group *mastergroup);

void armci_msg_gop_scope(int scope, void *x, int n, char *op, int type);
void armci_msg_igop(int *x, int n, char *op);
void armci_msg_lgop(long *x, int n, char *op);
void armci_msg_llgop(long long *x, int n, char *op);
void armci_msg_fgop(float *x, int n, char *op);
void armci_msg_dgop(double *x, int n, char *op);

void armci_msg_group_gop_scope(int scope, void *x, int n, char *op, int type, ARMCI_Group *group);
void armci_msg_group_igop(int *x, int n, char *op, ARMCI_Group *group);
void armci_msg_group_lgop(long *x, int n, char *op, ARMCI_Group *group);
void armci_msg_group_llgop(long long *x, int n, char *op, ARMCI_Group *group);
void armci_msg_group_fgop(float *x, int n, char *op, ARMCI_Group *group);
void armci_msg_group_dgop(double *x, int n, char *op, ARMCI_Group *group);

#ifdef __cplusplus
}
#endif
#endif /* ARMADA_MESSAGE_H */
