/* hl-flame-view.c — the flame graph page. */
#include "hl-config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "hl-flame-view.h"
#include "hl-lifetime-slider.h"
#include "hl-units.h"

struct _HlFlameView
{
  GtkWidget parent_instance;

  /* Template widgets */
  GtkDropDown       *cost_dropdown;
  GtkStringList     *cost_list;
  HlLifetimeSlider  *lifetime_slider;
  GtkDropDown       *colors_dropdown;
  GtkSearchEntry    *search_entry;
  GtkLabel          *search_label;
  GtkBox            *breadcrumb_box;
  GtkScrolledWindow *scroller;
  HlFlameGraph      *flame_graph;
  GtkLabel          *status_label;

  /* Owned */
  HlFlameSearchSummaryFunc search_summary_func;
  gpointer           search_summary_data;
  GDestroyNotify     search_summary_notify;

  guint              scroll_id;
  guint              lifetime_cost;   /* the cost that shows the slider */

  gboolean           setting_costs;
};

enum {
  COST_CHANGED,
  LIFETIME_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (HlFlameView, hl_flame_view, GTK_TYPE_WIDGET)

HlFlameGraph *
hl_flame_view_get_graph (HlFlameView *self)
{
  g_return_val_if_fail (HL_IS_FLAME_VIEW (self), NULL);
  return self->flame_graph;
}

void
hl_flame_view_set_costs (HlFlameView        *self,
                         const char * const *labels)
{
  guint n;

  g_return_if_fail (HL_IS_FLAME_VIEW (self));
  self->setting_costs = TRUE;
  n = g_list_model_get_n_items (G_LIST_MODEL (self->cost_list));
  gtk_string_list_splice (self->cost_list, 0, n, labels);
  self->setting_costs = FALSE;
}

guint
hl_flame_view_get_cost (HlFlameView *self)
{
  g_return_val_if_fail (HL_IS_FLAME_VIEW (self), 0);
  return gtk_drop_down_get_selected (self->cost_dropdown);
}

void
hl_flame_view_set_cost (HlFlameView *self,
                        guint        cost)
{
  g_return_if_fail (HL_IS_FLAME_VIEW (self));
  gtk_drop_down_set_selected (self->cost_dropdown, cost);
}

static void
update_lifetime_visible (HlFlameView *self)
{
  gtk_widget_set_visible (GTK_WIDGET (self->lifetime_slider),
                          gtk_drop_down_get_selected (self->cost_dropdown) == self->lifetime_cost);
}

static void
on_cost_selected (HlFlameView *self)
{
  update_lifetime_visible (self);
  if (!self->setting_costs)
    g_signal_emit (self, signals[COST_CHANGED], 0, gtk_drop_down_get_selected (self->cost_dropdown));
}

static void
on_lifetime_changed (HlFlameView *self)
{
  g_signal_emit (self, signals[LIFETIME_CHANGED], 0, hl_lifetime_slider_get_value_ns (self->lifetime_slider));
}

void
hl_flame_view_set_lifetime_cost (HlFlameView *self,
                                 guint        cost)
{
  g_return_if_fail (HL_IS_FLAME_VIEW (self));
  self->lifetime_cost = cost;
  update_lifetime_visible (self);
}

HlLifetimeSlider *
hl_flame_view_get_lifetime_slider (HlFlameView *self)
{
  g_return_val_if_fail (HL_IS_FLAME_VIEW (self), NULL);
  return self->lifetime_slider;
}

static void
on_colors_selected (HlFlameView *self)
{
  hl_flame_graph_set_colors (self->flame_graph,
                             gtk_drop_down_get_selected (self->colors_dropdown) == 1
                               ? HL_FLAME_COLORS_BY_MODULE : HL_FLAME_COLORS_BY_NAME);
}

static void
update_search_label (HlFlameView *self)
{
  HlFlameData *data = hl_flame_graph_get_data (self->flame_graph);
  const char *search = hl_flame_graph_get_search (self->flame_graph);
  g_autofree char *pct = NULL;
  g_autofree char *text = NULL;

  if (data == NULL || search == NULL)
    {
      gtk_widget_set_visible (GTK_WIDGET (self->search_label), FALSE);
      gtk_label_set_label (self->search_label, "");
      return;
    }
  if (self->search_summary_func != NULL)
    text = self->search_summary_func (data, search, self->search_summary_data);
  else
    {
      pct = hl_format_percentage (hl_flame_data_search_cost (data, search), hl_flame_data_get_total (data));
      /* Translators: share of the total cost in frames matching the search */
      text = g_strdup_printf (_("Matches: %s of the total"), pct);
    }
  gtk_label_set_label (self->search_label, text);
  gtk_widget_set_visible (GTK_WIDGET (self->search_label), TRUE);
}

static void
on_search_changed (HlFlameView *self)
{
  hl_flame_graph_set_search (self->flame_graph, gtk_editable_get_text (GTK_EDITABLE (self->search_entry)));
  update_search_label (self);
}

const char *
hl_flame_view_get_search_summary (HlFlameView *self)
{
  g_return_val_if_fail (HL_IS_FLAME_VIEW (self), NULL);
  return gtk_label_get_label (self->search_label);
}

void
hl_flame_view_focus_search (HlFlameView *self)
{
  g_return_if_fail (HL_IS_FLAME_VIEW (self));
  gtk_widget_grab_focus (GTK_WIDGET (self->search_entry));
}

void
hl_flame_view_set_search (HlFlameView *self,
                          const char  *text)
{
  g_return_if_fail (HL_IS_FLAME_VIEW (self));
  gtk_editable_set_text (GTK_EDITABLE (self->search_entry), text ? text : "");
  /* search-changed is delayed; apply now so that callers see the result. */
  on_search_changed (self);
}

static void
clear_search_summary_func (HlFlameView *self)
{
  if (self->search_summary_notify != NULL && self->search_summary_data != NULL)
    self->search_summary_notify (self->search_summary_data);
  self->search_summary_func = NULL;
  self->search_summary_data = NULL;
  self->search_summary_notify = NULL;
}

void
hl_flame_view_set_search_summary_func (HlFlameView              *self,
                                       HlFlameSearchSummaryFunc  func,
                                       gpointer                  user_data,
                                       GDestroyNotify            notify)
{
  g_return_if_fail (HL_IS_FLAME_VIEW (self));
  clear_search_summary_func (self);
  self->search_summary_func = func;
  self->search_summary_data = user_data;
  self->search_summary_notify = notify;
  /* Not applied to the data shown now: it may describe the next data
   * (set_data() updates the label). */
}

void
hl_flame_view_set_colors_visible (HlFlameView *self,
                                  gboolean     visible)
{
  g_return_if_fail (HL_IS_FLAME_VIEW (self));
  gtk_widget_set_visible (GTK_WIDGET (self->colors_dropdown), visible);
}

/* ---- Breadcrumb ------------------------------------------------------- */

static void
on_crumb_clicked (GtkButton   *button,
                  HlFlameView *self)
{
  guint node = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (button), "hl-node"));

  hl_flame_graph_set_zoom (self->flame_graph, node);
}

