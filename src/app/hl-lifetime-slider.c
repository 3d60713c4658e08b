/* hl-lifetime-slider.c — the T of the long-lived cost on a log scale. */
#include "hl-config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "hl-lifetime-slider.h"
#include "hl-units.h"

#define MIN_NS     1000.0    /* 1 µs */
#define STEPS      1000.0    /* the adjustment's upper bound */
#define DEBOUNCE_MS 150

struct _HlLifetimeSlider
{
  GtkWidget parent_instance;

  /* Template widgets */
  GtkScale      *scale;
  GtkAdjustment *adjustment;
  GtkLabel      *label;

  guint64        max_ns;
  guint64        value_ns;
  guint          debounce_id;
  gboolean       setting;
};

enum {
  CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (HlLifetimeSlider, hl_lifetime_slider, GTK_TYPE_WIDGET)

/* Position (0 … STEPS) to ns and back, logarithmically. */
static guint64
position_to_ns (HlLifetimeSlider *self,
                double            position)
{
  double span = log ((double) self->max_ns / MIN_NS);

  return (guint64) llround (MIN_NS * exp (span * CLAMP (position, 0, STEPS) / STEPS));
}

static double
ns_to_position (HlLifetimeSlider *self,
                guint64           ns)
{
  double span = log ((double) self->max_ns / MIN_NS);

  if (span <= 0 || ns <= MIN_NS)
    return 0;
  return CLAMP (STEPS * log ((double) ns / MIN_NS) / span, 0, STEPS);
}

static void
update_label (HlLifetimeSlider *self)
{
  g_autofree char *t = hl_format_duration (self->value_ns);
  /* Translators: the long-lived cost's threshold, e.g. "≥ 12.5 ms" */
  g_autofree char *text = g_strdup_printf (_("≥ %s"), t);

  gtk_label_set_label (self->label, text);
}

static gboolean
emit_changed (gpointer user_data)
{
  HlLifetimeSlider *self = user_data;

  self->debounce_id = 0;
  g_signal_emit (self, signals[CHANGED], 0);
  return G_SOURCE_REMOVE;
}

static void
on_value_changed (HlLifetimeSlider *self)
{
  if (self->setting)
    return;
  self->value_ns = position_to_ns (self, gtk_adjustment_get_value (self->adjustment));
  update_label (self);
  /* a drag moves the value many times a second: one analysis once it rests */
  g_clear_handle_id (&self->debounce_id, g_source_remove);
  self->debounce_id = g_timeout_add (DEBOUNCE_MS, emit_changed, self);
}

static void
set_position (HlLifetimeSlider *self)
{
  self->setting = TRUE;
  gtk_adjustment_set_value (self->adjustment, ns_to_position (self, self->value_ns));
  self->setting = FALSE;
  update_label (self);
}

void
hl_lifetime_slider_set_max_ns (HlLifetimeSlider *self,
                               guint64           max_ns)
{
  g_return_if_fail (HL_IS_LIFETIME_SLIDER (self));
  self->max_ns = MAX (max_ns, (guint64) MIN_NS);
  self->value_ns = CLAMP (self->value_ns, (guint64) MIN_NS, self->max_ns);
  set_position (self);
}

guint64
hl_lifetime_slider_get_max_ns (HlLifetimeSlider *self)
{
  g_return_val_if_fail (HL_IS_LIFETIME_SLIDER (self), 0);
  return self->max_ns;
}

guint64
hl_lifetime_slider_get_value_ns (HlLifetimeSlider *self)
{
  g_return_val_if_fail (HL_IS_LIFETIME_SLIDER (self), 0);
  return self->value_ns;
}

void
hl_lifetime_slider_set_value_ns (HlLifetimeSlider *self,
                                 guint64           t_ns)
{
  g_return_if_fail (HL_IS_LIFETIME_SLIDER (self));
  self->value_ns = CLAMP (t_ns, (guint64) MIN_NS, self->max_ns);
  set_position (self);
}

void
hl_lifetime_slider_set_fraction (HlLifetimeSlider *self,
                                 double            fraction)
{
  g_return_if_fail (HL_IS_LIFETIME_SLIDER (self));
  gtk_adjustment_set_value (self->adjustment, CLAMP (fraction, 0, 1) * STEPS);
}

const char *
hl_lifetime_slider_get_text (HlLifetimeSlider *self)
{
  g_return_val_if_fail (HL_IS_LIFETIME_SLIDER (self), NULL);
  return gtk_label_get_label (self->label);
}

static void
hl_lifetime_slider_dispose (GObject *object)
{
  HlLifetimeSlider *self = HL_LIFETIME_SLIDER (object);

  g_clear_handle_id (&self->debounce_id, g_source_remove);
  gtk_widget_dispose_template (GTK_WIDGET (object), HL_TYPE_LIFETIME_SLIDER);
  {
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child (GTK_WIDGET (object))) != NULL)
      gtk_widget_unparent (child);
  }
  G_OBJECT_CLASS (hl_lifetime_slider_parent_class)->dispose (object);
}

static void
hl_lifetime_slider_class_init (HlLifetimeSliderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = hl_lifetime_slider_dispose;

  /* T changed and the slider rests: hl_lifetime_slider_get_value_ns() */
  signals[CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/heaplens/Heaplens/ui/hl-lifetime-slider.ui");
  gtk_widget_class_bind_template_child (widget_class, HlLifetimeSlider, scale);
  gtk_widget_class_bind_template_child (widget_class, HlLifetimeSlider, adjustment);
  gtk_widget_class_bind_template_child (widget_class, HlLifetimeSlider, label);
  gtk_widget_class_bind_template_callback (widget_class, on_value_changed);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
hl_lifetime_slider_init (HlLifetimeSlider *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->max_ns = G_GUINT64_CONSTANT (1000000000);
  self->value_ns = G_GUINT64_CONSTANT (1000000);
  set_position (self);
}
