/* hl-functions-view.c — Callers/Callees: the flat function list, its
 * callers and its callees (see hl-functions-view.h). */
#include "hl-config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "hl-functions-view.h"
#include "hl-tree-column-widths.h"
#include "hl-tree-columns.h"
#include "hl-units.h"

struct _HlFunctionsView
{
  GtkWidget parent_instance;

  /* Template widgets */
  GtkColumnView  *function_list;
  GtkColumnView  *callers_list;
  GtkColumnView  *callees_list;
  GtkLabel       *callers_heading;
  GtkLabel       *callees_heading;

  /* Owned */
  GListStore          *empty;          /* before any list */
  GtkSortListModel    *sorted;         /* the rows by the list's sorter */
  GtkStringFilter     *name_filter;
  GtkFilterListModel  *filtered;       /* … and the search */
  GtkSingleSelection  *selection;
  GtkSingleSelection  *callers;
  GtkSingleSelection  *callees;
  GtkColumnViewColumn *location_column;                  /* borrowed */
  GtkColumnViewColumn *total_columns[HL_N_TREE_COSTS];   /* borrowed */
  GtkColumnViewColumn *self_columns[HL_N_TREE_COSTS];    /* borrowed */
  GtkColumnViewColumn *edge_columns[2][HL_N_TREE_COSTS]; /* borrowed: callers', callees' */
  HlTreeColumnWidths   widths;
  char                *focus;          /* a name to choose */
  char                *chosen_name;    /* the function chosen, to keep */
  char                *chosen_module;
  char                *search;         /* the names searched, NULL: all */
  char                *count_text;     /* "12 of 1,024 functions" */
  guint64              totals[HL_N_COST_KINDS];
};

enum {
  FUNCTION_SELECTED,
  N_SIGNALS
};

enum {
  PROP_0,
  PROP_SEARCH,
  PROP_COUNT_TEXT,
  N_PROPS
};

static guint signals[N_SIGNALS];
static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (HlFunctionsView, hl_functions_view, GTK_TYPE_WIDGET)

/* ---- Cells ------------------------------------------------------------- */

typedef enum
{
  CELL_NAME,
  CELL_LOCATION,
  CELL_TOTAL,          /* "12.3 MiB  45.1 %" */
  CELL_SELF,           /* "12.3 MiB" */
  CELL_EDGE,           /* a caller's or callee's cost: "12.3 MiB" */
} CellKind;

typedef struct
{
  HlFunctionsView *view;   /* borrowed: the view owns the column */
  CellKind         kind;
  HlCostKind       cost;
} Cell;

static void
setup_cell (GtkSignalListItemFactory *factory,
            GtkListItem              *item,
            Cell                     *cell)
{
  GtkWidget *label = gtk_label_new (NULL);
  gboolean numeric = cell->kind >= CELL_TOTAL;

  gtk_label_set_xalign (GTK_LABEL (label), numeric ? 1.0 : 0.0);
  gtk_label_set_ellipsize (GTK_LABEL (label), numeric ? PANGO_ELLIPSIZE_NONE : PANGO_ELLIPSIZE_END);
  if (cell->kind == CELL_NAME)
    gtk_label_set_width_chars (GTK_LABEL (label), 14);
  gtk_widget_add_css_class (label, numeric ? "numeric" : cell->kind == CELL_LOCATION ? "dim-label" : "hl-function");
  gtk_list_item_set_child (item, label);
}

