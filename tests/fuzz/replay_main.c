#define _POSIX_C_SOURCE 200809L /* dirent, stat */
/* Runs a fuzz harness over files without libFuzzer: each argument is an input file or a
 * directory of them (the checked-in corpus). Any compiler; used by make test (gcc build of
 * each harness over its corpus) and make coverage. Prints "N passed, 0 failed": a broken
 * invariant aborts, so a run that prints the line ran every input through every check. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned long replayed;

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf;
    long n;
    if (!f)
        return -1;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return -1;
    }
    buf = (uint8_t *)malloc((size_t)n + 1u);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        fclose(f);
        return -1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, (size_t)n);
    free(buf);
    replayed++;
    return 0;
}

static int replay(const char *path)
{
    struct stat st;
    DIR *d;
    struct dirent *e;
    char sub[4096];
    int rc = 0;
    if (stat(path, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode))
        return replay_file(path);
    if (!(d = opendir(path)))
        return -1;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        if (replay(sub) != 0)
            rc = -1;
    }
    closedir(d);
    return rc;
}

int main(int argc, char **argv)
{
    int i;
    for (i = 1; i < argc; i++) {
        if (replay(argv[i]) != 0) {
            fprintf(stderr, "replay: cannot read %s\n", argv[i]);
            printf("%lu passed, 1 failed\n", replayed);
            return 1;
        }
    }
    /* an empty corpus proves nothing */
    if (replayed == 0) {
        printf("0 passed, 1 failed\n");
        return 1;
    }
    printf("%lu passed, 0 failed\n", replayed);
    return 0;
}
