/* hl-adapter-filter.h — the view state's filters as the model's HlFilter,
 * and the filter menu. */
#pragma once

#include <gio/gio.h>
#include "hl-model.h"
#include "hl-view-state.h"

G_BEGIN_DECLS

/* The session's range and filters; LIVE_AT_NS (or HL_TIME_NONE) is the
 * instant of the LIVE cost. */
HlFilter       *hl_adapter_filter         (HlViewState     *session,
                                           guint64        live_at_ns);

/* BASE with SESSION's metadata, module, function and size filters (those that mean the
 * same in any recording, unlike thread ids); a new reference. */
HlFilter       *hl_adapter_filter_labels  (HlViewState     *session,
                                           HlFilter      *base);

/* A menu of the filters the recording offers: threads, metadata values,
 * modules (actions win.filter-thread, win.filter-metadata, win.filter-module),
 * a function or a size range (win.filter-function, win.filter-size: dialogs). */
GMenuModel     *hl_adapter_filter_menu    (HlRecording   *recording);

G_END_DECLS
