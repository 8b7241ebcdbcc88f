#define _GNU_SOURCE
#include <mpi.h>
#include <armci.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
static int T, N, op, target, rank, np;
static void **slots, **counter;
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static double tcpu(void){struct timespec t;clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static double pcpu(void){struct rusage u;getrusage(RUSAGE_SELF,&u);return u.ru_utime.tv_sec+u.ru_stime.tv_sec+1e-6*(u.ru_utime.tv_usec+u.ru_stime.tv_usec);}
static pthread_barrier_t bar; static double cpu[16];
static void *tm(void *a){ int t=(int)(long)a; pthread_barrier_wait(&bar); double c0=tcpu();
  double *slot=(double*)slots[target]+t*64; double one=1.0,v=1.0; long old;
  for(int i=0;i<N;i++){ if(op==0) ARMCI_Acc(ARMCI_ACC_DBL,&one,&v,slot,8,target); else ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG,&old,counter[target],1,target);}
  if(op==0) ARMCI_Fence(target); cpu[t]=tcpu()-c0; return NULL;}
static void swait(MPI_Request *r){int d=0;MPI_Test(r,&d,MPI_STATUS_IGNORE);while(!d){struct timespec ts={0,20000};nanosleep(&ts,NULL);MPI_Test(r,&d,MPI_STATUS_IGNORE);}}
int main(int argc,char**argv){int p;MPI_Init_thread(&argc,&argv,MPI_THREAD_MULTIPLE,&p);ARMCI_Init_thread(MPI_THREAD_MULTIPLE);
 MPI_Comm_rank(MPI_COMM_WORLD,&rank);MPI_Comm_size(MPI_COMM_WORLD,&np);target=np-1;
 T=atoi(argv[1]);N=atoi(argv[2]);op=strcmp(argv[3],"acc")==0?0:1; int reps=argc>4?atoi(argv[4]):3;
 slots=malloc(np*sizeof(void*));counter=malloc(np*sizeof(void*));ARMCI_Malloc(slots,64*8*16);ARMCI_Malloc(counter,8);
 for(int r=0;r<reps;r++){ ARMCI_Barrier(); MPI_Request rq; double p0=pcpu(), t0=now(), dt=0;
  if(rank==0){ pthread_t th[16]; pthread_barrier_init(&bar,NULL,T); for(int t=1;t<T;t++)pthread_create(&th[t],NULL,tm,(void*)(long)t); t0=now(); tm(0); for(int t=1;t<T;t++)pthread_join(th[t],NULL); dt=now()-t0; pthread_barrier_destroy(&bar);}
  MPI_Ibarrier(MPI_COMM_WORLD,&rq); swait(&rq); double pc=pcpu()-p0;
  double all[64]; MPI_Gather(&pc,1,MPI_DOUBLE,all,1,MPI_DOUBLE,0,MPI_COMM_WORLD);
  if(rank==0){ printf("T=%d op=%s rate=%.3f Mops/s span=%.3fs threadcpu:",T,argv[3],T*(double)N/dt/1e6,dt); for(int t=0;t<T;t++)printf(" %.2f",cpu[t]/dt); printf(" proccpu(frac of span):"); for(int i=0;i<np;i++)printf(" %.2f",all[i]/dt); printf("\n");}
 }
 ARMCI_Finalize(); MPI_Finalize(); return 0;}
