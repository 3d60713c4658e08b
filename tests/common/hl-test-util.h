/* hl-test-util.h — small helpers shared by the plain-C (TAP) test programs:
 * TAP output, temporary directories, reading files, running a program
 * (optionally under the preload) and collecting its output and status.
 * Libc only, so capture and format tests can use it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* ---- TAP ---- */
void hl_tap_plan     (int n_cases);
/* Prints "ok N - NAME" or "not ok N - NAME"; returns COND. */
bool hl_tap_ok       (bool cond, const char *name_fmt, ...) __attribute__ ((format (printf, 2, 3)));
/* A "# ..." diagnostic line. */
void hl_tap_diag     (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));
/* Exit status for main(): 0 when every case passed and the plan was met. */
int  hl_tap_finish   (void);

/* ---- Files ---- */
/* A fresh directory under $TMPDIR (mode 0700); removed with its files by
 * hl_test_tmpdir_remove. Returns a malloc'd path. */
char *hl_test_tmpdir_new    (const char *prefix);
void  hl_test_tmpdir_remove (char *path);   /* also frees PATH */
/* Reads a whole file; NULL on error. *len_out gets its size. NUL-terminated. */
char *hl_test_read_file     (const char *path, size_t *len_out);

/* ---- Programs ---- */
typedef struct
{
  int   exit_status; /* exit code, or 128 + signal */
  char *out;         /* captured stdout (malloc'd, NUL-terminated) */
  char *err;         /* captured stderr */
} HlTestRun;

/* Runs ARGV (argv[0] a path) with the current environment plus EXTRA_ENV
 * ("KEY=VALUE" strings, NULL-terminated, may be NULL). */
bool hl_test_run       (char *const argv[], char *const extra_env[], HlTestRun *out);
void hl_test_run_clear (HlTestRun *run);

/* $HL_BUILD_ROOT/src/capture/libheaplens-preload.so, or NULL if unset. */
const char *hl_test_preload_path (void);
/* $HL_BUILD_ROOT / RELATIVE (static buffer). */
const char *hl_test_build_path   (const char *relative);
