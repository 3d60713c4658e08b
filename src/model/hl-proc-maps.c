/* hl-proc-maps.c — see hl-proc-maps.h. */
#include "hl-proc-maps.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void
clear_module (gpointer data)
{
  HlProcModule *m = data;
  g_free (m->path);
}

static gint
compare_start (gconstpointer a,
               gconstpointer b)
{
  const HlProcModule *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

GArray *
hl_proc_maps_parse (const char *text)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (HlProcModule));
  GHashTable *seen = g_hash_table_new (g_str_hash, g_str_equal); /* path -> index+1 */
  g_array_set_clear_func (out, clear_module);

  char **lines = g_strsplit (text != NULL ? text : "", "\n", -1);
  for (char **l = lines; *l != NULL; l++)
    {
      guint64 lo, hi, off;
      char perms[8];
      int path_at = 0;
      if (sscanf (*l, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %n", &lo, &hi, perms, &off, &path_at) < 4
          || path_at <= 0)
        continue;
      const char *path = *l + path_at;
      if (path[0] != '/' || hi <= lo || off > lo)
        continue;
      gpointer idx = g_hash_table_lookup (seen, path);
      if (idx != NULL)
        {
          HlProcModule *m = &g_array_index (out, HlProcModule, GPOINTER_TO_UINT (idx) - 1);
          if (hi > m->end)
            m->end = hi;
          if (lo - off < m->start)
            m->start = lo - off;
          continue;
        }
      HlProcModule m = { g_strdup (path), lo - off, hi };
      g_array_append_val (out, m);
      g_hash_table_insert (seen, m.path, GUINT_TO_POINTER (out->len));
    }
  g_strfreev (lines);
  g_hash_table_destroy (seen);
  g_array_sort (out, compare_start);
  return out;
}

GArray *
hl_proc_maps_read (guint32   pid,
                   GError  **error)
{
  char path[64];
  char *text = NULL;
  g_snprintf (path, sizeof path, "/proc/%u/maps", (unsigned) pid);
  if (!g_file_get_contents (path, &text, NULL, error))
    return NULL;
  GArray *out = hl_proc_maps_parse (text);
  g_free (text);
  return out;
}
