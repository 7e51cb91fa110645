/* rnicq.h: version of the implementation (see rq_version in the interface). */
#define RQ__STR2(x) #x
#define RQ__STR(x) RQ__STR2(x)
RQ_API const char *rq_version(void)
{
    return "rnicq.h " RQ__STR(RQ_VERSION_MAJOR) "." RQ__STR(RQ_VERSION_MINOR) "." RQ__STR(RQ_VERSION_PATCH) " (common " RQ__STR(RNIC_COMMON_VERSION) ")";
}
#undef RQ__STR
#undef RQ__STR2
