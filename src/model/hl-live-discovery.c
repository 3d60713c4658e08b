/* hl-live-discovery.c — see hl-live-discovery.h. */
#define _GNU_SOURCE
#include "hl-live-discovery.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hl-live-segment.h"
#include "hl-model-i18n.h"
#include "hl-shm-guard.h"

G_DEFINE_BOXED_TYPE (HlLiveSessionInfo, hl_live_session_info, hl_live_session_info_copy, hl_live_session_info_free)

HlLiveSessionInfo *
hl_live_session_info_copy (const HlLiveSessionInfo *info)
{
  g_return_val_if_fail (info != NULL, NULL);
  HlLiveSessionInfo *copy = g_memdup2 (info, sizeof *info);
  copy->name = g_strdup (info->name);
  copy->refusal = g_strdup (info->refusal);
  copy->exe = g_strdup (info->exe);
  copy->cmdline = g_strdup (info->cmdline);
  copy->trace_path = g_strdup (info->trace_path);
  return copy;
}

void
hl_live_session_info_free (HlLiveSessionInfo *info)
{
  if (info == NULL)
    return;
  g_free (info->name);
  g_free (info->refusal);
  g_free (info->exe);
  g_free (info->cmdline);
  g_free (info->trace_path);
  g_free (info);
}

/* What the segment says: state, header, totals (the mapping is read:
 * guarded). */
typedef struct
{
  HlLiveSegment     *segment;
  HlLiveSessionInfo *info;
  HlFormatError      err;
  int                rc;
} ReadCtx;

static void
read_guarded (gpointer data)
{
  ReadCtx *c = data;
  HlLiveSessionInfo *info = c->info;
  const HlShmHeader *h = hl_live_segment_get_header (c->segment);
  guint32 flags = 0;
  HlShmTotals t;

  info->pid = h->pid;
  info->ppid = h->ppid;
  info->launcher_pid = h->launcher_pid;
  info->exe = g_strdup (h->exe);
  info->cmdline = g_strdup (hl_live_segment_get_cmdline (c->segment));
  info->trace_path = g_strdup (hl_live_segment_get_trace_path (c->segment));
  info->start_wall_ns = h->start_wall_ns;
  info->start_mono_ns = h->start_mono_ns;
  info->state = hl_live_segment_read_state (c->segment, &info->heartbeat_ns, &info->exit_status, &flags);
  hl_shm_reader_end_info (hl_live_segment_get_reader (c->segment), NULL, &info->ended_ns, NULL);
  info->kept = (flags & HL_SHM_FLAG_KEPT) != 0;
  info->unfollowed = (flags & HL_SHM_FLAG_UNFOLLOWED) != 0;
  info->shm_full = (flags & HL_SHM_FLAG_SHM_FULL) != 0;
  info->attached = (flags & HL_SHM_FLAG_ATTACHED) != 0;
  info->alive = hl_live_segment_pid_alive (c->segment);
  c->rc = hl_shm_reader_totals (hl_live_segment_get_reader (c->segment), &t, &c->err);
  if (c->rc != 0)
    return;
  guint64 dropped = 0;
  for (int i = 0; i < HL_DROP_REASONS_MAX; i++)
    dropped += t.dropped[i];
  HlLiveTotals totals = {
    t.n_allocs, t.n_frees, t.bytes_allocated, t.bytes_freed, t.heap_bytes, t.peak_heap_bytes,
    t.peak_heap_time_ns, t.rss_bytes, t.peak_rss_bytes, dropped, t.n_stacks, t.n_threads, t.stacks_dropped,
    t.dropped[HL_DROP_LIVE_TABLE],
  };
  info->totals = totals;
  info->frees_unknown = t.frees_unknown;
}

/* Whether PATH (refused by the reader) is a regular file of the
 * caller's: lstat never opens, so never blocks. */
static gboolean
is_own_regular_file (const char *path)
{
  g_autofree char *full = NULL;
  struct stat st;

  if (strchr (path, '/') == NULL)
    path = full = g_strconcat ("/dev/shm/", path, NULL);
  if (lstat (path, &st) != 0)
    return errno == ENOENT; /* gone meanwhile: nothing to leave alone */
  return S_ISREG (st.st_mode) && st.st_uid == getuid ();
}

