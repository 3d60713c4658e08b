/* hl-diff-flame.c — a diff of two recordings drawn as a flame graph. */
#include "hl-config.h"

#include <math.h>
#include <stdlib.h>

#include <glib/gi18n.h>

#include "hl-cost.h"
#include "hl-diff-flame.h"
#include "hl-units.h"

static guint64
side_cost (const HlCosts *costs,
           HlCostKind     kind)
{
  return costs != NULL ? hl_costs_get (costs, kind) : 0;
}

static guint64
node_width (HlDiffTree *tree,
            guint       node,
            HlCostKind  kind)
{
  return side_cost (hl_diff_tree_get_costs_a (tree, node), kind)
         + side_cost (hl_diff_tree_get_costs_b (tree, node), kind);
}

static void
add_children (HlFlameData *data,
              HlDiffTree  *tree,
              guint        diff_node,
              guint        flame_node,
              HlCostKind   kind)
{
  guint n = hl_diff_tree_get_n_children (tree, diff_node);

  for (guint i = 0; i < n; i++)
    {
      guint child = hl_diff_tree_get_child (tree, diff_node, i);
      guint64 width = node_width (tree, child, kind);
      const HlFrame *f;
      guint index;

      if (width == 0)
        continue;
      f = hl_diff_tree_get_frame (tree, child);
      index = hl_flame_data_add (data, flame_node,
                                 f != NULL ? f->function : "??",
                                 f != NULL && f->module_name != NULL ? f->module_name : "",
                                 f != NULL ? f->file : NULL,
                                 f != NULL ? f->line : 0,
                                 width,
                                 f != NULL ? f->is_inline : FALSE,
                                 GUINT_TO_POINTER (child + 1));
      add_children (data, tree, child, index, kind);
    }
}

HlFlameData *
hl_diff_flame_data (HlDiffTree *tree,
                    HlCostKind  kind)
{
  HlFlameData *data = hl_flame_data_new (_("all"), hl_cost_is_bytes (kind));

  g_return_val_if_fail (tree != NULL, data);
  hl_flame_data_set_total (data, node_width (tree, 0, kind));
  add_children (data, tree, 0, 0, kind);
  hl_flame_data_finish (data);
  return data;
}

guint
hl_diff_flame_diff_node (const HlFlameData *data,
                         guint              node)
{
  guint value = GPOINTER_TO_UINT (hl_flame_data_get_node (data, node)->user_data);

  return value == 0 ? 0 : value - 1;
}

/* ---- Colours ---------------------------------------------------------- */

#define FULL_CHANGE 0.5  /* a change of half the larger side is full colour */

void
hl_diff_color (guint64  a,
               guint64  b,
               gboolean dark,
               double   rgb[3])
{
  double t;

  if (a == b)
    {
      rgb[0] = rgb[1] = rgb[2] = dark ? 0.30 : 0.84;
      return;
    }
  /* Any change shows; the square root spreads the small ones. */
  t = (double) (a > b ? a - b : b - a) / (double) MAX (a, b);
  t = 0.15 + 0.85 * sqrt (MIN (1.0, t / FULL_CHANGE));
  if (dark)
    hl_hsl_to_rgb (b > a ? 4.0 : 212.0, 0.30 + 0.45 * t, 0.26 + 0.16 * t, rgb);
  else
    hl_hsl_to_rgb (b > a ? 4.0 : 212.0, 0.50 + 0.40 * t, 0.86 - 0.28 * t, rgb);
}

/* ---- Text ------------------------------------------------------------- */

char *
hl_diff_format_delta (HlCostKind kind,
                      gint64     delta)
{
  g_autofree char *abs_text = hl_cost_format (kind, (guint64) llabs (delta));

  if (delta == 0)
    return g_steal_pointer (&abs_text);
  /* U+2212 MINUS SIGN lines up with "+". */
  return g_strdup_printf ("%s%s", delta > 0 ? "+" : "\u2212", abs_text);
}

