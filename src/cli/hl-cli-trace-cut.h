/* hl-cli-trace-cut.h — a trace cut by a full disk (or the file-size
 * limit, or a write error): the record `record` appends of it, from the
 * session (docs/capture.md, "A full disk"), and the words that name its
 * cause, for `record`'s end line and `report`. */
#pragma once

#include <stdbool.h>

#include "hl-cli-session-file.h"

/* What cut a trace, from the errno name its record holds ("ENOSPC"): "a
 * full disk", "the file size limit", "a disk quota", else "a write
 * error". */
const char *hl_cli_trace_cut_cause (const char *reason);

/* The errno name of the session S's cut ("ENOSPC"), NULL when its trace
 * was not cut. */
const char *hl_cli_trace_cut_reason (const HlCliSession *s);

/* Appends to S's trace the record of its cut, when S says its trace was
 * cut: an INFO packet with trace_cut_ns and trace_cut_reason (as the
 * preload's), and the session's exact totals for the whole run:
 * session_allocations, session_frees, session_bytes_allocated,
 * session_not_freed_bytes, session_not_freed_blocks and
 * session_dropped_events. True when written or nothing was to be; false
 * when there was no room (what a short write left is cut off again: the
 * trace still ends with whole packets). */
bool hl_cli_trace_cut_append (const HlCliSession *s);
