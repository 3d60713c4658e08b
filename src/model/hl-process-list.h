/* hl-process-list.h — the processes running now, from /proc: what the
 * application's Attach dialog lists (name, pid, RSS, command line). Plain
 * data, callable from any thread. No GTK. */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

typedef struct
{
  guint32  pid;
  guint32  uid;         /* the owner of /proc/PID (its effective uid) */
  char    *name;        /* /proc/PID/comm */
  char    *cmdline;     /* the arguments joined by spaces */
  guint64  rss_bytes;   /* /proc/PID/statm's resident pages */
} HlProcessInfo;

void           hl_process_info_free (HlProcessInfo *info);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HlProcessInfo, hl_process_info_free)

/* The processes of the caller's user (the owner of /proc/PID is the
 * caller's effective uid), in /proc's order, without kernel threads (no
 * command line), zombies and the caller itself: a GPtrArray of
 * HlProcessInfo (freed with it). *N_OTHERS (may be NULL): how many
 * processes of other users were left out. NULL with ERROR when /proc
 * cannot be read. */
GPtrArray     *hl_process_list      (guint   *n_others,
                                     GError **error);

G_END_DECLS