static void
bind_cell (GtkSignalListItemFactory *factory,
           GtkListItem              *item,
           Cell                     *cell)
{
  HlFunctionRow *row = gtk_list_item_get_item (item);
  GtkLabel *label = GTK_LABEL (gtk_list_item_get_child (item));
  g_autofree char *text = NULL, *tooltip = NULL;

  if (row == NULL)
    return;
  switch (cell->kind)
    {
    case CELL_NAME:
      text = g_strdup (hl_function_row_get_name (row));
      tooltip = hl_function_row_describe (row);
      break;
    case CELL_LOCATION:
      text = hl_function_row_format_location (row);
      tooltip = hl_function_row_describe (row);
      break;
    case CELL_TOTAL:
      {
        guint64 v = hl_function_row_get_total (row, cell->cost);
        g_autofree char *value = hl_cost_format (cell->cost, v);
        g_autofree char *pct = hl_format_percentage (v, cell->view->totals[cell->cost]);

        text = g_strdup_printf ("%s  %s", value, pct);
      }
      break;
    case CELL_SELF:
      text = hl_cost_format (cell->cost, hl_function_row_get_self (row, cell->cost));
      break;
    case CELL_EDGE:
      text = hl_cost_format (cell->cost, hl_function_row_get_total (row, cell->cost));
      break;
    default:
      g_assert_not_reached ();
    }
  gtk_label_set_label (label, text);
  gtk_widget_set_tooltip_text (GTK_WIDGET (label), tooltip);
  /* as wide as the column's widest value, whichever rows are in view */
  if (cell->kind >= CELL_TOTAL)
    hl_tree_column_widths_size_label (&cell->view->widths, GTK_WIDGET (cell->view->function_list), GTK_WIDGET (label),
                                      cell->cost, cell->kind == CELL_TOTAL);
}

static int
compare_total (gconstpointer a,
               gconstpointer b,
               gpointer      cost)
{
  guint64 x = hl_function_row_get_total ((HlFunctionRow *) a, GPOINTER_TO_UINT (cost));
  guint64 y = hl_function_row_get_total ((HlFunctionRow *) b, GPOINTER_TO_UINT (cost));

  return x < y ? -1 : x > y;
}

static int
compare_self (gconstpointer a,
              gconstpointer b,
              gpointer      cost)
{
  guint64 x = hl_function_row_get_self ((HlFunctionRow *) a, GPOINTER_TO_UINT (cost));
  guint64 y = hl_function_row_get_self ((HlFunctionRow *) b, GPOINTER_TO_UINT (cost));

  return x < y ? -1 : x > y;
}

static int
compare_location (gconstpointer a,
                  gconstpointer b,
                  gpointer      user_data)
{
  const HlFrame *x = hl_function_row_get_frame ((HlFunctionRow *) a);
  const HlFrame *y = hl_function_row_get_frame ((HlFunctionRow *) b);
  int c = g_strcmp0 (x->file, y->file);

  if (c != 0)
    return c;
  if (x->line != y->line)
    return x->line < y->line ? -1 : 1;
  return strcmp (x->module_name, y->module_name);
}

static GtkColumnViewColumn *
add_column (HlFunctionsView *self,
            GtkColumnView   *view,
            const char      *title,
            CellKind         kind,
            HlCostKind       cost,
            GtkSorter       *sorter)
{
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
  Cell *cell = g_new0 (Cell, 1);
  GtkColumnViewColumn *column;

  cell->view = self;
  cell->kind = kind;
  cell->cost = cost;
  g_signal_connect_data (factory, "setup", G_CALLBACK (setup_cell), cell, (GClosureNotify) (void (*) (void)) g_free, 0);
  g_signal_connect (factory, "bind", G_CALLBACK (bind_cell), cell);
  column = gtk_column_view_column_new (title, factory);
  gtk_column_view_column_set_resizable (column, TRUE);
  if (sorter != NULL)
    gtk_column_view_column_set_sorter (column, sorter);
  g_clear_object (&sorter);
  gtk_column_view_append_column (view, column);
  g_object_unref (column);   /* borrowed: the column view has it */
  return column;
}

static GtkSorter *
name_sorter (void)
{
  return GTK_SORTER (gtk_string_sorter_new (gtk_property_expression_new (HL_TYPE_FUNCTION_ROW, NULL, "name")));
}