char *
hl_diff_format_change (guint64 a,
                       gint64  delta)
{
  double pct;

  if (delta == 0)
    return g_strdup ("0 %");
  if (a == 0)
    return g_strdup (_("new"));
  pct = 100.0 * (double) llabs (delta) / (double) a;
  return g_strdup_printf ("%s%.*f %%", delta > 0 ? "+" : "\u2212", pct >= 100.0 ? 0 : 1, pct);
}

/* ---- Flame graph callbacks -------------------------------------------- */

struct _HlDiffFlameInfo
{
  HlDiffTree *tree;
  HlCostKind  kind;
};

HlDiffFlameInfo *
hl_diff_flame_info_new (HlDiffTree *tree,
                        HlCostKind  kind)
{
  HlDiffFlameInfo *info = g_new0 (HlDiffFlameInfo, 1);

  info->tree = hl_diff_tree_ref (tree);
  info->kind = kind;
  return info;
}

void
hl_diff_flame_info_free (HlDiffFlameInfo *info)
{
  if (info == NULL)
    return;
  hl_diff_tree_unref (info->tree);
  g_free (info);
}

void
hl_diff_flame_color (const HlFlameData *data,
                     guint              node,
                     gboolean           dark,
                     double             rgb[3],
                     gpointer           user_data)
{
  HlDiffFlameInfo *info = user_data;
  guint d = hl_diff_flame_diff_node (data, node);

  hl_diff_color (side_cost (hl_diff_tree_get_costs_a (info->tree, d), info->kind),
                 side_cost (hl_diff_tree_get_costs_b (info->tree, d), info->kind), dark, rgb);
}

char *
hl_diff_flame_describe (const HlFlameData *data,
                        guint              node,
                        gpointer           user_data)
{
  HlDiffFlameInfo *info = user_data;
  const HlFlameNode *n = hl_flame_data_get_node (data, node);
  guint d = hl_diff_flame_diff_node (data, node);
  guint64 a = side_cost (hl_diff_tree_get_costs_a (info->tree, d), info->kind);
  guint64 b = side_cost (hl_diff_tree_get_costs_b (info->tree, d), info->kind);
  gint64 delta = hl_diff_tree_get_delta (info->tree, d, info->kind);
  g_autofree char *name = g_markup_escape_text (n->name, -1);
  g_autofree char *a_text = hl_cost_format (info->kind, a);
  g_autofree char *b_text = hl_cost_format (info->kind, b);
  g_autofree char *delta_text = hl_diff_format_delta (info->kind, delta);
  g_autofree char *change = hl_diff_format_change (a, delta);
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "<b>%s</b>%s", name, n->is_inline ? _(" (inlined)") : "");
  if (n->module[0] != '\0')
    {
      g_autofree char *module = g_markup_escape_text (n->module, -1);
      g_string_append_printf (out, "\n%s", module);
    }
  if (n->file != NULL)
    {
      g_autofree char *file = g_markup_escape_text (n->file, -1);
      g_string_append_printf (out, "\n%s:%u", file, n->line);
    }
  /* Translators: the costs of a call path in recordings A and B */
  g_string_append_printf (out, _("\nA: %s\nB: %s"), a_text, b_text);
  /* Translators: the change from A to B, e.g. "Δ: +1.50 MiB (+25.0 %)" */
  g_string_append_printf (out, _("\nΔ: <b>%s</b> (%s)"), delta_text, change);
  /* What the frame allocates itself: the gap beside its children. */
  if (d != 0)
    {
      guint64 self_a = side_cost (hl_diff_tree_get_self_costs_a (info->tree, d), info->kind);
      guint64 self_b = side_cost (hl_diff_tree_get_self_costs_b (info->tree, d), info->kind);

      if (self_a != 0 || self_b != 0)
        {
          g_autofree char *sa = hl_cost_format (info->kind, self_a);
          g_autofree char *sb = hl_cost_format (info->kind, self_b);
          g_autofree char *sd = hl_diff_format_delta (info->kind, hl_diff_tree_get_self_delta (info->tree, d,
                                                                                                  info->kind));

          /* Translators: a frame's own cost, without its callees', in A → in B (change) */
          g_string_append_printf (out, _("\nSelf: %s → %s (%s)"), sa, sb, sd);
        }
    }
  return g_string_free (out, FALSE);
}

