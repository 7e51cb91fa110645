/* hostcc.h: version of the implementation (see hcc_version in the interface). */
#define HCC__STR2(x) #x
#define HCC__STR(x) HCC__STR2(x)
HCC_API const char *hcc_version(void)
{
    return "hostcc.h " HCC__STR(HCC_VERSION_MAJOR) "." HCC__STR(HCC_VERSION_MINOR) "." HCC__STR(HCC_VERSION_PATCH) " (common " HCC__STR(RNIC_COMMON_VERSION) ")";
}
#undef HCC__STR
#undef HCC__STR2
