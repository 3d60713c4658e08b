/* hl-diff-flame.h — a diff of two recordings drawn as a flame graph.
 *
 * A frame's width is its cost in A plus its cost in B, so that what
 * disappeared stays visible next to what appeared; its colour says how it
 * changed: red where B grew, blue where it shrank, grey where it stayed,
 * stronger for larger relative changes (a frame that doubled or appeared
 * is fully red, one that grew 2 % barely tinted). Colours and labels stay
 * readable on light and dark backgrounds.
 */
#pragma once

#include "hl-flame-data.h"
#include "hl-flame-graph-draw.h"
#include "hl-model.h"

G_BEGIN_DECLS

/* Flame data of KIND; each node's user_data is its diff node + 1. Nodes
 * with no cost of KIND on either side are left out. */
HlFlameData *hl_diff_flame_data         (HlDiffTree        *tree,
                                         HlCostKind         kind);
/* The diff node of a flame node (0 for the root). */
guint        hl_diff_flame_diff_node    (const HlFlameData *data,
                                         guint              node);

/* Fill colour of a frame whose cost went from A to B (0..1 RGB): grey when
 * equal, red hues when B > A, blue hues when B < A. */
void         hl_diff_color              (guint64            a,
                                         guint64            b,
                                         gboolean           dark,
                                         double             rgb[3]);

/* "+1.50 MiB", "−12", "0" in the unit of KIND. */
char        *hl_diff_format_delta       (HlCostKind         kind,
                                         gint64             delta);
/* The change relative to A: "+25.0 %", "−100 %", "new" (A = 0), "0 %". */
char        *hl_diff_format_change      (guint64            a,
                                         gint64             delta);

/* What the flame graph widget needs to colour and describe diff nodes
 * (hl_flame_graph_set_node_funcs()). */
typedef struct _HlDiffFlameInfo HlDiffFlameInfo;

HlDiffFlameInfo *hl_diff_flame_info_new  (HlDiffTree        *tree,
                                          HlCostKind         kind);
void             hl_diff_flame_info_free (HlDiffFlameInfo   *info);
/* HlFlameColorFunc and HlFlameDescribeFunc with an HlDiffFlameInfo. */
void             hl_diff_flame_color     (const HlFlameData *data,
                                          guint              node,
                                          gboolean           dark,
                                          double             rgb[3],
                                          gpointer           info);
char            *hl_diff_flame_describe  (const HlFlameData *data,
                                          guint              node,
                                          gpointer           info);

/* Costs in A and in B of the frames matching SEARCH, counted once per
 * stack (a match under a match is not counted again). */
void             hl_diff_flame_search_costs   (const HlFlameData *data,
                                               const char        *search,
                                               HlDiffFlameInfo   *info,
                                               guint64           *a,
                                               guint64           *b);
/* HlFlameSearchSummaryFunc: "Matches: 12.0 % → 15.5 % (Δ +1.20 MiB)", the
 * share of A's total, of B's total, and the change. */
char            *hl_diff_flame_search_summary (HlFlameData       *data,
                                               const char        *search,
                                               gpointer           info);
/* Collapsed stacks of both sides, "a;b;c SELF_A SELF_B\n" per stack: the
 * two-column form of flamegraph.pl's differential graphs (difffolded.pl),
 * so Δ = SELF_B − SELF_A per line. Frames are named as in the graph. */
char            *hl_diff_flame_to_collapsed   (const HlFlameData *data,
                                               HlDiffFlameInfo   *info);

G_END_DECLS
