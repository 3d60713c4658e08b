/* hl-report-json-private.h — what the report's JSON files share
 * (hl-report-json.c, hl-report-json-sections.c). */
#pragma once

#include "hl-lifetimes.h"
#include "hl-report-json.h"

/* Member NAME (NULL: the next element) as COSTS = { "allocations", ... }. */
void hl_report_json_add_costs     (JsonBuilder      *b,
                                   const char       *name,
                                   const HlCosts    *c);
/* The next element as FRAME = { "function", "module", ... }. */
void hl_report_json_add_frame     (JsonBuilder      *b,
                                   const HlFrame    *f);
/* Member "stack": STACK of REC's frames, innermost first. */
void hl_report_json_add_stack     (JsonBuilder      *b,
                                   HlRecording      *rec,
                                   HlStackId         stack);
/* "threads": every thread of the recording (of THREADS_OF when not NULL:
 * hl_analysis_get_thread_costs_for()), its name and the selection's
 * costs of its allocations. */
void hl_report_json_add_threads   (JsonBuilder      *b,
                                   HlAnalysis       *analysis,
                                   HlRecording      *threads_of);
/* "function": the functions named NAME, their costs, callers, callees. */
void hl_report_json_add_function  (JsonBuilder      *b,
                                   HlAnalysis       *analysis,
                                   const char       *name);
/* "lifetimes": LT's histograms (null when NULL: a costs-only load), its
 * TOP sites by blocks, TOP short-lived ones and TOP growing ones. */
void hl_report_json_add_lifetimes (JsonBuilder      *b,
                                   HlAnalysis       *analysis,
                                   const HlLifetimes *lt,
                                   guint             top);
/* "reachability": the leak scan at exit, its figures per kind and the TOP
 * stacks of each kind; {"skipped": why} when the preload skipped it;
 * nothing when the trace has neither. */
void hl_report_json_add_reachability (JsonBuilder *b,
                                      HlAnalysis  *analysis,
                                      HlRecording *rec,
                                      guint        top);
