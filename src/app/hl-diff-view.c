/* hl-diff-view.c — what changed between two recordings. */
#include "hl-config.h"

#include <math.h>
#include <stdlib.h>

#include <glib/gi18n.h>

#include "hl-cost.h"
#include "hl-diff-flame.h"
#include "hl-diff-row.h"
#include "hl-diff-view.h"
#include "hl-flame-view.h"
#include "hl-tree-level-sorter.h"

/* The path of the largest change opened when the table is shown. */
#define AUTO_EXPAND_LEVELS 7

struct _HlDiffView
{
  GtkWidget          parent_instance;

  GtkWidget         *box;
  GtkLabel          *summary_label;
  GtkLabel          *match_label;
  HlFlameView       *flame_view;
  HlFlameGraph      *graph;        /* the flame view's */
  GtkColumnView     *column_view;
  GtkColumnViewColumn *delta_column;

  HlAnalysis        *a;
  HlAnalysis        *b;
  HlDiffTree        *tree;         /* top-down, the table's */
  HlDiffTree        *graph_tree;   /* the flame graph's (bottom-up when inverted) */
  GtkTreeListModel  *tree_model;
  GtkSingleSelection *selection;
  HlCostKind         kind;
};

G_DEFINE_FINAL_TYPE (HlDiffView, hl_diff_view, GTK_TYPE_WIDGET)

GtkWidget *
hl_diff_view_new (void)
{
  return g_object_new (HL_TYPE_DIFF_VIEW, NULL);
}

/* ---- The tree --------------------------------------------------------- */

static GListModel *
create_children (gpointer item,
                 gpointer user_data)
{
  return hl_diff_row_get_children (HL_DIFF_ROW (item));
}

static HlDiffRow *
row_of_item (GtkListItem *item)
{
  GtkTreeListRow *tree_row = gtk_list_item_get_item (item);

  return tree_row != NULL ? gtk_tree_list_row_get_item (tree_row) : NULL;
}

typedef enum { COL_A, COL_B, COL_DELTA, COL_CHANGE, COL_SELF_A, COL_SELF_B, COL_SELF_DELTA } Column;

static void
setup_name (GtkSignalListItemFactory *factory,
            GtkListItem              *item,
            gpointer                  data)
{
  GtkWidget *expander = gtk_tree_expander_new ();
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_label_set_width_chars (GTK_LABEL (label), 36);
  gtk_tree_expander_set_child (GTK_TREE_EXPANDER (expander), label);
  gtk_list_item_set_child (item, expander);
}

static void
bind_name (GtkSignalListItemFactory *factory,
           GtkListItem              *item,
           gpointer                  data)
{
  GtkWidget *expander = gtk_list_item_get_child (item);
  GtkWidget *label = gtk_tree_expander_get_child (GTK_TREE_EXPANDER (expander));
  g_autoptr(HlDiffRow) row = row_of_item (item);

  gtk_tree_expander_set_list_row (GTK_TREE_EXPANDER (expander), gtk_list_item_get_item (item));
  if (row == NULL)
    return;
  gtk_label_set_label (GTK_LABEL (label), hl_diff_row_get_name (row));
  gtk_widget_set_tooltip_text (label, hl_diff_row_get_name (row));
}

static void
setup_number (GtkSignalListItemFactory *factory,
              GtkListItem              *item,
              gpointer                  data)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 1.0);
  gtk_widget_add_css_class (label, "numeric");
  gtk_list_item_set_child (item, label);
}

static void
bind_number (GtkSignalListItemFactory *factory,
             GtkListItem              *item,
             HlDiffView               *self)
{
  GtkWidget *label = gtk_list_item_get_child (item);
  Column col = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (factory), "column"));
  g_autoptr(HlDiffRow) row = row_of_item (item);
  g_autofree char *text = NULL;
  gint64 delta;

  if (row == NULL)
    return;
  delta = col == COL_SELF_DELTA ? hl_diff_row_get_self_delta (row) : hl_diff_row_get_delta (row);
  switch (col)
    {
    case COL_A:      text = hl_cost_format (self->kind, hl_diff_row_get_a (row)); break;
    case COL_B:      text = hl_cost_format (self->kind, hl_diff_row_get_b (row)); break;
    case COL_DELTA:  text = hl_diff_format_delta (self->kind, delta); break;
    case COL_CHANGE: text = hl_diff_format_change (hl_diff_row_get_a (row), delta); break;
    case COL_SELF_A: text = hl_cost_format (self->kind, hl_diff_row_get_self_a (row)); break;
    case COL_SELF_B: text = hl_cost_format (self->kind, hl_diff_row_get_self_b (row)); break;
    case COL_SELF_DELTA: text = hl_diff_format_delta (self->kind, delta); break;
    default:         g_assert_not_reached ();
    }
  gtk_label_set_label (GTK_LABEL (label), text);
  /* Growth red, shrinkage blue as in the graph, in the theme's colours
   * (readable light and dark). */
  gtk_widget_remove_css_class (label, "error");
  gtk_widget_remove_css_class (label, "accent");
  if (col == COL_DELTA || col == COL_CHANGE || col == COL_SELF_DELTA)
    {
      if (delta > 0)
        gtk_widget_add_css_class (label, "error");
      else if (delta < 0)
        gtk_widget_add_css_class (label, "accent");
    }
}

