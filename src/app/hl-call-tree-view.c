/* hl-call-tree-view.c — call tree tables. */
#include "hl-config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "hl-call-tree-view.h"
#include "hl-functions-view.h"
#include "hl-tree-column-widths.h"
#include "hl-tree-columns.h"
#include "hl-tree-level-sorter.h"
#include "hl-units.h"

struct _HlCallTreeView
{
  GtkWidget parent_instance;

  /* Template widgets */
  GtkDropDown   *mode_dropdown;
  GtkLabel      *focus_label;
  GtkColumnView *column_view;
  GtkLabel      *stack_label;
  GtkStack      *content_stack;
  HlFunctionsView *functions_view;
  GtkSearchEntry *function_search;
  GtkMenuButton  *columns_button;

  /* Owned */
  HlTreeRow          *root;
  GtkTreeListModel   *tree_model;
  GtkSingleSelection *selection;
  char              **columns;          /* the ids chosen, normalized */
  HlTreeColumnWidths  widths;
  gboolean            has_mmap;         /* the tree maps something */

  /* Borrowed: the column view has them; NULL for the costs without */
  GtkColumnViewColumn *location_column;
  GtkColumnViewColumn *total_columns[HL_N_COST_KINDS];
  GtkColumnViewColumn *self_columns[HL_N_COST_KINDS];
  HlCallTreeResolveFunc resolve;
  gpointer              resolve_data;
  GDestroyNotify        resolve_destroy;
};

enum {
  MODE_CHANGED,
  N_SIGNALS
};

enum {
  PROP_0,
  PROP_COLUMNS,
  N_PROPS
};

static guint signals[N_SIGNALS];
static GParamSpec *properties[N_PROPS];

/* A numeric column's cells: its cost, and the view that measures them. */
typedef struct
{
  HlCallTreeView *view;   /* borrowed: the view owns the column */
  HlCostKind      cost;
} Cell;

G_DEFINE_FINAL_TYPE (HlCallTreeView, hl_call_tree_view, GTK_TYPE_WIDGET)

char *
hl_call_tree_format_cell (HlTreeRow *row,
                          HlCostKind     cost)
{
  g_autofree char *value = hl_cost_format (cost, hl_tree_row_get_cost (row, cost));
  g_autofree char *pct = hl_format_percentage (hl_tree_row_get_cost (row, cost),
                                               hl_tree_row_get_total (row, cost));

  return g_strdup_printf ("%s  %s", value, pct);
}

char *
hl_call_tree_format_self_cell (HlTreeRow  *row,
                               HlCostKind  cost)
{
  if (!hl_tree_row_has_self (row))
    return g_strdup ("");
  return hl_cost_format (cost, hl_tree_row_get_self_cost (row, cost));
}

/* ---- Factories -------------------------------------------------------- */

static HlTreeRow *
row_of_item (GtkListItem *item)
{
  GtkTreeListRow *tree_row = gtk_list_item_get_item (item);

  return tree_row ? gtk_tree_list_row_get_item (tree_row) : NULL;
}

static void
setup_name (GtkSignalListItemFactory *factory,
            GtkListItem              *item)
{
  GtkWidget *expander = gtk_tree_expander_new ();
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  /* Ellipsized labels ask for almost nothing: ask for a readable name
   * (14 characters: the column expands, and leaves room for Location
   * and a Self column beside each cost at 1400 px). */
  gtk_label_set_width_chars (GTK_LABEL (label), 14);
  gtk_tree_expander_set_child (GTK_TREE_EXPANDER (expander), label);
  gtk_list_item_set_child (item, expander);
}

static void
bind_name (GtkSignalListItemFactory *factory,
           GtkListItem              *item)
{
  GtkWidget *expander = gtk_list_item_get_child (item);
  GtkWidget *label = gtk_tree_expander_get_child (GTK_TREE_EXPANDER (expander));
  g_autoptr(HlTreeRow) row = row_of_item (item);
  g_autofree char *tooltip = NULL;

  gtk_tree_expander_set_list_row (GTK_TREE_EXPANDER (expander), gtk_list_item_get_item (item));
  if (row == NULL)
    return;
  gtk_label_set_label (GTK_LABEL (label), hl_tree_row_get_name (row));
  tooltip = hl_tree_row_describe (row);
  gtk_widget_set_tooltip_text (label, tooltip);
  if (hl_tree_row_get_is_inline (row))
    gtk_widget_add_css_class (label, "dim-label");
  else
    gtk_widget_remove_css_class (label, "dim-label");
}

