/* hl-live-launch.h — starting a program under the preload for a live
 * window, as `heaplens-cli record` does: refused with the reason when the
 * preload cannot work in it (hl-launch-sanitizer.h), its trace written in
 * its working directory, its session kept for the window to watch. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct
{
  char        **argv;          /* program and arguments */
  char         *cwd;           /* NULL: the application's */
  char        **extra_env;     /* "NAME=VALUE", or NULL */
  char         *unwind;        /* "fp", "libunwind" or NULL */
  gboolean      follow;
} HlLiveRecordOptions;

/* The program started, its stdout and stderr piped; *SPAWNED_WALL_NS: the
 * wall clock just before. NULL with ERROR when it cannot be started. */
GSubprocess *hl_live_launch (const HlLiveRecordOptions *options,
                             gint64                    *spawned_wall_ns,
                             GError                   **error);

G_END_DECLS
