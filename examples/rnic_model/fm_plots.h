/* fm_plots.h -- the figures of one run (issue 33, item 3): `[output] plots = DIR` or `--plots
 * DIR`. The run writes into DIR the CSVs the figures draw (the model's own measurements: the
 * queue samples with each period's link utilization, the tenants' Gb/s per period, the links
 * over the window, the open-loop flows' FCTs), a gnuplot script, plots.gp, and renders it:
 *   fct_slowdown.png  FCT slowdown p50 / p95 / p99 per flow-size bucket  (open-loop runs)
 *   queues.png        queue length over time, the links with the deepest queues
 *   link_util.png     link utilization over time, the busiest links
 *   tenant_gbps.png   each tenant's delivered Gb/s over time
 *   pfc_pause.png     PFC pause time per port over the window, the ports that paused
 *   cnps_vs_size.png  CNPs per flow against its size  (open-loop runs)
 * Every figure's title names the scenario. Without gnuplot the script and the CSVs stay and one
 * line on stderr says how to render them; the run does not fail for it. The script reads its
 * CSVs by their names in DIR, so `cd DIR && gnuplot plots.gp` renders them again.
 *
 * Hosted (POSIX: mkdir, fork, exec); used after the run only. */
#ifndef RNIC_FM_PLOTS_H
#define RNIC_FM_PLOTS_H
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fm_fct.h"

#define FM_PLOTS_BUSIEST 4u       /* links drawn in the queue and utilization figures */
#define FM_PLOTS_MAX_PORTS 40u    /* bars of the PFC figure at most: the ports paused longest */
#define FM_PLOTS_FILE_MAX (SCN_PATH_MAX + 32u)
#define FM_PLOTS_FIGURES 6u

typedef struct fm_plots {
    const char *dir;                          /* NULL: no figures */
    char queue_csv[FM_PLOTS_FILE_MAX];        /* DIR/queue.csv, DIR/tenants.csv */
    char tenants_csv[FM_PLOTS_FILE_MAX];
    const char *queue_from, *tenants_from;    /* written elsewhere (their own options): copied into DIR */
    char lines[FM_PLOTS_FIGURES * (FM_PLOTS_FILE_MAX + 16u)]; /* "  plots: DIR/x.png DIR/y.png ..." for the report */
} fm_plots;

static void fm_plots__path(char *out, const char *dir, const char *file)
{
    snprintf(out, FM_PLOTS_FILE_MAX, "%s/%s", dir, file);
}

/* mkdir -p: 0, or -1 with errno. */
static int fm_plots__mkdir(const char *dir)
{
    char p[SCN_PATH_MAX];
    size_t i, n = strlen(dir);
    if (n == 0 || n >= sizeof p) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(p, dir, n + 1u);
    for (i = 1; i <= n; i++)
        if (p[i] == '/' || p[i] == '\0') {
            char c = p[i];
            p[i] = '\0';
            if (mkdir(p, 0777) != 0 && errno != EEXIST)
                return -1;
            p[i] = c;
        }
    return 0;
}

/* Before the run: DIR made; the queue and tenants CSVs go into DIR unless their own options
 * name a file (then that file is copied in after the run). 0, or -1 with errno. */
static int fm_plots_begin(fm_plots *p, const char *dir, const char **queue_csv, const char **tenants_csv)
{
    memset(p, 0, sizeof p[0]);
    if (!dir || !dir[0])
        return 0;
    p->dir = dir;
    if (fm_plots__mkdir(dir) != 0)
        return -1;
    fm_plots__path(p->queue_csv, dir, "queue.csv");
    fm_plots__path(p->tenants_csv, dir, "tenants.csv");
    if (*queue_csv)
        p->queue_from = *queue_csv;
    else
        *queue_csv = p->queue_csv;
    if (*tenants_csv)
        p->tenants_from = *tenants_csv;
    else
        *tenants_csv = p->tenants_csv;
    return 0;
}

static int fm_plots__copy(const char *from, const char *to)
{
    char buf[65536];
    size_t n;
    int rc = 0;
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
    if (!out) {
        if (in)
            fclose(in);
        return -1;
    }
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, out) != n)
            rc = -1;
    if (ferror(in))
        rc = -1;
    fclose(in);
    return fclose(out) == 0 ? rc : -1;
}

/* A gnuplot double-quoted string: backslashes and quotes escaped. */
static void fm_plots__gp_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static double fm_plots__paused_us(const fm_model *m, uint32_t i)
{
    const fm_link_mon *l = &m->links.l[i];
    return (double)(l->end.paused_cycles - l->start.paused_cycles) * 1e6 / (double)m->w.p.clock_hz;
}

