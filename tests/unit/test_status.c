/* unit.status: every arm_status_t value has its own non-empty string, and
 * a value outside the enum still gets a string. */
#include <stdio.h>
#include <string.h>
#include "util/arm_status.h"
#include "unit.h"

int main(void)
{
    const arm_status_t all[] = {
        ARM_OK, ARM_INPROGRESS, ARM_ERR_INVALID_ARG, ARM_ERR_NO_MEMORY, ARM_ERR_SYSTEM,
        ARM_ERR_UNSUPPORTED, ARM_ERR_TRANSPORT, ARM_ERR_TIMEOUT, ARM_ERR_PEER_DIED,
        ARM_ERR_NOT_FOUND, ARM_ERR_EXISTS
    };
    const int n = (int)(sizeof all / sizeof all[0]);
    /* The values are distinct, 0 is success, errors are negative. */
    CHECK(ARM_OK == 0, "ARM_OK = %d", (int)ARM_OK);
    CHECK(ARM_INPROGRESS > 0, "ARM_INPROGRESS = %d", (int)ARM_INPROGRESS);
    for (int i = 2; i < n; i++)
        CHECK((int)all[i] < 0, "error %d is not negative", (int)all[i]);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            CHECK(all[i] != all[j], "statuses %d and %d share a value", i, j);

    const char *other = arm_status_str((arm_status_t)-1000);
    CHECK(other && other[0], "an out-of-range status has no string");
    for (int i = 0; i < n; i++) {
        const char *s = arm_status_str(all[i]);
        CHECK(s && s[0], "status %d has an empty string", (int)all[i]);
        if (!s)
            continue;
        printf("    %3d  %s\n", (int)all[i], s);
        CHECK(!other || strcmp(s, other) != 0, "status %d has the fallback string '%s'",
              (int)all[i], s);
        for (int j = i + 1; j < n; j++) {
            const char *t = arm_status_str(all[j]);
            CHECK(t && strcmp(s, t) != 0, "statuses %d and %d share the string '%s'",
                  (int)all[i], (int)all[j], s);
        }
    }
    unit_section("11 statuses: distinct values, distinct non-empty strings");
    return unit_finish("unit.status");
}
