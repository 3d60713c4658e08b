/* hl-recording.h — everything a trace (or a live session) recorded.
 *
 * A recording is append-only: the loader and the live session reader feed it
 * events through the sink of hl-recording-builder.h (inside the model),
 * then commit, which updates the derived data (heap peak, temporary flags,
 * series) and emits ::changed. This header is what the application and the
 * command line read. Queries go through an HlAnalysis (hl-analysis.h), an
 * immutable result for one HlFilter.
 *
 * Threads: appends, commit and the creation of analyses must not overlap
 * (the live view appends on the main thread between refreshes; the loader
 * appends on its worker thread before handing the recording over). Reading
 * a finished HlAnalysis is safe from any thread.
 *
 * Times are nanoseconds since the recording's start (the trace's
 * start_mono_ns). Stacks are small integers (HlStackId) owned by the
 * recording; 0 is "stack not recorded".
 */
#pragma once

#include <gio/gio.h>

#include "hl-cost-kind.h"
#include "hl-frame.h"
#include "hl-module-info.h"

G_BEGIN_DECLS

#define HL_TYPE_RECORDING (hl_recording_get_type ())
G_DECLARE_FINAL_TYPE (HlRecording, hl_recording, HL, RECORDING, GObject)

typedef guint32 HlStackId;

typedef struct
{
  guint32     tid;
  const char *name;            /* last name seen, or "" */
  guint64     start_ns;        /* first event, or its THREAD start */
  guint64     end_ns;          /* exit, or last event */
} HlThreadInfo;

/* A metadata key's value over [start_ns, end_ns) (end = the recording's
 * end while still set). Integer values are shown as decimal text. */
typedef struct
{
  const char *key;
  const char *value;
  guint64     start_ns;
  guint64     end_ns;
  guint32     tid;
} HlMetaInterval;

typedef struct
{
  guint64     time_ns;
  const char *text;
  guint32     tid;
} HlMark;

/* Whole-recording numbers, what a summary page and `report` show first. */
typedef struct
{
  guint64  duration_ns;
  guint64  n_allocations;
  guint64  n_frees;
  guint64  bytes_allocated;
  guint64  temporary;          /* count */
  guint64  peak_heap_bytes;
  guint64  peak_time_ns;
  guint64  peak_rss_bytes;     /* from COUNTERS samples, 0 if none */
  guint64  leaked_bytes;
  guint64  leaked_blocks;
  guint64  dropped_events;
  guint64  frees_unknown;      /* frees of blocks the trace never allocated */
  /* Events lost to damaged and cut compressed frames: what those frames'
   * headers say they held, bounds rather than counts (the headers may be
   * damaged too); LOST_REGIONS_UNKNOWN damaged regions held a number
   * nobody knows, on top of them. */
  guint64  lost_events_damaged_bound;
  guint64  lost_events_cut_bound;
  guint64  lost_regions_unknown;
  guint    n_threads;
  guint    n_stacks;
  gboolean has_exit_status;
  int      exit_status;
} HlSummary;

/* Valgrind memcheck's kinds of the blocks not freed at exit, from the
 * preload's leak scan (docs/capture.md, "Leaks at exit"). */
typedef enum
{
  HL_REACHABILITY_STILL_REACHABLE = 0,
  HL_REACHABILITY_POSSIBLY_LOST   = 1,
  HL_REACHABILITY_INDIRECTLY_LOST = 2,
  HL_REACHABILITY_DEFINITELY_LOST = 3,
} HlReachabilityKind;

#define HL_REACHABILITY_KINDS 4

/* The scan's figures (the last scan of the trace: the exit's, or one on
 * demand when the program did not exit cleanly after it): blocks and
 * bytes per kind (by HlReachabilityKind),
 * its time, the bytes of roots it read, the blocks whose contents it
 * read; COMPLETE is FALSE when blocks were unknown to it (live-table
 * drops) or memory could not be read. */
