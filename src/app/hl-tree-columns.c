/* hl-tree-columns.c — the call trees' columns as the chooser names them. */
#include "hl-config.h"

#include <glib/gi18n.h>

#include "hl-tree-columns.h"

/* In the tables' order: hl_tree_columns_id picks a cost's pair. */
static const char * const all_ids[] = {
  HL_TREE_COLUMN_FUNCTION, HL_TREE_COLUMN_LOCATION,
  "allocations", "allocations-self",
  "bytes", "bytes-self",
  "temporary", "temporary-self",
  "peak", "peak-self",
  "leaked", "leaked-self",
  "mmap", "mmap-self",
  NULL,
};
G_STATIC_ASSERT (G_N_ELEMENTS (all_ids) == 2 + 2 * HL_TREE_COLUMNS_N_COSTS + 1);
G_STATIC_ASSERT (HL_COST_KIND_ALLOCATIONS == 0 && HL_COST_KIND_BYTES == 1 && HL_COST_KIND_TEMPORARY == 2
                 && HL_COST_KIND_PEAK == 3 && HL_COST_KIND_LEAKED == 4 && HL_N_TREE_COSTS == 5);

/* Function, Location, the allocations and the bytes with their own
 * share, what was live at the peak and what leaked; mmap while the
 * selection maps something (the tables hide it otherwise). The other
 * Self columns and Temporary are a choice away. Keep in step with the
 * schema's tree-columns default. */
static const char * const default_ids[] = {
  HL_TREE_COLUMN_LOCATION, "allocations", "bytes", "bytes-self", "peak", "leaked", "mmap", NULL,
};

HlCostKind
hl_tree_columns_cost (guint i)
{
  g_return_val_if_fail (i < HL_TREE_COLUMNS_N_COSTS, HL_COST_KIND_BYTES);
  return i < HL_N_TREE_COSTS ? (HlCostKind) i : HL_COST_KIND_MMAP;
}

const char *
hl_tree_columns_id (HlCostKind cost,
                    gboolean   self_column)
{
  guint i = cost == HL_COST_KIND_MMAP ? HL_N_TREE_COSTS : (guint) cost;

  g_return_val_if_fail (i < HL_TREE_COLUMNS_N_COSTS, "");
  return all_ids[2 + 2 * i + (self_column ? 1 : 0)];
}

const char * const *
hl_tree_columns_all (void)
{
  return all_ids;
}

const char * const *
hl_tree_columns_default (void)
{
  return default_ids;
}

char **
hl_tree_columns_normalize (const char * const *columns)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  if (columns == NULL)
    columns = default_ids;
  for (guint i = 1; all_ids[i] != NULL; i++)
    if (g_strv_contains (columns, all_ids[i]))
      g_strv_builder_add (builder, all_ids[i]);
  return g_strv_builder_end (builder);
}

gboolean
hl_tree_columns_shows (const char * const *columns,
                       const char         *id)
{
  g_return_val_if_fail (id != NULL, FALSE);
  if (g_str_equal (id, HL_TREE_COLUMN_FUNCTION))
    return TRUE;
  return g_strv_contains (columns != NULL ? columns : default_ids, id);
}

char *
hl_tree_columns_label (const char *id)
{
  g_return_val_if_fail (id != NULL, NULL);
  if (g_str_equal (id, HL_TREE_COLUMN_FUNCTION))
    return g_strdup (_("Function"));
  if (g_str_equal (id, HL_TREE_COLUMN_LOCATION))
    /* Translators: column of a call tree, a function's source file and line, and its module */
    return g_strdup (_("Location"));
  for (guint i = 0; i < HL_TREE_COLUMNS_N_COSTS; i++)
    {
      HlCostKind cost = hl_tree_columns_cost (i);

      if (g_str_equal (id, hl_tree_columns_id (cost, FALSE)))
        return g_strdup (hl_cost_get_column_label (cost));
      if (g_str_equal (id, hl_tree_columns_id (cost, TRUE)))
        /* Translators: the column chooser's name of a cost's Self column
         * (and its header without the cost's total beside it), %s the
         * cost's column, e.g. "Leaked Self" */
        return g_strdup_printf (C_("column chooser", "%s Self"), hl_cost_get_column_label (cost));
    }
  g_return_val_if_reached (g_strdup (id));
}

