/* hl-flame-layout.c — exact flame-graph rectangles from a call tree. */
#include "hl-flame-layout.h"

struct _HlFlameLayout
{
  gatomicrefcount ref_count;
  HlCallTree *tree;
  HlCostKind  kind;
  GArray     *rects;   /* HlFlameRect */
  guint       max_depth;
};

G_DEFINE_BOXED_TYPE (HlFlameLayout, hl_flame_layout, hl_flame_layout_ref, hl_flame_layout_unref)

/* NODE (of cost WIDTH) and its subtree, depth first. */
static void
add_subtree (HlFlameLayout *self,
             HlCallNode     node,
             guint64        width,
             guint          parent,
             guint64        offset,
             guint64        min_width)
{
  HlFlameRect r = { 0 };
  guint index = self->rects->len;
  guint64 child_offset = offset;
  guint64 hidden = 0;
  guint n = hl_call_tree_get_n_children (self->tree, node);

  r.frame = hl_call_tree_get_frame (self->tree, node);
  r.node = node;
  r.offset = offset;
  r.width = width;
  r.depth = hl_call_tree_get_depth (self->tree, node);
  r.parent = parent;
  g_array_append_val (self->rects, r);
  self->max_depth = MAX (self->max_depth, r.depth);

  /* Children in the tree's order, which may not be this cost's order:
   * the layout keeps the tree's order so views stay consistent. */
  for (guint i = 0; i < n; i++)
    {
      HlCallNode c = hl_call_tree_get_child (self->tree, node, i);
      guint64 w = hl_costs_get (hl_call_tree_get_costs (self->tree, c), self->kind);

      if (w == 0)
        continue;
      if (w < min_width)
        {
          hidden += w;
          continue;
        }
      add_subtree (self, c, w, index, child_offset, min_width);
      child_offset += w;
    }
  HlFlameRect *done = &g_array_index (self->rects, HlFlameRect, index);
  done->hidden_cost = hidden;
  done->end = self->rects->len;
}

HlFlameLayout *
hl_flame_layout_new (HlCallTree *tree,
                     HlCostKind  kind,
                     double      min_fraction)
{
  HlFlameLayout *self;
  guint64 total, min_width;

  g_return_val_if_fail (tree != NULL, NULL);
  g_return_val_if_fail (kind < HL_N_COST_KINDS, NULL);
  g_return_val_if_fail (min_fraction >= 0 && min_fraction <= 1, NULL);

  self = g_new0 (HlFlameLayout, 1);
  g_atomic_ref_count_init (&self->ref_count);
  self->tree = hl_call_tree_ref (tree);
  self->kind = kind;
  self->rects = g_array_sized_new (FALSE, TRUE, sizeof (HlFlameRect), hl_call_tree_get_n_nodes (tree));
  total = hl_costs_get (hl_call_tree_get_costs (tree, 0), kind);
  min_width = (guint64) (min_fraction * (double) total);
  if (min_width == 0)
    min_width = 1;
  add_subtree (self, 0, total, G_MAXUINT, 0, min_width);
  return self;
}

HlFlameLayout *
hl_flame_layout_ref (HlFlameLayout *layout)
{
  g_return_val_if_fail (layout != NULL, NULL);
  g_atomic_ref_count_inc (&layout->ref_count);
  return layout;
}

void
hl_flame_layout_unref (HlFlameLayout *layout)
{
  g_return_if_fail (layout != NULL);
  if (!g_atomic_ref_count_dec (&layout->ref_count))
    return;
  hl_call_tree_unref (layout->tree);
  g_array_unref (layout->rects);
  g_free (layout);
}

HlCostKind
hl_flame_layout_get_kind (const HlFlameLayout *layout)
{
  return layout->kind;
}

guint64
hl_flame_layout_get_total (const HlFlameLayout *layout)
{
  return g_array_index (layout->rects, HlFlameRect, 0).width;
}

guint
hl_flame_layout_get_n_rects (const HlFlameLayout *layout)
{
  return layout->rects->len;
}

guint
hl_flame_layout_get_max_depth (const HlFlameLayout *layout)
{
  return layout->max_depth;
}

const HlFlameRect *
hl_flame_layout_get_rects (const HlFlameLayout *layout,
                           guint               *n_rects)
{
  if (n_rects != NULL)
    *n_rects = layout->rects->len;
  return (const HlFlameRect *) layout->rects->data;
}

HlCallTree *
hl_flame_layout_get_tree (const HlFlameLayout *layout)
{
  return layout->tree;
}

static void
append_name (GString       *s,
             const HlFrame *frame)
{
  /* ';' separates frames and ' ' precedes the count: keep names readable
   * but unambiguous. */
  for (const char *p = frame->function; *p != '\0'; p++)
    g_string_append_c (s, *p == ';' ? ':' : *p == '\n' ? ' ' : *p);
  if (frame->is_inline)
    g_string_append (s, " [inline]");
}

char *
hl_flame_layout_to_collapsed (const HlFlameLayout *layout)
{
  GString *out = g_string_new (NULL);
  const HlFlameRect *r = (const HlFlameRect *) layout->rects->data;
  guint n = layout->rects->len;
  g_autoptr (GString) line = g_string_new (NULL);

  for (guint i = 1; i < n; i++)
    {
      guint64 children = 0;
      guint64 self_cost;
      guint chain[1024];
      guint depth = 0;

      for (guint c = i + 1; c < r[i].end; c = r[c].end)
        children += r[c].width;
      self_cost = r[i].width - children;
      if (self_cost == 0)
        continue;
      for (guint p = i; p != 0 && p != G_MAXUINT && depth < G_N_ELEMENTS (chain); p = r[p].parent)
        chain[depth++] = p;
      g_string_truncate (line, 0);
      while (depth > 0)
        {
          append_name (line, r[chain[--depth]].frame);
          if (depth > 0)
            g_string_append_c (line, ';');
        }
      g_string_append_printf (out, "%s %" G_GUINT64_FORMAT "\n", line->str, self_cost);
    }
  return g_string_free (out, FALSE);
}