static void
setup_columns (HlFunctionsView *self)
{
  GtkColumnViewColumn *column;

  column = add_column (self, self->function_list, _("Function"), CELL_NAME, 0, name_sorter ());
  gtk_column_view_column_set_expand (column, TRUE);
  /* Translators: column of a call tree, a function's source file and line, and its module */
  self->location_column = add_column (self, self->function_list, _("Location"), CELL_LOCATION, 0,
                                      GTK_SORTER (gtk_custom_sorter_new (compare_location, NULL, NULL)));
  gtk_column_view_column_set_fixed_width (self->location_column, 130);
  for (guint c = 0; c < HL_N_TREE_COSTS; c++)
    {
      self->total_columns[c] =
        add_column (self, self->function_list, hl_cost_get_column_label (c), CELL_TOTAL, c,
                    GTK_SORTER (gtk_custom_sorter_new (compare_total, GUINT_TO_POINTER (c), NULL)));
      /* Translators: column of a call tree, a function's own cost without
       * its callees', right of the cost's total column */
      self->self_columns[c] =
        add_column (self, self->function_list, C_("column", "Self"), CELL_SELF, c,
                    GTK_SORTER (gtk_custom_sorter_new (compare_self, GUINT_TO_POINTER (c), NULL)));
    }

  for (guint k = 0; k < 2; k++)
    {
      GtkColumnView *view = k == 0 ? self->callers_list : self->callees_list;

      column = add_column (self, view, _("Function"), CELL_NAME, 0, name_sorter ());
      gtk_column_view_column_set_expand (column, TRUE);
      for (guint c = 0; c < HL_N_TREE_COSTS; c++)
        {
          column = add_column (self, view, hl_cost_get_column_label (c), CELL_EDGE, c,
                               GTK_SORTER (gtk_custom_sorter_new (compare_total, GUINT_TO_POINTER (c), NULL)));
          self->edge_columns[k][c] = column;
          /* the largest edge by bytes first, as `report --function` lists them */
          if (c == HL_COST_KIND_BYTES)
            gtk_column_view_sort_by_column (view, column, GTK_SORT_DESCENDING);
        }
    }
}

void
hl_functions_view_set_columns (HlFunctionsView    *self,
                               const char * const *columns)
{
  g_return_if_fail (HL_IS_FUNCTIONS_VIEW (self));
  gtk_column_view_column_set_visible (self->location_column, hl_tree_columns_shows (columns, HL_TREE_COLUMN_LOCATION));
  for (guint c = 0; c < HL_N_TREE_COSTS; c++)
    {
      gboolean total = hl_tree_columns_shows (columns, hl_tree_columns_id (c, FALSE));
      gboolean own = hl_tree_columns_shows (columns, hl_tree_columns_id (c, TRUE));
      g_autofree char *title = hl_tree_columns_self_title (columns, c);

      gtk_column_view_column_set_visible (self->total_columns[c], total);
      gtk_column_view_column_set_visible (self->self_columns[c], own);
      gtk_column_view_column_set_title (self->self_columns[c], title);
      /* an edge has one figure per cost: shown with either column */
      for (guint k = 0; k < 2; k++)
        gtk_column_view_column_set_visible (self->edge_columns[k][c], total || own);
    }
}

/* LIST sorted by VIEW's columns (NULL: none). */
static GListModel *
sorted_by (GtkColumnView *view,
           GListModel    *list)
{
  if (list == NULL)
    return NULL;
  return G_LIST_MODEL (gtk_sort_list_model_new (g_object_ref (list), g_object_ref (gtk_column_view_get_sorter (view))));
}

/* ---- The flat list ------------------------------------------------------ */

static void
update_count (HlFunctionsView *self)
{
  guint shown = g_list_model_get_n_items (G_LIST_MODEL (self->filtered));
  guint all = g_list_model_get_n_items (G_LIST_MODEL (self->sorted));
  g_autofree char *text = NULL, *n_all = hl_format_count (all), *n_shown = hl_format_count (shown);

  if (shown == all)
    /* Translators: how many functions the Callers/Callees list has, e.g. "1,024 functions" */
    text = g_strdup_printf (g_dngettext (NULL, "%s function", "%s functions", all), n_all);
  else
    /* Translators: how many functions the search left, e.g. "12 of 1,024 functions" */
    text = g_strdup_printf (g_dngettext (NULL, "%s of %s function", "%s of %s functions", all),
                            n_shown, n_all);
  if (g_strcmp0 (text, self->count_text) == 0)
    return;
  g_free (self->count_text);
  self->count_text = g_steal_pointer (&text);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COUNT_TEXT]);
}

