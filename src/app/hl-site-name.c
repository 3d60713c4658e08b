/* hl-site-name.c — what a call site is called (see hl-site-name.h). */
#include "hl-config.h"

#include <string.h>
#include <glib/gi18n.h>

#include "hl-site-name.h"

/* No stack is told apart by more callers than this. */
#define MAX_CHAIN 16

char *
hl_site_name_location (const HlFrame *frame)
{
  g_autofree char *base = NULL;

  if (frame == NULL || frame->file == NULL || frame->file[0] == '\0')
    return g_strdup ("");
  base = g_path_get_basename (frame->file);
  if (frame->line == 0)
    return g_steal_pointer (&base);
  return g_strdup_printf ("%s:%u", base, frame->line);
}

char *
hl_site_name_frame (const HlFrame *frame)
{
  g_autofree char *location = NULL;

  if (frame == NULL)
    return g_strdup (_("(stack not recorded)"));
  location = hl_site_name_location (frame);
  if (location[0] == '\0')
    return g_strdup (frame->function);
  /* Translators: a function and where in the source it is, e.g. "parse (reader.c:42)" */
  return g_strdup_printf (_("%s (%s)"), frame->function, location);
}

/* Whether A and B name the same function in the source: the compiler's
 * clones ("f.part.0", "f.cold") and an inlined frame's outer copy. */
static gboolean
same_source_function (const char *a,
                      const char *b)
{
  gsize la = strcspn (a, "."), lb = strcspn (b, ".");

  return la == lb && strncmp (a, b, la) == 0;
}

/* The C runtime's frames below main: every stack has them, they tell no
 * site apart (and libc's debug info gives them source lines). */
static gboolean
is_startup_frame (const HlFrame *frame)
{
  return g_str_has_prefix (frame->function, "__libc_start") || g_str_equal (frame->function, "_start");
}

/* The frames STACK's name is made of (borrowed, at most MAX_CHAIN): its
 * first frame with a symbol, then every later frame with a symbol of
 * another function than the one before (every frame when none has one),
 * the C runtime's start-up frames left out.
 * *SOURCE: the index of the first of them with source when the first has
 * none (it is always named), else 0. *FIRST_DEPTH: the callers a name
 * shows at least (1 when the first frame has no source and none has). */
typedef struct
{
  GPtrArray *frames;
  guint      source;
  guint      first_depth;
} Chain;

static void
chain_free (Chain *chain)
{
  g_ptr_array_unref (chain->frames);
  g_free (chain);
}

static Chain *
name_chain (HlRecording *recording,
            HlStackId    stack)
{
  Chain *chain = g_new0 (Chain, 1);
  const HlFrame * const *frames;
  const HlFrame *last;
  guint n = 0, i = 0;
  gboolean any;

  chain->frames = g_ptr_array_new ();
  frames = hl_recording_get_stack_frames (recording, stack, &n);
  if (frames == NULL || n == 0)
    return chain;
  while (i < n && !frames[i]->resolved)
    i++;
  /* no symbol at all: the addresses are all there is */
  any = i == n;
  if (any)
    i = 0;
  last = frames[i];
  g_ptr_array_add (chain->frames, (gpointer) last);
  for (i++; i < n && chain->frames->len < MAX_CHAIN; i++)
    if ((any || (frames[i]->resolved && !is_startup_frame (frames[i]))) && !same_source_function (frames[i]->function, last->function))
      {
        last = frames[i];
        g_ptr_array_add (chain->frames, (gpointer) last);
        if (chain->source == 0 && last->file != NULL && ((const HlFrame *) chain->frames->pdata[0])->file == NULL)
          chain->source = chain->frames->len - 1;
      }
  if (((const HlFrame *) chain->frames->pdata[0])->file == NULL && chain->source == 0 && chain->frames->len > 1)
    chain->first_depth = 1;
  return chain;
}

/* The first DEPTH + 1 frames of CHAIN, and its first with source after a
 * "…" when that one is further. */
static char *
join_chain (const Chain *chain,
            guint        depth)
{
  GString *out = g_string_new (NULL);

  for (guint k = 0; k < chain->frames->len; k++)
    {
      g_autofree char *name = NULL;

      if (k > depth && k != chain->source)
        continue;
      if (k == chain->source && k > depth + 1)
        /* frames left out of a call site's name, between the two shown */
        g_string_append (out, " ← …");
      name = hl_site_name_frame (chain->frames->pdata[k]);
      if (k > 0)
        /* a frame and the one that called it, in a call site's name */
        g_string_append (out, " ← ");
      g_string_append (out, name);
    }
  return g_string_free (out, FALSE);
}

