/* hl-histogram.c — a bar chart of allocation sizes. */
#include "hl-config.h"

#include <math.h>

#include <adwaita.h>
#include <glib/gi18n.h>
#include <pango/pangocairo.h>

#include "hl-histogram.h"
#include "hl-timeline-draw.h"
#include "hl-units.h"

#define LABEL_HEIGHT   18.0
#define TOP_MARGIN     18.0
#define CAPTION_HEIGHT 16.0   /* the axis' caption above the chart */
#define AXIS_WIDTH     56.0   /* the tick labels left of the bars */

static guint64
bar_value (const HlHistogramBucket *b,
           const HlHistogramStyle  *style)
{
  return style->by_bytes ? b->bytes : b->count;
}

static double
chart_left (const HlHistogramStyle *style)
{
  return style->axis ? MIN (AXIS_WIDTH, style->width / 4) : 0;
}

static double
chart_top (const HlHistogramStyle *style)
{
  return TOP_MARGIN + (style->axis ? CAPTION_HEIGHT : 0);
}

static double
chart_height (const HlHistogramStyle *style)
{
  return MAX (style->height - LABEL_HEIGHT - chart_top (style), 1);
}

/* VALUE's share of the chart's height, MAX the tallest bar's. */
static double
scaled (const HlHistogramStyle *style,
        guint64                 value,
        guint64                 max)
{
  if (style->log_scale)
    return log1p ((double) value) / log1p ((double) MAX (max, 1));
  return (double) value / (double) MAX (max, 1);
}

static guint64
max_value (guint                    n,
           const HlHistogramBucket *buckets,
           const HlHistogramStyle  *style)
{
  guint64 max = 1;

  for (guint k = 0; k < n; k++)
    max = MAX (max, bar_value (&buckets[k], style));
  return max;
}

void
hl_histogram_bar_rect (guint                    n,
                       const HlHistogramBucket *buckets,
                       const HlHistogramStyle  *style,
                       guint                    i,
                       double                  *x,
                       double                  *y,
                       double                  *w,
                       double                  *h)
{
  guint64 max = max_value (n, buckets, style);
  double left = chart_left (style), chart_h = chart_height (style);
  double slot = n > 0 ? (style->width - left) / n : 0;

  *x = left + i * slot + MIN (2.0, slot * 0.1);
  *w = MAX (slot - 2 * MIN (2.0, slot * 0.1), 1);
  *h = scaled (style, bar_value (&buckets[i], style), max) * chart_h;
  *y = chart_top (style) + chart_h - *h;
}

int
hl_histogram_bucket_at (guint                   n,
                        const HlHistogramStyle *style,
                        double                  x)
{
  double left = chart_left (style), slot;

  if (n == 0 || x < left || x >= style->width)
    return -1;
  slot = (style->width - left) / n;
  return MIN ((int) ((x - left) / slot), (int) n - 1);
}

char *
hl_histogram_caption (const HlHistogramStyle *style)
{
  if (style->by_bytes)
    return g_strdup (style->log_scale ? _("Bytes allocated (log scale)") : _("Bytes allocated"));
  return g_strdup (style->log_scale ? _("Allocations (log scale)") : _("Allocations"));
}

static char *
format_value (const HlHistogramStyle *style,
              guint64                 value)
{
  return style->by_bytes ? hl_format_size (value) : hl_format_count (value);
}

/* A round step near MAX / 4: 1, 2 or 5 times a power of ten (or of 1024
 * for bytes, so that the ticks read 256 KiB, 512 KiB). */
static guint64
nice_step (guint64  max,
           gboolean bytes)
{
  double raw = (double) max / 4.0, base = 1;

  if (bytes)
    {
      while (base * 1024 <= raw)
        base *= 1024;
      for (double m = 1; m <= 512; m *= 2)
        if (base * m >= raw)
          return (guint64) (base * m);
      return (guint64) (base * 1024);
    }
  while (base * 10 <= raw)
    base *= 10;
  if (base >= raw)
    return (guint64) base;
  if (2 * base >= raw)
    return (guint64) (2 * base);
  if (5 * base >= raw)
    return (guint64) (5 * base);
  return (guint64) (10 * base);
}

