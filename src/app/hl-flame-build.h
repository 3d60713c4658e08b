/* hl-flame-build.h — the flame graph's data of an analysis: its call
 * tree and layout on the model's worker (hl_flame_layout_new_async), then
 * the drawing nodes on one of ours (up to a few hundred ms in all for 10⁵
 * stacks). */
#pragma once

#include "hl-flame-data.h"
#include "hl-model.h"

G_BEGIN_DECLS

/* Builds the data of ANALYSIS for KIND (INVERTED: the bottom-up tree, the
 * allocating functions next to the root). SHOWN_*: what the flame graph
 * shows now, for the same kind and inversion, or NULL: kept when the
 * analysis gives the same tree (a live view of an idle target; compared
 * on this thread). HELD: a live session already held still
 * (hl_live_session_hold) for the build, released on this thread when the
 * workers are done, before CALLBACK; or NULL. */
void         hl_flame_build_async  (HlAnalysis         *analysis,
                                    HlCostKind          kind,
                                    gboolean            inverted,
                                    HlAnalysis         *shown_analysis,
                                    HlCallTree         *shown_tree,
                                    HlFlameData        *shown_data,
                                    HlLiveSession      *held,
                                    GCancellable       *cancellable,
                                    GAsyncReadyCallback callback,
                                    gpointer            user_data);
/* The data (SHOWN_DATA when UNCHANGED), and its TREE; NULL with ERROR
 * (G_IO_ERROR_CANCELLED when cancelled). */
HlFlameData *hl_flame_build_finish (GAsyncResult       *result,
                                    HlCallTree        **tree,
                                    gboolean           *unchanged,
                                    GError            **error);

G_END_DECLS
