/* hl-lifetime-slider.h — the T of the long-lived cost: a log-scale slider
 * from 1 µs to the recording's duration, its value shown beside it
 * ("≥ 12.5 ms"). "changed" comes once the slider has rested for a moment
 * (debounced), not at every step of a drag. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define HL_TYPE_LIFETIME_SLIDER (hl_lifetime_slider_get_type ())
G_DECLARE_FINAL_TYPE (HlLifetimeSlider, hl_lifetime_slider, HL, LIFETIME_SLIDER, GtkWidget)

/* The longest T offered (at least 1 µs); the value is kept, clamped. */
void     hl_lifetime_slider_set_max_ns   (HlLifetimeSlider *self,
                                          guint64           max_ns);
guint64  hl_lifetime_slider_get_max_ns   (HlLifetimeSlider *self);
/* T in ns: what the slider shows (no "changed" when set here). */
guint64  hl_lifetime_slider_get_value_ns (HlLifetimeSlider *self);
void     hl_lifetime_slider_set_value_ns (HlLifetimeSlider *self,
                                          guint64           t_ns);
/* The slider's position, 0 (1 µs) to 1 (the longest), as a drag sets it
 * ("changed" follows). */
void     hl_lifetime_slider_set_fraction (HlLifetimeSlider *self,
                                          double            fraction);
/* The text beside the slider: "≥ 12.5 ms". */
const char *hl_lifetime_slider_get_text  (HlLifetimeSlider *self);

G_END_DECLS