static int
compare_int64 (gint64 x, gint64 y)
{
  return x < y ? -1 : x > y ? 1 : 0;
}

static int
compare_rows (gconstpointer a_item,
              gconstpointer b_item,
              gpointer      data)
{
  HlDiffRow *ra = HL_DIFF_ROW ((gpointer) a_item), *rb = HL_DIFF_ROW ((gpointer) b_item);
  int col = GPOINTER_TO_INT (data);
  double ca, cb;

  switch (col)
    {
    case -1: return g_utf8_collate (hl_diff_row_get_name (ra), hl_diff_row_get_name (rb));
    case COL_A: return compare_int64 ((gint64) hl_diff_row_get_a (ra), (gint64) hl_diff_row_get_a (rb));
    case COL_B: return compare_int64 ((gint64) hl_diff_row_get_b (ra), (gint64) hl_diff_row_get_b (rb));
    case COL_DELTA:
      return compare_int64 (llabs (hl_diff_row_get_delta (ra)), llabs (hl_diff_row_get_delta (rb)));
    case COL_SELF_A:
      return compare_int64 ((gint64) hl_diff_row_get_self_a (ra), (gint64) hl_diff_row_get_self_a (rb));
    case COL_SELF_B:
      return compare_int64 ((gint64) hl_diff_row_get_self_b (ra), (gint64) hl_diff_row_get_self_b (rb));
    case COL_SELF_DELTA:
      return compare_int64 (llabs (hl_diff_row_get_self_delta (ra)), llabs (hl_diff_row_get_self_delta (rb)));
    case COL_CHANGE:
    default:
      ca = fabs (hl_diff_row_get_change (ra));
      cb = fabs (hl_diff_row_get_change (rb));
      return ca < cb ? -1 : ca > cb ? 1 : 0;
    }
}

static GtkColumnViewColumn *
add_column (HlDiffView *self,
            const char *title,
            int         col)
{
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
  GtkColumnViewColumn *column;
  GtkSorter *sorter = GTK_SORTER (gtk_custom_sorter_new (compare_rows, GINT_TO_POINTER (col), NULL));

  if (col < 0)
    {
      g_signal_connect (factory, "setup", G_CALLBACK (setup_name), self);
      g_signal_connect (factory, "bind", G_CALLBACK (bind_name), self);
    }
  else
    {
      g_object_set_data (G_OBJECT (factory), "column", GUINT_TO_POINTER ((guint) col));
      g_signal_connect (factory, "setup", G_CALLBACK (setup_number), self);
      g_signal_connect (factory, "bind", G_CALLBACK (bind_number), self);
    }
  column = gtk_column_view_column_new (title, factory);
  gtk_column_view_column_set_sorter (column, sorter);
  gtk_column_view_column_set_resizable (column, TRUE);
  gtk_column_view_column_set_expand (column, col < 0);
  gtk_column_view_append_column (self->column_view, column);
  g_object_unref (sorter);
  g_object_unref (column);
  return column;
}

/* ---- Selection -------------------------------------------------------- */

/* The row chosen in the table is outlined in the flame graph. */
static void
on_row_selected (HlDiffView *self)
{
  GtkTreeListRow *tree_row = gtk_single_selection_get_selected_item (self->selection);
  HlFlameData *data = hl_flame_graph_get_data (self->graph);
  g_autoptr(HlDiffRow) row = NULL;
  guint node;

  if (tree_row == NULL || data == NULL || hl_flame_graph_get_inverted (self->graph))
    {
      hl_flame_graph_set_selected (self->graph, -1);
      return;
    }
  row = gtk_tree_list_row_get_item (tree_row);
  node = hl_diff_row_get_node (row);
  for (guint i = 1; i < hl_flame_data_get_n_nodes (data); i++)
    if (hl_diff_flame_diff_node (data, i) == node)
      {
        hl_flame_graph_set_selected (self->graph, (gint) i);
        return;
      }
  hl_flame_graph_set_selected (self->graph, -1);
}

