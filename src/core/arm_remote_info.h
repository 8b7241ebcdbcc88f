/* What the inter-node path reports to armada-info. */
#ifndef ARM_REMOTE_INFO_H
#define ARM_REMOTE_INFO_H
#include <stdio.h>
void arm_remote_print_info(FILE *out);
#endif
