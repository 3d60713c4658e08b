/* hl-diff-filter.h — a recording window's filters, applied to both sides
 * of a comparison.
 *
 * Filters name things of the recording they were chosen in (ORIGIN); the
 * other recording of a comparison is another run, so each is carried over
 * by what stays the same between runs:
 *   - the time range as offsets since each recording's start (the model's
 *     times are already relative: "the first 2 s" of A is "the first 2 s"
 *     of B; a range past B's end selects what B has there, possibly nothing);
 *   - threads by name (thread ids change from run to run); an unnamed
 *     thread by its position among the threads in order of appearance; a
 *     thread with no counterpart selects nothing on that side;
 *   - metadata key=value and modules by their text.
 */
#pragma once

#include "hl-model.h"
#include "hl-view-state.h"

G_BEGIN_DECLS

HlFilter *hl_diff_filter_for (HlViewState   *session,
                              HlRecording *origin,
                              HlRecording *recording);

G_END_DECLS