void
hl_functions_view_set_search (HlFunctionsView *self,
                              const char      *text)
{
  g_return_if_fail (HL_IS_FUNCTIONS_VIEW (self));
  if (text != NULL && text[0] == '\0')
    text = NULL;
  if (g_strcmp0 (text, self->search) == 0)
    return;
  g_free (self->search);
  self->search = g_strdup (text);
  /* incremental: a few thousand rows a frame, never the whole list at a keystroke */
  gtk_string_filter_set_search (self->name_filter, text);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SEARCH]);
}

const char *
hl_functions_view_get_search (HlFunctionsView *self)
{
  g_return_val_if_fail (HL_IS_FUNCTIONS_VIEW (self), NULL);
  return self->search;
}

const char *
hl_functions_view_get_count_text (HlFunctionsView *self)
{
  g_return_val_if_fail (HL_IS_FUNCTIONS_VIEW (self), NULL);
  return self->count_text;
}

static void
clear_neighbours (HlFunctionsView *self)
{
  gtk_single_selection_set_model (self->callers, NULL);
  gtk_single_selection_set_model (self->callees, NULL);
  gtk_label_set_label (self->callers_heading, _("Callers"));
  gtk_label_set_label (self->callees_heading, _("Callees"));
}

static void
on_selection_changed (HlFunctionsView *self)
{
  HlFunctionRow *row = gtk_single_selection_get_selected_item (self->selection);

  if (row != NULL)
    {
      const HlFrame *f = hl_function_row_get_frame (row);

      if (g_strcmp0 (self->chosen_name, f->function) == 0 && g_strcmp0 (self->chosen_module, f->module_name) == 0)
        return;   /* the same function (a new list, or rows moved by a sort) */
      g_free (self->chosen_name);
      g_free (self->chosen_module);
      self->chosen_name = g_strdup (f->function);
      self->chosen_module = g_strdup (f->module_name);
    }
  else
    {
      g_clear_pointer (&self->chosen_name, g_free);
      g_clear_pointer (&self->chosen_module, g_free);
    }
  clear_neighbours (self);
  g_signal_emit (self, signals[FUNCTION_SELECTED], 0, row);
}

/* The position of the function NAME (MODULE NULL: any) in MODEL. */
static guint
find_function (GListModel *model,
               const char *name,
               const char *module)
{
  guint n = g_list_model_get_n_items (model);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(HlFunctionRow) row = g_list_model_get_item (model, i);
      const HlFrame *f = hl_function_row_get_frame (row);

      if (strcmp (f->function, name) == 0 && (module == NULL || strcmp (f->module_name, module) == 0))
        return i;
    }
  return GTK_INVALID_LIST_POSITION;
}

/* Scrolls the list to row I: GTK 4.8 has no gtk_column_view_scroll_to,
 * its list view inside has the action. */
static void
scroll_to (HlFunctionsView *self,
           guint            i)
{
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->function_list)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_LIST_VIEW (child))
      {
        gtk_widget_activate_action (child, "list.scroll-to-item", "u", i);
        return;
      }
}

/* Chooses NAME's row, clearing a search that hides it. */
static gboolean
choose (HlFunctionsView *self,
        const char      *name,
        const char      *module)
{
  guint i = find_function (G_LIST_MODEL (self->filtered), name, module);

  if (i == GTK_INVALID_LIST_POSITION && find_function (G_LIST_MODEL (self->sorted), name, module) != GTK_INVALID_LIST_POSITION)
    {
      /* an empty search matches every row at once (no incremental pass) */
      hl_functions_view_set_search (self, NULL);
      i = find_function (G_LIST_MODEL (self->filtered), name, module);
    }
  if (i == GTK_INVALID_LIST_POSITION)
    return FALSE;
  gtk_single_selection_set_selected (self->selection, i);
  scroll_to (self, i);
  return TRUE;
}

