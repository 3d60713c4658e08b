/* hl-font-metrics.c — see hl-font-metrics.h. */
#include "hl-font-metrics.h"

double
hl_widget_font_size_px (GtkWidget *widget)
{
  PangoContext *context = gtk_widget_get_pango_context (widget);
  const PangoFontDescription *font = pango_context_get_font_description (context);
  double size = 10.0;

  if (font != NULL && pango_font_description_get_size (font) > 0)
    {
      size = (double) pango_font_description_get_size (font) / PANGO_SCALE;
      if (!pango_font_description_get_size_is_absolute (font))
        size *= 96.0 / 72.0;
    }
  return size;
}