static GtkWidget *
new_cell_label (gboolean numeric)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), numeric ? 1.0 : 0.0);
  gtk_label_set_ellipsize (GTK_LABEL (label), numeric ? PANGO_ELLIPSIZE_NONE : PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (label, numeric ? "numeric" : "dim-label");
  return label;
}

static void
setup_module (GtkSignalListItemFactory *factory,
              GtkListItem              *item)
{
  gtk_list_item_set_child (item, new_cell_label (FALSE));
}

static void
setup_cost (GtkSignalListItemFactory *factory,
            GtkListItem              *item)
{
  gtk_list_item_set_child (item, new_cell_label (TRUE));
}

char *
hl_call_tree_format_location (HlTreeRow *row)
{
  const char *file = hl_tree_row_get_file (row);
  const char *module = hl_tree_row_get_module (row);
  g_autofree char *base = NULL, *place = NULL;

  if (file == NULL || file[0] == '\0')
    return g_strdup (module);
  base = g_path_get_basename (file);
  place = hl_tree_row_get_line (row) == 0 ? g_steal_pointer (&base)
                                          : g_strdup_printf ("%s:%u", base, hl_tree_row_get_line (row));
  if (module[0] == '\0')
    return g_steal_pointer (&place);
  /* Translators: a call tree's Location cell, e.g. "reader.c:42 · libfoo.so" */
  return g_strdup_printf (_("%s · %s"), place, module);
}

static void
bind_location (GtkSignalListItemFactory *factory,
               GtkListItem              *item)
{
  g_autoptr(HlTreeRow) row = row_of_item (item);
  g_autofree char *text = NULL, *tooltip = NULL;
  GtkWidget *label = gtk_list_item_get_child (item);

  if (row == NULL)
    return;
  text = hl_call_tree_format_location (row);
  gtk_label_set_label (GTK_LABEL (label), text);
  /* the whole path and module where the column cuts them */
  tooltip = hl_tree_row_describe (row);
  gtk_widget_set_tooltip_text (label, tooltip);
}

static void
bind_cost (GtkSignalListItemFactory *factory,
           GtkListItem              *item,
           Cell                     *cell)
{
  g_autoptr(HlTreeRow) row = row_of_item (item);
  g_autofree char *text = NULL;

  if (row == NULL)
    return;
  text = hl_call_tree_format_cell (row, cell->cost);
  gtk_label_set_label (GTK_LABEL (gtk_list_item_get_child (item)), text);
  hl_tree_column_widths_size_label (&cell->view->widths, GTK_WIDGET (cell->view->column_view),
                                    gtk_list_item_get_child (item), cell->cost, TRUE);
}

static void
bind_self_cost (GtkSignalListItemFactory *factory,
                GtkListItem              *item,
                Cell                     *cell)
{
  g_autoptr(HlTreeRow) row = row_of_item (item);
  g_autofree char *text = NULL;

  if (row == NULL)
    return;
  text = hl_call_tree_format_self_cell (row, cell->cost);
  gtk_label_set_label (GTK_LABEL (gtk_list_item_get_child (item)), text);
  hl_tree_column_widths_size_label (&cell->view->widths, GTK_WIDGET (cell->view->column_view),
                                    gtk_list_item_get_child (item), cell->cost, FALSE);
}

static int
compare_self_cost (gconstpointer a,
                   gconstpointer b,
                   gpointer      cost)
{
  guint64 ca = hl_tree_row_get_self_cost ((HlTreeRow *) a, GPOINTER_TO_UINT (cost));
  guint64 cb = hl_tree_row_get_self_cost ((HlTreeRow *) b, GPOINTER_TO_UINT (cost));

  return ca < cb ? -1 : ca > cb ? 1 : 0;
}

