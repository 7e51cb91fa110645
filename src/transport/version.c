/* transport.h: version of the implementation (see tp_version in the interface). */
#define TP__STR2(x) #x
#define TP__STR(x) TP__STR2(x)
TP_API const char *tp_version(void)
{
    return "transport.h " TP__STR(TP_VERSION_MAJOR) "." TP__STR(TP_VERSION_MINOR) "." TP__STR(TP_VERSION_PATCH) " (common " TP__STR(RNIC_COMMON_VERSION) ")";
}
#undef TP__STR
#undef TP__STR2
