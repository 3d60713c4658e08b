/* hl-flame-graph.c — the flame graph widget. */
#include "hl-config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "hl-flame-graph.h"
#include "hl-font-metrics.h"
#include "hl-timing.h"
#include "hl-units.h"

#define ROW_HEIGHT_EM 1.55

struct _HlFlameGraph
{
  GtkWidget parent_instance;

  /* Owned */
  HlFlameData *data;
  char        *search;
  GtkWidget   *context_menu;

  HlFlameColors colors;
  gboolean      inverted;
  guint         zoom;
  gint          selected;
  gint          menu_node;

  GtkAdjustment      *scroll;         /* of the viewport we are in, while realized */

  HlFlameColorFunc    color_func;     /* from the caller (a diff), or NULL */
  HlFlameDescribeFunc describe_func;
  gpointer            funcs_data;
  GDestroyNotify      funcs_notify;
};

enum {
  PROP_0,
  PROP_DATA,
  PROP_INVERTED,
  PROP_SEARCH,
  PROP_ZOOM,
  PROP_SELECTED,
  N_PROPS
};

enum {
  SHOW_IN_CALL_TREE,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void update_accessible_description (HlFlameGraph *self);

G_DEFINE_FINAL_TYPE (HlFlameGraph, hl_flame_graph, GTK_TYPE_WIDGET)

GtkWidget *
hl_flame_graph_new (void)
{
  return g_object_new (HL_TYPE_FLAME_GRAPH, NULL);
}

static double
row_height (HlFlameGraph *self)
{
  return ceil (hl_widget_font_size_px (GTK_WIDGET (self)) * ROW_HEIGHT_EM) + 2.0;
}

void
hl_flame_graph_get_viewport (HlFlameGraph    *self,
                             HlFlameViewport *vp)
{
  vp->width = gtk_widget_get_width (GTK_WIDGET (self));
  vp->row_height = row_height (self);
  vp->zoom = self->zoom;
  vp->inverted = self->inverted;
  vp->y_origin = 0;
  if (!self->inverted && self->data != NULL)
    {
      /* Flames grow upwards from the bottom edge. */
      double content = hl_flame_graph_content_height (self->data, vp);
      vp->y_origin = MAX (0, gtk_widget_get_height (GTK_WIDGET (self)) - content);
    }
}

static void
get_style (HlFlameGraph *self,
           HlFlameStyle *style)
{
  style->dark = adw_style_manager_get_dark (adw_style_manager_get_default ());
  style->colors = self->colors;
  style->search = self->search;
  style->selected = self->selected;
  style->font = pango_context_get_font_description (gtk_widget_get_pango_context (GTK_WIDGET (self)));
  style->color_func = self->color_func;
  style->color_data = self->funcs_data;
}

void
hl_flame_graph_get_style (HlFlameGraph *self,
                          HlFlameStyle *style)
{
  g_return_if_fail (HL_IS_FLAME_GRAPH (self));
  get_style (self, style);
}

static void
clear_node_funcs (HlFlameGraph *self)
{
  if (self->funcs_notify != NULL && self->funcs_data != NULL)
    self->funcs_notify (self->funcs_data);
  self->color_func = NULL;
  self->describe_func = NULL;
  self->funcs_data = NULL;
  self->funcs_notify = NULL;
}

void
hl_flame_graph_set_node_funcs (HlFlameGraph       *self,
                               HlFlameColorFunc    color_func,
                               HlFlameDescribeFunc describe_func,
                               gpointer            user_data,
                               GDestroyNotify      notify)
{
  g_return_if_fail (HL_IS_FLAME_GRAPH (self));
  clear_node_funcs (self);
  self->color_func = color_func;
  self->describe_func = describe_func;
  self->funcs_data = user_data;
  self->funcs_notify = notify;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* ---- Properties ------------------------------------------------------- */

void
hl_flame_graph_set_data (HlFlameGraph *self,
                         HlFlameData  *data)
{
  g_return_if_fail (HL_IS_FLAME_GRAPH (self));

  if (self->data == data)
    return;
  g_clear_pointer (&self->data, hl_flame_data_unref);
  if (data != NULL)
    self->data = hl_flame_data_ref (data);
  self->zoom = 0;
  self->selected = -1;
  update_accessible_description (self);
  gtk_widget_queue_resize (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DATA]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ZOOM]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTED]);
}