static double fm_plots__key(const fm_model *m, int by_util, uint32_t i)
{
    return by_util ? fm_links_util_pct(&m->links, &m->w, i) : (double)m->links.l[i].queue_max;
}

/* The `count` links of the largest key (0: queue_max, 1: utilization over the window), largest
 * first, ties by link id. Returns how many (fewer when there are fewer links). */
static uint32_t fm_plots__top(const fm_model *m, int by_util, uint32_t *top, uint32_t count)
{
    uint32_t i, k, j, n = 0;
    for (i = 0; i < m->links.n; i++) {
        double v = fm_plots__key(m, by_util, i);
        for (k = n; k > 0 && fm_plots__key(m, by_util, top[k - 1u]) < v; k--)
            ;
        if (k >= count)
            continue;
        for (j = n < count ? n : count - 1u; j > k; j--)
            top[j] = top[j - 1u];
        top[k] = i;
        if (n < count)
            n++;
    }
    return n;
}

/* pfc_pause.csv: the ports that paused in the window, longest first (at most FM_PLOTS_MAX_PORTS);
 * returns the rows written, -1 on a write error; *paused: how many ports paused in all. */
static int fm_plots__pfc_csv(const fm_model *m, const char *path, uint32_t *paused)
{
    uint32_t top[FM_PLOTS_MAX_PORTS], n = 0, i, j, k;
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    *paused = 0;
    for (i = 0; i < m->links.n; i++) { /* insertion into the longest FM_PLOTS_MAX_PORTS */
        double v = fm_plots__paused_us(m, i);
        if (v <= 0)
            continue;
        (*paused)++;
        for (k = n; k > 0 && fm_plots__paused_us(m, top[k - 1u]) < v; k--)
            ;
        if (k >= FM_PLOTS_MAX_PORTS)
            continue;
        for (j = n < FM_PLOTS_MAX_PORTS ? n : FM_PLOTS_MAX_PORTS - 1u; j > k; j--)
            top[j] = top[j - 1u];
        top[k] = i;
        if (n < FM_PLOTS_MAX_PORTS)
            n++;
    }
    fprintf(f, "link,port,paused_us\n");
    for (k = 0; k < n; k++)
        fprintf(f, "%u,%s>%s,%.3f\n", top[k], m->t.node[m->links.l[top[k]].from].name,
                m->t.node[m->links.l[top[k]].to].name, fm_plots__paused_us(m, top[k]));
    return fclose(f) == 0 ? (int)n : -1;
}

/* One line per link of `top` for a plot of queue.csv (rows: every link, in id order, per sample). */
static void fm_plots__link_lines(FILE *f, const fm_model *m, const uint32_t *top, uint32_t n, const char *y)
{
    uint32_t k;
    fprintf(f, "plot \\\n");
    for (k = 0; k < n; k++) {
        const fm_link_mon *l = &m->links.l[top[k]];
        fprintf(f, "  \"queue.csv\" skip 1 every %u::%u using ($1/1000):%s with lines lw 2 title \"%s>%s (link %u)\"%s\n",
                m->links.n, top[k], y, m->t.node[l->from].name, m->t.node[l->to].name, top[k], k + 1u < n ? ", \\" : "");
    }
}