void
hl_functions_view_set_functions (HlFunctionsView *self,
                                 GListModel      *rows,
                                 const HlCosts   *totals)
{
  g_autofree char *name = NULL, *module = NULL;

  g_return_if_fail (HL_IS_FUNCTIONS_VIEW (self));
  g_return_if_fail (rows == NULL || G_IS_LIST_MODEL (rows));

  memset (self->totals, 0, sizeof self->totals);
  if (totals != NULL)
    {
      self->totals[HL_COST_KIND_ALLOCATIONS] = totals->allocations;
      self->totals[HL_COST_KIND_BYTES] = totals->bytes;
      self->totals[HL_COST_KIND_TEMPORARY] = totals->temporary;
      self->totals[HL_COST_KIND_PEAK] = totals->peak_bytes;
      self->totals[HL_COST_KIND_LEAKED] = totals->leaked_bytes;
      self->totals[HL_COST_KIND_LIVE] = totals->live_bytes;
    }
  hl_tree_column_widths_set_max_count (&self->widths, self->totals[HL_COST_KIND_ALLOCATIONS]);
  /* the one chosen before, chosen again in the new list */
  name = g_steal_pointer (&self->chosen_name);
  module = g_steal_pointer (&self->chosen_module);
  g_signal_handlers_block_by_func (self->selection, on_selection_changed, self);
  gtk_sort_list_model_set_model (self->sorted, rows != NULL ? rows : G_LIST_MODEL (self->empty));
  gtk_single_selection_set_selected (self->selection, GTK_INVALID_LIST_POSITION);
  g_signal_handlers_unblock_by_func (self->selection, on_selection_changed, self);
  update_count (self);
  if (self->focus != NULL)
    {
      g_autofree char *focus = g_steal_pointer (&self->focus);

      if (choose (self, focus, NULL))
        return;
    }
  if (name != NULL && choose (self, name, module))
    return;
  if (g_list_model_get_n_items (G_LIST_MODEL (self->filtered)) > 0)
    gtk_single_selection_set_selected (self->selection, 0);
  else
    on_selection_changed (self);
}

void
hl_functions_view_set_focus (HlFunctionsView *self,
                             const char      *name)
{
  g_return_if_fail (HL_IS_FUNCTIONS_VIEW (self));
  g_clear_pointer (&self->focus, g_free);
  if (name == NULL)
    return;
  if (!choose (self, name, NULL))
    self->focus = g_strdup (name);
}

gboolean
hl_functions_view_select_frame (HlFunctionsView *self,
                                const HlFrame   *frame)
{
  g_return_val_if_fail (HL_IS_FUNCTIONS_VIEW (self), FALSE);
  g_return_val_if_fail (frame != NULL, FALSE);
  return choose (self, frame->function, frame->module_name);
}

HlFunctionRow *
hl_functions_view_get_selected (HlFunctionsView *self)
{
  g_return_val_if_fail (HL_IS_FUNCTIONS_VIEW (self), NULL);
  return gtk_single_selection_get_selected_item (self->selection);
}

void
hl_functions_view_sort_by (HlFunctionsView *self,
                           HlCostKind       cost,
                           gboolean         self_column)
{
  g_return_if_fail (HL_IS_FUNCTIONS_VIEW (self));
  g_return_if_fail (cost < HL_N_TREE_COSTS);
  gtk_column_view_sort_by_column (self->function_list,
                                  self_column ? self->self_columns[cost] : self->total_columns[cost],
                                  GTK_SORT_DESCENDING);
}

/* ---- Callers and callees ------------------------------------------------ */

void
hl_functions_view_set_neighbours (HlFunctionsView *self,
                                  HlFunctionRow   *of,
                                  GListModel      *callers,
                                  GListModel      *callees)
{
  g_autofree char *callers_text = NULL, *callees_text = NULL;

  g_return_if_fail (HL_IS_FUNCTIONS_VIEW (self));
  g_return_if_fail (of == NULL || HL_IS_FUNCTION_ROW (of));

  if (of == NULL)
    {
      clear_neighbours (self);
      return;
    }
  {
    g_autoptr(GListModel) sorted_callers = sorted_by (self->callers_list, callers);
    g_autoptr(GListModel) sorted_callees = sorted_by (self->callees_list, callees);

    gtk_single_selection_set_model (self->callers, sorted_callers);
    gtk_single_selection_set_model (self->callees, sorted_callees);
  }
  if (callers != NULL && g_list_model_get_n_items (callers) > 0)
    /* Translators: heading of the functions that call the chosen one, %s its name */
    callers_text = g_strdup_printf (_("Callers of %s"), hl_function_row_get_name (of));
  else
    /* Translators: heading of an empty callers list, %s the chosen function */
    callers_text = g_strdup_printf (_("No callers of %s: it is the outermost frame"), hl_function_row_get_name (of));
  if (callees != NULL && g_list_model_get_n_items (callees) > 0)
    /* Translators: heading of the functions the chosen one calls, %s its name */
    callees_text = g_strdup_printf (_("Callees of %s"), hl_function_row_get_name (of));
  else
    /* Translators: heading of an empty callees list, %s the chosen function */
    callees_text = g_strdup_printf (_("No callees of %s: it called the allocator itself"),
                                    hl_function_row_get_name (of));
  gtk_label_set_label (self->callers_heading, callers_text);
  gtk_label_set_label (self->callees_heading, callees_text);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->callers_heading), callers_text);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->callees_heading), callees_text);
}