/* ---- Refresh ---------------------------------------------------------- */

/* The flame graph: top-down, or bottom-up when inverted (the allocating
 * functions next to the root), as in a recording's window. The table keeps
 * the top-down tree. */
static void
refresh_graph (HlDiffView *self)
{
  g_autoptr(HlDiffTree) tree = NULL;
  g_autoptr(HlFlameData) data = NULL;

  if (self->a == NULL || self->b == NULL)
    return;
  if (hl_flame_graph_get_inverted (self->graph))
    tree = hl_diff_tree_new (self->a, self->b, HL_CALL_TREE_BOTTOM_UP, self->kind);
  else if (self->tree != NULL)
    tree = hl_diff_tree_ref (self->tree);
  else
    return;
  data = hl_diff_flame_data (tree, self->kind);
  hl_flame_graph_set_node_funcs (self->graph, hl_diff_flame_color, hl_diff_flame_describe,
                                 hl_diff_flame_info_new (tree, self->kind),
                                 (GDestroyNotify) hl_diff_flame_info_free);
  hl_flame_view_set_search_summary_func (self->flame_view, hl_diff_flame_search_summary,
                                         hl_diff_flame_info_new (tree, self->kind),
                                         (GDestroyNotify) hl_diff_flame_info_free);
  hl_flame_view_set_data (self->flame_view, data);
  g_clear_pointer (&self->graph_tree, hl_diff_tree_unref);
  self->graph_tree = g_steal_pointer (&tree);
}

/* How many frames of each side found their match, so that a diff of
 * two builds that matched little says so. */
static void
update_match_label (HlDiffView *self)
{
  guint ma = 0, ta = 0, mb = 0, tb = 0;
  g_autofree char *text = NULL;

  hl_diff_tree_get_match_counts (self->tree, &ma, &ta, &mb, &tb);
  /* Translators: frames (call tree nodes) of recording A and of B that
   * have a match on the other side, e.g. "Frames matched: A 40 of 42 · B 40 of 45" */
  text = g_strdup_printf (_("Frames matched: A %u of %u · B %u of %u"), ma, ta, mb, tb);
  gtk_label_set_label (self->match_label, text);
}

static void
refresh (HlDiffView *self)
{
  g_autoptr(HlDiffRow) root = NULL;
  GListModel *top;
  HlTreeLevelSorter *row_sorter;
  GtkSortListModel *sorted;
  g_autofree char *a_text = NULL, *b_text = NULL, *change = NULL, *summary = NULL;

  if (self->a == NULL || self->b == NULL)
    return;
  g_clear_pointer (&self->tree, hl_diff_tree_unref);
  self->tree = hl_diff_tree_new (self->a, self->b, HL_CALL_TREE_TOP_DOWN, self->kind);
  refresh_graph (self);

  root = hl_diff_row_new (self->tree, 0, self->kind);
  a_text = hl_cost_format (self->kind, hl_diff_row_get_a (root));
  b_text = hl_cost_format (self->kind, hl_diff_row_get_b (root));
  change = hl_diff_format_change (hl_diff_row_get_a (root), hl_diff_row_get_delta (root));
  /* Translators: cost: total in A → total in B (change), e.g.
   * "Bytes Allocated: 1.20 MiB → 1.50 MiB (+25.0 %)" */
  summary = g_strdup_printf (_("%s: %s → %s (%s)"), hl_cost_get_label (self->kind), a_text, b_text, change);
  gtk_label_set_label (self->summary_label, summary);
  update_match_label (self);

  top = hl_diff_row_get_children (root);
  if (top == NULL)
    top = G_LIST_MODEL (g_list_store_new (HL_TYPE_DIFF_ROW));
  g_clear_object (&self->tree_model);
  self->tree_model = gtk_tree_list_model_new (top, FALSE, FALSE, create_children, NULL, NULL);
  /* Open the path of the largest change (the first child at each level,
   * in the diff tree's |Δ| order) so the table starts with an answer;
   * before the sort model exists, which then sorts once. */
  for (guint pos = 0, level = 0; level < AUTO_EXPAND_LEVELS; level++, pos++)
    {
      g_autoptr(GtkTreeListRow) row = gtk_tree_list_model_get_row (self->tree_model, pos);

      if (row == NULL || !gtk_tree_list_row_is_expandable (row))
        break;
      gtk_tree_list_row_set_expanded (row, TRUE);
    }
  row_sorter = hl_tree_level_sorter_new (g_object_ref (gtk_column_view_get_sorter (self->column_view)));
  sorted = gtk_sort_list_model_new (g_object_ref (G_LIST_MODEL (self->tree_model)), GTK_SORTER (row_sorter));
  if (self->selection != NULL)
    g_signal_handlers_disconnect_by_data (self->selection, self);
  g_clear_object (&self->selection);
  self->selection = gtk_single_selection_new (G_LIST_MODEL (sorted));
  gtk_single_selection_set_autoselect (self->selection, FALSE);
  gtk_single_selection_set_can_unselect (self->selection, TRUE);
  gtk_single_selection_set_selected (self->selection, GTK_INVALID_LIST_POSITION);
  g_signal_connect_swapped (self->selection, "notify::selected", G_CALLBACK (on_row_selected), self);
  gtk_column_view_set_model (self->column_view, GTK_SELECTION_MODEL (self->selection));
}