typedef struct
{
  gboolean complete;
  gboolean on_demand;  /* a scan asked for while the program ran (the
                        * last one: the program did not exit cleanly
                        * after it), not the exit's */
  guint64  time_ns;    /* when it ran (0: not known, a saved costs packet) */
  guint64  scan_ns;
  guint64  roots_bytes;
  guint64  blocks_scanned;
  guint64  blocks[HL_REACHABILITY_KINDS];
  guint64  bytes[HL_REACHABILITY_KINDS];
} HlReachability;

/* One block the scan found not still reachable. */
typedef struct
{
  guint64            id;
  guint64            size;
  guint32            stack;   /* internal index (hl_recording_get_stack_frames) */
  HlReachabilityKind kind;
} HlReachabilityBlock;

/* The blocks of one kind allocated at one stack. */
typedef struct
{
  guint32            stack;
  HlReachabilityKind kind;
  guint64            blocks;
  guint64            bytes;
} HlReachabilityStack;

/* One downsampled time bucket [start_ns, end_ns): min/max of the heap and
 * RSS inside it, and the activity in it. */
typedef struct
{
  guint64 start_ns;
  guint64 end_ns;
  guint64 heap_min;
  guint64 heap_max;
  guint64 rss_min;             /* 0/0 when no sample fell in the bucket: */
  guint64 rss_max;             /* draw the previous value */
  guint64 allocations;         /* allocations made in the bucket (rate = / width) */
  guint64 bytes_allocated;
  guint64 dropped;
  /* Cumulative from the recording's start to the bucket's end: the
   * allocations, and the temporary allocations (counted at their free) */
  guint64 allocations_total;
  guint64 temporary_total;
} HlSeriesBucket;

/* Called on the thread-default main context of the load_async() caller,
 * at most ~20 times per second. */
typedef void (*HlLoadProgressFunc) (guint64  bytes_done,
                                    guint64  bytes_total,
                                    guint64  events_done,
                                    gpointer user_data);

typedef enum
{
  HL_LOAD_FLAGS_NONE       = 0,
  HL_LOAD_FLAGS_NO_SYMBOLS = 1 << 0, /* skip symbolization (dump-like tools) */
  HL_LOAD_FLAGS_SERIAL     = 1 << 1, /* one thread, even with an index */
  /* Costs per call site and thread only, no allocation records: memory
   * grows with what is live, not with the trace. For reports: only an
   * analysis without a filter by time (hl_filter_selects_by_time()), no
   * per-allocation views (largest, curve, live at T), no size histogram
   * of a selection. Fails with HL_MODEL_ERROR_UNSUPPORTED when the
   * trace has no usable packet index: load it in full then. */
  HL_LOAD_FLAGS_AGGREGATE  = 1 << 2,
  /* With HL_LOAD_FLAGS_AGGREGATE: decode the events even when the trace
   * ends with a COSTS packet that answers the same
   * (hl-recording-costs-packet.h; also HEAPLENS_NO_COSTS_PACKET=1). */
  HL_LOAD_FLAGS_NO_COSTS_PACKET = 1 << 3,
  /* With HL_LOAD_FLAGS_AGGREGATE: the costs saved in the trace's COSTS
   * packet only, never a decode of the events: fails at once with
   * HL_MODEL_ERROR_UNSUPPORTED when the trace has no packet that matches
   * its bytes (the application shows those costs while the events load). */
  HL_LOAD_FLAGS_SAVED_COSTS_ONLY = 1 << 4,
} HlLoadFlags;

/* ---- Loading ----------------------------------------------------------- */

void                hl_recording_load_async         (GFile               *file,
                                                     HlLoadFlags          flags,
                                                     GCancellable        *cancellable,
                                                     HlLoadProgressFunc   progress,
                                                     gpointer             progress_data,
                                                     GDestroyNotify       progress_notify,
                                                     GAsyncReadyCallback  callback,
                                                     gpointer             user_data);
