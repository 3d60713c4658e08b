/* hl-cli-commands.h — the subcommands of heaplens-cli.
 *
 * Each subcommand lives in its own file src/cli/hl-cli-<name>.c and has the
 * signature of HlCliCommandFunc: ARGV[0] is the subcommand's name, the return
 * value is the process exit status. To add one: declare it here, add it to
 * the table in heaplens-cli.c and its file to src/cli/meson.build.
 */
#pragma once

typedef int (*HlCliCommandFunc) (int argc, char **argv);

typedef struct
{
  const char       *name;
  HlCliCommandFunc  func;
  const char       *summary; /* one line for `heaplens-cli --help` */
} HlCliCommand;

/* capture (issue 5) */
int hl_cli_record   (int argc, char **argv);
int hl_cli_sessions (int argc, char **argv);
int hl_cli_attach   (int argc, char **argv);  /* issue 28 */
/* format (issue 4) */
int hl_cli_dump     (int argc, char **argv);
int hl_cli_compress (int argc, char **argv);
/* model (issue 6) */
int hl_cli_report     (int argc, char **argv);
int hl_cli_flamegraph (int argc, char **argv);
int hl_cli_diff       (int argc, char **argv);
int hl_cli_timeline   (int argc, char **argv);
/* export (issue 29) */
int hl_cli_export     (int argc, char **argv);
/* live (issue 8) */
int hl_cli_top        (int argc, char **argv);
/* continuous profiles of a bare preload (issue 29) */
int hl_cli_profiles   (int argc, char **argv);
