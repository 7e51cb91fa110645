/* workload.h -- open-loop workloads for the composed RNIC (issue 33; docs/workloads.md): flow
 * sizes from a CDF file in the format of the HPCC simulator's traffic generator, Poisson
 * arrivals at a target load, and flow files (one flow per line). The fabric (fm_build.h) posts
 * each flow as one message on a QP from its source to its destination when its start time comes,
 * and measures its completion time (FCT) at the sender, as the HPCC simulator does.
 *
 * Everything here runs before the simulation starts (it may allocate and use floating point);
 * nothing of it is on a tick path. Hosted C99 (and C++11), static functions, no globals.
 *
 *   wl_cdf c;
 *   char why[256];
 *   if (wl_cdf_read(&c, "scenarios/cdf/websearch.txt", why, sizeof why)) { puts(why); exit(2); }
 *   uint64_t size = wl_cdf_sample(&c, &prng);        a size drawn from the CDF [bytes]
 *   double mean = wl_cdf_mean(&c);                   the CDF's mean, as the HPCC generator takes it
 *   wl_cdf_free(&c);
 *
 * The CDF file: one point per line, "SIZE PERCENT" (bytes, and the percentage of flows of at
 * most that size; a decimal fraction is allowed: 97.5), the first point at 0 %, the last at
 * 100 %, both columns strictly increasing; between points the CDF is linear (a size is drawn by
 * inverting it). '#' starts a comment (the shipped files give their source there), blank lines
 * are ignored. The HPCC simulator's own files read unchanged.
 *
 * The flow file: one flow per line, "SRC DST TENANT SIZE START_NS": host ids (the scenario's
 * numbering), the tenant's name, the size in bytes and the start time in ns from the run's start;
 * '#' comments and blank lines as above. */
#ifndef RNIC_MODEL_WORKLOAD_H
#define RNIC_MODEL_WORKLOAD_H
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rnicq.h"

#if defined(__GNUC__)
#define WL_DEF static __attribute__((unused))
#else
#define WL_DEF static
#endif

/* One flow of an open-loop workload: `size` bytes from host src to host dst, starting start_ns
 * after the run's start. */
typedef struct wl_flow {
    uint32_t src, dst;
    uint32_t tenant;   /* index of the scenario's tenant */
    uint64_t size;     /* bytes, at least 1 */
    uint64_t start_ns;
    uint32_t line;     /* its line in the file it came from; 0 = generated */
    uint32_t seq;      /* its place in the order given (wl_sort keeps it among equal starts) */
} wl_flow;

#define WL_PCT_ONE 1000000ull           /* a CDF's percentages are kept in millionths of a percent */
#define WL_PCT_FULL (100ull * WL_PCT_ONE)
#define WL_MAX_FLOW_BYTES (1ull << 31) /* a flow is one message, one WQE: at most 2^31 bytes (rnic_work.len) */
#define WL_MAX_CDF_POINTS 4096u

typedef struct wl_cdf {
    uint64_t *size;    /* bytes */
    uint64_t *pct;     /* millionths of a percent, 0 .. WL_PCT_FULL */
    uint32_t n;
} wl_cdf;

WL_DEF void wl_cdf_free(wl_cdf *c)
{
    free(c->size);
    free(c->pct);
    memset(c, 0, sizeof *c);
}

/* A decimal number with at most 6 fraction digits, in millionths; -1 on anything else. */
WL_DEF int wl__decimal_millionths(const char *s, const char **end, uint64_t *out)
{
    uint64_t whole = 0, frac = 0;
    unsigned digits = 0, fd = 0;
    while (isdigit((unsigned char)*s)) {
        if (whole > 1000000000000ull)
            return -1;
        whole = whole * 10u + (uint64_t)(*s++ - '0');
        digits++;
    }
    if (*s == '.') {
        s++;
        while (isdigit((unsigned char)*s)) {
            if (fd == 6)
                return -1; /* finer than a millionth of a percent */
            frac = frac * 10u + (uint64_t)(*s++ - '0');
            fd++;
            digits++;
        }
    }
    if (!digits)
        return -1;
    while (fd++ < 6)
        frac *= 10u;
    *out = whole * 1000000u + frac;
    *end = s;
    return 0;
}

/* A whole number (decimal digits only, at most 2^64 - 1); -1 on anything else. */
WL_DEF int wl__whole(const char *s, const char **end, uint64_t *out)
{
    uint64_t v = 0;
    if (!isdigit((unsigned char)*s))
        return -1;
    while (isdigit((unsigned char)*s)) {
        uint64_t d = (uint64_t)(*s++ - '0');
        if (v > (UINT64_MAX - d) / 10u)
            return -1;
        v = v * 10u + d;
    }
    *out = v;
    *end = s;
    return 0;
}