#define TICK_SPACING 14.0   /* the least gap between two tick labels */

/* A tick and its label at VALUE, unless it would touch the one below
 * (LAST_Y, updated). */
static void
draw_tick (cairo_t                *cr,
           PangoLayout            *layout,
           const HlHistogramStyle *style,
           guint64                 value,
           guint64                 max,
           double                 *last_y)
{
  double fg = style->dark ? 1.0 : 0.0;
  double left = chart_left (style), y;
  g_autofree char *text = NULL;
  int tw, th;

  y = chart_top (style) + chart_height (style) * (1 - scaled (style, value, max));
  if (*last_y - y < TICK_SPACING)
    return;
  *last_y = y;
  text = format_value (style, value);
  cairo_set_source_rgba (cr, fg, fg, fg, 0.12);
  cairo_rectangle (cr, left, floor (y) + 0.0, style->width - left, 1);
  cairo_fill (cr);
  cairo_set_source_rgba (cr, fg, fg, fg, 0.7);
  pango_layout_set_text (layout, text, -1);
  pango_layout_get_pixel_size (layout, &tw, &th);
  if (tw > left - 4)
    return;
  cairo_move_to (cr, left - 4 - tw, y - th / 2.0);
  pango_cairo_show_layout (cr, layout);
}

static void
draw_axis (cairo_t                 *cr,
           PangoLayout             *layout,
           guint                    n,
           const HlHistogramBucket *buckets,
           const HlHistogramStyle  *style)
{
  guint64 max = max_value (n, buckets, style);
  double fg = style->dark ? 1.0 : 0.0, last_y = G_MAXDOUBLE;
  g_autofree char *caption = hl_histogram_caption (style);

  cairo_set_source_rgba (cr, fg, fg, fg, 0.7);
  pango_layout_set_text (layout, caption, -1);
  cairo_move_to (cr, 0, 0);
  pango_cairo_show_layout (cr, layout);

  draw_tick (cr, layout, style, 0, max, &last_y);
  if (style->log_scale)
    {
      /* 1, 10, 100… (1, 1 KiB, 1 MiB… for bytes) */
      double factor = style->by_bytes ? 1024 : 10;

      for (double v = 1; v <= (double) max; v *= factor)
        draw_tick (cr, layout, style, (guint64) v, max, &last_y);
    }
  else
    {
      guint64 step = nice_step (max, style->by_bytes);

      for (guint64 v = step; v <= max && step > 0; v += step)
        draw_tick (cr, layout, style, v, max, &last_y);
    }
}

/* Bar B (its rectangle X, Y, W, H) as its parts stacked from the
 * bottom, each its share of the bar's value; the last part (the other
 * call sites) in grey, as the timeline draws them. */
static void
draw_parts (cairo_t                 *cr,
            const HlHistogramBucket *b,
            const HlHistogramStyle  *style,
            double                   x,
            double                   y,
            double                   w,
            double                   h)
{
  guint64 total = bar_value (b, style);
  double bottom = y + h;

  for (guint k = 0; k < style->n_parts && k < HL_HISTOGRAM_MAX_PARTS && total > 0; k++)
    {
      guint64 v = style->by_bytes ? b->part_bytes[k] : b->part_count[k];
      double ph = h * (double) v / (double) total, rgb[3];

      if (v == 0)
        continue;
      /* the others as the timeline's legend shows them: the heap's, faded */
      if (k + 1 == style->n_parts)
        hl_timeline_heap_color (style->dark, rgb);
      else
        hl_timeline_site_color (style->dark, k, rgb);
      cairo_set_source_rgba (cr, rgb[0], rgb[1], rgb[2], k + 1 == style->n_parts ? 0.55 : 1.0);
      cairo_rectangle (cr, x, bottom - ph, w, ph);
      cairo_fill (cr);
      bottom -= ph;
    }
}

