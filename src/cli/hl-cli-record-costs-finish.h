/* hl-cli-record-costs-finish.h — `record`'s bounded finish of the costs
 * that its costs thread fell behind on (issue 31 point 3): the trace's
 * events loaded costs-only once the program has exited, given up past
 * HEAPLENS_RECORD_COSTS_FINISH_S seconds (10 by default; 0: never). */
#pragma once

#include "hl-model.h"

/* The costs-only recording of TRACE (the one hl_costs_packet_prepare
 * serializes), or NULL when the budget ran out, is 0, or the load failed.
 * *SECONDS: the time it took (at least the budget when it ran out; 0 when
 * not tried). */
HlRecording *hl_record_finish_costs_bounded (const char *trace,
                                             double     *seconds);
