/* hl-document.h — the trace a window shows, as it loads: its file, the
 * costs saved in a large trace shown first while its events load, the
 * full load, its progress and its cancel; before it, what a program
 * killed with no launcher left of the trace in its session is salvaged
 * into it. Emits what the window shows: "salvaged", "progress",
 * "saved-costs-loaded", "loaded" and "failed". */
#pragma once

#include <gio/gio.h>

#include "hl-analysis-scheduler.h"
#include "hl-model.h"

G_BEGIN_DECLS

#define HL_TYPE_DOCUMENT (hl_document_get_type ())
G_DECLARE_FINAL_TYPE (HlDocument, hl_document, HL, DOCUMENT, GObject)

HlDocument *hl_document_new           (void);
/* Starts loading FILE (a load in progress is cancelled). SAVED_COSTS_FIRST:
 * a large trace's saved costs are loaded too, and shown first. */
void        hl_document_open          (HlDocument *self,
                                       GFile      *file,
                                       gboolean    saved_costs_first);
/* Cancels the load and forgets the file (its results are dropped). */
void        hl_document_cancel        (HlDocument *self);
/* Stops the load's workers (at their next check), keeping the file. */
void        hl_document_stop          (HlDocument *self);
GFile      *hl_document_get_file      (HlDocument *self);
/* The recording shown and the analysis of its current filter, shared by
 * the views (the window sets what it shows: the saved costs, the events,
 * or a live session's growing recording). */
HlAnalysisScheduler *hl_document_get_analyses (HlDocument *self);
/* TRUE while the saved costs are shown and the events still load. */
gboolean    hl_document_get_partial   (HlDocument *self);
/* For tests: while HOLD, the events' recording, when loaded, waits (the
 * saved costs stay shown); FALSE lets it in. */
void        hl_document_hold_events   (HlDocument *self,
                                       gboolean    hold);
/* TRUE for a trace large enough that its saved costs are worth showing
 * while its events load: HEAPLENS_SAVED_COSTS_FIRST=BYTES sets the size
 * (default 4 MiB, about 7 M events; 0 for every trace, as tests do). */
gboolean    hl_document_shows_saved_costs_first (GFile *file);

G_END_DECLS
