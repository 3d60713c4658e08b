/* hl-flame-export.c — a flame graph to SVG, PNG or collapsed stacks. */
#include "hl-config.h"

#include <string.h>

#include <cairo-svg.h>
#include <glib/gi18n.h>

#include "hl-flame-export.h"

HlFlameExportFormat
hl_flame_export_format_for_file (GFile *file)
{
  g_autofree char *name = g_file_get_basename (file);
  g_autofree char *lower = g_ascii_strdown (name ? name : "", -1);

  if (g_str_has_suffix (lower, ".svg"))
    return HL_FLAME_EXPORT_SVG;
  if (g_str_has_suffix (lower, ".png"))
    return HL_FLAME_EXPORT_PNG;
  return HL_FLAME_EXPORT_COLLAPSED;
}

static cairo_status_t
write_to_stream (void                *closure,
                 const unsigned char *data,
                 unsigned int         length)
{
  GOutputStream *stream = closure;

  if (!g_output_stream_write_all (stream, data, length, NULL, NULL, NULL))
    return CAIRO_STATUS_WRITE_ERROR;
  return CAIRO_STATUS_SUCCESS;
}

static void
paint_background (cairo_t            *cr,
                  const HlFlameStyle *style)
{
  if (style->dark)
    cairo_set_source_rgb (cr, 0.14, 0.14, 0.14);
  else
    cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
}

gboolean
hl_flame_export (const HlFlameData     *data,
                 const HlFlameViewport *viewport,
                 const HlFlameStyle    *style,
                 HlFlameExportFormat    format,
                 GFile                 *file,
                 GError               **error)
{
  g_autoptr(GFileOutputStream) stream = NULL;
  HlFlameViewport vp = *viewport;
  double height;
  cairo_surface_t *surface;
  cairo_status_t status;
  cairo_t *cr;

  g_return_val_if_fail (data != NULL, FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  if (format == HL_FLAME_EXPORT_COLLAPSED)
    {
      g_autofree char *text = hl_flame_data_to_collapsed (data);
      return g_file_replace_contents (file, text, strlen (text), NULL, FALSE,
                                      G_FILE_CREATE_REPLACE_DESTINATION, NULL, NULL, error);
    }

  vp.y_origin = 0;
  height = hl_flame_graph_content_height (data, &vp);
  stream = g_file_replace (file, NULL, FALSE, G_FILE_CREATE_REPLACE_DESTINATION, NULL, error);
  if (stream == NULL)
    return FALSE;

  if (format == HL_FLAME_EXPORT_SVG)
    surface = cairo_svg_surface_create_for_stream (write_to_stream, stream, vp.width, height);
  else
    surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, (int) vp.width, (int) height);

  cr = cairo_create (surface);
  paint_background (cr, style);
  hl_flame_graph_draw (cr, data, &vp, style, NULL);
  cairo_destroy (cr);

  if (format == HL_FLAME_EXPORT_PNG)
    status = cairo_surface_write_to_png_stream (surface, write_to_stream, stream);
  else
    {
      cairo_surface_finish (surface);
      status = cairo_surface_status (surface);
    }
  cairo_surface_destroy (surface);

  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   _("Could not write the image: %s"), cairo_status_to_string (status));
      return FALSE;
    }
  return g_output_stream_close (G_OUTPUT_STREAM (stream), NULL, error);
}
