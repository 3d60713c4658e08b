/* hl-call-tree-rows.h — the call tree view's root row of an analysis
 * (the heavy part: the tree over every stack of the range), in a mode:
 * on a worker. */
#pragma once

#include "hl-call-tree-view.h"
#include "hl-model.h"

G_BEGIN_DECLS

/* The root row for MODE (top-down or bottom-up; Callers/Callees is
 * hl-functions-build.h's), built on a worker (a live session's recording
 * is held by the caller until the callback). */
void       hl_call_tree_rows_async  (HlAnalysis         *analysis,
                                      HlCallTreeMode      mode,
                                      GCancellable       *cancellable,
                                      GAsyncReadyCallback callback,
                                      gpointer            user_data);
/* TRUE and the root row (NULL: nothing to show), or FALSE with ERROR
 * (G_IO_ERROR_CANCELLED when cancelled). */
gboolean   hl_call_tree_rows_finish (GAsyncResult       *result,
                                      HlTreeRow         **root,
                                      GError            **error);

G_END_DECLS
