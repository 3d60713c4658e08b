/* hl-functions-build.h — the Callers/Callees lists built on a worker
 * thread: every function of an analysis with its self and total costs
 * (hl_analysis_get_functions), and the callers and callees of one. */
#pragma once

#include <gio/gio.h>

#include "hl-function-row.h"

G_BEGIN_DECLS

/* The flat list: a GListModel of HlFunctionRow, the largest total of
 * SORT_BY first. */
void        hl_functions_build_async     (HlAnalysis         *analysis,
                                          HlCostKind          sort_by,
                                          GCancellable       *cancellable,
                                          GAsyncReadyCallback callback,
                                          gpointer            user_data);
/* A new list, or NULL with ERROR (G_IO_ERROR_CANCELLED). */
GListModel *hl_functions_build_finish    (GAsyncResult       *result,
                                          GError            **error);

/* The callers and callees of FUNCTION (a frame of ANALYSIS' recording),
 * each with the costs of the stacks through that edge. */
void        hl_function_neighbours_async  (HlAnalysis         *analysis,
                                           const HlFrame      *function,
                                           GCancellable       *cancellable,
                                           GAsyncReadyCallback callback,
                                           gpointer            user_data);
/* TRUE and two new lists of HlFunctionRow, or FALSE with ERROR. */
gboolean    hl_function_neighbours_finish (GAsyncResult       *result,
                                           GListModel        **callers,
                                           GListModel        **callees,
                                           GError            **error);

G_END_DECLS
