/* hl-timeline.c — the timeline widget. */
#include "hl-config.h"

#include <math.h>

#include <adwaita.h>
#include <glib/gi18n.h>

#include "hl-timeline.h"
#include "hl-font-metrics.h"
#include "hl-units.h"

#define DRAG_THRESHOLD 3.0
#define MIN_SPAN_NS    G_GUINT64_CONSTANT (1000)

struct _HlTimeline
{
  GtkWidget parent_instance;

  /* Owned */
  HlTimelineData *data;

  guint64  view_start_ns;
  guint64  view_end_ns;
  gboolean has_selection;
  guint64  selection_start_ns;
  guint64  selection_end_ns;
  /* A drag in progress */
  gboolean dragging;
  double   drag_x;
  double   drag_y;
  gboolean has_cursor;
  guint64  cursor_ns;
  gboolean has_user_mark;
  guint64  user_mark_ns;
  gboolean by_site;
  HlTimelineMode mode;
};

enum {
  PROP_0,
  PROP_DATA,
  N_PROPS
};

enum {
  SELECTION_CHANGED,
  CURSOR_CHANGED,
  VISIBLE_RANGE_CHANGED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (HlTimeline, hl_timeline, GTK_TYPE_WIDGET)

GtkWidget *
hl_timeline_new (void)
{
  return g_object_new (HL_TYPE_TIMELINE, NULL);
}

/* The chart's rows (of text lines) that a short timeline keeps. */
#define MIN_CHART_ROWS 3

static double
row_height (HlTimeline *self)
{
  return ceil (hl_widget_font_size_px (GTK_WIDGET (self)) * 1.5);
}

void
hl_timeline_get_viewport (HlTimeline         *self,
                          HlTimelineViewport *vp)
{
  vp->width = gtk_widget_get_width (GTK_WIDGET (self));
  vp->height = gtk_widget_get_height (GTK_WIDGET (self));
  vp->row_height = row_height (self);
  /* a short timeline (800×600) narrows its bands first */
  vp->band_height = hl_timeline_fit_band_height (vp->height, vp->row_height,
                                                 self->data ? hl_timeline_data_get_n_rows (self->data) : 0,
                                                 MIN_CHART_ROWS);
  vp->start_ns = self->view_start_ns;
  vp->end_ns = self->view_end_ns;
  vp->has_selection = self->has_selection;
  vp->selection_start_ns = self->selection_start_ns;
  vp->selection_end_ns = self->selection_end_ns;
  vp->has_cursor = self->has_cursor;
  vp->cursor_ns = self->cursor_ns;
  vp->has_user_mark = self->has_user_mark;
  vp->user_mark_ns = self->user_mark_ns;
  vp->by_site = self->by_site && self->mode == HL_TIMELINE_MODE_CONSUMED;
  vp->mode = self->mode;
}

void
hl_timeline_set_mode (HlTimeline     *self,
                      HlTimelineMode  mode)
{
  g_return_if_fail (HL_IS_TIMELINE (self));
  g_return_if_fail (mode < HL_TIMELINE_N_MODES);
  if (self->mode == mode)
    return;
  self->mode = mode;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

HlTimelineMode
hl_timeline_get_mode (HlTimeline *self)
{
  g_return_val_if_fail (HL_IS_TIMELINE (self), HL_TIMELINE_MODE_CONSUMED);
  return self->mode;
}

void
hl_timeline_set_user_mark (HlTimeline *self,
                           gboolean    has_mark,
                           guint64     time_ns)
{
  g_return_if_fail (HL_IS_TIMELINE (self));
  self->has_user_mark = !!has_mark;
  self->user_mark_ns = time_ns;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
hl_timeline_set_by_site (HlTimeline *self,
                         gboolean    by_site)
{
  g_return_if_fail (HL_IS_TIMELINE (self));
  self->by_site = !!by_site;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

gboolean
hl_timeline_get_by_site (HlTimeline *self)
{
  g_return_val_if_fail (HL_IS_TIMELINE (self), FALSE);
  return self->by_site;
}

void
hl_timeline_set_data (HlTimeline     *self,
                      HlTimelineData *data)
{
  g_return_if_fail (HL_IS_TIMELINE (self));

  if (self->data == data)
    return;
  g_clear_pointer (&self->data, hl_timeline_data_unref);
  if (data != NULL)
    self->data = hl_timeline_data_ref (data);
  /* A growing recording keeps the user's zoom; a new one resets it. */
  if (self->view_end_ns == 0 || self->data == NULL)
    hl_timeline_reset_zoom (self);
  gtk_widget_queue_resize (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DATA]);
}

HlTimelineData *
hl_timeline_get_data (HlTimeline *self)
{
  g_return_val_if_fail (HL_IS_TIMELINE (self), NULL);
  return self->data;
}

void
hl_timeline_set_selection (HlTimeline *self,
                           guint64     start_ns,
                           guint64     end_ns)
{
  g_return_if_fail (HL_IS_TIMELINE (self));

  if (start_ns > end_ns)
    {
      guint64 t = start_ns;
      start_ns = end_ns;
      end_ns = t;
    }
  if (self->has_selection && self->selection_start_ns == start_ns && self->selection_end_ns == end_ns)
    return;
  self->has_selection = TRUE;
  self->selection_start_ns = start_ns;
  self->selection_end_ns = end_ns;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_signal_emit (self, signals[SELECTION_CHANGED], 0);
}

void
hl_timeline_clear_selection (HlTimeline *self)
{
  g_return_if_fail (HL_IS_TIMELINE (self));
  if (!self->has_selection)
    return;
  self->has_selection = FALSE;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_signal_emit (self, signals[SELECTION_CHANGED], 0);
}

gboolean
hl_timeline_get_selection (HlTimeline *self,
                           guint64    *start_ns,
                           guint64    *end_ns)
{
  g_return_val_if_fail (HL_IS_TIMELINE (self), FALSE);
  if (start_ns)
    *start_ns = self->selection_start_ns;
  if (end_ns)
    *end_ns = self->selection_end_ns;
  return self->has_selection;
}

void
hl_timeline_set_visible_range (HlTimeline *self,
                               guint64     start_ns,
                               guint64     end_ns)
{
  guint64 duration;

  g_return_if_fail (HL_IS_TIMELINE (self));
  duration = self->data ? MAX (hl_timeline_data_get_duration (self->data), 1) : 1;
  end_ns = MIN (end_ns, duration);
  if (end_ns < start_ns + MIN_SPAN_NS)
    {
      end_ns = MIN (start_ns + MIN_SPAN_NS, duration);
      start_ns = end_ns > MIN_SPAN_NS ? end_ns - MIN_SPAN_NS : 0;
    }
  if (self->view_start_ns == start_ns && self->view_end_ns == end_ns)
    return;
  self->view_start_ns = start_ns;
  self->view_end_ns = end_ns;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_signal_emit (self, signals[VISIBLE_RANGE_CHANGED], 0);
}

void
hl_timeline_get_visible_range (HlTimeline *self,
                               guint64    *start_ns,
                               guint64    *end_ns)
{
  g_return_if_fail (HL_IS_TIMELINE (self));
  *start_ns = self->view_start_ns;
  *end_ns = self->view_end_ns;
}

void
hl_timeline_reset_zoom (HlTimeline *self)
{
  g_return_if_fail (HL_IS_TIMELINE (self));
  hl_timeline_set_visible_range (self, 0, self->data ? MAX (hl_timeline_data_get_duration (self->data), 1) : 1);
}

void
hl_timeline_zoom (HlTimeline *self,
                  double      factor,
                  double      x)
{
  HlTimelineViewport vp;
  double anchor, span, new_span, start;

  g_return_if_fail (HL_IS_TIMELINE (self));
  g_return_if_fail (factor > 0);
  hl_timeline_get_viewport (self, &vp);
  anchor = (double) hl_timeline_time_for_x (&vp, x);
  span = (double) (vp.end_ns - vp.start_ns);
  new_span = span / factor;
  start = anchor - (anchor - (double) vp.start_ns) / factor;
  start = MAX (start, 0);
  hl_timeline_set_visible_range (self, (guint64) start, (guint64) (start + new_span));
}

void
hl_timeline_pan (HlTimeline *self,
                 double      dx)
{
  HlTimelineViewport vp;
  double span, shift, start, duration;

  g_return_if_fail (HL_IS_TIMELINE (self));
  if (self->data == NULL)
    return;
  hl_timeline_get_viewport (self, &vp);
  span = (double) (vp.end_ns - vp.start_ns);
  duration = (double) hl_timeline_data_get_duration (self->data);
  shift = vp.width > 0 ? dx / vp.width * span : 0;
  start = CLAMP ((double) vp.start_ns + shift, 0, MAX (duration - span, 0));
  hl_timeline_set_visible_range (self, (guint64) start, (guint64) (start + span));
}

void
hl_timeline_drag (HlTimeline *self,
                  double      x0,
                  double      x1)
{
  HlTimelineViewport vp;

  g_return_if_fail (HL_IS_TIMELINE (self));
  hl_timeline_get_viewport (self, &vp);
  if (fabs (x1 - x0) < DRAG_THRESHOLD)
    {
      /* A click places the cursor (the live-at-T time). */
      self->has_cursor = TRUE;
      self->cursor_ns = hl_timeline_time_for_x (&vp, x0);
      gtk_widget_queue_draw (GTK_WIDGET (self));
      g_signal_emit (self, signals[CURSOR_CHANGED], 0, self->cursor_ns);
      return;
    }
  hl_timeline_set_selection (self, hl_timeline_time_for_x (&vp, x0), hl_timeline_time_for_x (&vp, x1));
}

/* The metadata band under (X, Y), NULL when there is none. */
static const HlTimelineBand *
band_at (HlTimeline *self,
         double      x,
         double      y)
{
  HlTimelineViewport vp;
  HlTimelineLayout lay;
  guint64 t;
  guint row;

  if (self->data == NULL || y < 0)
    return NULL;
  hl_timeline_get_viewport (self, &vp);
  hl_timeline_layout (self->data, &vp, &lay);
  if (y >= lay.bands_height || hl_timeline_band_height (&vp) <= 0)
    return NULL;
  row = (guint) (y / hl_timeline_band_height (&vp));
  t = hl_timeline_time_for_x (&vp, x);
  for (guint i = 0; i < hl_timeline_data_get_n_bands (self->data); i++)
    {
      const HlTimelineBand *band = hl_timeline_data_get_band (self->data, i);
      if (band->row == row && band->start_ns <= t && t < band->end_ns)
        return band;
    }
  return NULL;
}

void
hl_timeline_click (HlTimeline *self,
                   double      x,
                   double      y)
{
  const HlTimelineBand *band;

  g_return_if_fail (HL_IS_TIMELINE (self));
  band = band_at (self, x, y);
  if (band == NULL)
    {
      hl_timeline_drag (self, x, x);
      return;
    }
  /* a band: its interval (phase=load) becomes the selection */
  self->has_selection = FALSE;  /* so that set_selection emits */
  hl_timeline_set_selection (self, band->start_ns, band->end_ns);
}

/* ---- Gestures --------------------------------------------------------- */

static void
on_drag_begin (GtkGestureDrag *gesture,
               double          x,
               double          y,
               HlTimeline     *self)
{
  self->dragging = TRUE;
  self->drag_x = x;
  self->drag_y = y;
}

static void
on_drag_update (GtkGestureDrag *gesture,
                double          dx,
                double          dy,
                HlTimeline     *self)
{
  HlTimelineViewport vp;

  if (fabs (dx) < DRAG_THRESHOLD)
    return;
  /* Show the range while dragging; emit once at the end. */
  hl_timeline_get_viewport (self, &vp);
  self->has_selection = TRUE;
  self->selection_start_ns = hl_timeline_time_for_x (&vp, MIN (self->drag_x, self->drag_x + dx));
  self->selection_end_ns = hl_timeline_time_for_x (&vp, MAX (self->drag_x, self->drag_x + dx));
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
on_drag_end (GtkGestureDrag *gesture,
             double          dx,
             double          dy,
             HlTimeline     *self)
{
  if (!self->dragging)
    return;
  self->dragging = FALSE;
  if (fabs (dx) < DRAG_THRESHOLD)
    {
      hl_timeline_click (self, self->drag_x, self->drag_y);
      return;
    }
  self->has_selection = FALSE;  /* so that set_selection emits */
  hl_timeline_drag (self, self->drag_x, self->drag_x + dx);
}

static gboolean
on_scroll (GtkEventControllerScroll *controller,
           double                    dx,
           double                    dy,
           HlTimeline               *self)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (controller));
  double x = gtk_widget_get_width (GTK_WIDGET (self)) / 2.0;
  GdkEvent *event = gtk_event_controller_get_current_event (GTK_EVENT_CONTROLLER (controller));
  double ex, ey;

  if (event != NULL && gdk_event_get_position (event, &ex, &ey))
    {
      graphene_point_t p;
      GtkNative *native = gtk_widget_get_native (GTK_WIDGET (self));

      if (native != NULL
          && gtk_widget_compute_point (GTK_WIDGET (native), GTK_WIDGET (self),
                                       &GRAPHENE_POINT_INIT ((float) ex, (float) ey), &p))
        x = p.x;
    }

  if (state & GDK_CONTROL_MASK)
    {
      hl_timeline_zoom (self, dy < 0 ? 1.25 : 0.8, x);
      return TRUE;
    }
  hl_timeline_pan (self, (dx != 0 ? dx : dy) * 40.0);
  return TRUE;
}

/* Appends TEXT to OUT, escaped for Pango markup. */
static void
append_escaped (GString    *out,
                             const char *text)
{
  g_autofree char *escaped = g_markup_escape_text (text, -1);
  g_string_append (out, escaped);
}

/* The call sites' bytes at T, largest site first, each after a square
 * of its colour, then the rest (markup). */
static void
append_sites (GString              *text,
              const HlTimelineData *data,
              guint64               t)
{
  gboolean dark = adw_style_manager_get_dark (adw_style_manager_get_default ());
  double rgb[3];
  guint n = hl_timeline_data_get_n_sites (data);
  const guint64 *row = hl_timeline_data_get_sites_at (data, t);
  guint64 sum = 0;

  if (row == NULL)
    return;
  for (guint k = 0; k < n; k++)
    {
      g_autofree char *bytes = NULL;
      g_autofree char *shown = NULL;

      sum += row[k];
      if (row[k] == 0)
        continue;
      bytes = hl_format_size (row[k]);
      shown = hl_format_shortened (hl_timeline_data_get_site_label (data, k), 80);
      hl_timeline_site_color (dark, k, rgb);
      g_string_append_printf (text, "\n<span foreground=\"#%02x%02x%02x\">■</span> ",
                              (int) (rgb[0] * 255), (int) (rgb[1] * 255), (int) (rgb[2] * 255));
      append_escaped (text, shown);
      g_string_append_printf (text, ": %s", bytes);
    }
  if (row[n] > sum)
    {
      g_autofree char *bytes = hl_format_size (row[n] - sum);
      /* Translators: in the timeline's tooltip, the heap outside its largest call sites */
      g_string_append (text, "\n   ");
      append_escaped (text, _("Other call sites"));
      g_string_append_printf (text, ": %s", bytes);
    }
}

char *
hl_timeline_describe (HlTimeline *self,
                      double      x,
                      double      y)
{
  HlTimelineViewport vp;
  guint64 t;
  g_autofree char *time = NULL;
  g_autofree char *heap = NULL;
  g_autofree char *text = NULL;
  const HlTimelineBucket *found = NULL;
  GString *bands;

  g_return_val_if_fail (HL_IS_TIMELINE (self), NULL);
  if (self->data == NULL)
    return NULL;
  hl_timeline_get_viewport (self, &vp);
  t = hl_timeline_time_for_x (&vp, x);
  for (guint i = 0; i < hl_timeline_data_get_n_buckets (self->data); i++)
    {
      const HlTimelineBucket *b = hl_timeline_data_get_bucket (self->data, i);
      if (b->time_ns > t)
        break;
      found = b;
    }
  time = hl_format_time (t);
  bands = g_string_new (NULL);
  if (found != NULL && vp.by_site)
    append_sites (bands, self->data, t);
  for (guint i = 0; i < hl_timeline_data_get_n_bands (self->data); i++)
    {
      const HlTimelineBand *band = hl_timeline_data_get_band (self->data, i);
      if (band->start_ns <= t && t < band->end_ns)
        {
          g_string_append_c (bands, '\n');
          append_escaped (bands, band->label);
        }
    }
  if (band_at (self, x, y) != NULL)
    {
      g_string_append_c (bands, '\n');
      /* Translators: in the tooltip of a metadata band of the timeline */
      append_escaped (bands, _("Click to select this band's time range"));
    }
  if (found != NULL && self->mode == HL_TIMELINE_MODE_ALLOCATIONS)
    {
      g_autofree char *total = hl_format_count (found->allocations_total);
      g_autofree char *allocs = hl_format_count (found->n_allocs);
      /* Translators: the timeline's tooltip in its Allocations chart: the time, the allocations since the start, and those in the bucket */
      text = g_strdup_printf (_("%s\nAllocations so far: %s\nIn this interval: %s"), time, total, allocs);
    }
  else if (found != NULL && self->mode == HL_TIMELINE_MODE_TEMPORARY)
    {
      g_autofree char *total = hl_format_count (found->temporary_total);
      g_autofree char *all = hl_format_count (found->allocations_total);
      /* Translators: the timeline's tooltip in its Temporary chart: the time, the temporary allocations since the start, and all allocations */
      text = g_strdup_printf (_("%s\nTemporary allocations so far: %s\nof %s allocations"), time, total, all);
    }
  else if (found != NULL)
    {
      g_autofree char *rss = found->rss ? hl_format_size (found->rss) : NULL;
      g_autofree char *allocs = hl_format_count (found->n_allocs);
      heap = hl_format_size (found->heap_max);
      text = rss ? g_strdup_printf (_("%s\nHeap: %s\nRSS: %s\nAllocations: %s%s"), time, heap, rss,
                                    allocs, "")
                 : g_strdup_printf (_("%s\nHeap: %s%s"), time, heap, "");
    }
  else
    text = g_strdup (time);
  /* the fixed lines escaped, then the sites' and bands' (markup already) */
  {
    g_autofree char *escaped = g_markup_escape_text (text, -1);
    char *markup = g_strconcat (escaped, bands->str, NULL);
    g_string_free (bands, TRUE);
    return markup;
  }
}

static gboolean
on_query_tooltip (GtkWidget  *widget,
                  int         x,
                  int         y,
                  gboolean    keyboard,
                  GtkTooltip *tooltip,
                  gpointer    user_data)
{
  g_autofree char *markup = keyboard ? NULL : hl_timeline_describe (HL_TIMELINE (widget), x, y);

  if (markup == NULL)
    return FALSE;
  gtk_tooltip_set_markup (tooltip, markup);
  return TRUE;
}

/* ---- GtkWidget -------------------------------------------------------- */

static void
hl_timeline_measure (GtkWidget      *widget,
                     GtkOrientation  orientation,
                     int             for_size,
                     int            *minimum,
                     int            *natural,
                     int            *minimum_baseline,
                     int            *natural_baseline)
{
  HlTimeline *self = HL_TIMELINE (widget);
  double row = row_height (self);
  guint rows = self->data ? hl_timeline_data_get_n_rows (self->data) : 0;

  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = 100;
      *natural = 600;
    }
  else
    {
      /* The bands, the axis, and room for the chart; short of room,
       * bands as strips and a smaller chart (hl_timeline_fit_band_height). */
      *minimum = (int) ceil (MIN (HL_TIMELINE_MIN_BAND_PX, row) * rows + row * (1 + MIN_CHART_ROWS));
      *natural = (int) (row * (rows + 1) + row * 5);
    }
}

static void
hl_timeline_snapshot (GtkWidget   *widget,
                      GtkSnapshot *snapshot)
{
  HlTimeline *self = HL_TIMELINE (widget);
  HlTimelineViewport vp;
  HlTimelineStyle style;
  cairo_t *cr;

  if (self->data == NULL)
    return;
  hl_timeline_get_viewport (self, &vp);
  if (vp.width <= 0 || vp.height <= 0)
    return;
  style.dark = adw_style_manager_get_dark (adw_style_manager_get_default ());
  style.font = pango_context_get_font_description (gtk_widget_get_pango_context (widget));
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, vp.width, vp.height));
  hl_timeline_draw (cr, self->data, &vp, &style);
  cairo_destroy (cr);
}

