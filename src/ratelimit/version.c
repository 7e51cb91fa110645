/* ratelimit.h: version of the implementation (see rl_version in the interface). */
#define RL__STR2(x) #x
#define RL__STR(x) RL__STR2(x)
RL_API const char *rl_version(void)
{
    return "ratelimit.h " RL__STR(RL_VERSION_MAJOR) "." RL__STR(RL_VERSION_MINOR) "." RL__STR(RL_VERSION_PATCH) " (common " RL__STR(RNIC_COMMON_VERSION) ")";
}
#undef RL__STR
#undef RL__STR2
