/* cli.h -- the command line of the example and benchmark programs (examples/ and bench/):
 * numbers are decimal (010 is ten; no sign, blank, 0x or suffix), a bad argument is named on
 * stderr with the reason and exits 2, --help (or -h) prints the usage on stdout and exits 0.
 *
 *   for (i = 1; i < argc; i++) {
 *       if (cli_is_help(argv[i])) usage(argv[0]);        (prints on stdout, exit(0))
 *       else if (!strcmp(argv[i], "--packets"))
 *           packets = (uint32_t)CLI_U64(i, 1, 1000000);
 *       else if (!strcmp(argv[i], "--csv"))
 *           csv = CLI_VALUE(i);
 *       else cli_unknown(argv[0], argv[i]);
 *   }
 *
 * Errors read "prog: --packets: '12x' is not a decimal number", "prog: --packets: 0 is out of
 * range 1..1000000", "prog: --packets needs a value", "prog: unknown option '--foo'". */
#ifndef RNIC_EXAMPLES_CLI_H
#define RNIC_EXAMPLES_CLI_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The program's name without its directory. */
static inline const char *cli_prog(const char *argv0)
{
    const char *s = strrchr(argv0, '/');
    return s ? s + 1 : argv0;
}

/* "prog: <message>" on stderr, a hint to --help, exit status 2. */
static inline void cli_error(const char *argv0, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", cli_prog(argv0));
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(%s --help lists every option)\n", cli_prog(argv0));
    exit(2);
}

static inline int cli_is_help(const char *a) { return !strcmp(a, "--help") || !strcmp(a, "-h"); }

static inline void cli_unknown(const char *argv0, const char *a) { cli_error(argv0, "unknown option '%s'", a); }

static inline void cli_need_value(int argc, char **argv, long i)
{
    if (i + 1 >= argc)
        cli_error(argv[0], "%s needs a value", argv[i]);
}

/* The value after the option argv[i] (i: the loop's index, of any integer type: it advances), or
 * an error naming the option that lacks it; uses the argc and argv in scope. */
#define CLI_VALUE(i) (cli_need_value(argc, argv, (long)(i)), argv[++(i)])

/* A whole decimal number in [lo, hi]; anything else is refused naming the option. */
static inline unsigned long long cli_u64(const char *argv0, const char *opt, const char *s, unsigned long long lo,
                                         unsigned long long hi)
{
    const char *c;
    unsigned long long v;
    for (c = s; *c >= '0' && *c <= '9'; c++)
        ;
    if (c == s || *c)
        cli_error(argv0, "%s: '%s' is not a decimal number%s", opt, s,
                  s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? " (hexadecimal is not accepted)" : "");
    errno = 0;
    v = strtoull(s, NULL, 10);
    if (errno == ERANGE || v < lo || v > hi)
        cli_error(argv0, "%s: %s is out of range %llu..%llu", opt, s, lo, hi);
    return v;
}

/* A decimal number with an optional fraction (12, 0.5, 1e3) in [lo, hi]; no hexadecimal, no
 * inf or nan, nothing after it. */
static inline double cli_double(const char *argv0, const char *opt, const char *s, double lo, double hi)
{
    char *end;
    double v;
    if (!((*s >= '0' && *s <= '9') || *s == '.') || strpbrk(s, "xXpP"))
        cli_error(argv0, "%s: '%s' is not a decimal number", opt, s);
    errno = 0;
    v = strtod(s, &end);
    if (*end)
        cli_error(argv0, "%s: '%s' is not a decimal number", opt, s);
    if (errno == ERANGE || !(v >= lo && v <= hi))
        cli_error(argv0, "%s: %s is out of range %g..%g", opt, s, lo, hi);
    return v;
}

/* The number after the option argv[i] (which advances i), checked as above. */
#define CLI_U64(i, lo, hi) \
    (cli_need_value(argc, argv, (long)(i)), ++(i), cli_u64(argv[0], argv[(i) - 1], argv[i], (lo), (hi)))
#define CLI_DOUBLE(i, lo, hi) \
    (cli_need_value(argc, argv, (long)(i)), ++(i), cli_double(argv[0], argv[(i) - 1], argv[i], (lo), (hi)))

#endif
