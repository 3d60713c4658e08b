/* hl-process-list.c — see hl-process-list.h. */
#include "hl-config.h"

#include "hl-process-list.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void
hl_process_info_free (HlProcessInfo *info)
{
  if (info == NULL)
    return;
  g_free (info->name);
  g_free (info->cmdline);
  g_free (info);
}

/* /proc/PID/cmdline with its NULs as spaces, "" for a kernel thread. */
static char *
read_cmdline (const char *dir)
{
  g_autofree char *path = g_build_filename (dir, "cmdline", NULL);
  char *text = NULL;
  gsize len = 0;
  if (!g_file_get_contents (path, &text, &len, NULL))
    return g_strdup ("");
  while (len > 0 && text[len - 1] == '\0')
    len--;
  for (gsize i = 0; i < len; i++)
    if (text[i] == '\0' || text[i] == '\n')
      text[i] = ' ';
  text[len] = '\0';
  return text;
}

/* A zombie or dead process ("pid (comm) Z ..."). */
static gboolean
is_zombie (const char *dir)
{
  g_autofree char *path = g_build_filename (dir, "stat", NULL);
  g_autofree char *text = NULL;
  if (!g_file_get_contents (path, &text, NULL, NULL))
    return TRUE;
  const char *p = strrchr (text, ')');
  return p == NULL || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X';
}

GPtrArray *
hl_process_list (guint   *n_others,
                 GError **error)
{
  g_autoptr (GDir) proc = g_dir_open ("/proc", 0, error);
  if (proc == NULL)
    return NULL;
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) hl_process_info_free);
  uid_t me = geteuid ();
  guint others = 0;
  long page = sysconf (_SC_PAGESIZE);
  const char *entry;
  while ((entry = g_dir_read_name (proc)) != NULL)
    {
      guint64 pid;
      if (!g_ascii_string_to_unsigned (entry, 10, 1, G_MAXINT32, &pid, NULL) || pid == (guint64) getpid ())
        continue;
      g_autofree char *dir = g_build_filename ("/proc", entry, NULL);
      struct stat st;
      if (stat (dir, &st) != 0)
        continue; /* gone meanwhile */
      if (st.st_uid != me)
        {
          others++;
          continue;
        }
      g_autofree char *cmdline = read_cmdline (dir);
      if (cmdline[0] == '\0' || is_zombie (dir))
        continue;
      HlProcessInfo *info = g_new0 (HlProcessInfo, 1);
      info->pid = (guint32) pid;
      info->uid = (guint32) st.st_uid;
      info->cmdline = g_steal_pointer (&cmdline);
      g_autofree char *comm_path = g_build_filename (dir, "comm", NULL);
      g_autofree char *comm = NULL;
      info->name = g_file_get_contents (comm_path, &comm, NULL, NULL) ? g_strdup (g_strstrip (comm)) : g_strdup ("?");
      g_autofree char *statm_path = g_build_filename (dir, "statm", NULL);
      g_autofree char *statm = NULL;
      if (g_file_get_contents (statm_path, &statm, NULL, NULL))
        {
          char *end;
          (void) g_ascii_strtoull (statm, &end, 10); /* size */
          info->rss_bytes = g_ascii_strtoull (end, NULL, 10) * (guint64) (page > 0 ? page : 4096);
        }
      g_ptr_array_add (out, info);
    }
  if (n_others != NULL)
    *n_others = others;
  return out;
}
