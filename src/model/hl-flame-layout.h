/* hl-flame-layout.h — flame-graph rectangles for one cost of a call tree.
 *
 * A flat array in depth-first pre-order (the tree's child order): rect 0 is
 * the root, a rect's subtree is [i, rect->end). Offsets and widths are exact
 * cost units (integers): a child's offset is its parent's offset plus the
 * widths of its previous siblings, so x = offset / total * pixels. Nodes
 * narrower than min_fraction of the total are cut off with their subtrees;
 * their cost stays in the parent's width (shown as the gap after the last
 * child) and is counted in the parent's hidden_cost.
 */
#pragma once

#include <glib-object.h>

#include "hl-analysis.h"
#include "hl-call-tree.h"

G_BEGIN_DECLS

typedef struct
{
  const HlFrame *frame;      /* NULL for the root */
  HlCallNode     node;       /* in the source tree */
  guint64        offset;     /* cost units from the root's start */
  guint64        width;      /* the node's inclusive cost */
  guint64        hidden_cost;/* of children cut off */
  guint          depth;      /* root = 0 */
  guint          parent;     /* index of the parent rect, G_MAXUINT for the root */
  guint          end;        /* one past the last rect of the subtree */
} HlFlameRect;

typedef struct _HlFlameLayout HlFlameLayout;

#define HL_TYPE_FLAME_LAYOUT (hl_flame_layout_get_type ())
GType hl_flame_layout_get_type (void) G_GNUC_CONST;

/* MIN_FRACTION 0 keeps every node with a non-zero cost. */
HlFlameLayout     *hl_flame_layout_new         (HlCallTree    *tree,
                                                HlCostKind     kind,
                                                double         min_fraction);
/* hl_flame_layout_new () of ANALYSIS' call tree of TREE_KIND sorted by
 * KIND (hl_analysis_get_call_tree), both built on a worker thread (the
 * tree is cached in the analysis; hl_flame_layout_get_tree gives it).
 * CALLBACK runs on the thread-default main context of the caller, after
 * the worker is done; CANCELLABLE is looked at before the tree, between
 * it and the layout, and after. The recording is read as by
 * hl_analysis_get_call_tree_async (hl-analysis.h): a growing one is held
 * still by the caller until CALLBACK has run. _finish: a new layout, or
 * NULL with ERROR (G_IO_ERROR_CANCELLED). */
void               hl_flame_layout_new_async   (HlAnalysis         *analysis,
                                                HlCallTreeKind      tree_kind,
                                                HlCostKind          kind,
                                                double              min_fraction,
                                                GCancellable       *cancellable,
                                                GAsyncReadyCallback callback,
                                                gpointer            user_data);
HlFlameLayout     *hl_flame_layout_new_finish  (GAsyncResult       *result,
                                                GError            **error);
HlFlameLayout     *hl_flame_layout_ref         (HlFlameLayout *layout);
void               hl_flame_layout_unref       (HlFlameLayout *layout);

HlCostKind         hl_flame_layout_get_kind    (const HlFlameLayout *layout);
guint64            hl_flame_layout_get_total   (const HlFlameLayout *layout);
guint              hl_flame_layout_get_n_rects (const HlFlameLayout *layout);
guint              hl_flame_layout_get_max_depth (const HlFlameLayout *layout);
const HlFlameRect *hl_flame_layout_get_rects   (const HlFlameLayout *layout,
                                                guint               *n_rects);
HlCallTree        *hl_flame_layout_get_tree    (const HlFlameLayout *layout);

/* Collapsed stacks, one line per rect with a non-zero self cost:
 * "main;parse;xmalloc 1234\n" (flamegraph.pl, speedscope). Inline frames
 * get the suffix " [inline]". */
char              *hl_flame_layout_to_collapsed(const HlFlameLayout *layout);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HlFlameLayout, hl_flame_layout_unref)

G_END_DECLS