HlRecording        *hl_recording_load_finish        (GAsyncResult        *result,
                                                     GError             **error);
/* The same, blocking (CLI, tests). PROGRESS is called on this thread. */
HlRecording        *hl_recording_load               (GFile               *file,
                                                     HlLoadFlags          flags,
                                                     GCancellable        *cancellable,
                                                     HlLoadProgressFunc   progress,
                                                     gpointer             progress_data,
                                                     GError             **error);

/* A recording for an analysis of the allocations made in [T0_NS, T1_NS]
 * (hl_filter_with_time_range(), without metadata or a live instant),
 * found with the trace's trailing index (docs/trace-format.md section 7):
 * the packets up to the last one that starts at or before T1_NS, applied
 * as a full load applies them, then the next ones only while some
 * thread's last allocation in the range is live (their frees settle which
 * blocks were temporary); the rest is not read. The range's costs are
 * those of a full load; the recording's summary, threads, marks and
 * metadata cover what was read only (take them from a costs-only load,
 * HL_LOAD_FLAGS_AGGREGATE). HL_MODEL_ERROR_UNSUPPORTED when the trace
 * has no valid trailing index, or a packet does not read as it says:
 * load it whole then. FLAGS: HL_LOAD_FLAGS_NO_SYMBOLS at most. */
HlRecording        *hl_recording_load_range         (GFile               *file,
                                                     guint64              t0_ns,
                                                     guint64              t1_ns,
                                                     HlLoadFlags          flags,
                                                     GCancellable        *cancellable,
                                                     GError             **error);

/* Symbolizes every address not yet resolved (the loader does it unless
 * HL_LOAD_FLAGS_NO_SYMBOLS). Safe to run on a worker thread while nothing
 * appends. Debuginfod is asked only when DEBUGINFOD_URLS is set. */
void                hl_recording_symbolize          (HlRecording         *self,
                                                     GCancellable        *cancellable);

/* ---- Reading ------------------------------------------------------------ */

void                 hl_recording_get_summary     (HlRecording *self,
                                                   HlSummary   *out);
/* Value of a trace info key ("exe", "cmdline", "host", ...), or NULL. */
/* The mean bytes between samples of a sampled trace (INFO sample_bytes):
 * its costs are estimates (hl-sample-weight.h); 0 for a full recording. */
guint64              hl_recording_get_sample_bytes (HlRecording *self);
/* The leak scan's figures; FALSE (OUT zeroed) when the trace has none
 * (HEAPLENS_LEAK_SCAN=0, a sampled or attached recording, an exit by a
 * signal, an older preload): then "leaked" is all that is known. */
gboolean             hl_recording_get_reachability (HlRecording    *self,
                                                    HlReachability *out);
/* The blocks the scan found not still reachable, by id: *N of them;
 * borrowed. */
const HlReachabilityBlock *hl_recording_get_reachability_blocks (HlRecording *self,
                                                                 guint       *n);
/* The stacks of the blocks of lost kind KIND, by bytes (most first), at
 * most TOP (0: all): a new array of HlReachabilityStack (empty for
 * HL_REACHABILITY_STILL_REACHABLE, which the scan does not list block by
 * block: hl_analysis_get_reachability_stacks() has them). */
GArray              *hl_recording_get_reachability_stacks (HlRecording        *self,
                                                           HlReachabilityKind  kind,
                                                           guint               top);
const char          *hl_recording_get_reachability_kind_name (HlReachabilityKind kind);
/* Orders HlReachabilityStack by bytes, then blocks (most first), then stack. */
gint                 hl_reachability_stack_compare (gconstpointer a,
                                                    gconstpointer b);
const char          *hl_recording_get_info        (HlRecording *self,
                                                   const char  *key);
