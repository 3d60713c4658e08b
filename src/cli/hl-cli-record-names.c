/* hl-cli-record-names.c — which traces of a recording are kept and what
 * they are called (hl-cli-record-names.h). */
#include "hl-config.h"

#include "hl-cli-record-names.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Images that exec'ed another within this long of their start (a shell
 * script's fork before it runs a command, pyenv's and env's shims) are
 * folded: their traces, with next to nothing in them, are removed, and the
 * end line counts them (issue 27, point 7: a launch through pyenv's shim
 * left 80 traces). Not one whose exec started a program that cannot take
 * the preload: its trace marks that. HEAPLENS_RECORD_FOLD_MS changes it;
 * 0 keeps them all. */
#define HL_RECORD_FOLD_MS 50

/* Removes the traces of the helper images among IMAGES (never ROOT's) and
 * returns their names, "bash, env" (each once), or NULL; *N_FOLDED counts
 * them. */
char *
hl_record_fold_helper_images (HlCliSession **images,
                              guint          n_images,
                              HlCliSession  *root,
                              guint         *n_folded)
{
  const char *env = g_getenv ("HEAPLENS_RECORD_FOLD_MS");
  guint64 fold_ms = HL_RECORD_FOLD_MS;
  if (env != NULL && !g_ascii_string_to_unsigned (env, 10, 0, G_MAXUINT32, &fold_ms, NULL))
    fold_ms = HL_RECORD_FOLD_MS;
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  *n_folded = 0;
  for (guint k = 0; k < n_images; k++)
    {
      HlCliSession *f = images[k];
      HlShmHeader *h = &f->header;
      /* one whose exec ran a program without the preload keeps its trace:
       * its mark says so (hl-capture-exec.c) */
      if (f == root || h->trace_path[0] == '\0' || !(h->flags & HL_SHM_FLAG_ENDED_BY_EXEC)
          || (h->flags & HL_SHM_FLAG_UNFOLLOWED) || h->ended_ns >= fold_ms * 1000000u || unlink (h->trace_path) != 0)
        continue;
      h->trace_path[0] = '\0';
      (*n_folded)++;
      g_autofree char *name = g_path_get_basename (h->exe[0] != '\0' ? h->exe : "?");
      gboolean seen = FALSE;
      for (guint n = 0; n < names->len && !seen; n++)
        seen = strcmp (g_ptr_array_index (names, n), name) == 0;
      if (!seen)
        g_ptr_array_add (names, g_steal_pointer (&name));
    }
  if (names->len == 0)
    return NULL;
  g_ptr_array_add (names, NULL);
  return g_strjoinv (", ", (char **) names->pdata);
}

/* `-o FILE` names the trace of the program the user means: the root's
 * last image (`record -o t -- pyenv-shim` is about python, not the shim's
 * bash). The preload gave FILE to the first image and FILE.PID.N to the
 * next: the two swap names (a folded first image's is gone: the last
 * takes FILE). */
void
hl_record_name_root_trace (HlCliSession **images,
                           guint          n_images,
                           HlCliSession  *root,
                           const char    *file)
{
  char *path = root->header.trace_path;
  if (path[0] == '\0' || strcmp (path, file) == 0 || strlen (file) >= sizeof root->header.trace_path)
    return;
  HlCliSession *first = NULL;
  for (guint k = 0; k < n_images && first == NULL; k++)
    if (strcmp (images[k]->header.trace_path, file) == 0)
      first = images[k];
  g_autofree char *swap = g_strconcat (file, ".hl-swap", NULL);
  if (first != NULL && rename (file, swap) != 0)
    return;
  if (rename (path, file) != 0)
    {
      if (first != NULL)
        (void) rename (swap, file);
      return;
    }
  if (first != NULL && rename (swap, path) == 0)
    g_strlcpy (first->header.trace_path, path, sizeof first->header.trace_path);
  g_strlcpy (path, file, sizeof root->header.trace_path);
}