/* Reads the segment at PATH into INFO (name, uid and pid set). */
static void
info_fill (HlLiveSessionInfo *info,
           const char        *path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HlLiveSegment) segment = hl_live_segment_open (path, &error);

  if (segment == NULL)
    {
      info->not_segment = !is_own_regular_file (path);
      /* the reader's reason, without the name hl_live_segment_open adds */
      const char *why = error->message;
      gsize n = strlen (path);
      if (strncmp (why, path, n) == 0 && strncmp (why + n, ": ", 2) == 0)
        why += n + 2;
      info->refusal = g_strdup (why);
      info->being_created = g_error_matches (error, HL_LIVE_ERROR, HL_LIVE_ERROR_NOT_FOUND);
      return;
    }
  ReadCtx c = { segment, info, { 0 }, 0 };
  if (!hl_shm_guard_run (read_guarded, &c))
    info->refusal = g_strdup (_("the session segment shrank while it was read (SIGBUS)"));
  else if (c.rc != 0)
    info->refusal = g_strdup (c.err.message);
  else
    info->readable = TRUE;
}

static char *
foreign_reason (guint32 uid)
{
  return g_strdup_printf (_("the session of another user (uid %u)"), (unsigned) uid);
}

/* NAME's uid and pid ("heaplens-UID-PID-NONCE"); FALSE when it is not
 * such a name. */
static gboolean
parse_name (const char *name,
            guint32    *uid,
            guint32    *pid)
{
  static const char prefix[] = "heaplens-";
  char *end;
  guint64 v;

  if (!g_str_has_prefix (name, prefix))
    return FALSE;
  name += sizeof prefix - 1;
  if (!g_ascii_isdigit (*name) || (v = g_ascii_strtoull (name, &end, 10)) > G_MAXUINT32 || *end != '-')
    return FALSE;
  *uid = (guint32) v;
  name = end + 1;
  if (!g_ascii_isdigit (*name) || (v = g_ascii_strtoull (name, &end, 10)) > G_MAXUINT32 || *end != '-')
    return FALSE;
  *pid = (guint32) v;
  return TRUE;
}

HlLiveSessionInfo *
hl_live_session_info_read (const char *name)
{
  g_return_val_if_fail (name != NULL, NULL);
  HlLiveSessionInfo *info = g_new0 (HlLiveSessionInfo, 1);
  const char *base = strrchr (name, '/') != NULL ? strrchr (name, '/') + 1 : name;
  info->name = g_strdup (base);
  if (!parse_name (base, &info->uid, &info->pid))
    info->uid = (guint32) getuid ();
  info->same_user = info->uid == (guint32) getuid ();
  /* opened whatever its name says: the reader checks the owner */
  info_fill (info, name);
  return info;
}

typedef struct
{
  HlLiveListFlags flags;
  GPtrArray      *list;
} ListCtx;

static void
list_cb (void                   *user_data,
         const HlShmSessionName *s)
{
  ListCtx *ctx = user_data;
  HlLiveSessionInfo *info = g_new0 (HlLiveSessionInfo, 1);
  info->name = g_strdup (s->name);
  info->uid = s->uid;
  info->pid = s->pid;
  info->same_user = s->uid == (guint32) getuid ();
  if (!info->same_user)
    info->refusal = foreign_reason (info->uid);
  else if (!(ctx->flags & HL_LIVE_LIST_NAMES_ONLY))
    info_fill (info, info->name);
  g_ptr_array_add (ctx->list, info);
}

GPtrArray *
hl_live_session_list (HlLiveListFlags   flags,
                      GError          **error)
{
  ListCtx ctx = { flags, g_ptr_array_new_with_free_func ((GDestroyNotify) hl_live_session_info_free) };
  guint32 uid = (flags & HL_LIVE_LIST_ALL_USERS) ? UINT32_MAX : (guint32) getuid ();
  if (hl_shm_list_sessions (uid, list_cb, &ctx) < 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("cannot read /dev/shm"));
      g_ptr_array_unref (ctx.list);
      return NULL;
    }
  return ctx.list;
}

GPtrArray *
hl_live_session_list_pid (guint32   pid,
                          GError  **error)
{
  GPtrArray *list = hl_live_session_list (HL_LIVE_LIST_ALL_USERS | HL_LIVE_LIST_NAMES_ONLY, error);
  if (list == NULL)
    return NULL;
  for (guint i = list->len; i-- > 0;)
    {
      HlLiveSessionInfo *info = g_ptr_array_index (list, i);
      if (info->pid != pid)
        g_ptr_array_remove_index (list, i);
      else if (info->same_user)
        info_fill (info, info->name);
    }
  return list;
}

