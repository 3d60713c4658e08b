/* app-flame-draw.c — benchmark: redraw time of the flame graph drawing
 * function at 100,000 nodes (target ≤ 16 ms), on an image surface of a
 * typical window size. Run by bench/app.sh; not a test. */
#include "hl-config.h"

#include <cairo.h>
#include <glib.h>

#include "hl-flame-graph-draw.h"

/* A random tree whose nodes are spread in proportion to cost, like a real
 * call tree seen whole: a few wide paths with many visible frames, and a
 * long tail of sub-pixel ones. */
static void
grow (HlFlameData *data,
      GRand       *rand,
      guint        parent,
      guint64      cost,
      guint        depth,
      guint        budget)
{
  double weights[6], sum = 0;
  guint k;

  if (depth > 48 || budget == 0 || cost < 2)
    return;
  k = (guint) g_rand_int_range (rand, 1, 7);  /* not inside MIN: it evaluates twice */
  k = MIN (k, budget);
  for (guint i = 0; i < k; i++)
    sum += weights[i] = g_rand_double_range (rand, 0.05, 1.0);
  budget -= k;
  for (guint i = 0; i < k; i++)
    {
      guint64 c = (guint64) ((double) cost * 0.97 * weights[i] / sum);
      char name[32];
      char module[16];
      guint node;

      if (c == 0)
        continue;
      g_snprintf (name, sizeof name, "function_%u", g_rand_int_range (rand, 0, 5000));
      g_snprintf (module, sizeof module, "lib%u.so", g_rand_int_range (rand, 0, 12));
      node = hl_flame_data_add (data, parent, name, module, "file.c", 1, c, FALSE, NULL);
      grow (data, rand, node, c, depth + 1, (guint) (budget * weights[i] / sum));
    }
}

int
main (int   argc,
      char *argv[])
{
  guint target = argc > 1 ? (guint) g_ascii_strtoull (argv[1], NULL, 10) : 100000;
  guint width = 1400, height = 900, runs = 50;
  g_autoptr(GRand) rand = g_rand_new_with_seed (42);
  g_autoptr(HlFlameData) data = hl_flame_data_new ("all", TRUE);
  HlFlameViewport vp = { .width = width, .row_height = 18, .zoom = 0, .inverted = TRUE };
  HlFlameStyle style = { .colors = HL_FLAME_COLORS_BY_MODULE, .selected = -1 };
  HlFlameDrawStats stats = { 0 };
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  double total = 0, worst = 0;
  gint64 begin;

  while (hl_flame_data_get_n_nodes (data) < target)
    grow (data, rand, 0, G_GUINT64_CONSTANT (1) << 40, 1, target - hl_flame_data_get_n_nodes (data));
  hl_flame_data_finish (data);

  /* The first search case-folds every name once (cached afterwards). */
  begin = g_get_monotonic_time ();
  hl_flame_data_search_cost (data, "x");
  g_print ("search cache for %u names: %.1f ms (once per data)\n",
           hl_flame_data_get_n_nodes (data), (g_get_monotonic_time () - begin) / 1000.0);

  for (guint pass = 0; pass < 2; pass++)
    {
      total = worst = 0;
      style.search = pass == 0 ? NULL : "function_1";
      /* One untimed draw first: fonts and glyph caches load once per process. */
      {
        cairo_t *cr = cairo_create (surface);
        hl_flame_graph_draw (cr, data, &vp, &style, NULL);
        cairo_destroy (cr);
      }
      for (guint i = 0; i < runs; i++)
        {
          cairo_t *cr = cairo_create (surface);
          gint64 t0 = g_get_monotonic_time ();
          double ms;

          hl_flame_graph_draw (cr, data, &vp, &style, &stats);
          cairo_destroy (cr);
          cairo_surface_flush (surface);
          ms = (g_get_monotonic_time () - t0) / 1000.0;
          total += ms;
          worst = MAX (worst, ms);
        }
      g_print ("flame-draw nodes=%u depth=%u size=%ux%u search=%s: mean %.2f ms, max %.2f ms "
               "(%u rectangles, %u merged slivers, %u labels)\n",
               hl_flame_data_get_n_nodes (data), hl_flame_data_get_max_depth (data), width, height,
               style.search ? style.search : "none", total / runs, worst,
               stats.n_rectangles, stats.n_merged, stats.n_labels);
    }
  cairo_surface_destroy (surface);
  return 0;
}