static int
compare_cost (gconstpointer a,
              gconstpointer b,
              gpointer      cost)
{
  guint64 ca = hl_tree_row_get_cost ((HlTreeRow *) a, GPOINTER_TO_UINT (cost));
  guint64 cb = hl_tree_row_get_cost ((HlTreeRow *) b, GPOINTER_TO_UINT (cost));

  return ca < cb ? -1 : ca > cb ? 1 : 0;
}

static int
compare_name (gconstpointer a,
              gconstpointer b,
              gpointer      user_data)
{
  return g_utf8_collate (hl_tree_row_get_name ((HlTreeRow *) a), hl_tree_row_get_name ((HlTreeRow *) b));
}

/* A column appended to the view (borrowed: the view has it); COST a
 * numeric column's cost, its cells' (COST_NONE: not numeric). */
#define COST_NONE G_MAXUINT

static GtkColumnViewColumn *
add_column (HlCallTreeView *self,
            const char     *title,
            GCallback       setup,
            GCallback       bind,
            guint           cost,
            GtkSorter      *sorter)
{
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
  GtkColumnViewColumn *column;

  g_signal_connect (factory, "setup", setup, NULL);
  if (cost != COST_NONE)
    {
      Cell *cell = g_new0 (Cell, 1);

      cell->view = self;
      cell->cost = cost;
      g_signal_connect_data (factory, "bind", bind, cell, (GClosureNotify) (void (*) (void)) g_free, 0);
    }
  else
    g_signal_connect (factory, "bind", bind, NULL);
  column = gtk_column_view_column_new (title, factory);
  gtk_column_view_column_set_resizable (column, TRUE);
  if (sorter != NULL)
    gtk_column_view_column_set_sorter (column, sorter);
  gtk_column_view_append_column (self->column_view, column);
  g_clear_object (&sorter);
  g_object_unref (column);
  return column;
}

static void
setup_columns (HlCallTreeView *self)
{
  GtkColumnViewColumn *column;

  column = add_column (self, _("Function"), G_CALLBACK (setup_name), G_CALLBACK (bind_name), COST_NONE,
                       GTK_SORTER (gtk_custom_sorter_new (compare_name, NULL, NULL)));
  /* the rest of the width: the names are ellipsized, never the numbers */
  gtk_column_view_column_set_expand (column, TRUE);
  /* Translators: column of a call tree, a function's source file and line, and its module */
  self->location_column = add_column (self, _("Location"), G_CALLBACK (setup_module), G_CALLBACK (bind_location),
                                      COST_NONE, NULL);
  gtk_column_view_column_set_fixed_width (self->location_column, 130);

  /* Per cost, the total (the row and everything it calls) and the row's
   * own share, as heaptrack shows them: total = self + the children's;
   * then the program's own mappings still held, shown when the selection
   * has some (hl_call_tree_view_set_root). Which of them are shown is
   * the chooser's (hl_call_tree_view_set_columns). */
  for (guint i = 0; i < HL_TREE_COLUMNS_N_COSTS; i++)
    {
      HlCostKind c = hl_tree_columns_cost (i);

      self->total_columns[c] = add_column (self, hl_cost_get_column_label (c), G_CALLBACK (setup_cost),
                                           G_CALLBACK (bind_cost), c,
                                           GTK_SORTER (gtk_custom_sorter_new (compare_cost, GUINT_TO_POINTER (c), NULL)));
      /* Translators: column of a call tree, a function's own cost without
       * its callees', right of the cost's total column */
      self->self_columns[c] = add_column (self, C_("column", "Self"), G_CALLBACK (setup_cost),
                                          G_CALLBACK (bind_self_cost), c,
                                          GTK_SORTER (gtk_custom_sorter_new (compare_self_cost,
                                                                             GUINT_TO_POINTER (c), NULL)));
    }
}

/* ---- Columns shown ------------------------------------------------------ */

/* Shows the columns chosen (mmap's while the tree maps something); a
 * Self column without its total beside it is named in full, "Leaked
 * Self". The Callers/Callees tables follow. */