void
hl_histogram_draw (cairo_t                 *cr,
                   guint                    n,
                   const HlHistogramBucket *buckets,
                   const HlHistogramStyle  *style)
{
  g_autoptr(PangoLayout) layout = pango_cairo_create_layout (cr);
  g_autoptr(PangoFontDescription) font = pango_font_description_from_string ("Sans 8");
  double fg = style->dark ? 1.0 : 0.0;

  pango_layout_set_font_description (layout, font);
  if (style->axis)
    draw_axis (cr, layout, n, buckets, style);
  for (guint i = 0; i < n; i++)
    {
      double x, y, w, h;
      int tw, th;
      g_autofree char *size = buckets[i].label != NULL ? g_strdup (buckets[i].label)
                                                       : hl_format_size (buckets[i].min_size);
      g_autofree char *value = format_value (style, bar_value (&buckets[i], style));

      hl_histogram_bar_rect (n, buckets, style, i, &x, &y, &w, &h);
      if (style->n_parts > 0)
        draw_parts (cr, &buckets[i], style, x, y, w, h);
      else
        {
          if (style->dark)
            cairo_set_source_rgb (cr, 0.38, 0.63, 0.92);
          else
            cairo_set_source_rgb (cr, 0.21, 0.52, 0.89);
          cairo_rectangle (cr, x, y, w, h);
          cairo_fill (cr);
        }

      cairo_set_source_rgba (cr, fg, fg, fg, 0.7);
      pango_layout_set_text (layout, size, -1);
      pango_layout_get_pixel_size (layout, &tw, &th);
      if (tw <= w + 8)
        {
          cairo_move_to (cr, x + (w - tw) / 2, style->height - LABEL_HEIGHT + 2);
          pango_cairo_show_layout (cr, layout);
        }
      if (bar_value (&buckets[i], style) > 0)
        {
          pango_layout_set_text (layout, value, -1);
          pango_layout_get_pixel_size (layout, &tw, &th);
          if (tw <= w + 8)
            {
              cairo_move_to (cr, x + (w - tw) / 2, y - th - 1);
              pango_cairo_show_layout (cr, layout);
            }
        }
    }
}

/* ---- Widget ----------------------------------------------------------- */

struct _HlHistogram
{
  GtkWidget parent_instance;

  GArray  *buckets;
  gboolean by_bytes;
  gboolean log_scale;
  GStrv    part_labels;   /* NULL: whole bars */
};

enum {
  PROP_0,
  PROP_LOG_SCALE,
  N_PROPS
};

