/* hl-histogram.c — a bar chart of allocation sizes. */
#include "hl-config.h"

#include <math.h>

#include <adwaita.h>
#include <glib/gi18n.h>
#include <pango/pangocairo.h>

#include "hl-histogram.h"
#include "hl-units.h"

#define LABEL_HEIGHT 18.0
#define TOP_MARGIN   18.0

static guint64
bar_value (const HlHistogramBucket *b,
           const HlHistogramStyle  *style)
{
  return style->by_bytes ? b->bytes : b->count;
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
  guint64 max = 1;
  double slot, chart_h = MAX (style->height - LABEL_HEIGHT - TOP_MARGIN, 1);

  for (guint k = 0; k < n; k++)
    max = MAX (max, bar_value (&buckets[k], style));
  slot = n > 0 ? style->width / n : 0;
  *x = i * slot + MIN (2.0, slot * 0.1);
  *w = MAX (slot - 2 * MIN (2.0, slot * 0.1), 1);
  *h = (double) bar_value (&buckets[i], style) / (double) max * chart_h;
  *y = TOP_MARGIN + chart_h - *h;
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
  for (guint i = 0; i < n; i++)
    {
      double x, y, w, h;
      int tw, th;
      g_autofree char *size = buckets[i].label != NULL ? g_strdup (buckets[i].label)
                                                       : hl_format_size (buckets[i].min_size);
      g_autofree char *value = style->by_bytes ? hl_format_size (buckets[i].bytes)
                                               : hl_format_count (buckets[i].count);

      hl_histogram_bar_rect (n, buckets, style, i, &x, &y, &w, &h);
      if (style->dark)
        cairo_set_source_rgb (cr, 0.38, 0.63, 0.92);
      else
        cairo_set_source_rgb (cr, 0.21, 0.52, 0.89);
      cairo_rectangle (cr, x, y, w, h);
      cairo_fill (cr);

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
};

G_DEFINE_FINAL_TYPE (HlHistogram, hl_histogram, GTK_TYPE_WIDGET)

GtkWidget *
hl_histogram_new (void)
{
  return g_object_new (HL_TYPE_HISTOGRAM, NULL);
}

void
hl_histogram_set_buckets (HlHistogram             *self,
                          guint                    n,
                          const HlHistogramBucket *buckets)
{
  g_return_if_fail (HL_IS_HISTOGRAM (self));
  g_array_set_size (self->buckets, 0);
  g_array_append_vals (self->buckets, buckets, n);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
hl_histogram_set_by_bytes (HlHistogram *self,
                           gboolean     by_bytes)
{
  g_return_if_fail (HL_IS_HISTOGRAM (self));
  self->by_bytes = by_bytes;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static HlHistogramStyle
get_style (HlHistogram *self)
{
  HlHistogramStyle style = {
    .width = gtk_widget_get_width (GTK_WIDGET (self)),
    .height = gtk_widget_get_height (GTK_WIDGET (self)),
    .dark = adw_style_manager_get_dark (adw_style_manager_get_default ()),
    .by_bytes = self->by_bytes,
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
  const HlHistogramBucket *b;
  g_autofree char *from = NULL, *to = NULL, *count = NULL, *bytes = NULL, *text = NULL;
  guint i;

  if (self->buckets->len == 0 || style.width <= 0 || keyboard)
    return FALSE;
  i = (guint) (x / (style.width / self->buckets->len));
  if (i >= self->buckets->len)
    return FALSE;
  b = &g_array_index (self->buckets, HlHistogramBucket, i);
  if (b->label != NULL)
    {
      count = hl_format_count (b->count);
      bytes = hl_format_size (b->bytes);
      /* Translators: a lifetime histogram bar, e.g. "1–10 ms: 1,024 blocks, 96.0 KiB" */
      text = g_strdup_printf (_("%s: %s blocks, %s"), b->label, count, bytes);
      gtk_tooltip_set_text (tooltip, text);
      return TRUE;
    }
  from = hl_format_size (b->min_size);
  to = i + 1 < self->buckets->len
         ? hl_format_size (g_array_index (self->buckets, HlHistogramBucket, i + 1).min_size)
         : g_strdup ("∞");
  count = hl_format_count (b->count);
  bytes = hl_format_size (b->bytes);
  /* Translators: a size histogram bar, e.g. "64 B to 128 B: 1,024 allocations, 96.0 KiB" */
  text = g_strdup_printf (_("%s to %s: %s allocations, %s"), from, to, count, bytes);
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
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
hl_histogram_finalize (GObject *object)
{
  g_array_unref (HL_HISTOGRAM (object)->buckets);
  G_OBJECT_CLASS (hl_histogram_parent_class)->finalize (object);
}

static void
hl_histogram_class_init (HlHistogramClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = hl_histogram_finalize;
  widget_class->snapshot = hl_histogram_snapshot;
  widget_class->measure = hl_histogram_measure;
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
hl_histogram_init (HlHistogram *self)
{
  self->buckets = g_array_new (FALSE, FALSE, sizeof (HlHistogramBucket));
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  g_signal_connect (self, "query-tooltip", G_CALLBACK (on_query_tooltip), NULL);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Allocation sizes"), -1);
}
