/* TAP: the shared test helpers do what the other suites rely on. */
#include "hl-test-util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int
main (void)
{
  hl_tap_plan (6);

  char *argv[] = { "/bin/sh", "-c", "echo out; echo err >&2; echo \"$HL_X\"; exit 3", NULL };
  char *env[] = { "HL_X=extra", NULL };
  HlTestRun run;
  bool ran = hl_test_run (argv, env, &run);
  hl_tap_ok (ran && run.exit_status == 3, "exit status is reported");
  hl_tap_ok (ran && strcmp (run.out, "out\nextra\n") == 0 && strcmp (run.err, "err\n") == 0,
             "stdout, stderr and extra environment");
  hl_test_run_clear (&run);

  char *kill_argv[] = { "/bin/sh", "-c", "kill -9 $$", NULL };
  ran = hl_test_run (kill_argv, NULL, &run);
  hl_tap_ok (ran && run.exit_status == 128 + 9, "a killed program reports 128 + signal");
  hl_test_run_clear (&run);

  char *dir = hl_test_tmpdir_new ("hl-test-util");
  struct stat st;
  hl_tap_ok (dir != NULL && stat (dir, &st) == 0 && (st.st_mode & 0777) == 0700,
             "temporary directory exists with mode 0700");

  char path[4096];
  snprintf (path, sizeof path, "%s/f", dir ? dir : "/nonexistent");
  FILE *f = fopen (path, "w");
  if (f)
    {
      fputs ("hello\n", f);
      fclose (f);
    }
  size_t len = 0;
  char *text = hl_test_read_file (path, &len);
  hl_tap_ok (text != NULL && len == 6 && strcmp (text, "hello\n") == 0, "read a whole file");
  free (text);

  hl_test_tmpdir_remove (dir);
  hl_tap_ok (stat (path, &st) != 0, "the directory is removed with its files");
  return hl_tap_finish ();
}
