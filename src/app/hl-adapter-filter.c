/* hl-adapter-filter.c — the view state's filters as the model's HlFilter,
 * and the filter menu. */
#include "hl-config.h"

#include <string.h>
#include <glib/gi18n.h>

#include "hl-adapter-filter.h"

HlFilter *
hl_adapter_filter (HlViewState *session,
                   guint64    live_at_ns)
{
  g_autoptr(HlFilter) filter = hl_filter_new ();
  const guint *threads;
  guint n;
  guint64 t0, t1;

#define APPLY(expr) G_STMT_START { HlFilter *next_ = (expr); hl_filter_unref (filter); filter = next_; } G_STMT_END
  if (hl_view_state_get_range (session, &t0, &t1))
    APPLY (hl_filter_with_time_range (filter, t0, t1));
  if (live_at_ns != HL_TIME_NONE)
    APPLY (hl_filter_with_live_at (filter, live_at_ns));
  threads = hl_view_state_get_threads (session, &n);
  for (guint i = 0; i < n; i++)
    APPLY (hl_filter_with_thread (filter, threads[i]));
  APPLY (hl_adapter_filter_labels (session, filter));
#undef APPLY
  return g_steal_pointer (&filter);
}

HlFilter *
hl_adapter_filter_labels (HlViewState *session,
                          HlFilter  *base)
{
  HlFilter *filter = hl_filter_ref (base);
  const char * const *modules;

#define APPLY(expr) G_STMT_START { HlFilter *next_ = (expr); hl_filter_unref (filter); filter = next_; } G_STMT_END
  for (guint i = 0; i < hl_view_state_get_n_metadata (session); i++)
    {
      const char *key, *value;
      hl_view_state_get_metadata (session, i, &key, &value);
      APPLY (hl_filter_with_metadata (filter, key, value));
    }
  modules = hl_view_state_get_modules (session);
  for (guint i = 0; modules[i] != NULL; i++)
    APPLY (hl_filter_with_module (filter, modules[i]));
  for (guint i = 0; i < hl_view_state_get_n_functions (session); i++)
    {
      const char *pattern;
      gboolean regex;
      HlFilter *next;

      hl_view_state_get_function (session, i, &pattern, &regex);
      /* a pattern is checked before it is added: a bad one is skipped */
      next = regex ? hl_filter_with_function_regex (filter, pattern, NULL) : hl_filter_with_function (filter, pattern);
      if (next != NULL)
        {
          hl_filter_unref (filter);
          filter = next;
        }
    }
  {
    guint64 lo, hi;

    if (hl_view_state_get_size_range (session, &lo, &hi))
      APPLY (hl_filter_with_size_range (filter, lo, hi));
  }
#undef APPLY
  return filter;
}

/* Values of one metadata key offered in the filter menu: all of them
 * inline up to MENU_INLINE_VALUES, else the first MENU_MAX_VALUES in a submenu. */
#define MENU_INLINE_VALUES 6
#define MENU_MAX_VALUES    40

