/* hl-analysis-scheduler.h — the recording a window shows and its analysis:
 * one HlAnalysis for the current filter, built on a worker and shared by
 * every view. A newer filter cancels the analysis being built; the last
 * one ready stays current until the next is. For a live session's growing
 * recording, one analysis at a time, built while the session holds its
 * appends back; a start that has to wait is kept and "retry" says when it
 * can go. */
#pragma once

#include <gio/gio.h>

#include "hl-model.h"

G_BEGIN_DECLS

#define HL_TYPE_ANALYSIS_SCHEDULER (hl_analysis_scheduler_get_type ())
G_DECLARE_FINAL_TYPE (HlAnalysisScheduler, hl_analysis_scheduler, HL, ANALYSIS_SCHEDULER, GObject)

/* Signals:
 *  - "ready" (HlAnalysis *analysis): ANALYSIS (of the current recording)
 *    is now the current one; for a live session, still held.
 *  - "failed" (const char *message): an analysis failed (not cancelled).
 *  - "retry": live, a start that had to wait can go now. */
HlAnalysisScheduler *hl_analysis_scheduler_new (void);

/* The recording the analyses are of (NULL: none); LIVE: the session it
 * grows in, or NULL. Keeps the current analysis until the next one. */
void           hl_analysis_scheduler_set_recording    (HlAnalysisScheduler *self,
                                                       HlRecording         *recording);
HlRecording   *hl_analysis_scheduler_get_recording    (HlAnalysisScheduler *self);
void           hl_analysis_scheduler_set_live_session (HlAnalysisScheduler *self,
                                                       HlLiveSession       *live);
HlLiveSession *hl_analysis_scheduler_get_live_session (HlAnalysisScheduler *self);
/* The analysis the views show (NULL until the first one is ready). */
HlAnalysis    *hl_analysis_scheduler_get_analysis     (HlAnalysisScheduler *self);

/* Starts the analysis of the recording for FILTER. FALSE when none starts:
 * no recording, or live and one is already running or the session cannot
 * hold still now (kept: "retry", or the next start, brings it). */
gboolean       hl_analysis_scheduler_start            (HlAnalysisScheduler *self,
                                                       HlFilter            *filter);
/* Cancels the analysis being built and forgets the current one. */
void           hl_analysis_scheduler_forget           (HlAnalysisScheduler *self);

G_END_DECLS
