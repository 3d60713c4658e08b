/* hl-cli-model-util.h — what the model-based subcommands (report,
 * flamegraph, diff) share: loading with one-line errors, sizes in human
 * units, frames as text, filter options. */
#pragma once

#include <stdio.h>

#include "hl-model.h"

/* Before PATH is read (every loader below does it, once a path): the
 * session a program that died without ending its trace left with PATH
 * as its trace (a bare LD_PRELOAD killed by SIGKILL) is salvaged into it
 * (hl_session_salvage_for_trace), and a line on stderr says so, as
 * `sessions --prune` does; the segment stays for the prune. For the
 * commands that read a trace without these loaders (dump, compress). */
void         hl_cli_salvage_before_read (const char *cmd,
                                         const char *path);
/* Loads PATH; on failure prints "heaplens-cli CMD: message" and returns NULL. */
HlRecording *hl_cli_load_recording  (const char    *cmd,
                                     const char    *path);
/* PATH loaded for an analysis with FILTER: costs only (or the costs saved
 * in the trace) when FILTER does not select by time, else (or when the
 * trace cannot be loaded so, or HEAPLENS_REPORT_FULL=1) every allocation.
 * Prints the error as hl_cli_load_recording() does. */
HlRecording *hl_cli_load_recording_for (const char     *cmd,
                                        const char     *path,
                                        const HlFilter *filter);
/* "12 B", "1.50 KiB", "3.00 MiB", "1.20 GiB". */
char        *hl_cli_format_size     (guint64        bytes);
char        *hl_cli_format_cost     (HlCostKind     kind,
                                     guint64        value);
/* "function (file:line) [module]" with " [inline]" when inlined. */
char        *hl_cli_format_frame    (const HlFrame *frame);
/* TEXT of a trace (a mark, say) fit for a terminal: valid UTF-8, control
 * characters as spaces. */
char        *hl_cli_printable       (const char    *text);
/* TEXT is a process id: decimal digits only, at least one. */
gboolean     hl_cli_is_pid          (const char    *text);

/* Filter options shared by the commands. */
typedef struct
{
  char  *from;
  char  *to;
  char **threads;
  char **where;
  char **filters;
  char  *lived_at_least;   /* LONG_LIVED's T (needs every allocation) */
} HlCliFilterOptions;

void         hl_cli_filter_add_entries (GOptionContext     *ctx,
                                        HlCliFilterOptions *opts);
/* NULL and a printed error on a bad expression. */
HlFilter    *hl_cli_filter_build       (const char         *cmd,
                                        HlCliFilterOptions *opts);
/* PATH loaded for the filter of OPTS (hl_cli_load_recording_for), and that
 * filter in *FILTER. A time given as "@TEXT" (--from, --to) is the time of
 * the recording's first mark TEXT (every allocation is loaded then). On
 * failure prints the error and returns NULL with *STATUS the exit status:
 * 2 a bad option or an unknown mark, 1 an unreadable trace. */
HlRecording *hl_cli_load_filtered      (const char         *cmd,
                                        const char         *path,
                                        HlCliFilterOptions *opts,
                                        HlFilter          **filter,
                                        int                *status);
/* The same with every allocation loaded, whatever the filter. */
HlRecording *hl_cli_load_filtered_full (const char         *cmd,
                                        const char         *path,
                                        HlCliFilterOptions *opts,
                                        HlFilter          **filter,
                                        int                *status);
/* For `report --from/--to`: the whole run costs-only in *WHOLE (its
 * summary, threads, marks, metadata: the costs saved in the trace, or one
 * pass) and the range's recording returned, loaded with the trailing
 * index (hl_recording_load_range()), the filter in *FILTER. When the trace
 * cannot be read so (no valid trailing index, no costs-only load), a
 * note on stderr, *WHOLE NULL and every allocation loaded, as
 * hl_cli_load_filtered_full() does. Errors as hl_cli_load_filtered(). */
HlRecording *hl_cli_load_range         (const char         *cmd,
                                        const char         *path,
                                        HlCliFilterOptions *opts,
                                        HlFilter          **filter,
                                        HlRecording       **whole,
                                        int                *status);
/* For what shows the selection only (flamegraph): as hl_cli_load_filtered(),
 * but a time range without marks or metadata is loaded with the trailing
 * index (hl_recording_load_range(); no whole-run summary is needed, so no
 * saved costs either); a note on stderr when the trace has no index to
 * seek with, and every allocation loaded then. */
HlRecording *hl_cli_load_selection     (const char         *cmd,
                                        const char         *path,
                                        HlCliFilterOptions *opts,
                                        HlFilter          **filter,
                                        int                *status);
void         hl_cli_filter_clear       (HlCliFilterOptions *opts);
/* Whether showing COST with the filter of OPTS needs every event: the
 * mappings by thread (hl_filter_needs_events(); the T of long-lived is
 * a filter by time already). */
gboolean     hl_cli_cost_needs_events  (HlCliFilterOptions *opts,
                                        HlCostKind          cost);