static void
on_dark_changed (HlTimeline *self)
{
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
hl_timeline_dispose (GObject *object)
{
  HlTimeline *self = HL_TIMELINE (object);

  g_signal_handlers_disconnect_by_func (adw_style_manager_get_default (), on_dark_changed, self);
  g_clear_pointer (&self->data, hl_timeline_data_unref);
  G_OBJECT_CLASS (hl_timeline_parent_class)->dispose (object);
}

static void
hl_timeline_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  HlTimeline *self = HL_TIMELINE (object);

  switch (prop_id)
    {
    case PROP_DATA:
      g_value_set_boxed (value, self->data);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hl_timeline_set_property (GObject      *object,
                          guint         prop_id,
                          const GValue *value,
                          GParamSpec   *pspec)
{
  HlTimeline *self = HL_TIMELINE (object);

  switch (prop_id)
    {
    case PROP_DATA:
      hl_timeline_set_data (self, g_value_get_boxed (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hl_timeline_class_init (HlTimelineClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = hl_timeline_dispose;
  object_class->get_property = hl_timeline_get_property;
  object_class->set_property = hl_timeline_set_property;
  widget_class->measure = hl_timeline_measure;
  widget_class->snapshot = hl_timeline_snapshot;

  properties[PROP_DATA] =
    g_param_spec_boxed ("data", NULL, NULL, HL_TYPE_TIMELINE_DATA,
                        G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* The selected range was set, changed or cleared (see get_selection). */
  signals[SELECTION_CHANGED] =
    g_signal_new ("selection-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  /* Zoom or pan: an owner with finer data for the new range can set it. */
  signals[VISIBLE_RANGE_CHANGED] =
    g_signal_new ("visible-range-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[CURSOR_CHANGED] =
    g_signal_new ("cursor-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT64);

  gtk_widget_class_set_css_name (widget_class, "timeline");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
hl_timeline_init (HlTimeline *self)
{
  GtkGesture *drag;
  GtkEventController *scroll;

  self->view_end_ns = 0;

  drag = gtk_gesture_drag_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (drag), GDK_BUTTON_PRIMARY);
  g_signal_connect (drag, "drag-begin", G_CALLBACK (on_drag_begin), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (on_drag_update), self);
  g_signal_connect (drag, "drag-end", G_CALLBACK (on_drag_end), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drag));

  scroll = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
  g_signal_connect (scroll, "scroll", G_CALLBACK (on_scroll), self);
  gtk_widget_add_controller (GTK_WIDGET (self), scroll);

  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  g_signal_connect (self, "query-tooltip", G_CALLBACK (on_query_tooltip), NULL);

  g_signal_connect_swapped (adw_style_manager_get_default (), "notify::dark",
                            G_CALLBACK (on_dark_changed), self);

  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Timeline"),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  _("Heap over time; drag to select a time range"),
                                  -1);
}