static void
rebuild_breadcrumb (HlFlameView *self)
{
  HlFlameData *data = hl_flame_graph_get_data (self->flame_graph);
  guint zoom = hl_flame_graph_get_zoom (self->flame_graph);
  g_autoptr(GArray) path = g_array_new (FALSE, FALSE, sizeof (guint));
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->breadcrumb_box))) != NULL)
    gtk_box_remove (self->breadcrumb_box, child);

  if (data == NULL)
    return;
  for (gint n = (gint) zoom; n >= 0; n = hl_flame_data_get_node (data, (guint) n)->parent)
    g_array_prepend_val (path, n);

  /* Only the path's last eight frames are shown: the rest is one "…". */
  for (guint i = 0; i < path->len; i++)
    {
      guint node = g_array_index (path, guint, i);
      const char *name = i == 0 ? _("All") : hl_flame_data_get_node (data, node)->name;
      GtkWidget *crumb;

      if (path->len > 8 && i > 0 && i < path->len - 7)
        {
          if (i == 1)
            gtk_box_append (self->breadcrumb_box, gtk_label_new ("› …"));
          continue;
        }
      if (i > 0)
        gtk_box_append (self->breadcrumb_box, gtk_label_new ("›"));
      if (i + 1 == path->len)
        {
          crumb = gtk_label_new (name);
          gtk_widget_add_css_class (crumb, "heading");
          gtk_label_set_ellipsize (GTK_LABEL (crumb), PANGO_ELLIPSIZE_MIDDLE);
          gtk_label_set_max_width_chars (GTK_LABEL (crumb), 40);
          gtk_widget_set_margin_start (crumb, 6);
        }
      else
        {
          GtkWidget *label = gtk_label_new (name);

          gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
          gtk_label_set_max_width_chars (GTK_LABEL (label), 24);
          crumb = gtk_button_new ();
          gtk_button_set_child (GTK_BUTTON (crumb), label);
          gtk_widget_add_css_class (crumb, "flat");
          gtk_widget_set_tooltip_text (crumb, name);
          g_object_set_data (G_OBJECT (crumb), "hl-node", GUINT_TO_POINTER (node));
          g_signal_connect (crumb, "clicked", G_CALLBACK (on_crumb_clicked), self);
        }
      gtk_box_append (self->breadcrumb_box, crumb);
    }
}