HlLiveSessionInfo *
hl_live_session_list_find_pid (GPtrArray *list,
                               guint32    pid)
{
  HlLiveSessionInfo *best = NULL;
  gboolean best_final = FALSE;

  g_return_val_if_fail (list != NULL, NULL);
  for (guint i = 0; i < list->len; i++)
    {
      HlLiveSessionInfo *info = g_ptr_array_index (list, i);
      if (info->pid != pid || !info->readable)
        continue;
      /* the newest image of the pid, preferring one that did not exec away */
      gboolean final = info->state != HL_LIVE_STATE_RESTARTED;
      if (best == NULL || (final && !best_final) || (final == best_final && info->start_wall_ns > best->start_wall_ns))
        {
          best = info;
          best_final = final;
        }
    }
  return best;
}

char *
hl_live_session_find_pid (guint32   pid,
                          GError  **error)
{
  g_autoptr(GPtrArray) list = hl_live_session_list_pid (pid, error);
  const HlLiveSessionInfo *best, *refused = NULL, *foreign = NULL;
  gboolean being_created = FALSE;

  if (list == NULL)
    return NULL;
  best = hl_live_session_list_find_pid (list, pid);
  if (best != NULL)
    return g_strdup (best->name);
  for (guint i = 0; i < list->len; i++)
    {
      const HlLiveSessionInfo *info = g_ptr_array_index (list, i);
      if (info->pid != pid)
        continue;
      if (!info->same_user)
        foreign = info;
      else if (info->being_created)
        being_created = TRUE;
      else if (info->refusal != NULL)
        refused = info;
    }
  if (refused != NULL)
    g_set_error (error, HL_LIVE_ERROR, HL_LIVE_ERROR_REFUSED, "%s: %s", refused->name, refused->refusal);
  else if (foreign != NULL)
    g_set_error (error, HL_LIVE_ERROR, HL_LIVE_ERROR_REFUSED,
                 _("the session of pid %u belongs to uid %u, not to you (%u)"), (unsigned) pid,
                 (unsigned) foreign->uid, (unsigned) getuid ());
  else if (being_created)
    g_set_error (error, HL_LIVE_ERROR, HL_LIVE_ERROR_NOT_FOUND,
                 _("the session of pid %u is still being created"), (unsigned) pid);
  else
    g_set_error (error, HL_LIVE_ERROR, HL_LIVE_ERROR_NOT_FOUND,
                 _("no session for pid %u (is it running under the Heaplens preload?)"), (unsigned) pid);
  return NULL;
}

/* ---- Pruning ---------------------------------------------------------- */

/* A session its launcher (`heaplens-cli record`, the application, a test)
 * asked to keep (HL_SHM_FLAG_KEPT) is read and removed by the launcher
 * once the program has ended. It is not pruned while the launcher (the
 * program's parent) runs, nor in the first minute after the end: a prune
 * running meanwhile would take it from under its launcher (whose trace
 * then stays uncompressed, or whose test failed). */
#define KEPT_GRACE_NS (60ull * 1000000000ull)

static gboolean
ended (const HlLiveSessionInfo *s)
{
  return s->state == HL_LIVE_STATE_ENDED || s->state == HL_LIVE_STATE_RESTARTED;
}

guint32
hl_live_session_info_get_launcher (const HlLiveSessionInfo *info)
{
  return info->launcher_pid != 0 ? info->launcher_pid : info->ppid;
}

static gboolean
launcher_alive (const HlLiveSessionInfo *s)
{
  guint32 launcher = hl_live_session_info_get_launcher (s);
  return launcher > 1 && hl_live_pid_alive (launcher);
}

static gboolean
kept_for_launcher (const HlLiveSessionInfo *s)
{
  struct timespec ts;

  if (!s->kept || !ended (s))
    return FALSE;
  if (launcher_alive (s))
    return TRUE;
  if (clock_gettime (CLOCK_MONOTONIC, &ts) != 0)
    return FALSE;
  guint64 now = (guint64) ts.tv_sec * G_GUINT64_CONSTANT (1000000000) + (guint64) ts.tv_nsec;
  guint64 end = s->start_mono_ns + s->ended_ns;
  return end >= s->start_mono_ns && now < end + KEPT_GRACE_NS;
}

/* TRACE.tmp-compress, the file `record` compresses into, left by a
 * launcher that died: removed when it is a regular file of ours and both
 * the program and its launcher are gone (no one writes it any more).
 * Appends what was done to MESSAGE. */