void
hl_diff_view_set_analyses (HlDiffView *self,
                           HlAnalysis *a,
                           HlAnalysis *b)
{
  g_return_if_fail (HL_IS_DIFF_VIEW (self));
  g_return_if_fail (HL_IS_ANALYSIS (a) && HL_IS_ANALYSIS (b));
  g_set_object (&self->a, a);
  g_set_object (&self->b, b);
  refresh (self);
}

void
hl_diff_view_set_cost (HlDiffView *self,
                       HlCostKind  kind)
{
  g_return_if_fail (HL_IS_DIFF_VIEW (self));
  g_return_if_fail (kind < HL_N_TREE_COSTS);
  if (hl_flame_view_get_cost (self->flame_view) != kind)
    hl_flame_view_set_cost (self->flame_view, kind);  /* refreshes */
  else if (self->kind != kind || self->tree == NULL)
    {
      self->kind = kind;
      refresh (self);
    }
}

static void
on_cost_changed (HlDiffView *self,
                 guint       selected)
{
  if (selected >= HL_N_TREE_COSTS || selected == self->kind)
    return;
  self->kind = selected;
  refresh (self);
}

HlCostKind
hl_diff_view_get_cost (HlDiffView *self)
{
  g_return_val_if_fail (HL_IS_DIFF_VIEW (self), HL_COST_KIND_BYTES);
  return self->kind;
}

HlDiffTree *
hl_diff_view_get_tree (HlDiffView *self)
{
  g_return_val_if_fail (HL_IS_DIFF_VIEW (self), NULL);
  return self->tree;
}

HlFlameGraph *
hl_diff_view_get_graph (HlDiffView *self)
{
  g_return_val_if_fail (HL_IS_DIFF_VIEW (self), NULL);
  return self->graph;
}

HlFlameView *
hl_diff_view_get_flame_view (HlDiffView *self)
{
  g_return_val_if_fail (HL_IS_DIFF_VIEW (self), NULL);
  return self->flame_view;
}

HlDiffTree *
hl_diff_view_get_graph_tree (HlDiffView *self)
{
  g_return_val_if_fail (HL_IS_DIFF_VIEW (self), NULL);
  return self->graph_tree;
}

GtkColumnView *
hl_diff_view_get_column_view (HlDiffView *self)
{
  g_return_val_if_fail (HL_IS_DIFF_VIEW (self), NULL);
  return self->column_view;
}

GListModel *
hl_diff_view_get_rows (HlDiffView *self)
{
  g_return_val_if_fail (HL_IS_DIFF_VIEW (self), NULL);
  return self->selection != NULL ? G_LIST_MODEL (self->selection) : NULL;
}

const char *
hl_diff_view_get_summary (HlDiffView *self)
{
  g_return_val_if_fail (HL_IS_DIFF_VIEW (self), NULL);
  return gtk_label_get_label (self->summary_label);
}

const char *
hl_diff_view_get_match_text (HlDiffView *self)
{
  g_return_val_if_fail (HL_IS_DIFF_VIEW (self), NULL);
  return gtk_label_get_label (self->match_label);
}

/* ---- GObject ---------------------------------------------------------- */

static void
hl_diff_view_dispose (GObject *object)
{
  HlDiffView *self = HL_DIFF_VIEW (object);

  if (self->column_view != NULL)
    gtk_column_view_set_model (self->column_view, NULL);
  if (self->selection != NULL)
    g_signal_handlers_disconnect_by_data (self->selection, self);
  g_clear_object (&self->selection);
  g_clear_object (&self->tree_model);
  g_clear_pointer (&self->tree, hl_diff_tree_unref);
  g_clear_pointer (&self->graph_tree, hl_diff_tree_unref);
  g_clear_object (&self->a);
  g_clear_object (&self->b);
  g_clear_pointer (&self->box, gtk_widget_unparent);
  G_OBJECT_CLASS (hl_diff_view_parent_class)->dispose (object);
}

