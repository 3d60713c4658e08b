/* hl-profile-writer.c — a process's continuous heap profiles on disk
 * (hl-profile-writer.h). */
#include "hl-config.h"

#include <errno.h>
#include <string.h>
#include <glib/gstdio.h>

#include "hl-heap-profile.h"
#include "hl-model-error.h"
#include "hl-profile-writer.h"
#include "hl-recording-aggregate.h"
#include "hl-recording-private.h"

struct _HlProfileWriter
{
  char    *dir;
  gint64   every_us;
  guint    keep;
  gint64   due_us;          /* monotonic */
  guint64  last_wall_ns;    /* the previous profile's time, 0 before it */
  guint64  start_wall_ns;
  gint64   last_name_ms;    /* so that two profiles never share a name */
  /* the stacks' allocations at the previous profile (cumulative) */
  guint64 *prev_objects, *prev_bytes;
  guint    prev_n;
  guint64  written;
};

HlProfileWriter *
hl_profile_writer_new (const char *dir,
                       guint64     every_ns,
                       guint       keep)
{
  HlProfileWriter *self;

  g_return_val_if_fail (dir != NULL && every_ns > 0 && keep > 0, NULL);

  self = g_new0 (HlProfileWriter, 1);
  self->dir = g_strdup (dir);
  self->every_us = (gint64) MAX (every_ns / 1000, 1);
  self->keep = keep;
  self->due_us = g_get_monotonic_time () + self->every_us;
  self->start_wall_ns = (guint64) g_get_real_time () * 1000u;
  return self;
}

void
hl_profile_writer_free (HlProfileWriter *self)
{
  if (self == NULL)
    return;
  g_free (self->prev_objects);
  g_free (self->prev_bytes);
  g_free (self->dir);
  g_free (self);
}

gint64
hl_profile_writer_due_us (const HlProfileWriter *self)
{
  return self->due_us;
}

guint64
hl_profile_writer_n_written (const HlProfileWriter *self)
{
  return self->written;
}

/* "heaplens-PROG-PID-": PROG the executable's base name, with anything
 * but [A-Za-z0-9._+-] made '_' (a name safe in a file name and a glob). */