/* A caller or callee activated (double click, Enter): it becomes the
 * function chosen. */
static void
activate_neighbour (HlFunctionsView    *self,
                    GtkSingleSelection *list,
                    guint               position)
{
  g_autoptr(HlFunctionRow) row = g_list_model_get_item (G_LIST_MODEL (list), position);

  if (row != NULL)
    hl_functions_view_select_frame (self, hl_function_row_get_frame (row));
}

static void
on_caller_activated (HlFunctionsView *self,
                     guint            position)
{
  activate_neighbour (self, self->callers, position);
}

static void
on_callee_activated (HlFunctionsView *self,
                     guint            position)
{
  activate_neighbour (self, self->callees, position);
}

/* ---- Accessors for tests ------------------------------------------------ */

GListModel *
hl_functions_view_get_rows (HlFunctionsView *self)
{
  g_return_val_if_fail (HL_IS_FUNCTIONS_VIEW (self), NULL);
  return G_LIST_MODEL (self->selection);
}

GListModel *
hl_functions_view_get_callers (HlFunctionsView *self)
{
  g_return_val_if_fail (HL_IS_FUNCTIONS_VIEW (self), NULL);
  return G_LIST_MODEL (self->callers);
}

GListModel *
hl_functions_view_get_callees (HlFunctionsView *self)
{
  g_return_val_if_fail (HL_IS_FUNCTIONS_VIEW (self), NULL);
  return G_LIST_MODEL (self->callees);
}

GtkColumnView *
hl_functions_view_get_list (HlFunctionsView *self)
{
  g_return_val_if_fail (HL_IS_FUNCTIONS_VIEW (self), NULL);
  return self->function_list;
}

/* ---- GObject ------------------------------------------------------------ */

static void
hl_functions_view_dispose (GObject *object)
{
  HlFunctionsView *self = HL_FUNCTIONS_VIEW (object);
  GtkWidget *child;

  if (self->selection != NULL)
    g_signal_handlers_disconnect_by_data (self->selection, self);
  if (self->filtered != NULL)
    g_signal_handlers_disconnect_by_data (self->filtered, self);
  if (self->function_list != NULL)
    {
      gtk_column_view_set_model (self->function_list, NULL);
      gtk_column_view_set_model (self->callers_list, NULL);
      gtk_column_view_set_model (self->callees_list, NULL);
    }
  g_clear_object (&self->selection);
  g_clear_object (&self->callers);
  g_clear_object (&self->callees);
  g_clear_object (&self->filtered);
  g_clear_object (&self->sorted);
  g_clear_object (&self->name_filter);
  g_clear_object (&self->empty);
  g_clear_pointer (&self->focus, g_free);
  g_clear_pointer (&self->chosen_name, g_free);
  g_clear_pointer (&self->chosen_module, g_free);
  g_clear_pointer (&self->search, g_free);
  g_clear_pointer (&self->count_text, g_free);
  hl_tree_column_widths_clear (&self->widths);
  gtk_widget_dispose_template (GTK_WIDGET (self), HL_TYPE_FUNCTIONS_VIEW);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (hl_functions_view_parent_class)->dispose (object);
}