HlFlameData *
hl_flame_graph_get_data (HlFlameGraph *self)
{
  g_return_val_if_fail (HL_IS_FLAME_GRAPH (self), NULL);
  return self->data;
}

void
hl_flame_graph_set_inverted (HlFlameGraph *self,
                             gboolean      inverted)
{
  g_return_if_fail (HL_IS_FLAME_GRAPH (self));
  inverted = !!inverted;
  if (self->inverted == inverted)
    return;
  self->inverted = inverted;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_INVERTED]);
}

gboolean
hl_flame_graph_get_inverted (HlFlameGraph *self)
{
  g_return_val_if_fail (HL_IS_FLAME_GRAPH (self), FALSE);
  return self->inverted;
}

void
hl_flame_graph_set_colors (HlFlameGraph  *self,
                           HlFlameColors  colors)
{
  g_return_if_fail (HL_IS_FLAME_GRAPH (self));
  self->colors = colors;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

HlFlameColors
hl_flame_graph_get_colors (HlFlameGraph *self)
{
  g_return_val_if_fail (HL_IS_FLAME_GRAPH (self), HL_FLAME_COLORS_BY_NAME);
  return self->colors;
}

void
hl_flame_graph_set_search (HlFlameGraph *self,
                           const char   *search)
{
  g_return_if_fail (HL_IS_FLAME_GRAPH (self));
  if (search != NULL && search[0] == '\0')
    search = NULL;
  if (g_strcmp0 (self->search, search) != 0)
    {
      g_free (self->search);
      self->search = g_strdup (search);
      gtk_widget_queue_draw (GTK_WIDGET (self));
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SEARCH]);
    }
}

const char *
hl_flame_graph_get_search (HlFlameGraph *self)
{
  g_return_val_if_fail (HL_IS_FLAME_GRAPH (self), NULL);
  return self->search;
}

void
hl_flame_graph_set_zoom (HlFlameGraph *self,
                         guint         node)
{
  g_return_if_fail (HL_IS_FLAME_GRAPH (self));
  if (self->data == NULL || node >= hl_flame_data_get_n_nodes (self->data))
    node = 0;
  if (self->zoom == node)
    return;
  self->zoom = node;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ZOOM]);
}

guint
hl_flame_graph_get_zoom (HlFlameGraph *self)
{
  g_return_val_if_fail (HL_IS_FLAME_GRAPH (self), 0);
  return self->zoom;
}

gboolean
hl_flame_graph_zoom_out (HlFlameGraph *self)
{
  const HlFlameNode *n;

  g_return_val_if_fail (HL_IS_FLAME_GRAPH (self), FALSE);
  if (self->data == NULL || self->zoom == 0)
    return FALSE;
  n = hl_flame_data_get_node (self->data, self->zoom);
  hl_flame_graph_set_zoom (self, n->parent >= 0 ? (guint) n->parent : 0);
  return TRUE;
}

/* Screen readers hear the selected frame (the tooltip's text, one line),
 * or how to move when none is. */
static void
update_accessible_description (HlFlameGraph *self)
{
  g_autofree char *markup = NULL;
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  g_autofree char *line = NULL;

  if (self->data == NULL || self->selected < 0)
    {
      gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                      _("Arrow keys move between frames, Enter zooms in, Escape zooms out"),
                                      -1);
      return;
    }
  markup = hl_flame_graph_describe_node (self, (guint) self->selected);
  if (!pango_parse_markup (markup, -1, 0, NULL, &text, NULL, NULL))
    text = g_strdup (markup);
  lines = g_strsplit (text, "\n", -1);
  line = g_strjoinv (", ", lines);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, line, -1);
}