static void
update_columns (HlCallTreeView *self)
{
  const char * const *columns = (const char * const *) self->columns;

  gtk_column_view_column_set_visible (self->location_column, hl_tree_columns_shows (columns, HL_TREE_COLUMN_LOCATION));
  for (guint i = 0; i < HL_TREE_COLUMNS_N_COSTS; i++)
    {
      HlCostKind c = hl_tree_columns_cost (i);
      gboolean available = c != HL_COST_KIND_MMAP || self->has_mmap;
      g_autofree char *title = hl_tree_columns_self_title (columns, c);

      gtk_column_view_column_set_visible (self->total_columns[c],
                                          available && hl_tree_columns_shows (columns, hl_tree_columns_id (c, FALSE)));
      gtk_column_view_column_set_visible (self->self_columns[c],
                                          available && hl_tree_columns_shows (columns, hl_tree_columns_id (c, TRUE)));
      gtk_column_view_column_set_title (self->self_columns[c], title);
    }
  hl_functions_view_set_columns (self->functions_view, columns);
}

const char * const *
hl_call_tree_view_get_columns (HlCallTreeView *self)
{
  g_return_val_if_fail (HL_IS_CALL_TREE_VIEW (self), NULL);
  return (const char * const *) self->columns;
}

void
hl_call_tree_view_set_columns (HlCallTreeView     *self,
                               const char * const *columns)
{
  g_auto(GStrv) chosen = NULL;

  g_return_if_fail (HL_IS_CALL_TREE_VIEW (self));
  chosen = hl_tree_columns_normalize (columns);
  if (self->columns != NULL && g_strv_equal ((const char * const *) self->columns, (const char * const *) chosen))
    return;
  g_strfreev (self->columns);
  self->columns = g_steal_pointer (&chosen);
  update_columns (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COLUMNS]);
}

/* The Columns menu: its actions set the "columns" property. */
static void
setup_chooser (HlCallTreeView *self)
{
  g_autoptr(GMenuModel) menu = hl_tree_columns_new_menu ();

  hl_tree_columns_insert_actions (GTK_WIDGET (self));
  gtk_menu_button_set_menu_model (self->columns_button, menu);
}

/* ---- Model ------------------------------------------------------------ */

static GListModel *
create_children (gpointer item,
                 gpointer user_data)
{
  return hl_tree_row_create_children (HL_TREE_ROW (item));
}

static void
update_stack (HlCallTreeView *self)
{
  g_autoptr(HlTreeRow) row = hl_call_tree_view_get_selected (self);
  GString *text;
  guint i = 0;

  if (row == NULL)
    {
      gtk_label_set_label (self->stack_label, _("Select a row to see its full stack."));
      return;
    }
  /* From the selected frame up to the top-level row, innermost first. */
  text = g_string_new (NULL);
  for (HlTreeRow *r = row; r != NULL && hl_tree_row_get_parent (r) != NULL; r = hl_tree_row_get_parent (r), i++)
    {
      g_autofree char *line = hl_tree_row_describe (r);
      g_string_append_printf (text, "%s#%u  %s", i ? "\n" : "", i, line);
    }
  gtk_label_set_label (self->stack_label, text->str);
  g_string_free (text, TRUE);
}

static void
on_selection_changed (HlCallTreeView *self)
{
  update_stack (self);
}

