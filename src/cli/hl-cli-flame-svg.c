/* hl-cli-flame-svg.c — a flame layout as a self-contained interactive SVG
 * (click a frame to zoom), for `flamegraph` and `export --format svg`. */
#include "hl-config.h"

#include <string.h>

#include "hl-cli-flame-svg.h"
#include "hl-cli-model-util.h"

#define SVG_WIDTH   1200.0
#define ROW_HEIGHT  16.0
#define TOP_MARGIN  40.0

/* S as XML text or attribute value: valid UTF-8 without the control
 * characters XML 1.0 refuses (hl_cli_printable()), escaped by GLib. */
static void
xml_escape (GString    *out,
            const char *s)
{
  g_autofree char *shown = hl_cli_printable (s);
  g_autofree char *escaped = g_markup_escape_text (shown, -1);

  g_string_append (out, escaped);
}

static void
frame_colour (const char *name,
              char        out[8])
{
  guint h = g_str_hash (name);
  /* Warm colours, stable per name. */
  g_snprintf (out, 8, "#%02x%02x%02x", 205 + (h % 50), 80 + ((h >> 8) % 130), 40 + ((h >> 16) % 50));
}

static const char svg_script[] =
  "<script><![CDATA[\n"
  "function zoom(g){var x=+g.getAttribute('data-x'),w=+g.getAttribute('data-w');\n"
  " var all=document.querySelectorAll('g.f');\n"
  " for(var i=0;i<all.length;i++){var e=all[i],ex=+e.getAttribute('data-x'),ew=+e.getAttribute('data-w');\n"
  "  var r=e.querySelector('rect'),t=e.querySelector('text');\n"
  "  var nx=(ex-x)/w,nw=ew/w;\n"
  "  if(nx+nw<=0||nx>=1){e.style.display='none';continue;}\n"
  "  e.style.display='';r.setAttribute('x',Math.max(0,nx)*W);r.setAttribute('width',Math.max(0,Math.min(1,nx+nw)-Math.max(0,nx))*W);\n"
  "  t.setAttribute('x',Math.max(0,nx)*W+3);var n=Math.floor((Math.min(1,nx+nw)-Math.max(0,nx))*W/7);\n"
  "  var full=t.getAttribute('data-n');t.textContent=n<3?'':(full.length<=n?full:full.substring(0,n-2)+'..');}\n"
  "}\n"
  "var W=" G_STRINGIFY (SVG_WIDTH) ";\n"
  "document.addEventListener('click',function(ev){var g=ev.target.closest('g.f');if(g)zoom(g);});\n"
  "]]></script>\n";

char *
hl_cli_flame_svg (HlFlameLayout *layout,
        const char    *title,
        HlCostKind     kind,
        gboolean       inverted)
{
  GString *out = g_string_new (NULL);
  guint n;
  const HlFlameRect *r = hl_flame_layout_get_rects (layout, &n);
  guint depth = hl_flame_layout_get_max_depth (layout) + 1;
  double height = TOP_MARGIN + depth * ROW_HEIGHT + 10;
  double total = (double) MAX (hl_flame_layout_get_total (layout), 1);

  g_string_append_printf (out,
                          "<?xml version=\"1.0\" standalone=\"no\"?>\n"
                          "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" height=\"%.0f\" "
                          "viewBox=\"0 0 %.0f %.0f\" font-family=\"monospace\" font-size=\"11\">\n",
                          SVG_WIDTH, height, SVG_WIDTH, height);
  g_string_append (out, svg_script);
  g_string_append_printf (out, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#fbfbf5\"/>\n",
                          SVG_WIDTH, height);
  g_string_append (out, "<text x=\"600\" y=\"20\" text-anchor=\"middle\" font-size=\"15\">");
  xml_escape (out, title);
  g_string_append (out, "</text>\n<text x=\"10\" y=\"34\" fill=\"#666\">Click a frame to zoom, the bottom frame to reset.</text>\n");

  for (guint i = 0; i < n; i++)
    {
      double x = r[i].offset / total, w = r[i].width / total;
      double y = inverted ? TOP_MARGIN + r[i].depth * ROW_HEIGHT
                          : height - 10 - (r[i].depth + 1) * ROW_HEIGHT;
      const char *name = r[i].frame != NULL ? r[i].frame->function : "all";
      g_autofree char *cost = hl_cli_format_cost (kind, r[i].width);
      g_autofree char *label = NULL;
      char colour[8];
      guint chars = (guint) (w * SVG_WIDTH / 7);
      g_autofree char *where = NULL;

      if (r[i].frame != NULL)
        where = hl_cli_format_frame (r[i].frame);
      frame_colour (name, colour);
      g_string_append_printf (out, "<g class=\"f\" data-x=\"%.9f\" data-w=\"%.9f\"><title>", x, w);
      xml_escape (out, where != NULL ? where : name);
      g_string_append_printf (out, " — %s (%.2f %%)</title>", cost, 100.0 * w);
      g_string_append_printf (out, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\" rx=\"2\"/>",
                              x * SVG_WIDTH, y, w * SVG_WIDTH, ROW_HEIGHT - 1, r[i].frame == NULL ? "#e0a040" : colour);
      if (chars >= 3)
        label = strlen (name) <= chars ? g_strdup (name) : g_strdup_printf ("%.*s..", (int) chars - 2, name);
      else
        label = g_strdup ("");
      g_string_append_printf (out, "<text x=\"%.2f\" y=\"%.1f\" data-n=\"", x * SVG_WIDTH + 3, y + ROW_HEIGHT - 4);
      xml_escape (out, name);
      g_string_append (out, "\">");
      xml_escape (out, label);
      g_string_append (out, "</text></g>\n");
    }
  g_string_append (out, "</svg>\n");
  return g_string_free (out, FALSE);
}