void
hl_flame_graph_set_selected (HlFlameGraph *self,
                             gint          node)
{
  g_return_if_fail (HL_IS_FLAME_GRAPH (self));
  if (self->data == NULL || node < 0 || (guint) node >= hl_flame_data_get_n_nodes (self->data))
    node = -1;
  if (self->selected == node)
    return;
  self->selected = node;
  update_accessible_description (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTED]);
}

gint
hl_flame_graph_get_selected (HlFlameGraph *self)
{
  g_return_val_if_fail (HL_IS_FLAME_GRAPH (self), -1);
  return self->selected;
}

/* ---- Interaction ------------------------------------------------------ */

gint
hl_flame_graph_click (HlFlameGraph *self,
                      double        x,
                      double        y)
{
  HlFlameViewport vp;
  gint node;

  g_return_val_if_fail (HL_IS_FLAME_GRAPH (self), -1);
  if (self->data == NULL)
    return -1;
  hl_flame_graph_get_viewport (self, &vp);
  node = hl_flame_graph_hit_test (self->data, &vp, x, y);
  if (node < 0)
    return -1;
  hl_flame_graph_set_selected (self, node);
  hl_flame_graph_set_zoom (self, (guint) node);
  return node;
}

static gint
neighbour_on_row (HlFlameGraph *self,
                  guint         node,
                  int           dx)
{
  const HlFlameNode *n = hl_flame_data_get_node (self->data, node);
  guint count = hl_flame_data_get_n_nodes (self->data);

  /* The next/previous node of the same depth in pre-order is the visual
   * neighbour on that row. */
  if (dx > 0)
    {
      for (guint i = n->end; i < count; i++)
        {
          const HlFlameNode *m = hl_flame_data_get_node (self->data, i);
          if (m->depth == n->depth)
            return (gint) i;
        }
    }
  else
    {
      for (gint i = (gint) node - 1; i > 0; i--)
        {
          const HlFlameNode *m = hl_flame_data_get_node (self->data, (guint) i);
          if (m->depth == n->depth)
            return i;
        }
    }
  return -1;
}

static gint
widest_child (HlFlameGraph *self,
              guint         node)
{
  const HlFlameNode *n = hl_flame_data_get_node (self->data, node);
  gint best = -1;
  guint64 best_cost = 0;

  for (guint c = node + 1; c < n->end; c = hl_flame_data_get_node (self->data, c)->end)
    if (best < 0 || hl_flame_data_get_node (self->data, c)->cost > best_cost)
      {
        best = (gint) c;
        best_cost = hl_flame_data_get_node (self->data, c)->cost;
      }
  return best;
}

void
hl_flame_graph_move_selection (HlFlameGraph *self,
                               int           dx,
                               int           dy)
{
  gint node, next = -1;

  g_return_if_fail (HL_IS_FLAME_GRAPH (self));
  if (self->data == NULL)
    return;

  node = self->selected >= 0 ? self->selected : (gint) self->zoom;
  if (dy > 0)
    next = widest_child (self, (guint) node);
  else if (dy < 0)
    next = hl_flame_data_get_node (self->data, (guint) node)->parent;
  else if (dx != 0)
    next = neighbour_on_row (self, (guint) node, dx);

  if (next < 0)
    return;
  /* Leaving the zoomed range zooms out so that the selection stays visible. */
  while (self->zoom != 0 && !hl_flame_data_is_ancestor (self->data, self->zoom, (guint) next)
         && !hl_flame_data_is_ancestor (self->data, (guint) next, self->zoom))
    hl_flame_graph_zoom_out (self);
  hl_flame_graph_set_selected (self, next);
}

