/* Mixed-language linking, C caller of an implementation compiled as C++. */
#include <string.h>
#include "ratelimit.h"
#include "hostcc.h"

int mixed_c_caller(void);
int mixed_c_caller(void)
{
    return strncmp(rl_version(), "ratelimit.h ", 12) == 0 && strncmp(hcc_version(), "hostcc.h ", 9) == 0 ? 0 : 1;
}
