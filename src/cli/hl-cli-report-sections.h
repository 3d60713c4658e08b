/* hl-cli-report-sections.h — the parts of `report`'s text beyond the
 * summary and the top call sites: threads, --function, --lifetimes. */
#pragma once

#include "hl-model.h"

/* Every thread with its name and the selection's costs of its allocations. */
void hl_cli_report_print_threads   (HlAnalysis  *analysis,
                                    HlRecording *threads_of);
/* The functions named NAME: their costs, callers and callees, as the
 * application's Callers/Callees table gives them. FALSE (and a line
 * saying so) when the selection has no function of that name. */
gboolean hl_cli_report_print_function (HlAnalysis *analysis,
                                       const char *name);
/* The lifetimes of the selection's blocks: the whole histogram, the TOP
 * call sites by blocks, the short-lived and the growing ones. */
void hl_cli_report_print_lifetimes (HlAnalysis *analysis,
                                    guint       top);
/* The leak scan at exit under the summary's "leaked" line: bytes and
 * blocks per kind, its time and whether it is complete, or why there was
 * none (INFO leak_scan). */
void hl_cli_report_print_reachability_summary (HlRecording *rec);
/* The TOP stacks of each kind of the leak scan, definitely lost first. */
void hl_cli_report_print_reachability (HlAnalysis *analysis,
                                       guint       top);
/* The RSS split at its highest allocator sample and the mappings' totals
 * (lines of the summary), and the mappings' top call sites. */
void hl_cli_report_print_memory_line (HlRecording *rec);
void hl_cli_report_print_mmap_sites  (HlRecording *rec,
                                      guint        top);
