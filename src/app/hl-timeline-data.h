/* hl-timeline-data.h — what the timeline draws: heap, RSS and allocation
 * rate per time bucket, metadata intervals (bands) and marks, and the
 * heap's largest call sites over time.
 * Built from the model, immutable afterwards, reference counted. */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

typedef struct _HlTimelineData HlTimelineData;

#define HL_TYPE_TIMELINE_DATA (hl_timeline_data_get_type ())
GType hl_timeline_data_get_type (void) G_GNUC_CONST;

/* What the chart shows: heaptrack's three charts. */
typedef enum
{
  HL_TIMELINE_MODE_CONSUMED,     /* the heap (bytes), with RSS */
  HL_TIMELINE_MODE_ALLOCATIONS,  /* allocations since the start */
  HL_TIMELINE_MODE_TEMPORARY,    /* temporary allocations since the start */
  HL_TIMELINE_N_MODES
} HlTimelineMode;

typedef struct
{
  guint64 time_ns;     /* start of the bucket */
  guint64 heap_min;    /* bytes */
  guint64 heap_max;
  guint64 rss;         /* bytes, 0 = unknown */
  /* the last allocator sample at the bucket's end (0 before one, or
   * without): free inside malloc's arenas, the program's own mappings,
   * drawn stacked on the heap under the RSS line */
  guint64 malloc_free;
  guint64 mmap;
  guint64 n_allocs;    /* allocations in the bucket */
  guint64 allocations_total;  /* since the start, at the bucket's end */
  guint64 temporary_total;
} HlTimelineBucket;

/* The value MODE draws for bucket B: heap_max or a cumulative count. */
guint64 hl_timeline_bucket_value (const HlTimelineBucket *b,
                                  HlTimelineMode          mode);

typedef struct
{
  const char *key;     /* metadata key: one row per key */
  const char *label;   /* "key=value" shown in the band */
  guint64     start_ns;
  guint64     end_ns;
  guint       row;     /* index of the key's row */
} HlTimelineBand;

typedef struct
{
  guint64     time_ns;
  const char *label;
} HlTimelineMark;

HlTimelineData *hl_timeline_data_new        (guint64         duration_ns);
HlTimelineData *hl_timeline_data_ref        (HlTimelineData *data);
void            hl_timeline_data_unref      (HlTimelineData *data);

void            hl_timeline_data_add_bucket (HlTimelineData *data,
                                             const HlTimelineBucket *bucket);
void            hl_timeline_data_add_band   (HlTimelineData *data,
                                             const char     *key,
                                             const char     *label,
                                             guint64         start_ns,
                                             guint64         end_ns);
void            hl_timeline_data_add_mark   (HlTimelineData *data,
                                             guint64         time_ns,
                                             const char     *label);

guint64                 hl_timeline_data_get_duration  (const HlTimelineData *data);
guint                   hl_timeline_data_get_n_buckets (const HlTimelineData *data);
const HlTimelineBucket *hl_timeline_data_get_bucket    (const HlTimelineData *data,
                                                        guint                 i);
guint                   hl_timeline_data_get_n_bands   (const HlTimelineData *data);
const HlTimelineBand   *hl_timeline_data_get_band      (const HlTimelineData *data,
                                                        guint                 i);
guint                   hl_timeline_data_get_n_rows    (const HlTimelineData *data);
/* The metadata key shown in band row ROW. */
const char             *hl_timeline_data_get_row_key   (const HlTimelineData *data,
                                                        guint                 row);
guint                   hl_timeline_data_get_n_marks   (const HlTimelineData *data);
const HlTimelineMark   *hl_timeline_data_get_mark      (const HlTimelineData *data,
                                                        guint                 i);
/* Largest heap_max and rss over all buckets (the chart's scale). */
guint64                 hl_timeline_data_get_max_bytes (const HlTimelineData *data);
guint64                 hl_timeline_data_get_max_rate  (const HlTimelineData *data);
/* Largest heap_max / rss alone. */
guint64                 hl_timeline_data_get_max_heap  (const HlTimelineData *data);
/* Whether a bucket has allocator figures (malloc_free, mmap). */
gboolean                hl_timeline_data_has_memory    (const HlTimelineData *data);
guint64                 hl_timeline_data_get_max_rss   (const HlTimelineData *data);
/* The largest value MODE draws: the top of its axis (with RSS for
 * CONSUMED: both share one axis). */
guint64                 hl_timeline_data_get_max_value (const HlTimelineData *data,
                                                        HlTimelineMode        mode);

/* The heap by call site (hl_recording_get_site_series): N_SITES labels,
 * and BYTES, N_BUCKETS rows of N_SITES + 1 values (each site's live
 * bytes at the end of the bucket, then the heap's), the buckets dividing
 * [T0_NS, T1_NS) evenly. Copied. */
void            hl_timeline_data_set_sites  (HlTimelineData     *data,
                                             guint64             t0_ns,
                                             guint64             t1_ns,
                                             guint               n_buckets,
                                             guint               n_sites,
                                             const char * const *labels,
                                             const guint64      *bytes);
guint           hl_timeline_data_get_n_sites    (const HlTimelineData *data);
const char     *hl_timeline_data_get_site_label (const HlTimelineData *data,
                                                 guint                 site);
/* The row of the bucket holding TIME_NS (n_sites values, then the heap);
 * NULL without sites or outside their range. */
const guint64  *hl_timeline_data_get_sites_at   (const HlTimelineData *data,
                                                 guint64               time_ns);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HlTimelineData, hl_timeline_data_unref)

G_END_DECLS
