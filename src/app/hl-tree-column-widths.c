/* hl-tree-column-widths.c — the widths of the call trees' numeric cells. */
#include "hl-config.h"

#include "hl-tree-column-widths.h"
#include "hl-units.h"

static int
text_width (GtkWidget  *widget,
            const char *text)
{
  g_autoptr(PangoLayout) layout = gtk_widget_create_pango_layout (widget, text);
  PangoAttrList *attrs = pango_attr_list_new ();
  int width = 0;

  /* the cells' "numeric" style class: tabular figures */
  pango_attr_list_insert (attrs, pango_attr_font_features_new ("tnum=1"));
  pango_layout_set_attributes (layout, attrs);
  pango_attr_list_unref (attrs);
  pango_layout_get_pixel_size (layout, &width, NULL);
  return width;
}

/* The widest of the texts hl_format_size gives: three significant
 * digits in each unit, and bytes below 1 KiB. */
static int
size_width (GtkWidget *widget)
{
  static const double mantissas[] = { 999.0, 99.9, 9.99 };
  g_autofree char *bytes = hl_format_size (1023);
  int widest = text_width (widget, bytes);
  double scale = 1024.0;

  for (guint unit = 0; unit < 4; unit++, scale *= 1024.0)
    for (guint m = 0; m < G_N_ELEMENTS (mantissas); m++)
      {
        g_autofree char *text = hl_format_size ((guint64) (mantissas[m] * scale));

        widest = MAX (widest, text_width (widget, text));
      }
  return widest;
}

static int
percentage_width (GtkWidget *widget)
{
  static const guint64 parts[][2] = { { 1, 1 }, { 999, 1000 }, { 99, 1000 }, { 1, 1000000 } };
  int widest = 0;

  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    {
      g_autofree char *text = hl_format_percentage (parts[i][0], parts[i][1]);

      widest = MAX (widest, text_width (widget, text));
    }
  return widest;
}

int
hl_tree_column_value_width (GtkWidget  *widget,
                            HlCostKind  cost,
                            gboolean    with_percentage,
                            guint64     max_count)
{
  int width;

  g_return_val_if_fail (GTK_IS_WIDGET (widget), 0);
  if (hl_cost_is_bytes (cost))
    width = size_width (widget);
  else
    {
      /* as many nines as the largest count has digits */
      guint64 nines = 9999999;
      g_autofree char *text = NULL;

      while (nines < max_count && nines < G_MAXUINT64 / 10)
        nines = nines * 10 + 9;
      text = hl_format_count (nines);
      width = text_width (widget, text);
    }
  /* the cells' "%s  %s" */
  if (with_percentage)
    width += text_width (widget, "  ") + percentage_width (widget);
  /* a pixel of slack for the rounding of each part */
  return width + 2;
}

void
hl_tree_column_widths_clear (HlTreeColumnWidths *widths)
{
  g_clear_pointer (&widths->font, pango_font_description_free);
  for (guint c = 0; c < HL_N_COST_KINDS; c++)
    widths->width[c][0] = widths->width[c][1] = -1;
}

void
hl_tree_column_widths_set_max_count (HlTreeColumnWidths *widths,
                                     guint64             max_count)
{
  if (widths->max_count == max_count)
    return;
  widths->max_count = max_count;
  hl_tree_column_widths_clear (widths);
}

int
hl_tree_column_widths_get (HlTreeColumnWidths *widths,
                           GtkWidget          *table,
                           HlCostKind          cost,
                           gboolean            with_percentage)
{
  const PangoFontDescription *font;
  int *width;

  g_return_val_if_fail (GTK_IS_WIDGET (table), 0);
  g_return_val_if_fail (cost < HL_N_COST_KINDS, 0);
  /* measured again when the font changes (a new text scale) */
  font = pango_context_get_font_description (gtk_widget_get_pango_context (table));
  if (widths->font == NULL || font == NULL || !pango_font_description_equal (font, widths->font))
    {
      hl_tree_column_widths_clear (widths);
      widths->font = font != NULL ? pango_font_description_copy (font) : NULL;
    }
  width = &widths->width[cost][with_percentage ? 1 : 0];
  if (*width < 0)
    *width = hl_tree_column_value_width (table, cost, with_percentage, widths->max_count);
  return *width;
}

void
hl_tree_column_widths_size_label (HlTreeColumnWidths *widths,
                                  GtkWidget          *table,
                                  GtkWidget          *label,
                                  HlCostKind          cost,
                                  gboolean            with_percentage)
{
  int width = hl_tree_column_widths_get (widths, table, cost, with_percentage);
  int asked = -1;

  g_return_if_fail (GTK_IS_LABEL (label));
  gtk_widget_get_size_request (label, &asked, NULL);
  if (asked != width)
    gtk_widget_set_size_request (label, width, -1);
}
