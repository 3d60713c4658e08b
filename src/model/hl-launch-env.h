/* hl-launch-env.h — how a program is started to be recorded: where the
 * preload is and the environment variables it reads. Shared by
 * `heaplens-cli record` (src/cli/hl-cli-record.c) and the application's
 * Record dialog, so that both record the same way. No GTK. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  const char *trace_path;  /* absolute; may hold %p and %e (the preload expands them); NULL: "none" */
  const char *unwind;      /* "fp", "libunwind" or NULL (the preload's default) */
  const char *depth;       /* frames per stack, or NULL */
  const char *fine_clock_ms; /* HEAPLENS_FINE_CLOCK_MS, or NULL (the preload's 50) */
  gboolean    follow;      /* record forked children and exec'd programs */
  gboolean    keep_session;/* leave the ended session for the launcher (it unlinks it) */
} HlLaunchEnvOptions;

/* libheaplens-preload.so: $HEAPLENS_PRELOAD, else the build tree's when the
 * running executable is in the build tree, else the installed one (then
 * the other). Newly allocated, or NULL when none is readable. */
char   *hl_launch_env_find_preload (void);

/* The variables to set, as a NULL-terminated array of "NAME=VALUE"
 * (g_strfreev). LD_PRELOAD is PRELOAD followed by OLD_LD_PRELOAD (may be
 * NULL). */
char  **hl_launch_env_build        (const char               *preload,
                                    const char               *old_ld_preload,
                                    const HlLaunchEnvOptions *options);

/* ENVP (taken) with the variables of hl_launch_env_build applied. */
char  **hl_launch_env_apply        (char                    **envp,
                                    const char               *preload,
                                    const HlLaunchEnvOptions *options);

G_END_DECLS