/* ---- Search and export ------------------------------------------------ */

static void
node_sides (HlDiffFlameInfo   *info,
            const HlFlameData *data,
            guint              node,
            guint64           *a,
            guint64           *b)
{
  guint d = hl_diff_flame_diff_node (data, node);

  *a = side_cost (hl_diff_tree_get_costs_a (info->tree, d), info->kind);
  *b = side_cost (hl_diff_tree_get_costs_b (info->tree, d), info->kind);
}

void
hl_diff_flame_search_costs (const HlFlameData *data,
                            const char        *search,
                            HlDiffFlameInfo   *info,
                            guint64           *a,
                            guint64           *b)
{
  guint n = hl_flame_data_get_n_nodes (data);
  guint i = 1;

  *a = *b = 0;
  if (search == NULL || search[0] == '\0')
    return;
  while (i < n)
    {
      if (hl_flame_data_node_matches (data, i, search))
        {
          guint64 na, nb;

          node_sides (info, data, i, &na, &nb);
          *a += na;
          *b += nb;
          i = hl_flame_data_get_node (data, i)->end;  /* counted once per stack */
        }
      else
        i++;
    }
}

char *
hl_diff_flame_search_summary (HlFlameData *data,
                              const char  *search,
                              gpointer     user_data)
{
  HlDiffFlameInfo *info = user_data;
  guint64 a, b, total_a, total_b;
  g_autofree char *pct_a = NULL, *pct_b = NULL, *delta = NULL;

  hl_diff_flame_search_costs (data, search, info, &a, &b);
  node_sides (info, data, 0, &total_a, &total_b);
  pct_a = hl_format_percentage (a, total_a);
  pct_b = hl_format_percentage (b, total_b);
  delta = hl_diff_format_delta (info->kind, (gint64) b - (gint64) a);
  /* Translators: share of A's total and of B's total in frames matching
   * the search, then the change, e.g. "Matches: 12.0 % → 15.5 % (Δ +1.2 MiB)" */
  return g_strdup_printf (_("Matches: %s → %s (Δ %s)"), pct_a, pct_b, delta);
}

static void
append_frame_name (GString    *out,
                   const char *name)
{
  /* ';' separates frames and a line is one stack. */
  for (const char *s = name; *s; s++)
    g_string_append_c (out, (*s == ';' || *s == '\n') ? '_' : *s);
}

char *
hl_diff_flame_to_collapsed (const HlFlameData *data,
                            HlDiffFlameInfo   *info)
{
  GString *out = g_string_new (NULL);
  g_autoptr(GPtrArray) path = g_ptr_array_new ();
  guint n = hl_flame_data_get_n_nodes (data);

  for (guint i = 1; i < n; i++)
    {
      const HlFlameNode *node = hl_flame_data_get_node (data, i);
      guint64 a, b, child_a = 0, child_b = 0;

      g_ptr_array_set_size (path, node->depth - 1);
      g_ptr_array_add (path, (gpointer) node->name);
      node_sides (info, data, i, &a, &b);
      for (guint c = i + 1; c < node->end; c = hl_flame_data_get_node (data, c)->end)
        {
          guint64 ca, cb;

          node_sides (info, data, c, &ca, &cb);
          child_a += ca;
          child_b += cb;
        }
      a = a > child_a ? a - child_a : 0;
      b = b > child_b ? b - child_b : 0;
      if (a == 0 && b == 0)
        continue;
      for (guint k = 0; k < path->len; k++)
        {
          if (k > 0)
            g_string_append_c (out, ';');
          append_frame_name (out, g_ptr_array_index (path, k));
        }
      g_string_append_printf (out, " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT "\n", a, b);
    }
  return g_string_free (out, FALSE);
}
