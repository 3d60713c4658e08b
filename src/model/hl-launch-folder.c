/* hl-launch-folder.c — one folder per recording (hl-launch-folder.h). */
#include "hl-launch-folder.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

#define FOLDER_MODE 0700

char *
hl_launch_folder_default_parent (void)
{
  return g_build_filename (g_get_user_state_dir (), "heaplens", NULL);
}

/* A name a folder can take: the program's basename, with what a file
 * name cannot hold (and leading dots) replaced. */
static char *
folder_stem (const char *program)
{
  g_autofree char *base = g_path_get_basename (program != NULL && program[0] != '\0' ? program : "program");
  for (char *c = base; *c != '\0'; c++)
    if (*c == '/' || *c == '%' || (unsigned char) *c < 0x20 || (*c == '.' && c == base))
      *c = '_';
  return g_steal_pointer (&base);
}

char *
hl_launch_folder_create (const char *parent,
                         const char *program,
                         GError    **error)
{
  g_autofree char *default_parent = parent == NULL ? hl_launch_folder_default_parent () : NULL;
  const char *in = parent != NULL ? parent : default_parent;
  g_autofree char *absolute = g_path_is_absolute (in) ? g_strdup (in)
                                                       : g_build_filename (g_get_current_dir (), in, NULL);
  if (g_mkdir_with_parents (absolute, FOLDER_MODE) != 0)
    {
      int e = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e), "cannot create %s: %s", absolute,
                   g_strerror (e));
      return NULL;
    }
  g_autoptr (GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *stamp = g_date_time_format (now, "%Y%m%d-%H%M%S");
  g_autofree char *stem = folder_stem (program);
  for (guint n = 1; n < 1000; n++)
    {
      g_autofree char *name = n == 1 ? g_strdup_printf ("%s-%s", stem, stamp)
                                     : g_strdup_printf ("%s-%s-%u", stem, stamp, n);
      char *folder = g_build_filename (absolute, name, NULL);
      if (g_mkdir (folder, FOLDER_MODE) == 0)
        return folder;
      int e = errno;
      g_free (folder);
      if (e != EEXIST)
        {
          g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e), "cannot create a folder in %s: %s",
                       absolute, g_strerror (e));
          return NULL;
        }
    }
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_EXIST, "cannot create a folder in %s: every name is taken",
               absolute);
  return NULL;
}

char *
hl_launch_folder_trace_template (const char *folder)
{
  /* the preload expands %p, %e and %% in the whole path */
  GString *t = g_string_new (NULL);
  for (const char *c = folder; *c != '\0'; c++)
    g_string_append (t, *c == '%' ? "%%" : (char[]) { *c, '\0' });
  g_string_append (t, G_DIR_SEPARATOR_S "%e.%p.hltrace");
  return g_string_free (t, FALSE);
}