/* The line's content: leading blanks skipped, a '#' comment and trailing blanks (and \r) cut. */
WL_DEF char *wl__content(char *line)
{
    char *e, *h = strchr(line, '#');
    if (h)
        *h = '\0';
    while (*line == ' ' || *line == '\t')
        line++;
    e = line + strlen(line);
    while (e > line && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
        *--e = '\0';
    return line;
}

WL_DEF const char *wl__blanks(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* The next line of f with content (wl__content), counting lines in *line: the content, or NULL
 * at the end of the file, or NULL with *why filled (a line longer than the buffer, a read error). */
WL_DEF char *wl__next_line(FILE *f, char *buf, int cap, uint32_t *line, const char *path, char *why, size_t why_len)
{
    why[0] = '\0';
    while (fgets(buf, cap, f)) {
        char *s;
        ++*line;
        if (!strchr(buf, '\n') && !feof(f)) {
            snprintf(why, why_len, "%s:%u: line longer than %u bytes", path, *line, (unsigned)cap - 2u);
            return NULL;
        }
        if (*(s = wl__content(buf)))
            return s;
    }
    if (ferror(f))
        snprintf(why, why_len, "%s: read error", path);
    return NULL;
}

/* Reads a CDF file (format above). Returns 0, or -1 with `why` naming the file, line and fault. */
WL_DEF int wl_cdf_read(wl_cdf *c, const char *path, char *why, size_t why_len)
{
    FILE *f = fopen(path, "r");
    char buf[512];
    uint32_t line = 0, cap = 0;
    memset(c, 0, sizeof *c);
    if (!f) {
        snprintf(why, why_len, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    for (;;) {
        const char *p;
        uint64_t size, pct;
        char *s = wl__next_line(f, buf, (int)sizeof buf, &line, path, why, why_len);
        if (!s) {
            if (why[0])
                goto bad;
            break;
        }
        if (wl__whole(s, &p, &size) || (*p != ' ' && *p != '\t') || wl__decimal_millionths(wl__blanks(p), &p, &pct) ||
            *wl__blanks(p)) {
            snprintf(why, why_len, "%s:%u: '%s' is not \"SIZE PERCENT\" (whole bytes, a percentage with at most 6 "
                                   "decimals)", path, line, s);
            goto bad;
        }
        if (pct > WL_PCT_FULL) {
            snprintf(why, why_len, "%s:%u: percentage above 100", path, line);
            goto bad;
        }
        if (c->n && (size <= c->size[c->n - 1u] || pct <= c->pct[c->n - 1u])) {
            snprintf(why, why_len, "%s:%u: sizes and percentages must both increase from one point to the next", path,
                     line);
            goto bad;
        }
        if (!c->n && pct != 0) {
            snprintf(why, why_len, "%s:%u: the first point must be at 0 %%", path, line);
            goto bad;
        }
        if (c->n == WL_MAX_CDF_POINTS) {
            snprintf(why, why_len, "%s:%u: more than %u points", path, line, WL_MAX_CDF_POINTS);
            goto bad;
        }
        if (c->n == cap) {
            uint64_t *a, *b;
            cap = cap ? 2u * cap : 16u;
            a = (uint64_t *)realloc(c->size, cap * sizeof *a);
            if (a)
                c->size = a;
            b = (uint64_t *)realloc(c->pct, cap * sizeof *b);
            if (b)
                c->pct = b;
            if (!a || !b) {
                snprintf(why, why_len, "%s: no memory", path);
                goto bad;
            }
        }
        c->size[c->n] = size;
        c->pct[c->n] = pct;
        c->n++;
    }
    if (c->n < 2u || c->pct[c->n - 1u] != WL_PCT_FULL) {
        snprintf(why, why_len, "%s: a CDF needs at least two points, the last at 100 %%", path);
        goto bad;
    }
    if (c->size[c->n - 1u] > WL_MAX_FLOW_BYTES) {
        snprintf(why, why_len, "%s: its largest size %llu is above a message's limit %llu bytes", path,
                 (unsigned long long)c->size[c->n - 1u], (unsigned long long)(WL_MAX_FLOW_BYTES));
        goto bad;
    }
    fclose(f);
    return 0;
bad:
    fclose(f);
    wl_cdf_free(c);
    return -1;
}

/* The size at percentile u (millionths of a percent, 0 .. WL_PCT_FULL): the CDF inverted,
 * linear between points, at least 1 byte (the HPCC generator's rule for 0). */
WL_DEF uint64_t wl_cdf_at(const wl_cdf *c, uint64_t u)
{
    uint32_t i = 1;
    uint64_t x;
    while (i + 1u < c->n && u > c->pct[i])
        i++;
    if (u > c->pct[i])
        u = c->pct[i];
    x = c->size[i - 1u] + (uint64_t)((double)(c->size[i] - c->size[i - 1u]) * (double)(u - c->pct[i - 1u]) /
                                      (double)(c->pct[i] - c->pct[i - 1u]));
    return x ? x : 1u;
}

/* A size drawn from the CDF: a uniform percentile, inverted. */
WL_DEF uint64_t wl_cdf_sample(const wl_cdf *c, rnic_prng *r) { return wl_cdf_at(c, rnic_prng_below(r, WL_PCT_FULL + 1u)); }

/* The CDF's mean size (the integral of the piecewise-linear CDF, as the HPCC generator takes it
 * to set the arrival rate), bytes. */
WL_DEF double wl_cdf_mean(const wl_cdf *c)
{
    double s = 0;
    uint32_t i;
    for (i = 1; i < c->n; i++)
        s += ((double)c->size[i - 1u] + (double)c->size[i]) / 2.0 * (double)(c->pct[i] - c->pct[i - 1u]);
    return s / (double)WL_PCT_FULL;
}

/* An exponential inter-arrival of mean `mean_ns` (inversion of a uniform in (0, 1]). */
WL_DEF double wl_exponential_ns(rnic_prng *r, double mean_ns)
{
    double u = ((double)(rnic_prng_next(r) >> 11) + 1.0) / 9007199254740992.0; /* (0, 1] */
    return -log(u) * mean_ns;
}

/* The mean inter-arrival for an offered load of `load_pct` % of a `link_bps` link with flows of
 * mean size `mean_bytes` (the HPCC generator's: mean size x 8 / (rate x load)), ns. */
WL_DEF double wl_interarrival_ns(double mean_bytes, uint64_t link_bps, uint32_t load_pct)
{
    return mean_bytes * 8.0 * 1e9 * 100.0 / ((double)link_bps * (double)load_pct);
}

/* Reads a flow file (format above). tenant_of(user, name) gives a tenant's index or -1 for an
 * unknown name; `hosts` bounds the host ids. Appends to *flows (realloc'd, *n of them). Returns
 * 0, or -1 with `why` naming the file, line and fault. */
WL_DEF int wl_read_flow_file(const char *path, uint32_t hosts, int (*tenant_of)(const void *, const char *),
                             const void *user, wl_flow **flows, size_t *n, char *why, size_t why_len)
{
    FILE *f = fopen(path, "r");
    char buf[512];
    uint32_t line = 0;
    size_t cap = *n;
    if (!f) {
        snprintf(why, why_len, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    for (;;) {
        const char *p;
        char *s = wl__next_line(f, buf, (int)sizeof buf, &line, path, why, why_len), name[64];
        uint64_t src, dst, size, start;
        size_t k = 0;
        int t;
        wl_flow *fl;
        if (!s) {
            if (why[0])
                goto bad;
            break;
        }
        p = s;
        if (wl__whole(p, &p, &src) || (*p != ' ' && *p != '\t') || wl__whole(wl__blanks(p), &p, &dst) ||
            (*p != ' ' && *p != '\t'))
            goto syntax;
        p = wl__blanks(p);
        while (*p && *p != ' ' && *p != '\t' && k + 1u < sizeof name)
            name[k++] = *p++;
        name[k] = '\0';
        if (!k || (*p != ' ' && *p != '\t') || wl__whole(wl__blanks(p), &p, &size) || (*p != ' ' && *p != '\t') ||
            wl__whole(wl__blanks(p), &p, &start) || *wl__blanks(p))
            goto syntax;
        if (src >= hosts || dst >= hosts) {
            snprintf(why, why_len, "%s:%u: host %llu is not below the topology's %u hosts", path, line,
                     (unsigned long long)(src >= hosts ? src : dst), hosts);
            goto bad;
        }
        if (src == dst) {
            snprintf(why, why_len, "%s:%u: host %llu sends to itself (a flow crosses the network)", path, line,
                     (unsigned long long)src);
            goto bad;
        }
        if (!size || size > WL_MAX_FLOW_BYTES) {
            snprintf(why, why_len, "%s:%u: size %llu is not in 1 .. %llu bytes", path, line, (unsigned long long)size,
                     (unsigned long long)(WL_MAX_FLOW_BYTES));
            goto bad;
        }
        if ((t = tenant_of(user, name)) < 0) {
            snprintf(why, why_len, "%s:%u: tenant '%s' is not a tenant of the scenario with traffic = file", path,
                     line, name);
            goto bad;
        }
        if (*n == cap) {
            wl_flow *a;
            cap = cap ? 2u * cap : 64u;
            if (!(a = (wl_flow *)realloc(*flows, cap * sizeof *a))) {
                snprintf(why, why_len, "%s: no memory", path);
                goto bad;
            }
            *flows = a;
        }
        fl = &(*flows)[(*n)++];
        fl->src = (uint32_t)src;
        fl->dst = (uint32_t)dst;
        fl->tenant = (uint32_t)t;
        fl->size = size;
        fl->start_ns = start;
        fl->line = line;
        continue;
    syntax:
        snprintf(why, why_len, "%s:%u: '%s' is not \"SRC DST TENANT SIZE START_NS\"", path, line, s);
        goto bad;
    }
    fclose(f);
    return 0;
bad:
    fclose(f);
    return -1;
}

WL_DEF int wl__flow_cmp(const void *a, const void *b)
{
    const wl_flow *x = (const wl_flow *)a, *y = (const wl_flow *)b;
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns ? -1 : 1;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Flows in start order (ties: source host, then the order given): the order each host posts
 * them and the flows' ids in the results. */
WL_DEF void wl_sort(wl_flow *flows, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        flows[i].seq = (uint32_t)i;
    if (n > 1) /* no flow: flows may be NULL, which qsort must not get */
        qsort(flows, n, sizeof *flows, wl__flow_cmp);
}

#endif /* RNIC_MODEL_WORKLOAD_H */