/* How a saved recording's program ended, for what its blocks not freed
 * are called: EXITED (an exit or a fatal signal the preload caught: END
 * written, leaks are leaks), DIED (killed without END, SIGKILL or the
 * OOM killer, and its packets salvaged: its blocks were in use then),
 * UNRECORDED (no END and nothing said: killed and not salvaged yet, or
 * still running), OTHER (replaced by exec, detached, cut by a full disk:
 * their own wording). */
typedef enum
{
  HL_RECORDING_END_EXITED,
  HL_RECORDING_END_DIED,
  HL_RECORDING_END_UNRECORDED,
  HL_RECORDING_END_OTHER,
} HlRecordingEnd;
HlRecordingEnd       hl_recording_get_end         (HlRecording *self);
/* NULL-terminated; borrowed. */
const char * const  *hl_recording_get_info_keys   (HlRecording *self);
/* One line each, for a banner: truncation, skipped packets, dropped
 * events, modules without debug info. NULL-terminated; borrowed. */
const char * const  *hl_recording_get_warnings    (HlRecording *self);
gboolean             hl_recording_is_truncated    (HlRecording *self);

const HlModuleInfo  *hl_recording_get_modules     (HlRecording *self,
                                                   guint       *n_modules);
/* Modules that appear in stacks and lack DWARF: borrowed pointers into
 * get_modules(), in a new array. */
GPtrArray           *hl_recording_get_modules_without_debug_info (HlRecording *self);

const HlThreadInfo  *hl_recording_get_threads     (HlRecording *self,
                                                   guint       *n_threads);
const HlMetaInterval*hl_recording_get_metadata_intervals (HlRecording *self,
                                                   guint       *n_intervals);
const HlMark        *hl_recording_get_marks       (HlRecording *self,
                                                   guint       *n_marks);

/* The symbolized frames of STACK, innermost first, inline frames expanded.
 * Borrowed, valid while the recording lives. */
const HlFrame * const *hl_recording_get_stack_frames (HlRecording *self,
                                                      HlStackId    stack,
                                                      guint       *n_frames);
guint                hl_recording_get_n_stacks    (HlRecording *self);
/* The frames the recording gives the return address ADDRESS (absolute, in
 * its process), innermost first as in its stacks: a new array of borrowed
 * HlFrame pointers, empty when no stack holds ADDRESS. With it a frame of
 * another recording of the same process that was not symbolized (a live
 * session's, then its saved trace) is found by its address. Any thread. */
GPtrArray           *hl_recording_get_address_frames (HlRecording *self,
                                                      guint64      address);
/* The stack a trace (or live session) calls TRACE_STACK_ID, 0 when none
 * was appended under that id. */
HlStackId            hl_recording_lookup_stack    (HlRecording *self,
                                                   guint32      trace_stack_id);

/* N buckets covering [t0_ns, t1_ns) of the heap-over-time series; t1_ns
 * HL_TIME_END means the recording's end. New array of HlSeriesBucket. */
#define HL_TIME_END G_MAXUINT64
GArray              *hl_recording_get_series      (HlRecording *self,
                                                   guint64      t0_ns,
                                                   guint64      t1_ns,
                                                   guint        n_buckets);
/* SERIES with each bucket that had no RSS sample (rss 0/0) given the
 * previous one's RSS (rss_min = rss_max = it): the value still held. */
void                 hl_series_hold_rss           (GArray      *series);

/* The heap over time by call site (stacks with the same symbolized frames,
 * as hl_analysis_get_top_stacks groups them): the MAX_SITES call sites that
 * held the most memory at once over the whole recording, largest first,
 * each one's live bytes at the end of each of the N buckets of
 * [t0_ns, t1_ns) (the buckets of hl_recording_get_series), and the whole
 * heap's. NULL when there is nothing to show, and for a live session's
 * recording (it holds samples of the allocations). */
typedef struct
{
  HlStackId      stack;       /* the call site's first stack (0: stack not recorded) */
  const HlFrame *frame;       /* its first resolved frame; NULL without frames */
  guint64        peak_bytes;  /* the most it held at once */
} HlSiteInfo;