/* plots.gp; the names of the figures it draws in png[] (returns how many). */
static int fm_plots__script(const fm_model *m, const fm_plots *p, const char *name, int open_loop, uint32_t pfc_rows,
                            uint32_t pfc_ports, const char **png)
{
    const fm_world *w = &m->w;
    char path[FM_PLOTS_FILE_MAX], title[SCN_PATH_MAX + 160];
    uint32_t top[FM_PLOTS_BUSIEST], n, t;
    int figs = 0;
    FILE *f;
    fm_plots__path(path, p->dir, "plots.gp");
    if (!(f = fopen(path, "w")))
        return -1;
    fprintf(f, "# The figures of one rnic_model run (examples/rnic_model/fm_plots.h), scenario ");
    fm_plots__gp_str(f, name);
    fprintf(f, "\n# Render again: cd to this directory, then gnuplot plots.gp\n"
               "set terminal pngcairo size 1000,600 font \",11\" noenhanced\n"
               "set datafile separator \",\"\nset grid\nset key outside right top\n");
    if (open_loop) {
        png[figs++] = "fct_slowdown.png";
        snprintf(title, sizeof title, "%s: FCT slowdown (FCT / ideal FCT on an idle network) by flow size, %u flows in "
                 "tenths by size", name, w->njobs);
        fprintf(f, "\nset output \"fct_slowdown.png\"\nset title ");
        fm_plots__gp_str(f, title);
        fprintf(f, "\nset xlabel \"flow size, the largest of each size bucket (bytes)\"\nset ylabel \"FCT slowdown "
                   "(1 = ideal)\"\nset logscale xy\nset format x \"%%.0s%%cB\"\nset yrange [1:*]\n"
                   "plot \"fct_buckets.csv\" skip 1 using 2:4 with linespoints lw 2 pt 7 title \"p50\", \\\n"
                   "     \"fct_buckets.csv\" skip 1 using 2:5 with linespoints lw 2 pt 5 title \"p95\", \\\n"
                   "     \"fct_buckets.csv\" skip 1 using 2:6 with linespoints lw 2 pt 9 title \"p99\"\n"
                   "unset logscale\nset format x \"%%g\"\nset yrange [*:*]\n");
    }
    png[figs++] = "queues.png";
    n = fm_plots__top(m, 0, top, FM_PLOTS_BUSIEST);
    snprintf(title, sizeof title, "%s: queue length of the %u links with the deepest queues (sampled every %llu us)", name,
             n, (unsigned long long)m->sample_us);
    fprintf(f, "\nset output \"queues.png\"\nset title ");
    fm_plots__gp_str(f, title);
    fprintf(f, "\nset xlabel \"time (ms)\"\nset ylabel \"queue (KB)\"\nset yrange [0:*]\n");
    fm_plots__link_lines(f, m, top, n, "($5/1000)");
    png[figs++] = "link_util.png";
    n = fm_plots__top(m, 1, top, FM_PLOTS_BUSIEST);
    snprintf(title, sizeof title, "%s: utilization of the %u busiest links (wire bytes per %llu us over line rate)", name,
             n, (unsigned long long)m->sample_us);
    fprintf(f, "\nset output \"link_util.png\"\nset title ");
    fm_plots__gp_str(f, title);
    fprintf(f, "\nset ylabel \"utilization (%% of line rate)\"\nset yrange [0:110]\n");
    fm_plots__link_lines(f, m, top, n, "6");
    png[figs++] = "tenant_gbps.png";
    snprintf(title, sizeof title, "%s: payload delivered per tenant (checked at the receivers, per %llu us)", name,
             (unsigned long long)m->sample_us);
    fprintf(f, "\nset output \"tenant_gbps.png\"\nset title ");
    fm_plots__gp_str(f, title);
    fprintf(f, "\nset ylabel \"delivered (Gb/s)\"\nset yrange [0:*]\nplot \\\n");
    for (t = 0; t < w->p.tenants && t < FM_MAX_TENANTS; t++)
        fprintf(f, "  \"tenants.csv\" skip 1 every %u::%u using ($1/1000):4 with lines lw 2 title \"%s\"%s\n", w->p.tenants, t,
                m->series.name[t], t + 1u < w->p.tenants ? ", \\" : "");
    png[figs++] = "pfc_pause.png";
    snprintf(title, sizeof title, "%s: PFC pause time per port over the %.3f ms window (%u ports paused%s)", name,
             (double)(w->window_end - w->window_start) * 1e3 / (double)w->p.clock_hz, pfc_ports,
             pfc_ports > pfc_rows ? ", the longest shown" : "");
    fprintf(f, "\nset output \"pfc_pause.png\"\nset title ");
    fm_plots__gp_str(f, title);
    fprintf(f, "\nset xlabel \"port (sender>receiver of the link it paused)\"\nset ylabel \"paused (us)\"\nset yrange [0:*]\n");
    if (pfc_rows)
        fprintf(f, "set style fill solid 0.7\nset boxwidth 0.7\nset xtics rotate by -45 nomirror\nset xrange [-0.6:%u.6]\n"
                   "plot \"pfc_pause.csv\" skip 1 using 0:3:xtic(2) with boxes lc rgb \"#c03030\" title \"time paused by PFC\"\n"
                   "set xtics norotate mirror\nset xrange [*:*]\n", pfc_rows - 1u);
    else
        fprintf(f, "set xrange [0:1]\nset yrange [0:1]\nunset xtics\nunset ytics\nset label 1 \"no port was paused by PFC "
                   "in the window\" at graph 0.5, 0.5 center\nplot NaN notitle\nunset label 1\nset xtics\nset ytics\n"
                   "set xrange [*:*]\n");
    if (open_loop) {
        png[figs++] = "cnps_vs_size.png";
        snprintf(title, sizeof title, "%s: CNPs each open-loop flow's sender received, by flow size (completed flows)", name);
        fprintf(f, "\nset output \"cnps_vs_size.png\"\nset title ");
        fm_plots__gp_str(f, title);
        fprintf(f, "\nset xlabel \"flow size (bytes)\"\nset ylabel \"CNPs per flow\"\nset logscale x\nset format x \"%%.0s%%cB\"\n"
                   "set yrange [0:*]\nset offsets 0, 0, graph 0.05, 0\n"
                   "plot \"fct.csv\" skip 1 using 6:($13 == 1 ? $12 : 1/0) with points pt 7 ps 0.7 title \"one flow\"\n");
    }
    return fclose(f) == 0 ? figs : -1;
}

