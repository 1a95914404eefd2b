/*
 * tests/fuzz/replay.c - a main() for the libFuzzer harnesses, built with the
 * ordinary compiler, that replays stored inputs instead of fuzzing.
 *
 *   replay_cluster DIR_OR_FILE...      (fuzz_cluster.c + replay.c)
 *   replay_trace   DIR_OR_FILE...      (fuzz_trace.c + replay.c)
 *
 * Every regular file named on the command line, and every regular file
 * directly inside a directory named on it (in strcmp order), is read into
 * a buffer of exactly its size and passed once to LLVMFuzzerTestOneInput,
 * as libFuzzer would.  Names starting with '.' and documentation (*.md)
 * inside directories are skipped.  The harness aborts on a broken promise;
 * under the ASan/UBSan build (build-asan) memory errors, leaks and UB fail
 * the run too.  Exits 0 after replaying at least one input, 1 when none was
 * found, 2 when an argument cannot be read.  meson registers it as the
 * tests fuzz_replay_cluster and fuzz_replay_trace (tests/meson.build).
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t cap = 4096, size = 0;
    uint8_t *buf = malloc(cap);
    if (!buf) {
        fprintf(stderr, "replay: out of memory\n");
        exit(2);
    }
    for (;;) {
        if (size == cap) {
            cap *= 2;
            uint8_t *nb = realloc(buf, cap);
            if (!nb) {
                fprintf(stderr, "replay: out of memory\n");
                exit(2);
            }
            buf = nb;
        }
        size_t n = fread(buf + size, 1, cap - size, f);
        size += n;
        if (n == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        fprintf(stderr, "replay: %s: read error\n", path);
        free(buf);
        return -1;
    }
    /* An exact-size copy, so that ASan sees any read past the input. */
    uint8_t *exact = malloc(size ? size : 1);
    if (!exact) {
        fprintf(stderr, "replay: out of memory\n");
        exit(2);
    }
    if (size)
        memcpy(exact, buf, size);
    free(buf);
    fprintf(stderr, "replay: %s (%zu bytes)\n", path, size);
    LLVMFuzzerTestOneInput(exact, size);
    free(exact);
    return 0;
}

static int skip_name(const char *name)
{
    size_t n = strlen(name);
    return name[0] == '.' || (n >= 3 && !strcmp(name + n - 3, ".md"));
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replays the regular files directly inside dir; returns how many, or -1. */
static long replay_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (skip_name(e->d_name))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **nn = realloc(names, cap * sizeof *names);
            if (!nn) {
                fprintf(stderr, "replay: out of memory\n");
                exit(2);
            }
            names = nn;
        }
        names[n] = strdup(e->d_name);
        if (!names[n]) {
            fprintf(stderr, "replay: out of memory\n");
            exit(2);
        }
        n++;
    }
    closedir(d);
    if (n > 1)
        qsort(names, n, sizeof *names, cmp_str);

    long count = 0;
    int failed = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(dir) + 1 + strlen(names[i]) + 1;
        char *path = malloc(len);
        if (!path) {
            fprintf(stderr, "replay: out of memory\n");
            exit(2);
        }
        snprintf(path, len, "%s/%s", dir, names[i]);
        struct stat st;
        if (stat(path, &st) != 0) {
            fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
            failed = 1;
        } else if (S_ISREG(st.st_mode)) {
            if (replay_file(path) == 0)
                count++;
            else
                failed = 1;
        }
        free(path);
        free(names[i]);
    }
    free(names);
    return failed ? -1 : count;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR_OR_FILE...\n", argv[0]);
        return 2;
    }
    long total = 0;
    int failed = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
            failed = 1;
        } else if (S_ISDIR(st.st_mode)) {
            long n = replay_dir(argv[i]);
            if (n < 0)
                failed = 1;
            else
                total += n;
        } else if (replay_file(argv[i]) == 0) {
            total++;
        } else {
            failed = 1;
        }
    }
    printf("replayed %ld input%s from %d path%s\n", total,
           total == 1 ? "" : "s", argc - 1, argc == 2 ? "" : "s");
    if (failed)
        return 2;
    if (total == 0) {
        fprintf(stderr, "replay: no input found\n");
        return 1;
    }
    return 0;
}
