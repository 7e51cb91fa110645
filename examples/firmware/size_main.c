/* The code-size links of tools/firmware.sh: an image that runs one scenario (FW_ONLY, e.g.
 * -DFW_ONLY=fw_run_tassel) and prints its digest, linked with --gc-sections, so that only that
 * engine's code (and the common core it uses) is kept. FW_ONLY=fw_run_none is the baseline:
 * the same image with the digest code and printf but no engine; per-engine sizes are the
 * difference. Never run; only measured with `size`. */
#include <inttypes.h>
#include <stdio.h>
#include "scenarios.h"

int main(void)
{
    fw_result r;
    FW_ONLY(&r);
    printf("%d %016" PRIx64 "\n", r.ok, r.digest);
    return 0;
}