typedef struct
{
  GArray *sites;      /* HlSiteInfo */
  GArray *bytes;      /* guint64 [n_buckets][sites->len + 1]: per bucket,
                       * each site's live bytes, then the heap's */
  guint   n_buckets;
  guint64 t0_ns;      /* the range, HL_TIME_END resolved */
  guint64 t1_ns;
} HlSiteSeries;

HlSiteSeries        *hl_recording_get_site_series (HlRecording *self,
                                                   guint64      t0_ns,
                                                   guint64      t1_ns,
                                                   guint        n_buckets,
                                                   guint        max_sites);
void                 hl_site_series_free          (HlSiteSeries *series);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HlSiteSeries, hl_site_series_free)

/* ---- Where the memory the system sees goes ----------------------------- */

/* An allocator sample (ALLOCATOR events): the RSS, the heap and the
 * program's mappings at that time, and with HAVE_MALLINFO glibc's
 * mallinfo2() figures: with ESTIMATED, estimated from its last call (it
 * had become too slow to call while the program ran; docs/capture.md). */
typedef struct
{
  guint64  time_ns;
  gboolean have_mallinfo;
  guint64  rss_bytes;
  guint64  heap_bytes;
  guint64  mmap_bytes;
  guint64  arena_bytes;          /* malloc's arenas, from the system */
  guint64  in_use_bytes;         /* in use inside them (with chunk headers) */
  guint64  free_bytes;           /* free inside them */
  guint64  mmapped_chunks_bytes; /* blocks malloc mapped on their own */
  gboolean estimated;
} HlAllocatorPoint;

/* In time order once the recording is committed. */
const HlAllocatorPoint *hl_recording_get_allocator_samples (HlRecording *self,
                                                            guint       *n_samples);

/* The program's own anonymous mappings (MMAP events) of one stack: calls,
 * bytes mapped over the run, mapped at the end, and the most mapped at
 * once. */
typedef struct
{
  HlStackId stack;
  guint64   calls;
  guint64   bytes;
  guint64   live_bytes;
  guint64   peak_bytes;
} HlMmapSite;

typedef struct
{
  guint64 calls;
  guint64 bytes;
  guint64 live_bytes;            /* mapped at the end */
  guint64 peak_bytes;            /* the most at once */
  guint64 peak_time_ns;
  guint64 regions;               /* at the end */
} HlMmapTotals;

void    hl_recording_get_mmap_totals (HlRecording  *self,
                                      HlMmapTotals *out);
/* HlMmapSite, the most mapped at the end first, then the highest peak;
 * at most TOP (0: all). */
GArray *hl_recording_get_mmap_sites  (HlRecording  *self,
                                      guint         top);

/* The RSS at its highest allocator sample with mallinfo figures, split:
 * heap (the program's blocks), malloc's overhead (its chunks' headers and
 * rounding: in use plus its own mappings, less the heap), free inside its
 * arenas (fragmentation and the top chunk), the program's mappings, and
 * the rest (stacks, code, data, libraries' own); the parts are the
 * allocator's and the kernel's virtual sizes, so OTHER is 0 when they add
 * up to more than the RSS (part of them not resident). FALSE when the
 * recording has no such sample (another allocator than glibc's, an older
 * preload). ESTIMATED: that sample's allocator figures are estimates;
 * ESTIMATED_SAMPLES: how many of all the samples are. */
typedef struct
{
  guint64 time_ns;
  guint64 rss_bytes;
  guint64 heap_bytes;
  guint64 overhead_bytes;
  guint64 free_bytes;
  guint64 mmap_bytes;
  guint64 other_bytes;
  guint64 arena_bytes;
  gboolean estimated;
  guint   estimated_samples;
  guint64 estimated_since_ns;    /* the first estimated sample's time */
} HlMemorySplit;

gboolean hl_recording_get_memory_split (HlRecording   *self,
                                        HlMemorySplit *out);

G_END_DECLS