char *
hl_flame_view_get_breadcrumb (HlFlameView *self)
{
  GString *out = g_string_new (NULL);

  for (GtkWidget *c = gtk_widget_get_first_child (GTK_WIDGET (self->breadcrumb_box)); c;
       c = gtk_widget_get_next_sibling (c))
    {
      const char *text = NULL;

      if (GTK_IS_LABEL (c))
        text = gtk_label_get_label (GTK_LABEL (c));
      else if (GTK_IS_BUTTON (c) && GTK_IS_LABEL (gtk_button_get_child (GTK_BUTTON (c))))
        text = gtk_label_get_label (GTK_LABEL (gtk_button_get_child (GTK_BUTTON (c))));
      if (text == NULL || g_str_equal (text, "›"))
        continue;
      if (out->len > 0)
        g_string_append (out, " › ");
      g_string_append (out, text);
    }
  return g_string_free (out, FALSE);
}

static void
on_zoom_changed (HlFlameView *self)
{
  rebuild_breadcrumb (self);
}

static void
on_selected_changed (HlFlameView *self)
{
  gint node = hl_flame_graph_get_selected (self->flame_graph);
  g_autofree char *markup = NULL;
  g_autofree char *line = NULL;

  if (node < 0 || hl_flame_graph_get_data (self->flame_graph) == NULL)
    return;
  markup = hl_flame_graph_describe_node (self->flame_graph, (guint) node);
  /* One line: the tooltip's lines joined. */
  {
    g_auto(GStrv) parts = g_strsplit (markup, "\n", -1);
    line = g_strjoinv ("  ·  ", parts);
  }
  gtk_label_set_markup (self->status_label, line);
}

void
hl_flame_view_set_data (HlFlameView *self,
                        HlFlameData *data)
{
  g_autoptr(HlFlameData) old = NULL;
  guint zoom = 0;
  gint selected = -1;

  g_return_if_fail (HL_IS_FLAME_VIEW (self));

  /* The zoomed and the selected frame are found again in the new data by
   * their function+module path, a frame not symbolized before by its
   * address (new data: new nodes, maybe from another recording of the
   * same process, as when a live view becomes its trace). */
  if (hl_flame_graph_get_data (self->flame_graph) != NULL && data != NULL)
    {
      old = hl_flame_data_ref (hl_flame_graph_get_data (self->flame_graph));
      zoom = hl_flame_graph_get_zoom (self->flame_graph);
      selected = hl_flame_graph_get_selected (self->flame_graph);
    }
  hl_flame_graph_set_data (self->flame_graph, data);
  if (old != NULL && zoom > 0)
    hl_flame_graph_set_zoom (self->flame_graph, hl_flame_data_find_node_of (data, old, zoom, NULL));
  if (old != NULL && selected > 0)
    {
      gboolean exact;
      guint node = hl_flame_data_find_node_of (data, old, (guint) selected, &exact);

      if (exact)
        hl_flame_graph_set_selected (self->flame_graph, (gint) node);
    }
  rebuild_breadcrumb (self);
  update_search_label (self);
}