char *
hl_flame_graph_describe_node (HlFlameGraph *self,
                              guint         node)
{
  const HlFlameNode *n, *z;
  g_autofree char *cost = NULL;
  g_autofree char *pct = NULL;
  g_autofree char *pct_zoom = NULL;
  g_autofree char *name = NULL;
  GString *out;

  g_return_val_if_fail (HL_IS_FLAME_GRAPH (self), NULL);
  g_return_val_if_fail (self->data != NULL, NULL);

  if (self->describe_func != NULL)
    return self->describe_func (self->data, node, self->funcs_data);
  n = hl_flame_data_get_node (self->data, node);
  z = hl_flame_data_get_node (self->data, self->zoom);
  cost = hl_flame_data_cost_is_bytes (self->data) ? hl_format_size (n->cost) : hl_format_count (n->cost);
  pct = hl_format_percentage (n->cost, hl_flame_data_get_total (self->data));
  name = g_markup_escape_text (n->name, -1);

  out = g_string_new (NULL);
  g_string_append_printf (out, "<b>%s</b>%s", name, n->is_inline ? _(" (inlined)") : "");
  if (n->module[0] != '\0')
    {
      g_autofree char *module = g_markup_escape_text (n->module, -1);
      g_string_append_printf (out, "\n%s", module);
    }
  if (n->file != NULL)
    {
      g_autofree char *file = g_markup_escape_text (n->file, -1);
      g_string_append_printf (out, "\n%s:%u", file, n->line);
    }
  /* Translators: cost and share of the total, e.g. "1.50 MiB — 12.5 % of the total" */
  g_string_append_printf (out, "\n%s — %s", cost, pct);
  g_string_append (out, _(" of the total"));
  if (self->zoom != 0 && z->cost > 0)
    {
      pct_zoom = hl_format_percentage (n->cost, z->cost);
      g_string_append_printf (out, _(", %s of the zoomed frame"), pct_zoom);
    }
  return g_string_free (out, FALSE);
}

static gboolean
on_query_tooltip (GtkWidget  *widget,
                  int         x,
                  int         y,
                  gboolean    keyboard,
                  GtkTooltip *tooltip,
                  gpointer    user_data)
{
  HlFlameGraph *self = HL_FLAME_GRAPH (widget);
  HlFlameViewport vp;
  g_autofree char *markup = NULL;
  gint node;

  if (self->data == NULL)
    return FALSE;
  if (keyboard)
    node = self->selected;
  else
    {
      hl_flame_graph_get_viewport (self, &vp);
      node = hl_flame_graph_hit_test (self->data, &vp, x, y);
    }
  if (node < 0)
    return FALSE;
  markup = hl_flame_graph_describe_node (self, (guint) node);
  gtk_tooltip_set_markup (tooltip, markup);
  return TRUE;
}

static void
on_pressed (GtkGestureClick *gesture,
            int              n_press,
            double           x,
            double           y,
            HlFlameGraph    *self)
{
  guint button = gtk_gesture_single_get_current_button (GTK_GESTURE_SINGLE (gesture));
  HlFlameViewport vp;
  gint node;

  gtk_widget_grab_focus (GTK_WIDGET (self));
  if (self->data == NULL)
    return;

  if (button == GDK_BUTTON_SECONDARY)
    {
      hl_flame_graph_get_viewport (self, &vp);
      node = hl_flame_graph_hit_test (self->data, &vp, x, y);
      if (node < 0)
        return;
      self->menu_node = node;
      hl_flame_graph_set_selected (self, node);
      gtk_popover_set_pointing_to (GTK_POPOVER (self->context_menu),
                                   &(GdkRectangle) { (int) x, (int) y, 1, 1 });
      gtk_popover_popup (GTK_POPOVER (self->context_menu));
      return;
    }
  hl_flame_graph_click (self, x, y);
}