void
hl_call_tree_view_set_root (HlCallTreeView *self,
                            HlTreeRow      *root)
{
  GListModel *top;
  GtkSortListModel *sorted;
  HlTreeLevelSorter *row_sorter;

  g_return_if_fail (HL_IS_CALL_TREE_VIEW (self));

  g_set_object (&self->root, root);
  self->has_mmap = root != NULL && hl_tree_row_get_total (root, HL_COST_KIND_MMAP) > 0;
  update_columns (self);
  /* no row has more allocations than the whole tree */
  hl_tree_column_widths_set_max_count (&self->widths,
                                       root != NULL ? hl_tree_row_get_total (root, HL_COST_KIND_ALLOCATIONS) : 0);
  top = root ? hl_tree_row_create_children (root) : NULL;
  if (top == NULL)
    top = G_LIST_MODEL (g_list_store_new (HL_TYPE_TREE_ROW));

  g_clear_object (&self->tree_model);
  self->tree_model = gtk_tree_list_model_new (top, FALSE, FALSE, create_children, NULL, NULL);
  row_sorter = hl_tree_level_sorter_new (g_object_ref (gtk_column_view_get_sorter (self->column_view)));
  sorted = gtk_sort_list_model_new (g_object_ref (G_LIST_MODEL (self->tree_model)), GTK_SORTER (row_sorter));
  if (self->selection != NULL)
    g_signal_handlers_disconnect_by_data (self->selection, self);
  g_clear_object (&self->selection);
  self->selection = gtk_single_selection_new (G_LIST_MODEL (sorted));
  gtk_single_selection_set_autoselect (self->selection, FALSE);
  gtk_single_selection_set_can_unselect (self->selection, TRUE);
  gtk_single_selection_set_selected (self->selection, GTK_INVALID_LIST_POSITION);
  g_signal_connect_swapped (self->selection, "notify::selected", G_CALLBACK (on_selection_changed), self);
  gtk_column_view_set_model (self->column_view, GTK_SELECTION_MODEL (self->selection));
  update_stack (self);
}

GListModel *
hl_call_tree_view_get_rows (HlCallTreeView *self)
{
  g_return_val_if_fail (HL_IS_CALL_TREE_VIEW (self), NULL);
  return self->selection ? G_LIST_MODEL (self->selection) : NULL;
}

GtkColumnView *
hl_call_tree_view_get_column_view (HlCallTreeView *self)
{
  g_return_val_if_fail (HL_IS_CALL_TREE_VIEW (self), NULL);
  return self->column_view;
}

const char *
hl_call_tree_view_get_stack_text (HlCallTreeView *self)
{
  g_return_val_if_fail (HL_IS_CALL_TREE_VIEW (self), NULL);
  return gtk_label_get_label (self->stack_label);
}

HlTreeRow *
hl_call_tree_view_get_selected (HlCallTreeView *self)
{
  GtkTreeListRow *row;

  g_return_val_if_fail (HL_IS_CALL_TREE_VIEW (self), NULL);
  if (self->selection == NULL)
    return NULL;
  row = gtk_single_selection_get_selected_item (self->selection);
  return row ? gtk_tree_list_row_get_item (row) : NULL;
}

void
hl_call_tree_view_sort_by_cost (HlCallTreeView *self,
                                HlCostKind          cost)
{
  g_return_if_fail (HL_IS_CALL_TREE_VIEW (self));
  g_return_if_fail (cost < HL_N_TREE_COSTS);
  gtk_column_view_sort_by_column (self->column_view, self->total_columns[cost], GTK_SORT_DESCENDING);
}

/* Expands the rows along NAMES from the top level down; *POSITION: the
 * last one found (GTK_INVALID_LIST_POSITION: none). The names found. */
static guint
open_path (HlCallTreeView     *self,
           const char * const *names,
           guint               n_names,
           guint              *position)
{
  GListModel *rows = hl_call_tree_view_get_rows (self);
  guint found = 0, start = 0;

  *position = GTK_INVALID_LIST_POSITION;
  if (rows == NULL)
    return 0;
  /* Rows are sorted and expanding inserts children right after their
   * parent: search each name among the rows one level deeper. */
  while (found < n_names)
    {
      guint n = g_list_model_get_n_items (rows);
      gboolean hit = FALSE;

      for (guint i = start; i < n; i++)
        {
          g_autoptr(GtkTreeListRow) row = g_list_model_get_item (rows, i);
          g_autoptr(HlTreeRow) item = gtk_tree_list_row_get_item (row);
          guint depth = gtk_tree_list_row_get_depth (row);

          if (depth < found)
            break;  /* left the parent's subtree */
          if (depth == found && g_str_equal (hl_tree_row_get_name (item), names[found]))
            {
              gtk_tree_list_row_set_expanded (row, TRUE);
              *position = i;
              start = i + 1;
              hit = TRUE;
              break;
            }
        }
      if (!hit)
        break;
      found++;
    }
  return found;
}