enum {
  SIZE_RANGE_ACTIVATED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (HlHistogram, hl_histogram, GTK_TYPE_WIDGET)

GtkWidget *
hl_histogram_new (void)
{
  return g_object_new (HL_TYPE_HISTOGRAM, NULL);
}

static gboolean
has_size_bars (HlHistogram *self)
{
  return self->buckets->len > 0 && g_array_index (self->buckets, HlHistogramBucket, 0).label == NULL;
}

void
hl_histogram_set_buckets (HlHistogram             *self,
                          guint                    n,
                          const HlHistogramBucket *buckets)
{
  g_return_if_fail (HL_IS_HISTOGRAM (self));
  g_array_set_size (self->buckets, 0);
  g_array_append_vals (self->buckets, buckets, n);
  /* a size bar is a filter to click */
  gtk_widget_set_cursor_from_name (GTK_WIDGET (self), has_size_bars (self) ? "pointer" : NULL);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
hl_histogram_set_parts (HlHistogram        *self,
                        guint               n_parts,
                        const char * const *labels)
{
  g_return_if_fail (HL_IS_HISTOGRAM (self));
  g_clear_pointer (&self->part_labels, g_strfreev);
  n_parts = MIN (n_parts, HL_HISTOGRAM_MAX_PARTS);
  if (n_parts > 0)
    {
      self->part_labels = g_new0 (char *, n_parts + 1);
      for (guint k = 0; k < n_parts; k++)
        self->part_labels[k] = g_strdup (labels[k]);
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

guint
hl_histogram_get_n_parts (HlHistogram *self)
{
  g_return_val_if_fail (HL_IS_HISTOGRAM (self), 0);
  return self->part_labels != NULL ? g_strv_length (self->part_labels) : 0;
}

void
hl_histogram_set_by_bytes (HlHistogram *self,
                           gboolean     by_bytes)
{
  g_return_if_fail (HL_IS_HISTOGRAM (self));
  self->by_bytes = by_bytes;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
hl_histogram_set_log_scale (HlHistogram *self,
                            gboolean     log_scale)
{
  g_return_if_fail (HL_IS_HISTOGRAM (self));
  log_scale = !!log_scale;
  if (self->log_scale == log_scale)
    return;
  self->log_scale = log_scale;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOG_SCALE]);
}

gboolean
hl_histogram_get_log_scale (HlHistogram *self)
{
  g_return_val_if_fail (HL_IS_HISTOGRAM (self), FALSE);
  return self->log_scale;
}

static HlHistogramStyle
get_style (HlHistogram *self)
{
  HlHistogramStyle style = {
    .width = gtk_widget_get_width (GTK_WIDGET (self)),
    .height = gtk_widget_get_height (GTK_WIDGET (self)),
    .dark = adw_style_manager_get_dark (adw_style_manager_get_default ()),
    .by_bytes = self->by_bytes,
    .log_scale = self->log_scale,
    .axis = TRUE,
    .n_parts = self->part_labels != NULL ? g_strv_length (self->part_labels) : 0,
  };
  return style;
}

static void
hl_histogram_snapshot (GtkWidget   *widget,
                       GtkSnapshot *snapshot)
{
  HlHistogram *self = HL_HISTOGRAM (widget);
  HlHistogramStyle style = get_style (self);
  cairo_t *cr;

  if (self->buckets->len == 0 || style.width <= 0 || style.height <= 0)
    return;
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, style.width, style.height));
  hl_histogram_draw (cr, self->buckets->len, (const HlHistogramBucket *) (gpointer) self->buckets->data, &style);
  cairo_destroy (cr);
}

guint
hl_histogram_get_n_buckets (HlHistogram *self)
{
  g_return_val_if_fail (HL_IS_HISTOGRAM (self), 0);
  return self->buckets->len;
}

const HlHistogramBucket *
hl_histogram_get_bucket (HlHistogram *self,
                         guint        i)
{
  g_return_val_if_fail (HL_IS_HISTOGRAM (self), NULL);
  return i < self->buckets->len ? &g_array_index (self->buckets, HlHistogramBucket, i) : NULL;
}

char *
hl_histogram_describe_bar (HlHistogram *self,
                           guint        i)
{
  const HlHistogramBucket *b;
  g_autofree char *from = NULL, *to = NULL, *count = NULL, *bytes = NULL;

  g_return_val_if_fail (HL_IS_HISTOGRAM (self), NULL);
  g_return_val_if_fail (i < self->buckets->len, NULL);

  b = &g_array_index (self->buckets, HlHistogramBucket, i);
  count = hl_format_count (b->count);
  bytes = hl_format_size (b->bytes);
  if (b->label != NULL)
    /* Translators: a lifetime histogram bar, e.g. "1–10 ms: 1,024 blocks, 96.0 KiB" */
    return g_strdup_printf (_("%s: %s blocks, %s"), b->label, count, bytes);
  from = hl_format_size (b->min_size);
  if (b->max_size == b->min_size)
    /* Translators: a size histogram bar of one size, e.g. "0 B: 3 allocations, 0 B" */
    return g_strdup_printf (_("%s: %s allocations, %s"), from, count, bytes);
  to = hl_format_size (b->max_size);
  /* Translators: a size histogram bar, both ends included, e.g. "64 B to 127 B: 1,024 allocations, 96.0 KiB; click to filter" */
  g_autofree char *head = g_strdup_printf (_("%s to %s: %s allocations, %s; click to show only these sizes"), from, to,
                                           count, bytes);
  if (self->part_labels == NULL)
    return g_steal_pointer (&head);
  /* by call site: a line per part that has some, largest part first as drawn from the bottom */
  GString *text = g_string_new (head);
  for (guint k = 0; self->part_labels[k] != NULL; k++)
    {
      guint64 v = self->by_bytes ? b->part_bytes[k] : b->part_count[k];
      g_autofree char *shown = NULL;
      if (v == 0)
        continue;
      shown = self->by_bytes ? hl_format_size (v) : hl_format_count (v);
      g_string_append_printf (text, "\n%s: %s", self->part_labels[k], shown);
    }
  return g_string_free (text, FALSE);
}

gboolean
hl_histogram_activate_bar (HlHistogram *self,
                           guint        i)
{
  const HlHistogramBucket *b;

  g_return_val_if_fail (HL_IS_HISTOGRAM (self), FALSE);
  if (i >= self->buckets->len)
    return FALSE;
  b = &g_array_index (self->buckets, HlHistogramBucket, i);
  if (b->label != NULL || b->max_size < b->min_size)
    return FALSE;
  g_signal_emit (self, signals[SIZE_RANGE_ACTIVATED], 0, b->min_size, b->max_size);
  return TRUE;
}

static gboolean
on_query_tooltip (GtkWidget  *widget,
                  int         x,
                  int         y,
                  gboolean    keyboard,
                  GtkTooltip *tooltip,
                  gpointer    user_data)
{
  HlHistogram *self = HL_HISTOGRAM (widget);
  HlHistogramStyle style = get_style (self);
  g_autofree char *text = NULL;
  int i;

  if (keyboard)
    return FALSE;
  i = hl_histogram_bucket_at (self->buckets->len, &style, x);
  if (i < 0)
    return FALSE;
  text = hl_histogram_describe_bar (self, (guint) i);
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

static void
on_released (GtkGestureClick *gesture,
             int              n_press,
             double           x,
             double           y,
             HlHistogram     *self)
{
  HlHistogramStyle style = get_style (self);
  int i = hl_histogram_bucket_at (self->buckets->len, &style, x);

  if (i >= 0)
    hl_histogram_activate_bar (self, (guint) i);
}

static void
hl_histogram_measure (GtkWidget      *widget,
                      GtkOrientation  orientation,
                      int             for_size,
                      int            *minimum,
                      int            *natural,
                      int            *minimum_baseline,
                      int            *natural_baseline)
{
  *minimum = orientation == GTK_ORIENTATION_HORIZONTAL ? 200 : 80;
  *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 600 : 220;
}

static void
hl_histogram_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_LOG_SCALE:
      g_value_set_boolean (value, HL_HISTOGRAM (object)->log_scale);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hl_histogram_set_property (GObject      *object,
                           guint         prop_id,
                           const GValue *value,
                           GParamSpec   *pspec)
{
  switch (prop_id)
    {
    case PROP_LOG_SCALE:
      hl_histogram_set_log_scale (HL_HISTOGRAM (object), g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hl_histogram_finalize (GObject *object)
{
  g_array_unref (HL_HISTOGRAM (object)->buckets);
  g_strfreev (HL_HISTOGRAM (object)->part_labels);
  G_OBJECT_CLASS (hl_histogram_parent_class)->finalize (object);
}

static void
hl_histogram_class_init (HlHistogramClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = hl_histogram_finalize;
  object_class->get_property = hl_histogram_get_property;
  object_class->set_property = hl_histogram_set_property;
  widget_class->snapshot = hl_histogram_snapshot;
  widget_class->measure = hl_histogram_measure;

  /* Bar heights by log(1 + value): a bar of 3 beside one of 30,000
   * stays visible. The axis' caption says so. */
  properties[PROP_LOG_SCALE] =
    g_param_spec_boolean ("log-scale", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* A size bar was clicked: MIN and MAX bytes, both included. */
  signals[SIZE_RANGE_ACTIVATED] =
    g_signal_new ("size-range-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_UINT64, G_TYPE_UINT64);
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
hl_histogram_init (HlHistogram *self)
{
  GtkGesture *click = gtk_gesture_click_new ();

  self->buckets = g_array_new (FALSE, FALSE, sizeof (HlHistogramBucket));
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  g_signal_connect (self, "query-tooltip", G_CALLBACK (on_query_tooltip), NULL);
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), GDK_BUTTON_PRIMARY);
  g_signal_connect (click, "released", G_CALLBACK (on_released), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (click));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Allocation sizes"), -1);
}