static char *
file_prefix (HlRecording *rec,
             guint32      pid)
{
  const char *exe = hl_recording_get_info (rec, "exe");
  const char *pid_text = hl_recording_get_info (rec, "pid");
  g_autofree char *prog = g_path_get_basename (exe != NULL && exe[0] != '\0' ? exe : "program");
  guint64 n;

  for (char *c = prog; *c != '\0'; c++)
    if (!g_ascii_isalnum (*c) && *c != '.' && *c != '_' && *c != '+' && *c != '-')
      *c = '_';
  if (pid_text != NULL && g_ascii_string_to_unsigned (pid_text, 10, 1, G_MAXUINT32, &n, NULL))
    pid = (guint32) n;
  return g_strdup_printf ("heaplens-%s-%u-", prog, pid);
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* Removes the oldest files PREFIX*SUFFIX past the newest KEEP: the names
 * sort by time. */
static void
prune (HlProfileWriter *self,
       const char      *prefix,
       const char      *suffix)
{
  g_autoptr (GDir) dir = g_dir_open (self->dir, 0, NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  if (dir == NULL)
    return;
  while ((name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_prefix (name, prefix) && g_str_has_suffix (name, suffix))
      g_ptr_array_add (names, g_strdup (name));
  if (names->len <= self->keep)
    return;
  g_ptr_array_sort (names, compare_names);
  for (guint i = 0; i + self->keep < names->len; i++)
    {
      g_autofree char *path = g_build_filename (self->dir, names->pdata[i], NULL);
      if (g_unlink (path) != 0 && errno != ENOENT)
        g_debug ("profiles: removing %s: %s", path, g_strerror (errno));
    }
}

/* Writes BYTES to DIR/NAME: a temporary file of mode 0600 beside it,
 * then renamed over it. */
static gboolean
write_file (HlProfileWriter *self,
            const char      *name,
            GBytes          *bytes,
            GError         **error)
{
  g_autofree char *path = g_build_filename (self->dir, name, NULL);
  gsize len;
  const char *data = g_bytes_get_data (bytes, &len);

  return g_file_set_contents_full (path, data, (gssize) len, G_FILE_SET_CONTENTS_CONSISTENT, 0600, error);
}

gboolean
hl_profile_writer_write (HlProfileWriter *self,
                         HlRecording     *rec,
                         guint32          pid,
                         GError         **error)
{
  guint n_stacks;
  g_autofree guint64 *live_objects = NULL, *live_bytes = NULL;
  g_autofree guint64 *alloc_objects = NULL, *alloc_bytes = NULL;
  g_autofree HlCosts *costs = NULL;
  g_autofree char *prefix = NULL, *stamp = NULL, *inuse_name = NULL, *alloc_name = NULL;
  g_autoptr (GBytes) inuse = NULL, alloc = NULL;
  g_autoptr (GDateTime) when = NULL;
  gint64 now_us = g_get_monotonic_time ();
  guint64 wall_ns = (guint64) g_get_real_time () * 1000u;
  gint64 name_ms = (gint64) (wall_ns / 1000000u);
  gboolean ok;

  g_return_val_if_fail (self != NULL && HL_IS_RECORDING (rec), FALSE);

  /* the next one: on the beat, unless this one was late by more */
  self->due_us += self->every_us;
  if (self->due_us <= now_us)
    self->due_us = now_us + self->every_us;
  if (rec->aggregate == NULL)
    {
      g_set_error_literal (error, HL_MODEL_ERROR, HL_MODEL_ERROR_UNSUPPORTED, "not a costs-only recording");
      return FALSE;
    }

  /* the snapshot: live blocks, and the allocations since the previous one */
  hl_recording_symbolize (rec, NULL);
  n_stacks = hl_recording_get_n_stacks (rec);
  live_objects = g_new0 (guint64, MAX (n_stacks, 1));
  live_bytes = g_new0 (guint64, MAX (n_stacks, 1));
  hl_aggregate_sum_live (rec->aggregate, n_stacks, live_objects, live_bytes);
  costs = hl_aggregate_dup_stack_costs (rec->aggregate, n_stacks);
  alloc_objects = g_new0 (guint64, MAX (n_stacks, 1));
  alloc_bytes = g_new0 (guint64, MAX (n_stacks, 1));
  for (guint s = 0; s < n_stacks; s++)
    {
      guint64 o = s < self->prev_n ? self->prev_objects[s] : 0;
      guint64 b = s < self->prev_n ? self->prev_bytes[s] : 0;

      alloc_objects[s] = costs[s].allocations - MIN (o, costs[s].allocations);
      alloc_bytes[s] = costs[s].bytes - MIN (b, costs[s].bytes);
    }
  inuse = hl_heap_profile_build (rec, HL_HEAP_PROFILE_INUSE, n_stacks, live_objects, live_bytes, wall_ns, 0, error);
  if (inuse == NULL)
    return FALSE;
  alloc = hl_heap_profile_build (rec, HL_HEAP_PROFILE_ALLOC, n_stacks, alloc_objects, alloc_bytes, wall_ns,
                                 wall_ns - MIN (self->last_wall_ns != 0 ? self->last_wall_ns : self->start_wall_ns,
                                                wall_ns),
                                 error);
  if (alloc == NULL)
    return FALSE;

  /* the names: the time to the millisecond, UTC */
  if (name_ms <= self->last_name_ms)
    name_ms = self->last_name_ms + 1;
  self->last_name_ms = name_ms;
  when = g_date_time_new_from_unix_utc (name_ms / 1000);
  stamp = g_date_time_format (when, "%Y%m%dT%H%M%S");
  prefix = file_prefix (rec, pid);
  inuse_name = g_strdup_printf ("%s%s.%03dZ.inuse.pb.gz", prefix, stamp, (int) (name_ms % 1000));
  alloc_name = g_strdup_printf ("%s%s.%03dZ.alloc.pb.gz", prefix, stamp, (int) (name_ms % 1000));
  ok = write_file (self, inuse_name, inuse, error) && write_file (self, alloc_name, alloc, error);
  prune (self, prefix, ".inuse.pb.gz");
  prune (self, prefix, ".alloc.pb.gz");
  if (!ok)
    return FALSE;

  /* only once written: a profile that failed leaves its allocations to the next */
  g_free (self->prev_objects);
  g_free (self->prev_bytes);
  self->prev_objects = g_new (guint64, MAX (n_stacks, 1));
  self->prev_bytes = g_new (guint64, MAX (n_stacks, 1));
  for (guint s = 0; s < n_stacks; s++)
    {
      self->prev_objects[s] = costs[s].allocations;
      self->prev_bytes[s] = costs[s].bytes;
    }
  self->prev_n = n_stacks;
  self->last_wall_ns = wall_ns;
  self->written++;
  return TRUE;
}
