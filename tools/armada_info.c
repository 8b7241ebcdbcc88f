/* armada-info: version, build options, and every ARMADA_* setting with the
 * value in force in the current environment. */
#include <stdio.h>
#include <string.h>
#include "arm_build_config.h"
#include "core/arm_remote_info.h"
#include "util/arm_config.h"

int main(int argc, char **argv)
{
    int help = argc > 1 && (!strcmp(argv[1], "-v") || !strcmp(argv[1], "--verbose"));
    char err[256];
    int unknown = 0;
    printf("Armada %s\n", ARMADA_VERSION_STRING);
    printf("build: type=%s compiler=%s sanitizers=%s argument-checks=%s ucx=%s\n",
           ARMADA_BUILD_TYPE, ARMADA_C_COMPILER, ARMADA_SANITIZE_STR, ARMADA_CHECKS_STR,
           ARMADA_HAVE_UCX ? "yes" : "no");
    if (arm_config_load(1, &unknown, err, sizeof err) != ARM_OK) {
        fprintf(stderr, "armada-info: %s\n", err);
        return 1;
    }
    arm_remote_print_info(stdout);
    printf("settings (environment variables; -v for help):\n");
    arm_config_print(stdout, help);
    if (unknown)
        printf("%d unknown ARMADA_* variable(s) in the environment (warned above)\n", unknown);
    return 0;
}
