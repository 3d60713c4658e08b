/* hl-flame-layout.c — exact flame-graph rectangles from a call tree. */
#include "hl-flame-layout.h"

#include "hl-call-tree-private.h"
#include "hl-recycle.h"

struct _HlFlameLayout
{
  gatomicrefcount ref_count;
  HlCallTree  *tree;
  HlCostKind   kind;
  HlFlameRect *rects;
  guint        n_rects;
  guint        max_depth;
  gsize        block_size;   /* of rects */
};

G_DEFINE_BOXED_TYPE (HlFlameLayout, hl_flame_layout, hl_flame_layout_ref, hl_flame_layout_unref)

/* The rects of the last large layout freed, for the next (hl-recycle.h). */
static HlRecycleSlot recycled_rects;

/* One pass over the tree's nodes, which are in display order already
 * (hl-call-tree-private.h): a node of zero cost or narrower than
 * MIN_WIDTH is skipped with its subtree (jumping to its end), any other
 * becomes the next rect. OPEN[d] is the rect open at depth d (the last
 * one made there), NEXT[d] where its next child starts. Children keep the
 * tree's order, which may not be this cost's order: views stay
 * consistent. */
static void
lay_out (HlFlameLayout *self,
         guint64        total,
         guint64        min_width)
{
  const HlCallTreeNode *nodes = hl_call_tree_get_nodes (self->tree);
  guint n = hl_call_tree_get_n_nodes (self->tree);
  guint depths = hl_call_tree_get_max_depth (self->tree) + 1;
  const guint64 *sort_costs = hl_call_tree_get_sort_kind (self->tree) == self->kind
                              ? hl_call_tree_get_sort_costs (self->tree) : NULL;
  const HlCosts *costs = hl_call_tree_get_all_costs (self->tree);
  g_autofree guint *open = g_new (guint, depths);
  g_autofree guint64 *next = g_new (guint64, depths);
  HlFlameRect *rects = self->rects;
  guint n_rects = 1, top = 1, max_depth = 0;

  rects[0] = (HlFlameRect) { NULL, 0, 0, total, 0, 0, G_MAXUINT, 0 };
  open[0] = 0;
  next[0] = 0;
  for (guint i = 1; i < n;)
    {
      guint d = nodes[i].depth;
      guint64 w = sort_costs != NULL ? sort_costs[i] : hl_costs_value (&costs[i], self->kind);
      HlFlameRect *r;

      /* the rects open at depth d and deeper are complete */
      while (top > d)
        rects[open[--top]].end = n_rects;
      if (w == 0 || w < min_width)
        {
          rects[open[d - 1]].hidden_cost += w;
          i = nodes[i].end;
          continue;
        }
      r = &rects[n_rects];
      r->frame = nodes[i].frame;
      r->node = i;
      r->offset = next[d - 1];
      r->width = w;
      r->hidden_cost = 0;
      r->depth = d;
      r->parent = open[d - 1];
      next[d - 1] += w;
      open[d] = n_rects++;
      next[d] = r->offset;
      top = d + 1;
      max_depth = MAX (max_depth, d);
      i++;
    }
  while (top > 0)
    rects[open[--top]].end = n_rects;
  self->n_rects = n_rects;
  self->max_depth = max_depth;
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
  self->rects = hl_recycle_take (&recycled_rects, (gsize) hl_call_tree_get_n_nodes (tree) * sizeof (HlFlameRect),
                                 &self->block_size);
  total = hl_costs_get (hl_call_tree_get_costs (tree, 0), kind);
  min_width = (guint64) (min_fraction * (double) total);
  if (min_width == 0)
    min_width = 1;
  lay_out (self, total, min_width);
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
  hl_recycle_give (&recycled_rects, layout->rects, layout->block_size);
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
  return layout->rects[0].width;
}

guint
hl_flame_layout_get_n_rects (const HlFlameLayout *layout)
{
  return layout->n_rects;
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
    *n_rects = layout->n_rects;
  return layout->rects;
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
  const HlFlameRect *r = layout->rects;
  guint n = layout->n_rects;
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

/* ---- On a worker thread ------------------------------------------------ */

typedef struct
{
  HlCallTreeKind tree_kind;
  HlCostKind     kind;
  double         min_fraction;
} LayoutQuery;

static void
layout_thread (GTask        *task,
               gpointer      source,
               gpointer      task_data,
               GCancellable *cancellable)
{
  const LayoutQuery *query = task_data;
  g_autoptr(HlCallTree) tree = NULL;
  g_autoptr(HlFlameLayout) layout = NULL;

  if (g_task_return_error_if_cancelled (task))
    return;
  tree = hl_analysis_get_call_tree (source, query->tree_kind, query->kind);
  if (g_task_return_error_if_cancelled (task))
    return;
  layout = hl_flame_layout_new (tree, query->kind, query->min_fraction);
  if (g_task_return_error_if_cancelled (task))
    return;
  g_task_return_pointer (task, g_steal_pointer (&layout), (GDestroyNotify) hl_flame_layout_unref);
}

void
hl_flame_layout_new_async (HlAnalysis         *analysis,
                           HlCallTreeKind      tree_kind,
                           HlCostKind          kind,
                           double              min_fraction,
                           GCancellable       *cancellable,
                           GAsyncReadyCallback callback,
                           gpointer            user_data)
{
  g_autoptr(GTask) task = NULL;
  LayoutQuery *query;

  g_return_if_fail (HL_IS_ANALYSIS (analysis));
  g_return_if_fail (kind < HL_N_COST_KINDS);
  g_return_if_fail (min_fraction >= 0 && min_fraction <= 1);

  query = g_new0 (LayoutQuery, 1);
  query->tree_kind = tree_kind;
  query->kind = kind;
  query->min_fraction = min_fraction;
  task = g_task_new (analysis, cancellable, callback, user_data);
  g_task_set_source_tag (task, hl_flame_layout_new_async);
  g_task_set_task_data (task, query, g_free);
  g_task_run_in_thread (task, layout_thread);
}

HlFlameLayout *
hl_flame_layout_new_finish (GAsyncResult *result,
                            GError      **error)
{
  g_return_val_if_fail (G_IS_TASK (result), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == hl_flame_layout_new_async, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
