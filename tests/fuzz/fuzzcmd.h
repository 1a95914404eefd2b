/*
 * tests/fuzz/fuzzcmd.h - what the harnesses that drive a whole dlsim
 * command share (fuzz_import, fuzz_clusterimport, fuzz_workload): the
 * check that turns a broken promise into a libFuzzer crash, writing the
 * input to a descriptor, and running a command function with its stdout
 * and stderr redirected while the sanitizers keep reporting on the real
 * stderr.  Header-only (static): each harness is one file plus this.
 */
#ifndef DLSIM_FUZZCMD_H
#define DLSIM_FUZZCMD_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Where the sanitizers report (sanitizer/common_interface_defs.h); absent
 * from a build without them. */
void __sanitizer_set_report_fd(void *fd) __attribute__((weak));

static const char *fz_name = "fuzz";    /* the harness, for messages */
static int fz_real_err = -1, fz_devnull = -1;

/* A broken promise: say which on the real stderr and abort. */
static inline void fz_check(int ok, const char *what)
{
    if (!ok) {
        dprintf(fz_real_err >= 0 ? fz_real_err : 2,
                "%s: broken promise: %s\n", fz_name, what);
        abort();
    }
}

/* Once: keep the real stderr (and point the sanitizers at it), open
 * /dev/null for the commands' own messages. */
static inline void fz_init(const char *name)
{
    fz_name = name;
    if (fz_devnull >= 0)
        return;
    fz_real_err = dup(2);
    fz_devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
    fz_check(fz_real_err >= 0 && fz_devnull >= 0,
             "dup stderr, open /dev/null");
    if (__sanitizer_set_report_fd)
        __sanitizer_set_report_fd((void *)(intptr_t)fz_real_err);
}

/* All of p[0..n) to fd. */
static inline void fz_write_all(int fd, const uint8_t *p, size_t n)
{
    for (size_t off = 0; off < n;) {
        ssize_t w = write(fd, p + off, n - off);
        fz_check(w > 0, "write input");
        off += (size_t)w;
    }
}

/* cmd(argc, argv) with stdout on out_fd (-1: /dev/null) and stderr on
 * /dev/null; returns its exit status.  fz_init first. */
static inline int fz_run(int (*cmd)(int, char **), int argc, char **argv, int out_fd)
{
    fflush(stdout);
    fflush(stderr);
    int real_out = dup(1);
    fz_check(real_out >= 0, "dup stdout");
    dup2(out_fd >= 0 ? out_fd : fz_devnull, 1);
    dup2(fz_devnull, 2);
    int rc = cmd(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(real_out, 1);
    dup2(fz_real_err, 2);
    close(real_out);
    return rc;
}

#endif