static gboolean
on_key_pressed (GtkEventControllerKey *controller,
                guint                  keyval,
                guint                  keycode,
                GdkModifierType        state,
                HlFlameGraph          *self)
{
  /* Up and down follow the picture: in a flame graph the leaves are up. */
  int towards_leaves = self->inverted ? 1 : -1;

  switch (keyval)
    {
    case GDK_KEY_Left:
    case GDK_KEY_KP_Left:
      hl_flame_graph_move_selection (self, -1, 0);
      return TRUE;
    case GDK_KEY_Right:
    case GDK_KEY_KP_Right:
      hl_flame_graph_move_selection (self, 1, 0);
      return TRUE;
    case GDK_KEY_Up:
    case GDK_KEY_KP_Up:
      hl_flame_graph_move_selection (self, 0, -towards_leaves);
      return TRUE;
    case GDK_KEY_Down:
    case GDK_KEY_KP_Down:
      hl_flame_graph_move_selection (self, 0, towards_leaves);
      return TRUE;
    case GDK_KEY_Return:
    case GDK_KEY_KP_Enter:
    case GDK_KEY_space:
      if (self->selected >= 0)
        hl_flame_graph_set_zoom (self, (guint) self->selected);
      return TRUE;
    case GDK_KEY_Escape:
      return hl_flame_graph_zoom_out (self);
    default:
      return FALSE;
    }
}

static void
action_copy_name (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *param)
{
  HlFlameGraph *self = HL_FLAME_GRAPH (widget);
  gint node = self->menu_node >= 0 ? self->menu_node : self->selected;

  if (self->data == NULL || node < 0)
    return;
  gdk_clipboard_set_text (gtk_widget_get_clipboard (widget),
                          hl_flame_data_get_node (self->data, (guint) node)->name);
}

static void
action_show_in_call_tree (GtkWidget  *widget,
                          const char *action_name,
                          GVariant   *param)
{
  HlFlameGraph *self = HL_FLAME_GRAPH (widget);
  gint node = self->menu_node >= 0 ? self->menu_node : self->selected;

  if (self->data == NULL || node < 0)
    return;
  g_signal_emit (self, signals[SHOW_IN_CALL_TREE], 0, (guint) node);
}

static void
action_zoom_out (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *param)
{
  hl_flame_graph_set_zoom (HL_FLAME_GRAPH (widget), 0);
}

/* ---- GtkWidget -------------------------------------------------------- */

static void
hl_flame_graph_measure (GtkWidget      *widget,
                        GtkOrientation  orientation,
                        int             for_size,
                        int            *minimum,
                        int            *natural,
                        int            *minimum_baseline,
                        int            *natural_baseline)
{
  HlFlameGraph *self = HL_FLAME_GRAPH (widget);

  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = 120;
      *natural = 600;
    }
  else
    {
      HlFlameViewport vp = { .row_height = row_height (self) };
      *minimum = *natural = self->data ? (int) hl_flame_graph_content_height (self->data, &vp) : 0;
    }
}

/* The part of the widget its viewport shows (all of it outside one),
 * in whole pixels; FALSE when none. Only that part is drawn: a GL
 * renderer shades the whole of a cairo node's texture, clipped or not. */
static gboolean
visible_rect (HlFlameGraph    *self,
              int              width,
              int              height,
              graphene_rect_t *rect)
{
  GtkWidget *viewport = gtk_widget_get_ancestor (GTK_WIDGET (self), GTK_TYPE_VIEWPORT);
  graphene_rect_t all = GRAPHENE_RECT_INIT (0, 0, width, height), seen;
  double x0, y0, x1, y1;

  *rect = all;
  if (viewport == NULL || !gtk_widget_compute_bounds (viewport, GTK_WIDGET (self), &seen))
    return TRUE;
  if (!graphene_rect_intersection (&all, &seen, &seen))
    return FALSE;
  x0 = floor (seen.origin.x);
  y0 = floor (seen.origin.y);
  x1 = ceil (seen.origin.x + seen.size.width);
  y1 = ceil (seen.origin.y + seen.size.height);
  graphene_rect_init (rect, (float) x0, (float) y0, (float) (x1 - x0), (float) (y1 - y0));
  return x1 > x0 && y1 > y0;
}

