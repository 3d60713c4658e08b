/* hl-allocations-build.h — the allocations view's data of an analysis:
 * the leaks, the largest allocations (a walk over every allocation of the
 * range) and the size histogram, on a worker (a live session's recording
 * is held by the caller until the callback). */
#pragma once

#include "hl-allocations-view.h"
#include "hl-model.h"

G_BEGIN_DECLS

typedef struct _HlAllocationsData HlAllocationsData;

void               hl_allocations_data_free   (HlAllocationsData  *data);
/* Shows DATA in VIEW. */
void               hl_allocations_data_show   (HlAllocationsData  *data,
                                               HlAllocationsView  *view);

void               hl_allocations_build_async  (HlAnalysis         *analysis,
                                                GCancellable       *cancellable,
                                                GAsyncReadyCallback callback,
                                                gpointer            user_data);
/* NULL with ERROR (G_IO_ERROR_CANCELLED when cancelled). */
HlAllocationsData *hl_allocations_build_finish (GAsyncResult       *result,
                                                GError            **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HlAllocationsData, hl_allocations_data_free)

G_END_DECLS