static void
hl_diff_view_class_init (HlDiffViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = hl_diff_view_dispose;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "diffview");
}

static void
hl_diff_view_init (HlDiffView *self)
{
  GtkWidget *bar, *paned, *scroll, *legend;
  g_autoptr(GPtrArray) costs = g_ptr_array_new ();
  const char * const *labels = hl_cost_get_labels ();

  g_type_ensure (HL_TYPE_FLAME_VIEW);
  self->kind = HL_COST_KIND_BYTES;
  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));

  /* The totals, and how to read the colours. */
  bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  gtk_widget_set_margin_start (bar, 12);
  gtk_widget_set_margin_end (bar, 12);
  gtk_widget_set_margin_top (bar, 6);
  self->summary_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->summary_label, 0);
  gtk_label_set_ellipsize (self->summary_label, PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (GTK_WIDGET (self->summary_label), TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->summary_label), "heading");
  gtk_box_append (GTK_BOX (bar), GTK_WIDGET (self->summary_label));
  self->match_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_ellipsize (self->match_label, PANGO_ELLIPSIZE_END);
  gtk_box_append (GTK_BOX (bar), GTK_WIDGET (self->match_label));
  legend = gtk_label_new (_("Width: A + B · red: grew in B · blue: shrank"));
  gtk_label_set_ellipsize (GTK_LABEL (legend), PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (legend, "dim-label");
  gtk_box_append (GTK_BOX (bar), legend);
  gtk_box_append (GTK_BOX (self->box), bar);

  paned = gtk_paned_new (GTK_ORIENTATION_VERTICAL);
  gtk_widget_set_vexpand (paned, TRUE);
  gtk_paned_set_wide_handle (GTK_PANED (paned), TRUE);
  gtk_paned_set_position (GTK_PANED (paned), 470);

  /* The recording window's flame graph page: cost, inversion, search with
   * its share, breadcrumb, keyboard; colours by growth instead of by name. */
  self->flame_view = g_object_new (HL_TYPE_FLAME_VIEW, NULL);
  for (guint i = 0; i < HL_N_TREE_COSTS; i++)
    g_ptr_array_add (costs, (gpointer) labels[i]);
  g_ptr_array_add (costs, NULL);
  hl_flame_view_set_costs (self->flame_view, (const char * const *) costs->pdata);
  hl_flame_view_set_cost (self->flame_view, self->kind);
  hl_flame_view_set_colors_visible (self->flame_view, FALSE);
  g_signal_connect_swapped (self->flame_view, "cost-changed", G_CALLBACK (on_cost_changed), self);
  self->graph = hl_flame_view_get_graph (self->flame_view);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->graph),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Flame graph of the difference"), -1);
  g_signal_connect_swapped (self->graph, "notify::inverted", G_CALLBACK (refresh_graph), self);
  gtk_paned_set_start_child (GTK_PANED (paned), GTK_WIDGET (self->flame_view));
  gtk_paned_set_shrink_start_child (GTK_PANED (paned), FALSE);

  scroll = gtk_scrolled_window_new ();
  self->column_view = GTK_COLUMN_VIEW (gtk_column_view_new (NULL));
  gtk_widget_add_css_class (GTK_WIDGET (self->column_view), "data-table");
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->column_view),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Call tree of the difference"), -1);
  add_column (self, _("Function"), -1);
  add_column (self, _("A"), COL_A);
  add_column (self, _("B"), COL_B);
  self->delta_column = add_column (self, _("Δ"), COL_DELTA);
  add_column (self, _("Δ %"), COL_CHANGE);
  /* Translators: diff table columns, a path's own cost without its
   * callees' in A, in B, and its change */
  add_column (self, _("Self A"), COL_SELF_A);
  add_column (self, _("Self B"), COL_SELF_B);
  add_column (self, _("Self Δ"), COL_SELF_DELTA);
  gtk_column_view_sort_by_column (self->column_view, self->delta_column, GTK_SORT_DESCENDING);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroll), GTK_WIDGET (self->column_view));
  gtk_paned_set_end_child (GTK_PANED (paned), scroll);
  gtk_paned_set_shrink_end_child (GTK_PANED (paned), FALSE);
  gtk_box_append (GTK_BOX (self->box), paned);
}