/* The next caller after what a name of DEPTH shows, or NULL. */
static char *
next_caller (const Chain *chain,
             guint        depth)
{
  guint k = chain->source > depth ? chain->source + 1 : depth + 1;

  return k < chain->frames->len ? hl_site_name_frame (chain->frames->pdata[k]) : NULL;
}

char *
hl_site_name_get (HlRecording *recording,
                  HlStackId    stack,
                  guint        depth,
                  char       **caller)
{
  Chain *chain = name_chain (recording, stack);
  char *name = NULL;

  depth = MAX (depth, chain->first_depth);
  if (caller != NULL)
    *caller = next_caller (chain, depth);
  if (chain->frames->len > 0)
    name = join_chain (chain, depth);
  chain_free (chain);
  return name;
}

/* Whether the stacks of GROUP (indices into CHAINS) have the same named
 * frames (frames are interned: the same pointers). */
static gboolean
same_chains (GPtrArray *chains,
             GArray    *group)
{
  const Chain *first = chains->pdata[g_array_index (group, guint, 0)];

  for (guint g = 1; g < group->len; g++)
    {
      const Chain *other = chains->pdata[g_array_index (group, guint, g)];

      if (other->frames->len != first->frames->len
          || memcmp (other->frames->pdata, first->frames->pdata, first->frames->len * sizeof (gpointer)) != 0)
        return FALSE;
    }
  return TRUE;
}

GPtrArray *
hl_site_name_labels (HlRecording     *recording,
                     const HlStackId *stacks,
                     guint            n_stacks,
                     GPtrArray      **callers)
{
  GPtrArray *labels = g_ptr_array_new_full (n_stacks, g_free);
  g_autoptr(GPtrArray) chains = g_ptr_array_new_full (n_stacks, (GDestroyNotify) chain_free);
  g_autofree guint *depth = g_new0 (guint, MAX (n_stacks, 1));
  g_autoptr(GHashTable) groups = NULL;
  gboolean grew = TRUE;

  for (guint i = 0; i < n_stacks; i++)
    {
      Chain *chain = name_chain (recording, stacks[i]);

      depth[i] = chain->first_depth;
      g_ptr_array_add (chains, chain);
      g_ptr_array_add (labels, NULL);
    }
  /* One more caller for every stack whose name another has too, until
   * none grows: every round, a clash grows or stays for good. */
  for (guint round = 0; grew && round <= MAX_CHAIN; round++)
    {
      GHashTableIter iter;
      gpointer key, value;

      grew = FALSE;
      g_clear_pointer (&groups, g_hash_table_unref);
      groups = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) g_array_unref);
      for (guint i = 0; i < n_stacks; i++)
        {
          const Chain *chain = chains->pdata[i];
          GArray *group;

          g_free (labels->pdata[i]);
          labels->pdata[i] = chain->frames->len > 0 ? join_chain (chain, depth[i]) : g_strdup (_("(stack not recorded)"));
          group = g_hash_table_lookup (groups, labels->pdata[i]);
          if (group == NULL)
            {
              group = g_array_new (FALSE, FALSE, sizeof (guint));
              g_hash_table_insert (groups, labels->pdata[i], group);
            }
          g_array_append_val (group, i);
        }
      g_hash_table_iter_init (&iter, groups);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          GArray *group = value;

          /* the same named frames all the way: no caller tells them apart */
          if (group->len < 2 || same_chains (chains, group))
            continue;
          for (guint g = 0; g < group->len; g++)
            {
              guint i = g_array_index (group, guint, g);

              if (depth[i] + 1 < ((const Chain *) chains->pdata[i])->frames->len)
                {
                  depth[i]++;
                  grew = TRUE;
                }
            }
        }
    }
  /* The same named frames all the way: numbered, in the given order. The
   * groups' keys are the labels, replaced last. */
  {
    GHashTableIter iter;
    gpointer value;

    g_hash_table_iter_init (&iter, groups);
    while (g_hash_table_iter_next (&iter, NULL, &value))
      {
        GArray *group = value;
        char *key = NULL;

        for (guint g = 0; group->len > 1 && g < group->len; g++)
          {
            guint i = g_array_index (group, guint, g);
            char *numbered = g_strdup_printf ("%s #%u", (const char *) labels->pdata[i], g + 1);

            /* the first one's label is the group's key: freed last */
            if (g == 0)
              key = labels->pdata[i];
            else
              g_free (labels->pdata[i]);
            labels->pdata[i] = numbered;
          }
        g_free (key);
      }
  }
  if (callers != NULL)
    {
      *callers = g_ptr_array_new_full (n_stacks, g_free);
      for (guint i = 0; i < n_stacks; i++)
        {
          g_ptr_array_add (*callers, next_caller (chains->pdata[i], depth[i]));
        }
    }
  return labels;
}