char *
hl_tree_columns_self_title (const char * const *columns,
                            HlCostKind          cost)
{
  if (hl_tree_columns_shows (columns, hl_tree_columns_id (cost, FALSE)))
    return g_strdup (C_("column", "Self"));
  return hl_tree_columns_label (hl_tree_columns_id (cost, TRUE));
}

static void
append_item (GMenu      *section,
             const char *id)
{
  g_autofree char *label = hl_tree_columns_label (id);
  g_autofree char *action = g_strconcat (HL_TREE_COLUMNS_ACTION_PREFIX ".", id, NULL);

  g_menu_append (section, label, action);
}

GMenuModel *
hl_tree_columns_new_menu (void)
{
  GMenu *menu = g_menu_new ();
  g_autoptr(GMenu) names = g_menu_new ();

  /* the names, then a section per cost: its total and its Self */
  append_item (names, HL_TREE_COLUMN_FUNCTION);
  append_item (names, HL_TREE_COLUMN_LOCATION);
  g_menu_append_section (menu, NULL, G_MENU_MODEL (names));
  for (guint i = 0; i < HL_TREE_COLUMNS_N_COSTS; i++)
    {
      g_autoptr(GMenu) section = g_menu_new ();

      append_item (section, hl_tree_columns_id (hl_tree_columns_cost (i), FALSE));
      append_item (section, hl_tree_columns_id (hl_tree_columns_cost (i), TRUE));
      g_menu_append_section (menu, NULL, G_MENU_MODEL (section));
    }
  return G_MENU_MODEL (menu);
}

/* ---- Actions -------------------------------------------------------------- */

/* The actions' states: what OBJECT's "columns" shows now. */
static void
update_states (GObject      *object,
               GParamSpec   *pspec,
               GActionGroup *group)
{
  g_auto(GStrv) columns = NULL;

  g_object_get (object, "columns", &columns, NULL);
  for (guint i = 0; all_ids[i] != NULL; i++)
    {
      GAction *action = g_action_map_lookup_action (G_ACTION_MAP (group), all_ids[i]);
      gboolean shown = hl_tree_columns_shows ((const char * const *) columns, all_ids[i]);

      g_simple_action_set_state (G_SIMPLE_ACTION (action), g_variant_new_boolean (shown));
    }
}

/* A check item toggled: its column added to OBJECT's or taken off. */
static void
on_change_state (GSimpleAction *action,
                 GVariant      *state,
                 GObject       *object)
{
  const char *id = g_action_get_name (G_ACTION (action));
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) columns = NULL, chosen = NULL;

  g_object_get (object, "columns", &columns, NULL);
  for (guint i = 0; columns != NULL && columns[i] != NULL; i++)
    if (!g_str_equal (columns[i], id))
      g_strv_builder_add (builder, columns[i]);
  if (g_variant_get_boolean (state))
    g_strv_builder_add (builder, id);
  chosen = g_strv_builder_end (builder);
  /* the property notifies, and update_states checks the item */
  g_object_set (object, "columns", chosen, NULL);
}

void
hl_tree_columns_insert_actions (GtkWidget *widget)
{
  g_autoptr(GSimpleActionGroup) group = NULL;

  g_return_if_fail (GTK_IS_WIDGET (widget));
  g_return_if_fail (g_object_class_find_property (G_OBJECT_GET_CLASS (widget), "columns") != NULL);
  group = g_simple_action_group_new ();
  for (guint i = 0; all_ids[i] != NULL; i++)
    {
      g_autoptr(GSimpleAction) action = g_simple_action_new_stateful (all_ids[i], NULL, g_variant_new_boolean (TRUE));

      g_simple_action_set_enabled (action, !g_str_equal (all_ids[i], HL_TREE_COLUMN_FUNCTION));
      g_signal_connect_object (action, "change-state", G_CALLBACK (on_change_state), widget, 0);
      g_action_map_add_action (G_ACTION_MAP (group), G_ACTION (action));
    }
  /* the widget holds the group: no reference back */
  g_signal_connect_object (widget, "notify::columns", G_CALLBACK (update_states), group, 0);
  update_states (G_OBJECT (widget), NULL, G_ACTION_GROUP (group));
  gtk_widget_insert_action_group (widget, HL_TREE_COLUMNS_ACTION_PREFIX, G_ACTION_GROUP (group));
}