static void
hl_flame_graph_snapshot (GtkWidget   *widget,
                         GtkSnapshot *snapshot)
{
  HlFlameGraph *self = HL_FLAME_GRAPH (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  HlFlameViewport vp;
  HlFlameStyle style;
  graphene_rect_t visible;
  cairo_t *cr;
  gint64 begin;

  if (self->data == NULL || width <= 0 || height <= 0 || !visible_rect (self, width, height, &visible))
    return;

  begin = g_get_monotonic_time ();
  hl_flame_graph_get_viewport (self, &vp);
  get_style (self, &style);
  /* widget coordinates, clipped to VISIBLE (the drawing skips the rest) */
  cr = gtk_snapshot_append_cairo (snapshot, &visible);
  hl_flame_graph_draw (cr, self->data, &vp, &style, NULL);
  cairo_destroy (cr);
  if (hl_timing_enabled ())
    g_printerr ("heaplens: timing: flame graph draw %u nodes %.2f ms\n",
                hl_flame_data_get_n_nodes (self->data),
                (g_get_monotonic_time () - begin) / 1000.0);
}

/* Scrolled: another part is visible (the viewport only moves us). */
static void
on_scrolled (HlFlameGraph *self)
{
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
hl_flame_graph_realize (GtkWidget *widget)
{
  HlFlameGraph *self = HL_FLAME_GRAPH (widget);
  GtkWidget *viewport = gtk_widget_get_ancestor (widget, GTK_TYPE_VIEWPORT);

  GTK_WIDGET_CLASS (hl_flame_graph_parent_class)->realize (widget);
  if (viewport != NULL && gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (viewport)) != NULL)
    {
      g_set_object (&self->scroll, gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (viewport)));
      g_signal_connect_swapped (self->scroll, "value-changed", G_CALLBACK (on_scrolled), self);
    }
}

static void
hl_flame_graph_unrealize (GtkWidget *widget)
{
  HlFlameGraph *self = HL_FLAME_GRAPH (widget);

  if (self->scroll != NULL)
    g_signal_handlers_disconnect_by_func (self->scroll, on_scrolled, self);
  g_clear_object (&self->scroll);
  GTK_WIDGET_CLASS (hl_flame_graph_parent_class)->unrealize (widget);
}

static void
hl_flame_graph_size_allocate (GtkWidget *widget,
                              int        width,
                              int        height,
                              int        baseline)
{
  HlFlameGraph *self = HL_FLAME_GRAPH (widget);

  gtk_popover_present (GTK_POPOVER (self->context_menu));
}