/* Runs `gnuplot plots.gp` in DIR (its output in DIR/gnuplot.log). Returns gnuplot's exit status,
 * 127 when it could not be started. */
static int fm_plots__render(const char *dir)
{
    char log[FM_PLOTS_FILE_MAX];
    pid_t pid;
    int status = 0;
    fm_plots__path(log, dir, "gnuplot.log");
    fflush(NULL);
    pid = fork();
    if (pid < 0)
        return 127;
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        if (chdir(dir) == 0)
            execlp("gnuplot", "gnuplot", "plots.gp", (char *)NULL);
        _exit(127);
    }
    if (waitpid(pid, &status, 0) != pid)
        return 127;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 126;
}

/* The scenario's name in the figures' titles: its file's name without the directory and
 * ".conf"; "built-in incast" without a file. */
static void fm_plots_name(char *out, size_t size, const char *scenario_path)
{
    const char *b = scenario_path ? strrchr(scenario_path, '/') : NULL;
    size_t n;
    if (!scenario_path) {
        snprintf(out, size, "built-in incast");
        return;
    }
    snprintf(out, size, "%s", b ? b + 1 : scenario_path);
    n = strlen(out);
    if (n > 5 && !strcmp(out + n - 5, ".conf"))
        out[n - 5] = '\0';
}

/* After the run: the CSVs into DIR, plots.gp, the PNGs; p->lines names them for the report (one
 * line: the report's text stays short).
 * `queue` and `tenants` (the open CSVs) are flushed first. 0, or -1 when a file of DIR cannot be
 * written (errno; the message names it). */
static int fm_plots_end(fm_plots *p, const fm_model *m, const fm_fct_summary *fct, const char *name, FILE *queue,
                        FILE *tenants)
{
    char path[FM_PLOTS_FILE_MAX];
    const char *png[FM_PLOTS_FIGURES];
    int figs, k, rc, pfc_rows;
    uint32_t pfc_ports = 0;
    size_t used = 0;
    if (!p->dir)
        return 0;
    if ((queue && fflush(queue) != 0) || (tenants && fflush(tenants) != 0))
        return -1;
    if ((p->queue_from && fm_plots__copy(p->queue_from, p->queue_csv) != 0) ||
        (p->tenants_from && fm_plots__copy(p->tenants_from, p->tenants_csv) != 0)) {
        fprintf(stderr, "rnic_model: %s: cannot copy the samples into %s: %s\n", p->dir, p->dir, strerror(errno));
        return -1;
    }
    fm_plots__path(path, p->dir, "links.csv");
    if (fm_links_write_csv(&m->links, &m->w, &m->t, path) != 0)
        goto bad;
    fm_plots__path(path, p->dir, "pfc_pause.csv");
    if ((pfc_rows = fm_plots__pfc_csv(m, path, &pfc_ports)) < 0)
        goto bad;
    if (fct) {
        fm_plots__path(path, p->dir, "fct.csv");
        if (fm_fct_write_csv(m, path) != 0)
            goto bad;
        fm_plots__path(path, p->dir, "fct_buckets.csv");
        if (fm_fct_write_buckets_csv(fct, path) != 0)
            goto bad;
    }
    fm_plots__path(path, p->dir, "plots.gp");
    if ((figs = fm_plots__script(m, p, name, fct != NULL, (uint32_t)pfc_rows, pfc_ports, png)) < 0)
        goto bad;
    rc = fm_plots__render(p->dir);
    if (rc == 127) {
        fprintf(stderr, "rnic_model: gnuplot not found: the figures' data and script are in %s; render them with "
                        "`cd %s && gnuplot plots.gp` (Debian: apt-get install gnuplot-nox)\n", p->dir, p->dir);
        return 0;
    }
    if (rc != 0) {
        fprintf(stderr, "rnic_model: gnuplot failed (exit status %d) on %s/plots.gp: see %s/gnuplot.log\n", rc, p->dir,
                p->dir);
        return 0;
    }
    used = (size_t)snprintf(p->lines, sizeof p->lines, "  plots:");
    for (k = 0; k < figs && used < sizeof p->lines; k++)
        used += (size_t)snprintf(p->lines + used, sizeof p->lines - used, " %s/%s", p->dir, png[k]);
    return 0;
bad:
    fprintf(stderr, "rnic_model: %s: %s\n", path, strerror(errno));
    return -1;
}

#endif /* RNIC_FM_PLOTS_H */