/* ---- GObject ---------------------------------------------------------- */

static void
hl_flame_view_dispose (GObject *object)
{
  clear_search_summary_func (HL_FLAME_VIEW (object));
  g_clear_handle_id (&HL_FLAME_VIEW (object)->scroll_id, g_source_remove);
  gtk_widget_dispose_template (GTK_WIDGET (object), HL_TYPE_FLAME_VIEW);
  {
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child (GTK_WIDGET (object))) != NULL)
      gtk_widget_unparent (child);
  }
  G_OBJECT_CLASS (hl_flame_view_parent_class)->dispose (object);
}

static void
hl_flame_view_class_init (HlFlameViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = hl_flame_view_dispose;

  signals[COST_CHANGED] =
    g_signal_new ("cost-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);
  /* the long-lived cost's T moved (and rests), in ns */
  signals[LIFETIME_CHANGED] =
    g_signal_new ("lifetime-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT64);

  g_type_ensure (HL_TYPE_FLAME_GRAPH);
  g_type_ensure (HL_TYPE_LIFETIME_SLIDER);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/heaplens/Heaplens/ui/hl-flame-view.ui");
  gtk_widget_class_bind_template_child (widget_class, HlFlameView, cost_dropdown);
  gtk_widget_class_bind_template_child (widget_class, HlFlameView, cost_list);
  gtk_widget_class_bind_template_child (widget_class, HlFlameView, lifetime_slider);
  gtk_widget_class_bind_template_child (widget_class, HlFlameView, colors_dropdown);
  gtk_widget_class_bind_template_child (widget_class, HlFlameView, search_entry);
  gtk_widget_class_bind_template_child (widget_class, HlFlameView, search_label);
  gtk_widget_class_bind_template_child (widget_class, HlFlameView, breadcrumb_box);
  gtk_widget_class_bind_template_child (widget_class, HlFlameView, scroller);
  gtk_widget_class_bind_template_child (widget_class, HlFlameView, flame_graph);
  gtk_widget_class_bind_template_child (widget_class, HlFlameView, status_label);
  gtk_widget_class_bind_template_callback (widget_class, on_cost_selected);
  gtk_widget_class_bind_template_callback (widget_class, on_lifetime_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_colors_selected);
  gtk_widget_class_bind_template_callback (widget_class, on_search_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_zoom_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_selected_changed);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

/* A flame graph grows upwards from its root at the bottom: when it is
 * taller than the page, keep the root in sight (scrolled to the bottom)
 * whenever the graph or the page changes size; an icicle starts at the top. */
static gboolean
scroll_to_root (gpointer user_data)
{
  HlFlameView *self = user_data;
  GtkAdjustment *adjustment = gtk_scrolled_window_get_vadjustment (self->scroller);

  self->scroll_id = 0;
  if (!hl_flame_graph_get_inverted (self->flame_graph))
    gtk_adjustment_set_value (adjustment, gtk_adjustment_get_upper (adjustment)
                                          - gtk_adjustment_get_page_size (adjustment));
  return G_SOURCE_REMOVE;
}

/* After the viewport has configured the adjustment (it sets the old value
 * again while it allocates). */
static void
on_vadjustment_changed (GtkAdjustment *adjustment,
                        HlFlameView   *self)
{
  if (self->scroll_id == 0)
    self->scroll_id = g_idle_add (scroll_to_root, self);
}

static void
hl_flame_view_init (HlFlameView *self)
{
  self->lifetime_cost = G_MAXUINT;
  gtk_widget_init_template (GTK_WIDGET (self));
  on_colors_selected (self);
  g_signal_connect_object (gtk_scrolled_window_get_vadjustment (self->scroller), "changed",
                           G_CALLBACK (on_vadjustment_changed), self, 0);
}