static void
on_dark_changed (HlFlameGraph *self)
{
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
hl_flame_graph_dispose (GObject *object)
{
  HlFlameGraph *self = HL_FLAME_GRAPH (object);

  g_signal_handlers_disconnect_by_func (adw_style_manager_get_default (), on_dark_changed, self);
  g_clear_pointer (&self->context_menu, gtk_widget_unparent);
  g_clear_pointer (&self->data, hl_flame_data_unref);
  g_clear_pointer (&self->search, g_free);
  clear_node_funcs (self);
  G_OBJECT_CLASS (hl_flame_graph_parent_class)->dispose (object);
}

static void
hl_flame_graph_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  HlFlameGraph *self = HL_FLAME_GRAPH (object);

  switch (prop_id)
    {
    case PROP_DATA:
      g_value_set_boxed (value, self->data);
      break;
    case PROP_INVERTED:
      g_value_set_boolean (value, self->inverted);
      break;
    case PROP_SEARCH:
      g_value_set_string (value, self->search);
      break;
    case PROP_ZOOM:
      g_value_set_uint (value, self->zoom);
      break;
    case PROP_SELECTED:
      g_value_set_int (value, self->selected);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hl_flame_graph_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  HlFlameGraph *self = HL_FLAME_GRAPH (object);

  switch (prop_id)
    {
    case PROP_DATA:
      hl_flame_graph_set_data (self, g_value_get_boxed (value));
      break;
    case PROP_INVERTED:
      hl_flame_graph_set_inverted (self, g_value_get_boolean (value));
      break;
    case PROP_SEARCH:
      hl_flame_graph_set_search (self, g_value_get_string (value));
      break;
    case PROP_ZOOM:
      hl_flame_graph_set_zoom (self, g_value_get_uint (value));
      break;
    case PROP_SELECTED:
      hl_flame_graph_set_selected (self, g_value_get_int (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hl_flame_graph_class_init (HlFlameGraphClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = hl_flame_graph_dispose;
  object_class->get_property = hl_flame_graph_get_property;
  object_class->set_property = hl_flame_graph_set_property;
  widget_class->measure = hl_flame_graph_measure;
  widget_class->snapshot = hl_flame_graph_snapshot;
  widget_class->realize = hl_flame_graph_realize;
  widget_class->unrealize = hl_flame_graph_unrealize;
  widget_class->size_allocate = hl_flame_graph_size_allocate;

  properties[PROP_DATA] =
    g_param_spec_boxed ("data", NULL, NULL, HL_TYPE_FLAME_DATA,
                        G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  properties[PROP_INVERTED] =
    g_param_spec_boolean ("inverted", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  properties[PROP_SEARCH] =
    g_param_spec_string ("search", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  properties[PROP_ZOOM] =
    g_param_spec_uint ("zoom", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  properties[PROP_SELECTED] =
    g_param_spec_int ("selected", NULL, NULL, -1, G_MAXINT, -1,
                      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* Emitted by the context menu: the view switches to the call tree. */
  signals[SHOW_IN_CALL_TREE] =
    g_signal_new ("show-in-call-tree", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);

  gtk_widget_class_install_action (widget_class, "flame.copy-name", NULL, action_copy_name);
  gtk_widget_class_install_action (widget_class, "flame.show-in-call-tree", NULL, action_show_in_call_tree);
  gtk_widget_class_install_action (widget_class, "flame.reset-zoom", NULL, action_zoom_out);

  gtk_widget_class_set_css_name (widget_class, "flamegraph");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
hl_flame_graph_init (HlFlameGraph *self)
{
  GtkGesture *click;
  GtkEventController *keys;
  g_autoptr(GMenu) menu = g_menu_new ();

  self->selected = -1;
  self->menu_node = -1;

  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  g_signal_connect (self, "query-tooltip", G_CALLBACK (on_query_tooltip), NULL);

  click = gtk_gesture_click_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), 0);
  g_signal_connect (click, "pressed", G_CALLBACK (on_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (click));

  keys = gtk_event_controller_key_new ();
  g_signal_connect (keys, "key-pressed", G_CALLBACK (on_key_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), keys);

  g_menu_append (menu, _("_Copy Function Name"), "flame.copy-name");
  g_menu_append (menu, _("_Show in Call Tree"), "flame.show-in-call-tree");
  g_menu_append (menu, _("_Reset Zoom"), "flame.reset-zoom");
  self->context_menu = gtk_popover_menu_new_from_model (G_MENU_MODEL (menu));
  gtk_popover_set_has_arrow (GTK_POPOVER (self->context_menu), FALSE);
  gtk_widget_set_halign (self->context_menu, GTK_ALIGN_START);
  gtk_widget_set_parent (self->context_menu, GTK_WIDGET (self));

  g_signal_connect_swapped (adw_style_manager_get_default (), "notify::dark",
                            G_CALLBACK (on_dark_changed), self);

  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Flame graph"),
                                  -1);
  update_accessible_description (self);
}