static void
hl_functions_view_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  HlFunctionsView *self = HL_FUNCTIONS_VIEW (object);

  switch (prop_id)
    {
    case PROP_SEARCH:
      g_value_set_string (value, self->search);
      break;
    case PROP_COUNT_TEXT:
      g_value_set_string (value, self->count_text);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hl_functions_view_set_property (GObject      *object,
                                guint         prop_id,
                                const GValue *value,
                                GParamSpec   *pspec)
{
  HlFunctionsView *self = HL_FUNCTIONS_VIEW (object);

  switch (prop_id)
    {
    case PROP_SEARCH:
      hl_functions_view_set_search (self, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hl_functions_view_class_init (HlFunctionsViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = hl_functions_view_dispose;
  object_class->get_property = hl_functions_view_get_property;
  object_class->set_property = hl_functions_view_set_property;

  /* The text the function names are searched for (a case-insensitive
   * substring); NULL or "": every function. */
  properties[PROP_SEARCH] =
    g_param_spec_string ("search", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  /* "1,024 functions", "12 of 1,024 functions" while searching. */
  properties[PROP_COUNT_TEXT] =
    g_param_spec_string ("count-text", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* The function chosen in the list changed (NULL: none): the owner
   * computes its callers and callees (set_neighbours). */
  signals[FUNCTION_SELECTED] =
    g_signal_new ("function-selected", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, HL_TYPE_FUNCTION_ROW);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/heaplens/Heaplens/ui/hl-functions-view.ui");
  gtk_widget_class_bind_template_child (widget_class, HlFunctionsView, function_list);
  gtk_widget_class_bind_template_child (widget_class, HlFunctionsView, callers_list);
  gtk_widget_class_bind_template_child (widget_class, HlFunctionsView, callees_list);
  gtk_widget_class_bind_template_child (widget_class, HlFunctionsView, callers_heading);
  gtk_widget_class_bind_template_child (widget_class, HlFunctionsView, callees_heading);
  gtk_widget_class_bind_template_callback (widget_class, on_caller_activated);
  gtk_widget_class_bind_template_callback (widget_class, on_callee_activated);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
hl_functions_view_init (HlFunctionsView *self)
{
  GtkExpression *name = gtk_property_expression_new (HL_TYPE_FUNCTION_ROW, NULL, "name");

  gtk_widget_init_template (GTK_WIDGET (self));
  setup_columns (self);

  self->empty = g_list_store_new (HL_TYPE_FUNCTION_ROW);
  self->sorted = gtk_sort_list_model_new (g_object_ref (G_LIST_MODEL (self->empty)),
                                          g_object_ref (gtk_column_view_get_sorter (self->function_list)));
  self->name_filter = gtk_string_filter_new (name);
  gtk_string_filter_set_ignore_case (self->name_filter, TRUE);
  gtk_string_filter_set_match_mode (self->name_filter, GTK_STRING_FILTER_MATCH_MODE_SUBSTRING);
  /* a search over 10⁵ functions is done a few thousand rows per frame */
  self->filtered = gtk_filter_list_model_new (g_object_ref (G_LIST_MODEL (self->sorted)),
                                              g_object_ref (GTK_FILTER (self->name_filter)));
  gtk_filter_list_model_set_incremental (self->filtered, TRUE);
  g_signal_connect_swapped (self->filtered, "items-changed", G_CALLBACK (update_count), self);
  self->selection = gtk_single_selection_new (g_object_ref (G_LIST_MODEL (self->filtered)));
  gtk_single_selection_set_autoselect (self->selection, FALSE);
  gtk_single_selection_set_can_unselect (self->selection, TRUE);
  gtk_single_selection_set_selected (self->selection, GTK_INVALID_LIST_POSITION);
  g_signal_connect_swapped (self->selection, "notify::selected", G_CALLBACK (on_selection_changed), self);
  gtk_column_view_set_model (self->function_list, GTK_SELECTION_MODEL (self->selection));

  self->callers = gtk_single_selection_new (NULL);
  self->callees = gtk_single_selection_new (NULL);
  gtk_single_selection_set_autoselect (self->callers, FALSE);
  gtk_single_selection_set_autoselect (self->callees, FALSE);
  gtk_column_view_set_model (self->callers_list, GTK_SELECTION_MODEL (self->callers));
  gtk_column_view_set_model (self->callees_list, GTK_SELECTION_MODEL (self->callees));
  hl_functions_view_sort_by (self, HL_COST_KIND_BYTES, FALSE);
  update_count (self);
}