guint
hl_call_tree_view_reveal_path (HlCallTreeView     *self,
                               const char * const *names,
                               guint               n_names)
{
  guint position, found;

  g_return_val_if_fail (HL_IS_CALL_TREE_VIEW (self), 0);
  found = open_path (self, names, n_names, &position);
  if (position != GTK_INVALID_LIST_POSITION)
    gtk_single_selection_set_selected (self->selection, position);
  return found;
}

void
hl_call_tree_view_set_resolver (HlCallTreeView        *self,
                                HlCallTreeResolveFunc  func,
                                gpointer               user_data,
                                GDestroyNotify         destroy)
{
  g_return_if_fail (HL_IS_CALL_TREE_VIEW (self));
  if (self->resolve_destroy != NULL)
    self->resolve_destroy (self->resolve_data);
  self->resolve = func;
  self->resolve_data = user_data;
  self->resolve_destroy = destroy;
}

/* ROW's names from the top level down (a new GStrv); a frame not
 * symbolized named as the resolver says. */
static char **
path_of (HlCallTreeView *self,
         GtkTreeListRow *row)
{
  GPtrArray *names = g_ptr_array_new ();
  GtkTreeListRow *r = g_object_ref (row);

  while (r != NULL)
    {
      g_autoptr(HlTreeRow) item = gtk_tree_list_row_get_item (r);
      GtkTreeListRow *parent = gtk_tree_list_row_get_parent (r);

      g_auto(GStrv) resolved = NULL;

      if (item != NULL && hl_tree_row_get_address (item) != 0 && self->resolve != NULL)
        resolved = self->resolve (self->resolve_data, hl_tree_row_get_address (item));
      if (resolved != NULL && resolved[0] != NULL)
        for (guint k = g_strv_length (resolved); k > 0; k--)
          g_ptr_array_insert (names, 0, g_strdup (resolved[k - 1]));
      else
        g_ptr_array_insert (names, 0, g_strdup (item != NULL ? hl_tree_row_get_name (item) : ""));
      g_object_unref (r);
      r = parent;
    }
  g_ptr_array_add (names, NULL);
  return (char **) g_ptr_array_free (names, FALSE);
}

GPtrArray *
hl_call_tree_view_get_open_paths (HlCallTreeView   *self,
                                  char           ***selected)
{
  GPtrArray *paths = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  GListModel *rows;
  guint n, sel;

  g_return_val_if_fail (HL_IS_CALL_TREE_VIEW (self), paths);
  *selected = NULL;
  rows = hl_call_tree_view_get_rows (self);
  if (rows == NULL)
    return paths;
  n = g_list_model_get_n_items (rows);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GtkTreeListRow) row = g_list_model_get_item (rows, i);

      if (gtk_tree_list_row_get_expanded (row))
        g_ptr_array_add (paths, path_of (self, row));
    }
  sel = gtk_single_selection_get_selected (self->selection);
  if (sel != GTK_INVALID_LIST_POSITION && sel < n)
    {
      g_autoptr(GtkTreeListRow) row = g_list_model_get_item (rows, sel);
      *selected = path_of (self, row);
    }
  return paths;
}

guint
hl_call_tree_view_open_paths (HlCallTreeView     *self,
                              GPtrArray          *paths,
                              const char * const *selected)
{
  guint opened = 0, position;

  g_return_val_if_fail (HL_IS_CALL_TREE_VIEW (self), 0);
  for (guint i = 0; paths != NULL && i < paths->len; i++)
    {
      const char * const *names = g_ptr_array_index (paths, i);
      guint n = g_strv_length ((char **) names);

      if (open_path (self, names, n, &position) == n)
        opened++;
    }
  if (selected != NULL && opened > 0)
    hl_call_tree_view_reveal_path (self, selected, g_strv_length ((char **) selected));
  return opened;
}

guint
hl_call_tree_view_expand_heaviest (HlCallTreeView *self,
                                   guint           max_depth)
{
  GListModel *rows;
  guint position = 0, depth = 0;

  g_return_val_if_fail (HL_IS_CALL_TREE_VIEW (self), 0);
  rows = hl_call_tree_view_get_rows (self);
  if (rows == NULL || g_list_model_get_n_items (rows) == 0)
    return 0;

  /* The rows are sorted by the chosen column, heaviest first, and an
   * expanded row's children follow it: the heaviest child of the row at
   * POSITION is at POSITION + 1. */
  while (depth < max_depth && position < g_list_model_get_n_items (rows))
    {
      g_autoptr(GtkTreeListRow) row = g_list_model_get_item (rows, position);

      if (gtk_tree_list_row_get_depth (row) != depth || !gtk_tree_list_row_is_expandable (row))
        break;
      gtk_tree_list_row_set_expanded (row, TRUE);
      depth++;
      position++;
    }
  return depth;
}