GMenuModel *
hl_adapter_filter_menu (HlRecording *recording)
{
  GMenu *menu = g_menu_new ();
  g_autoptr(GMenu) threads = g_menu_new ();
  g_autoptr(GMenu) metadata = g_menu_new ();
  g_autoptr(GMenu) modules = g_menu_new ();
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  const HlThreadInfo *t;
  const HlMetaInterval *m;
  const HlModuleInfo *mods;
  guint n;

  t = hl_recording_get_threads (recording, &n);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *label = t[i].name && t[i].name[0]
                                 ? g_strdup_printf ("%s (%u)", t[i].name, t[i].tid)
                                 : g_strdup_printf (_("Thread %u"), t[i].tid);
      g_autoptr(GMenuItem) item = g_menu_item_new (label, NULL);
      g_menu_item_set_action_and_target_value (item, "win.filter-thread", g_variant_new_uint32 (t[i].tid));
      g_menu_append_item (threads, item);
    }

  /* Metadata: a key with a few values lists them; a key with many (a
   * request number, a document index) gets a submenu of its first ones,
   * so that the phases and the modules stay in sight. */
  m = hl_recording_get_metadata_intervals (recording, &n);
  {
    g_autoptr(GPtrArray) keys = g_ptr_array_new ();                     /* borrowed, in order */
    g_autoptr(GHashTable) values = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                                          (GDestroyNotify) g_ptr_array_unref);

    for (guint i = 0; i < n; i++)
      {
        GPtrArray *list = g_hash_table_lookup (values, m[i].key);
        g_autofree char *pair = g_strdup_printf ("%s=%s", m[i].key, m[i].value);

        if (list == NULL)
          {
            list = g_ptr_array_new ();
            g_hash_table_insert (values, (gpointer) m[i].key, list);
            g_ptr_array_add (keys, (gpointer) m[i].key);
          }
        if (list->len < MENU_MAX_VALUES && !g_hash_table_contains (seen, pair))
          {
            g_ptr_array_add (list, (gpointer) m[i].value);
            g_hash_table_add (seen, g_steal_pointer (&pair));
          }
      }
    for (guint k = 0; k < keys->len; k++)
      {
        const char *key = g_ptr_array_index (keys, k);
        GPtrArray *list = g_hash_table_lookup (values, key);
        g_autoptr(GMenu) target = list->len > MENU_INLINE_VALUES ? g_menu_new () : g_object_ref (metadata);

        for (guint v = 0; v < list->len; v++)
          {
            g_autofree char *pair = g_strdup_printf ("%s=%s", key, (const char *) g_ptr_array_index (list, v));
            g_autoptr(GMenuItem) item = g_menu_item_new (pair, NULL);

            g_menu_item_set_action_and_target_value (item, "win.filter-metadata", g_variant_new_string (pair));
            g_menu_append_item (target, item);
          }
        if (target != metadata)
          g_menu_append_submenu (metadata, key, G_MENU_MODEL (target));
      }
  }

  mods = hl_recording_get_modules (recording, &n);
  g_hash_table_remove_all (seen);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GMenuItem) item = NULL;

      if (mods[i].name == NULL || mods[i].name[0] == '\0' || g_hash_table_contains (seen, mods[i].name))
        continue;
      item = g_menu_item_new (mods[i].name, NULL);
      g_menu_item_set_action_and_target_value (item, "win.filter-module", g_variant_new_string (mods[i].name));
      g_menu_append_item (modules, item);
      g_hash_table_add (seen, g_strdup (mods[i].name));
    }

  {
    g_autoptr(GMenu) by = g_menu_new ();

    /* first, above lists that can be long: the CLI's --filter
     * function=, function~= and size= */
    g_menu_append (by, _("_Function…"), "win.filter-function");
    g_menu_append (by, _("_Size Range…"), "win.filter-size");
    g_menu_append_section (menu, _("Filter By"), G_MENU_MODEL (by));
  }
  if (g_menu_model_get_n_items (G_MENU_MODEL (threads)) > 0)
    g_menu_append_section (menu, _("Threads"), G_MENU_MODEL (threads));
  if (g_menu_model_get_n_items (G_MENU_MODEL (metadata)) > 0)
    g_menu_append_section (menu, _("Metadata"), G_MENU_MODEL (metadata));
  if (g_menu_model_get_n_items (G_MENU_MODEL (modules)) > 0)
    g_menu_append_section (menu, _("Modules"), G_MENU_MODEL (modules));
  {
    g_autoptr(GMenu) clear = g_menu_new ();

    g_menu_append (clear, _("_Remove All Filters"), "win.clear-filters");
    g_menu_append_section (menu, NULL, G_MENU_MODEL (clear));
  }
  return G_MENU_MODEL (menu);
}
