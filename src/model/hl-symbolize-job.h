/* hl-symbolize-job.h — symbolizing a growing recording without stopping
 * its feeding: the slow part (opening modules, symbol tables, DWARF, and
 * resolving addresses with libdw) runs on a worker and touches nothing of
 * the recording; the cheap parts before and after run between appends.
 *
 *   job = hl_symbolize_job_begin (rec);     // between appends
 *   hl_symbolize_job_run (job, cancel);     // any thread, appends go on
 *   hl_symbolize_job_finish (job, rec);     // between appends, no reader
 *   hl_symbolize_job_free (job);
 *
 * One job per recording at a time. (hl_recording_symbolize does all three
 * at once, for a recording nothing appends to.)
 */
#pragma once

#include "hl-recording.h"

G_BEGIN_DECLS

typedef struct _HlSymbolizeJob HlSymbolizeJob;

/* Takes the addresses not symbolized yet and a copy of the module map;
 * NULL when there is nothing to do. */
HlSymbolizeJob *hl_symbolize_job_begin  (HlRecording    *recording);
void            hl_symbolize_job_run    (HlSymbolizeJob *job,
                                         GCancellable   *cancellable);
/* Stores the frames found (and, for a new module map, the modules' debug
 * info status) and brings the derived data up to date. Addresses the run
 * did not reach (cancelled) are kept for the next job. */
void            hl_symbolize_job_finish (HlSymbolizeJob *job,
                                         HlRecording    *recording);
guint           hl_symbolize_job_get_n_addresses (HlSymbolizeJob *job);
void            hl_symbolize_job_free   (HlSymbolizeJob *job);

G_END_DECLS