guint
hl_call_tree_view_expand_all (HlCallTreeView *self)
{
  GListModel *rows;
  guint i;

  g_return_val_if_fail (HL_IS_CALL_TREE_VIEW (self), 0);
  if (self->tree_model == NULL)
    return 0;
  rows = G_LIST_MODEL (self->tree_model);
  /* a row's children come right after it: one pass opens them all */
  for (i = 0; i < g_list_model_get_n_items (rows) && i < HL_CALL_TREE_EXPAND_ALL_MAX; i++)
    {
      g_autoptr(GtkTreeListRow) row = g_list_model_get_item (rows, i);

      gtk_tree_list_row_set_expanded (row, TRUE);
    }
  return g_list_model_get_n_items (rows);
}

static void
expand_all_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  hl_call_tree_view_expand_all (HL_CALL_TREE_VIEW (widget));
}

/* ---- Mode ------------------------------------------------------------- */

HlCallTreeMode
hl_call_tree_view_get_mode (HlCallTreeView *self)
{
  g_return_val_if_fail (HL_IS_CALL_TREE_VIEW (self), 0);
  return (HlCallTreeMode) gtk_drop_down_get_selected (self->mode_dropdown);
}

void
hl_call_tree_view_set_mode (HlCallTreeView *self,
                            HlCallTreeMode  mode)
{
  g_return_if_fail (HL_IS_CALL_TREE_VIEW (self));
  gtk_drop_down_set_selected (self->mode_dropdown, mode);
}

static void
update_mode (HlCallTreeView *self)
{
  gboolean functions = hl_call_tree_view_get_mode (self) == HL_CALL_TREE_MODE_CALLER_CALLEE;

  /* Callers/Callees is a flat list of functions, not a tree: its search
   * and count in the bar, where Expand All has nothing to open */
  gtk_stack_set_visible_child_name (self->content_stack, functions ? "functions" : "tree");
  gtk_widget_set_visible (GTK_WIDGET (self->function_search), functions);
  gtk_label_set_label (self->focus_label, functions ? hl_functions_view_get_count_text (self->functions_view) : "");
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->focus_label),
                               functions ? _("Self: allocated by the function itself. Total: by it and its callees, "
                                             "each stack once even when the function recurses.")
                                         : NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "tree.expand-all", !functions);
}

static void
on_function_search_changed (HlCallTreeView *self)
{
  hl_functions_view_set_search (self->functions_view, gtk_editable_get_text (GTK_EDITABLE (self->function_search)));
}

/* The list cleared its search (a caller chosen that it hid). */
static void
on_functions_search (HlCallTreeView *self)
{
  const char *search = hl_functions_view_get_search (self->functions_view);

  if (g_strcmp0 (search != NULL ? search : "", gtk_editable_get_text (GTK_EDITABLE (self->function_search))) != 0)
    gtk_editable_set_text (GTK_EDITABLE (self->function_search), search != NULL ? search : "");
}

GtkEditable *
hl_call_tree_view_get_function_search (HlCallTreeView *self)
{
  g_return_val_if_fail (HL_IS_CALL_TREE_VIEW (self), NULL);
  return GTK_EDITABLE (self->function_search);
}

HlFunctionsView *
hl_call_tree_view_get_functions_view (HlCallTreeView *self)
{
  g_return_val_if_fail (HL_IS_CALL_TREE_VIEW (self), NULL);
  return self->functions_view;
}