static void
prune_tmp_compress (const HlLiveSessionInfo *s,
                    GString                 *message)
{
  g_autofree char *tmp = NULL;
  struct stat st;

  guint32 launcher = hl_live_session_info_get_launcher (s);
  if (s->trace_path == NULL || s->trace_path[0] == '\0' || launcher <= 1 || launcher_alive (s))
    return;
  tmp = g_strconcat (s->trace_path, ".tmp-compress", NULL);
  if (lstat (tmp, &st) != 0 || !S_ISREG (st.st_mode) || st.st_uid != getuid ())
    return;
  if (unlink (tmp) == 0)
    g_string_append_printf (message, _("; removed %s (its launcher %u ended)"), tmp, (unsigned) launcher);
  else
    g_string_append_printf (message, _("; cannot remove %s: %s"), tmp, g_strerror (errno));
}

static HlLivePruneResult *
prune_one (const HlLiveSessionInfo *s)
{
  HlLivePruneResult *r = g_new0 (HlLivePruneResult, 1);
  g_autoptr(GString) why = g_string_new (NULL);

  r->name = g_strdup (s->name);
  if (s->not_segment)
    {
      r->action = HL_LIVE_PRUNE_LEFT_ALONE;
      r->message = g_strdup_printf (_("%s: %s: left alone"), s->name, s->refusal != NULL ? s->refusal : "?");
      return r;
    }
  if (!s->readable && hl_live_pid_alive (s->pid))
    {
      /* another version's session, or one being made: still the session
       * of the process its name gives */
      r->action = HL_LIVE_PRUNE_KEPT_RUNNING;
      r->message = g_strdup_printf (_("%s: invalid: %s (kept: pid %u is running)"), s->name, s->refusal,
                                    (unsigned) s->pid);
      return r;
    }
  if (s->readable && s->alive)
    {
      r->action = HL_LIVE_PRUNE_KEPT_RUNNING;
      r->message = g_strdup_printf (_("%s: pid %u is running"), s->name, (unsigned) s->pid);
      return r;
    }
  if (s->readable && kept_for_launcher (s))
    {
      r->action = HL_LIVE_PRUNE_KEPT_LAUNCHER;
      r->message = g_strdup_printf (_("%s: ended, kept for its launcher (pruned a minute after its end)"), s->name);
      return r;
    }
  if (!s->readable)
    g_string_printf (why, _("invalid: %s; pid %u is gone"), s->refusal, (unsigned) s->pid);
  else if (s->kept && hl_live_session_info_get_launcher (s) > 1)
    g_string_printf (why, _("pid %u and its launcher %u ended"), (unsigned) s->pid,
                     (unsigned) hl_live_session_info_get_launcher (s));
  else
    g_string_printf (why, _("pid %u ended"), (unsigned) s->pid);

  g_autofree char *path = g_strconcat ("/dev/shm/", s->name, NULL);
  if (unlink (path) != 0)
    {
      r->action = HL_LIVE_PRUNE_FAILED;
      r->message = g_strdup_printf (_("cannot remove %s (%s): %s"), s->name, why->str, g_strerror (errno));
      return r;
    }
  r->action = HL_LIVE_PRUNE_REMOVED;
  g_string_prepend (why, " (");
  g_string_append_c (why, ')');
  if (s->readable)
    prune_tmp_compress (s, why);
  r->message = g_strdup_printf (_("removed %s%s"), s->name, why->str);
  return r;
}

void
hl_live_prune_result_free (HlLivePruneResult *result)
{
  if (result == NULL)
    return;
  g_free (result->name);
  g_free (result->message);
  g_free (result);
}

GPtrArray *
hl_live_session_prune (GPtrArray  *list,
                       GError    **error)
{
  g_autoptr(GPtrArray) own = NULL;
  GPtrArray *done;

  if (list == NULL)
    {
      own = hl_live_session_list (HL_LIVE_LIST_OWN, error);
      if (own == NULL)
        return NULL;
      list = own;
    }
  done = g_ptr_array_new_with_free_func ((GDestroyNotify) hl_live_prune_result_free);
  for (guint i = 0; i < list->len; i++)
    {
      const HlLiveSessionInfo *s = g_ptr_array_index (list, i);
      if (s->same_user && (s->readable || s->refusal != NULL))
        g_ptr_array_add (done, prune_one (s));
    }
  return done;
}
