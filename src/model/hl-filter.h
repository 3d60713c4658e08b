/* hl-filter.h — which allocations a view looks at.
 *
 * An immutable, reference-counted value built with a builder-style API:
 * every setter returns a new filter, so a view state can keep the previous
 * one (undo, chips) and several threads can share one. Filters compose with
 * AND: an allocation is selected when every condition holds.
 *
 *   g_autoptr (HlFilter) f = hl_filter_new ();
 *   g_autoptr (HlFilter) g = hl_filter_with_time_range (f, t0, t1);
 *   g_autoptr (HlFilter) h = hl_filter_with_metadata (g, "phase", "load");
 */
#pragma once

#include <glib-object.h>

#include "hl-cost-kind.h"

G_BEGIN_DECLS

typedef struct _HlFilter HlFilter;

#define HL_TYPE_FILTER (hl_filter_get_type ())
GType hl_filter_get_type (void) G_GNUC_CONST;

#define HL_TIME_NONE G_MAXUINT64

HlFilter   *hl_filter_new                 (void);
HlFilter   *hl_filter_ref                 (HlFilter   *filter);
void        hl_filter_unref               (HlFilter   *filter);

/* Allocations made in [t0_ns, t1_ns] (times since the recording start);
 * leaked = still live at t1, peak = the heap peak inside the range. */
HlFilter   *hl_filter_with_time_range     (const HlFilter *filter,
                                           guint64         t0_ns,
                                           guint64         t1_ns);
/* The instant of the LIVE cost (default: the end of the range). */
HlFilter   *hl_filter_with_live_at        (const HlFilter *filter,
                                           guint64         t_ns);
/* The T of the LONG_LIVED cost (hl-cost-kind.h): the bytes of the blocks
 * that lived at least T_NS. It selects nothing (every cost but LONG_LIVED
 * is the same), yet it needs every allocation's times: a costs-only
 * recording answers only T_NS 0 (the default), where LONG_LIVED is BYTES. */
HlFilter   *hl_filter_with_lived_at_least (const HlFilter *filter,
                                           guint64         t_ns);
guint64     hl_filter_get_lived_at_least  (const HlFilter *filter);
/* Allocations made by one of these threads (adds to the set). */
HlFilter   *hl_filter_with_thread         (const HlFilter *filter,
                                           guint32         tid);
/* Allocations made while metadata KEY had VALUE (integers compare as their
 * decimal text). Several with_metadata() calls must all hold. */
HlFilter   *hl_filter_with_metadata       (const HlFilter *filter,
                                           const char     *key,
                                           const char     *value);
/* Allocations whose stack has a frame in a module whose basename or path
 * contains MODULE. */
HlFilter   *hl_filter_with_module         (const HlFilter *filter,
                                           const char     *module);
/* Allocations whose stack has a function containing SUBSTRING
 * (case-sensitive). */
HlFilter   *hl_filter_with_function       (const HlFilter *filter,
                                           const char     *substring);
/* Same, with a GRegex; NULL and ERROR set on a bad pattern. */
HlFilter   *hl_filter_with_function_regex (const HlFilter *filter,
                                           const char     *pattern,
                                           GError        **error);
/* Allocations of MIN_SIZE to MAX_SIZE bytes, both included (the size a
 * program asked for; in a sampled recording one block's, not its
 * weighed size). Several ranges: their intersection. */
HlFilter   *hl_filter_with_size_range     (const HlFilter *filter,
                                           guint64         min_size,
                                           guint64         max_size);
/* The conditions of both (AND). */
HlFilter   *hl_filter_and                 (const HlFilter *a,
                                           const HlFilter *b);

/* Parses one CLI/chip expression: "from=T", "to=T" (ns, or with a unit:
 * 1.5s, 20ms, 3us), "thread=TID", "KEY=VALUE" for metadata, "module=M",
 * "function=SUB", "function~=REGEX", "size=MIN..MAX" (bytes, or with a
 * unit: 4KiB, 1.5MiB, 2GiB, also K/M/G; either end may be left out,
 * "size=N" is exactly N), "lived=T" (LONG_LIVED's T, as
 * hl_filter_with_lived_at_least). Returns a new filter or NULL + ERROR. */
HlFilter   *hl_filter_parse               (const HlFilter *filter,
                                           const char     *expression,
                                           GError        **error);

gboolean    hl_filter_is_empty            (const HlFilter *filter);
gboolean    hl_filter_has_time_range      (const HlFilter *filter);
/* TRUE when the filter selects by time (a range, the live instant or
 * metadata) or by size: a costs-only recording (HL_LOAD_FLAGS_AGGREGATE)
 * answers only filters without these (threads, modules, functions). */
gboolean    hl_filter_selects_by_time     (const HlFilter *filter);
/* Whether an analysis of FILTER showing COST needs the events (every
 * allocation and mapping) rather than a costs-only recording: when it
 * selects by time (above, the LONG_LIVED T included), or for MMAP by
 * thread (the saved costs keep mappings per stack, not per thread). */
gboolean    hl_filter_needs_events        (const HlFilter *filter,
                                           HlCostKind      cost);
gboolean    hl_filter_has_size_range      (const HlFilter *filter);
void        hl_filter_get_size_range      (const HlFilter *filter,
                                           guint64        *min_size,
                                           guint64        *max_size);
void        hl_filter_get_time_range      (const HlFilter *filter,
                                           guint64        *t0_ns,
                                           guint64        *t1_ns);
/* A short text for a chip or report header: "0.5 s – 2 s, thread 42, phase=load". */
char       *hl_filter_describe            (const HlFilter *filter);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HlFilter, hl_filter_unref)

G_END_DECLS