static void
on_mode_selected (HlCallTreeView *self)
{
  g_autoptr(HlTreeRow) selected = hl_call_tree_view_get_selected (self);

  /* Switching to callers/callees chooses the selected row's function. */
  if (hl_call_tree_view_get_mode (self) == HL_CALL_TREE_MODE_CALLER_CALLEE && selected != NULL)
    hl_functions_view_set_focus (self->functions_view, hl_tree_row_get_name (selected));
  update_mode (self);
  g_signal_emit (self, signals[MODE_CHANGED], 0);
}

/* ---- GObject ---------------------------------------------------------- */

static void
hl_call_tree_view_dispose (GObject *object)
{
  HlCallTreeView *self = HL_CALL_TREE_VIEW (object);
  GtkWidget *child;

  if (self->selection != NULL)
    g_signal_handlers_disconnect_by_data (self->selection, self);
  if (self->column_view != NULL)
    gtk_column_view_set_model (self->column_view, NULL);
  g_clear_object (&self->selection);
  g_clear_object (&self->tree_model);
  g_clear_object (&self->root);
  g_clear_pointer (&self->columns, g_strfreev);
  hl_tree_column_widths_clear (&self->widths);
  hl_call_tree_view_set_resolver (self, NULL, NULL, NULL);
  gtk_widget_dispose_template (GTK_WIDGET (self), HL_TYPE_CALL_TREE_VIEW);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (hl_call_tree_view_parent_class)->dispose (object);
}

static void
hl_call_tree_view_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  HlCallTreeView *self = HL_CALL_TREE_VIEW (object);

  switch (prop_id)
    {
    case PROP_COLUMNS:
      g_value_set_boxed (value, self->columns);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hl_call_tree_view_set_property (GObject      *object,
                                guint         prop_id,
                                const GValue *value,
                                GParamSpec   *pspec)
{
  HlCallTreeView *self = HL_CALL_TREE_VIEW (object);

  switch (prop_id)
    {
    case PROP_COLUMNS:
      hl_call_tree_view_set_columns (self, g_value_get_boxed (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hl_call_tree_view_class_init (HlCallTreeViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = hl_call_tree_view_dispose;
  object_class->get_property = hl_call_tree_view_get_property;
  object_class->set_property = hl_call_tree_view_set_property;

  /* The ids of the columns shown (hl-tree-columns.h), in the tables'
   * order; NULL sets the defaults. The window binds it to the
   * tree-columns setting. */
  properties[PROP_COLUMNS] =
    g_param_spec_boxed ("columns", NULL, NULL, G_TYPE_STRV,
                        G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* The mode changed: the owner supplies a new root, or the functions. */
  signals[MODE_CHANGED] =
    g_signal_new ("mode-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  g_type_ensure (HL_TYPE_FUNCTIONS_VIEW);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/heaplens/Heaplens/ui/hl-call-tree-view.ui");
  gtk_widget_class_bind_template_child (widget_class, HlCallTreeView, mode_dropdown);
  gtk_widget_class_bind_template_child (widget_class, HlCallTreeView, focus_label);
  gtk_widget_class_bind_template_child (widget_class, HlCallTreeView, column_view);
  gtk_widget_class_bind_template_child (widget_class, HlCallTreeView, stack_label);
  gtk_widget_class_bind_template_child (widget_class, HlCallTreeView, content_stack);
  gtk_widget_class_bind_template_child (widget_class, HlCallTreeView, functions_view);
  gtk_widget_class_bind_template_child (widget_class, HlCallTreeView, function_search);
  gtk_widget_class_bind_template_child (widget_class, HlCallTreeView, columns_button);
  gtk_widget_class_bind_template_callback (widget_class, on_function_search_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_mode_selected);
  gtk_widget_class_install_action (widget_class, "tree.expand-all", NULL, expand_all_action);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
hl_call_tree_view_init (HlCallTreeView *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  setup_columns (self);
  hl_call_tree_view_set_columns (self, NULL);
  setup_chooser (self);
  hl_call_tree_view_set_root (self, NULL);
  hl_call_tree_view_sort_by_cost (self, HL_COST_KIND_BYTES);
  g_signal_connect_object (self->functions_view, "notify::count-text", G_CALLBACK (update_mode), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->functions_view, "notify::search", G_CALLBACK (on_functions_search), self,
                           G_CONNECT_SWAPPED);
  update_mode (self);
}
