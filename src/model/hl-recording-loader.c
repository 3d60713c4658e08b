/* hl-recording-loader.c — reads a trace file into an HlRecording, on a worker
 * thread for load_async(), with progress and cancellation. */
#include "hl-recording-builder.h"
#include "hl-model-error.h"
#include "hl-model-i18n.h"
#include "hl-symbolizer.h"
#include "hl-symbolizer-prefetch.h"
#include "hl-recording-costs-packet.h"
#include "hl-recording-loader-private.h"
#include "hl-prefault.h"
#include "hl-heaptrack-import.h"

#define MAX_QUEUED 4

#include "hl-trace-reader.h"
#include "hl-trace-index.h"
#include "hl-trace-codec.h"
#ifdef HL_HAVE_ZSTD
#include "hl-trace-zstd.h"
#endif

#include <string.h>

typedef struct
{
  GFile             *file;
  HlLoadFlags        flags;
  HlLoadProgressFunc progress;
  gpointer           progress_data;
  GDestroyNotify     progress_notify;
  GMainContext      *context;      /* where progress runs (async only) */
  gint64             last_report_us;
  guint64            total_bytes;   /* of the file being loaded */
  /* hl_recording_load_range(): the packets up to the range's end only */
  gboolean           range;
  guint64            range_t0_ns, range_t1_ns;
} LoadData;

typedef struct
{
  LoadData *data;
  guint64   bytes_done, bytes_total, events;
} ProgressReport;

static void
load_data_clear (gpointer p)
{
  LoadData *data = p;

  g_clear_object (&data->file);
  if (data->progress_notify != NULL)
    data->progress_notify (data->progress_data);
  g_clear_pointer (&data->context, g_main_context_unref);
}

static void
load_data_release (gpointer p)
{
  g_atomic_rc_box_release_full (p, load_data_clear);
}

static void
report_free (gpointer p)
{
  ProgressReport *r = p;

  load_data_release (r->data);
  g_free (r);
}

static gboolean
report_in_context (gpointer user_data)
{
  ProgressReport *r = user_data;

  r->data->progress (r->bytes_done, r->bytes_total, r->events, r->data->progress_data);
  return G_SOURCE_REMOVE;
}

static void
report (LoadData *data,
        guint64   bytes_done,
        guint64   bytes_total,
        guint64   events,
        gboolean  force)
{
  gint64 now;

  if (data->progress == NULL)
    return;
  now = g_get_monotonic_time ();
  if (!force && now - data->last_report_us < 50000)
    return;
  data->last_report_us = now;
  if (data->context == NULL)
    data->progress (bytes_done, bytes_total, events, data->progress_data);
  else
    {
      ProgressReport *r = g_new (ProgressReport, 1);
      r->data = g_atomic_rc_box_acquire (data);
      r->bytes_done = bytes_done;
      r->bytes_total = bytes_total;
      r->events = events;
      g_main_context_invoke_full (data->context, G_PRIORITY_DEFAULT, report_in_context, r, report_free);
    }
}

static void
report_parallel (gpointer user_data,
                 guint64  offset,
                 guint64  events)
{
  LoadData *data = user_data;

  report (data, offset, data->total_bytes, events, FALSE);
}

/* HEAPLENS_DEBUG=timing: the load's stages on stderr, wall and CPU of
 * the whole process (all threads) since the previous one. */
typedef struct
{
  gboolean on;
  gint64   wall_us;
  gint64   cpu_us;
  gint64   thread_us;   /* of the loading thread, which applies the events */
} LoadTiming;

static gint64
cpu_clock_us (clockid_t clock)
{
  struct timespec ts;

  clock_gettime (clock, &ts);
  return (gint64) ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

static void
load_timing_begin (LoadTiming *t)
{
  t->on = g_strcmp0 (g_getenv ("HEAPLENS_DEBUG"), "timing") == 0;
  if (t->on)
    {
      t->wall_us = g_get_monotonic_time ();
      t->cpu_us = cpu_clock_us (CLOCK_PROCESS_CPUTIME_ID);
      t->thread_us = cpu_clock_us (CLOCK_THREAD_CPUTIME_ID);
    }
}

static void
load_timing_stage (LoadTiming *t,
                   const char *what)
{
  gint64 wall, cpu, thread;

  if (!t->on)
    return;
  wall = g_get_monotonic_time ();
  cpu = cpu_clock_us (CLOCK_PROCESS_CPUTIME_ID);
  thread = cpu_clock_us (CLOCK_THREAD_CPUTIME_ID);
  g_printerr ("heaplens: timing:   load: %s %.1f ms (cpu %.1f ms, this thread %.1f ms)\n", what,
              (wall - t->wall_us) / 1000.0, (cpu - t->cpu_us) / 1000.0, (thread - t->thread_us) / 1000.0);
  t->wall_us = wall;
  t->cpu_us = cpu;
  t->thread_us = thread;
}

static int
model_code (HlFormatStatus code)
{
  switch (code)
    {
    case HL_FORMAT_ERROR_IO:          return HL_MODEL_ERROR_IO;
    case HL_FORMAT_ERROR_NOT_A_TRACE: return HL_MODEL_ERROR_NOT_A_TRACE;
    case HL_FORMAT_ERROR_VERSION:     return HL_MODEL_ERROR_VERSION;
    case HL_FORMAT_ERROR_UNSUPPORTED: return HL_MODEL_ERROR_UNSUPPORTED;
    case HL_FORMAT_OK:
    case HL_FORMAT_ERROR_TRUNCATED:
    case HL_FORMAT_ERROR_CORRUPT:
    case HL_FORMAT_ERROR_CHECKSUM:
    default:                          return HL_MODEL_ERROR_CORRUPT;
    }
}

/* The reader's error in a sentence people can read in their language,
 * with the reader's own detail (English, technical) after it. */
static void
set_format_error (GError             **error,
                  const char          *path,
                  const HlFormatError *err)
{
  int code = model_code (err->code);

  switch (err->code)
    {
    case HL_FORMAT_ERROR_IO:
      /* Translators: FILE cannot be read: the reader's detail (in English) */
      g_set_error (error, HL_MODEL_ERROR, code, _("%s cannot be read: %s"), path, err->message);
      break;
    case HL_FORMAT_ERROR_NOT_A_TRACE:
      g_set_error (error, HL_MODEL_ERROR, code, _("%s is not a Heaplens trace: %s"), path, err->message);
      break;
    case HL_FORMAT_ERROR_VERSION:
      g_set_error (error, HL_MODEL_ERROR, code,
                   _("%s has a trace format this version of Heaplens does not read: %s"), path, err->message);
      break;
    case HL_FORMAT_ERROR_TRUNCATED:
      g_set_error (error, HL_MODEL_ERROR, code, _("%s is truncated: %s"), path, err->message);
      break;
    case HL_FORMAT_ERROR_UNSUPPORTED:
      g_set_error (error, HL_MODEL_ERROR, code,
                   _("%s holds something this version of Heaplens does not read: %s"), path, err->message);
      break;
    case HL_FORMAT_ERROR_CORRUPT:
    case HL_FORMAT_ERROR_CHECKSUM:
    case HL_FORMAT_OK:
    default:
      g_set_error (error, HL_MODEL_ERROR, code, _("%s is damaged: %s"), path, err->message);
      break;
    }
}

typedef struct
{
  HlTraceReader *reader;
  GCancellable  *cancellable;
  GAsyncQueue   *queue;
  int            rc;
  HlFormatError  err;
} Producer;

static gpointer
producer_thread (gpointer user_data)
{
  Producer *p = user_data;
  HlEventCursor *cursor = g_new0 (HlEventCursor, 1);
  HlPacketView pkt;
  HlDecodedBatch *b = hl_decoded_batch_new ();

  while ((p->rc = hl_trace_reader_next_packet (p->reader, &pkt, &p->err)) > 0)
    {
      if (g_cancellable_is_cancelled (p->cancellable))
        break;
      hl_decoded_batch_add_packet (b, cursor, &pkt);
      if (b->events->len >= HL_DECODED_BATCH_EVENTS)
        {
          g_async_queue_push (p->queue, b);
          b = hl_decoded_batch_new ();
          while (g_async_queue_length (p->queue) >= MAX_QUEUED && !g_cancellable_is_cancelled (p->cancellable))
            g_usleep (200);
        }
    }
  b->last = TRUE;
  g_async_queue_push (p->queue, b);
  g_free (cursor);
  return NULL;
}

/* Returns FALSE when cancelled. */
static gboolean
load_pipelined (HlTraceReader *reader,
                HlRecording   *rec,
                LoadData      *data,
                GCancellable  *cancellable,
                guint64        total,
                int           *rc,
                HlFormatError *err,
                guint64       *events,
                guint64       *corrupt_packets)
{
  Producer p = { reader, cancellable, g_async_queue_new (), 0, { 0 } };
  GThread *thread = g_thread_new ("hl-trace-decode", producer_thread, &p);
  gboolean last = FALSE;

  while (!last)
    {
      HlDecodedBatch *b = g_async_queue_pop (p.queue);

      last = b->last;
      hl_decoded_batch_apply (b, rec);
      *events += b->events->len;
      *corrupt_packets += b->corrupt_packets;
      report (data, b->last_offset, total, *events, FALSE);
      hl_decoded_batch_free (b);
    }
  g_thread_join (thread);
  g_async_queue_unref (p.queue);
  *rc = p.rc;
  *err = p.err;
  return !g_cancellable_is_cancelled (cancellable);
}

/* The loaded REC symbolized (unless HL_LOAD_FLAGS_NO_SYMBOLS), with
 * PREFETCH's symbolizer when it was made for REC's modules. Takes both. */
static HlRecording *
add_symbols (LoadData             *data,
             HlRecording          *rec,
             HlSymbolizerPrefetch *prefetch,
             GCancellable         *cancellable,
             GError              **error)
{
  if ((data->flags & HL_LOAD_FLAGS_NO_SYMBOLS) == 0)
    {
      hl_symbolizer_prefetch_finish (prefetch, rec);
      hl_recording_symbolize (rec, cancellable);
      /* A saved trace is complete: let libdw's memory go. */
      hl_frame_table_set_symbolizer (hl_recording_get_frame_table (rec), NULL, 0);
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          g_object_unref (rec);
          return NULL;
        }
    }
  else
    hl_symbolizer_prefetch_drop (prefetch);
  return rec;
}

/* The packets of the trailing index that a range load reads at least:
 * every one up to the last whose first event is at or before T1_NS, so
 * that every event up to T1_NS is among them, and every event before them
 * in the file too (a full load's prefix, applied in the same order). */
static size_t
range_prefix_entries (const HlTraceIndex *index,
                      guint64             t1_ns)
{
  size_t n = 0;

  for (size_t i = 0; i < index->n_entries; i++)
    if (index->entries[i].time_begin_ns <= t1_ns)
      n = i + 1;
  return n;
}

/* A range load's packets after its prefix: applied in file order while
 * some thread's last allocation in the range is live (a free of it before
 * that thread allocates again makes it temporary), the rest left unread.
 * FALSE when cancelled or when a packet does not read (then a full load
 * must answer: a full load reads on past damage). */
static gboolean
load_range_tail (HlTraceReader *reader,
                 HlRecording   *rec,
                 LoadData      *data,
                 GCancellable  *cancellable,
                 guint64       *events,
                 guint64       *corrupt_packets,
                 HlFormatError *err)
{
  HlEventCursor *cursor = g_new0 (HlEventCursor, 1);
  HlPacketView pkt;
  int rc = 1;

  while (hl_recording_last_allocs_open (rec, data->range_t0_ns, data->range_t1_ns) &&
         (rc = hl_trace_reader_next_packet (reader, &pkt, err)) > 0 && !g_cancellable_is_cancelled (cancellable))
    {
      HlEvent ev;
      int erc;

      hl_event_cursor_init (cursor, &pkt);
      while ((erc = hl_event_cursor_next (cursor, &ev, err)) > 0)
        {
          hl_recording_load_apply_event (rec, &ev);
          (*events)++;
        }
      if (erc < 0)
        (*corrupt_packets)++;
    }
  g_free (cursor);
  return rc >= 0 && !g_cancellable_is_cancelled (cancellable);
}

static HlRecording *
load (LoadData      *data,
      GCancellable  *cancellable,
      GError       **error)
{
  g_autoptr (HlRecording) rec = NULL;
  g_autofree char *path = g_file_get_path (data->file);
  HlTraceReader *reader = NULL;
  HlTraceIndex *index = NULL;
  g_autoptr (HlSymbolizerPrefetch) prefetch = NULL;
  /* after REC: cleaned up before it */
  g_autoptr (HlPrefault) prefault = NULL;
  HlFormatError err = { 0 };
  HlPacketView pkt;
  HlEventCursor *cursor;
  HlTraceReaderStats stats;
  const HlTraceCodec *codec = NULL;
  gboolean index_damaged = FALSE;
  guint64 total, events = 0;
  guint64 corrupt_packets = 0, parallel_packets = 0;
  guint n_threads;
  int rc;
  LoadTiming timing = { 0 };
  HlTraceIndex prefix = { 0 };  /* a range load's packets: INDEX's first ones */
  guint64 prefix_end = 0;       /* where they end */

  load_timing_begin (&timing);
  if (path == NULL)
    {
      g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_IO, _("%s: only local files can be loaded"),
                   g_file_peek_path (data->file) ? g_file_peek_path (data->file) : "(file)");
      return NULL;
    }
  /* A costs-only load of a trace whose costs were saved when it was
   * recorded: the saved recording, unless the file changed since. */
  if ((data->flags & (HL_LOAD_FLAGS_AGGREGATE | HL_LOAD_FLAGS_NO_COSTS_PACKET)) == HL_LOAD_FLAGS_AGGREGATE &&
      g_getenv ("HEAPLENS_NO_COSTS_PACKET") == NULL && (rec = hl_costs_packet_load (path)) != NULL)
    {
      HlSummary s;

      hl_recording_get_summary (rec, &s);
      report (data, 1, 1, s.n_allocations + s.n_frees, TRUE);
      return add_symbols (data, g_steal_pointer (&rec), NULL, cancellable, error);
    }
  if ((data->flags & HL_LOAD_FLAGS_SAVED_COSTS_ONLY) != 0)
    {
      g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_UNSUPPORTED, _("%s has no saved costs"), path);
      return NULL;
    }
  /* A heaptrack recording (sniffed by content): imported whole, costs-only
   * loads included, with the frames heaptrack resolved. */
  if (hl_heaptrack_sniff (path) && data->range)
    {
      g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_UNSUPPORTED,
                   _("%s: a heaptrack recording has no packet index to seek with"), path);
      return NULL;
    }
  if (hl_heaptrack_sniff (path))
    {
      rec = hl_heaptrack_import (path, cancellable, error);
      if (rec != NULL)
        {
          HlSummary s;

          hl_recording_get_summary (rec, &s);
          report (data, 1, 1, s.n_allocations + s.n_frees, TRUE);
        }
      return g_steal_pointer (&rec);
    }
#ifdef HL_HAVE_ZSTD
  codec = hl_trace_codec_zstd (0);
#endif
  if (hl_trace_reader_open_file_codec (path, codec, &reader, &err) != 0)
    {
      set_format_error (error, path, &err);
      return NULL;
    }
  load_timing_stage (&timing, "open (decompressed)");

  rec = hl_recording_new ();
  total = hl_trace_reader_file_size (reader);
  data->total_bytes = total;
  {
    /* The packet headers say how many allocations there are: size the
     * tables once instead of growing them. */
    HlFormatError ierr;
    int irc = hl_trace_index_load (reader, &index, &ierr);
    /* A walk because the trailing index is damaged is worth a warning;
     * one because there is none is not (the bare preload writes none, a
     * crash leaves none). Damaged: the walk stepped over index packets
     * that did not load. Not the format's note, which also calls damaged
     * a file whose last bytes merely look like a tail's header (one of
     * its three fields matching): the random trace of seed 10 in
     * test-loader-costs ends so, and the warning, saved in the costs
     * prepared from the file but not in those followed while it was
     * written, made the two payloads differ. A tail whose header is
     * damaged shows as a damaged or cut region, warned of below. */
    index_damaged = irc == 0 && !index->from_file && index->n_index_packets > 0;
    if (data->range && (irc != 0 || !index->from_file))
      {
        g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_UNSUPPORTED, _("%s: no trailing index to seek with: %s"),
                     path, irc != 0 ? ierr.message : index->note);
        g_clear_pointer (&index, hl_trace_index_free);
        hl_trace_reader_free (reader);
        return NULL;
      }
    if (data->range)
      {
        prefix = *index;
        prefix.n_entries = range_prefix_entries (index, data->range_t1_ns);
        prefix_end = prefix.n_entries > 0
                     ? index->entries[prefix.n_entries - 1].offset + index->entries[prefix.n_entries - 1].size
                     : hl_trace_reader_tell (reader);
      }
    if (irc == 0 && (data->flags & HL_LOAD_FLAGS_AGGREGATE) != 0)
      hl_recording_begin_aggregate (rec, index);
    else if ((data->flags & HL_LOAD_FLAGS_AGGREGATE) != 0)
      {
        g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_UNSUPPORTED,
                     _("%s: no packet index for a costs-only load: %s"), path, ierr.message);
        hl_trace_reader_free (reader);
        return NULL;
      }
    else if (index != NULL)
      {
        guint64 max_id = 0;
        for (size_t i = 0; i < (data->range ? prefix.n_entries : index->n_entries); i++)
          max_id = MAX (max_id, index->entries[i].alloc_id_end);
        /* Every allocation takes at least a byte of the file: a header
         * claiming more is damaged. */
        if (max_id <= total)
          {
            gpointer start[2];
            gsize len[2];

            hl_recording_reserve (rec, max_id);
            /* faulted in ahead of the events (HEAPLENS_NO_PREFAULT=1: not) */
            hl_recording_get_reserved (rec, start, len);
            if (g_getenv ("HEAPLENS_NO_PREFAULT") == NULL)
              prefault = hl_prefault_start ((gpointer const *) start, len, 2);
          }
      }
  }
  /* The symbolizer is made from the module map while the events load. */
  if ((data->flags & HL_LOAD_FLAGS_NO_SYMBOLS) == 0 && index != NULL)
    prefetch = hl_symbolizer_prefetch_start (reader, index);
  /* HEAPLENS_LOAD_THREADS=N: N decode threads over the index (0: the
   * one-thread pipeline), for benchmarks. */
  n_threads = MAX (2, g_get_num_processors ());
  if (g_getenv ("HEAPLENS_LOAD_THREADS") != NULL)
    n_threads = (guint) MIN (g_ascii_strtoull (g_getenv ("HEAPLENS_LOAD_THREADS"), NULL, 10), 16);
  if (data->range)
    n_threads = MAX (n_threads, 1);
  if (((data->flags & HL_LOAD_FLAGS_SERIAL) == 0 || data->range) && index != NULL && n_threads > 0)
    {
      static const HlParallelLoadOptions full = { HL_DECODED_BATCH_EVENTS, FALSE };
      static const HlParallelLoadOptions costs_only = { 8192, TRUE };
      guint64 resume = hl_recording_load_parallel (reader, data->range ? &prefix : index, rec,
                                                   (data->flags & HL_LOAD_FLAGS_AGGREGATE) != 0 ? &costs_only : &full,
                                                   n_threads, cancellable, report_parallel, data, &events,
                                                   &corrupt_packets, &parallel_packets);
      g_clear_pointer (&index, hl_trace_index_free);
      if (resume == G_MAXUINT64 || g_cancellable_is_cancelled (cancellable))
        {
          g_cancellable_set_error_if_cancelled (cancellable, error);
          hl_trace_reader_free (reader);
          return NULL;
        }
      /* A range load whose packets were not all what the index says
       * leaves it to a full load. */
      if (data->range && resume != prefix_end)
        {
          g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_UNSUPPORTED,
                       _("%s: a packet before the range's end did not load as its index says"), path);
          hl_trace_reader_free (reader);
          return NULL;
        }
      /* The walk goes on from there: the rest after a damaged packet or
       * a gap, the trailing index and the file's end (its stats). */
      if (hl_trace_reader_seek (reader, resume) != 0)
        hl_trace_reader_seek (reader, total);
    }
  g_clear_pointer (&index, hl_trace_index_free);
  if (data->range)
    {
      if (!load_range_tail (reader, rec, data, cancellable, &events, &corrupt_packets, &err))
        {
          if (!g_cancellable_set_error_if_cancelled (cancellable, error))
            g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_UNSUPPORTED,
                         _("%s: a packet after the range did not read: %s"), path, err.message);
          hl_trace_reader_free (reader);
          return NULL;
        }
      if (timing.on)
        g_printerr ("heaplens: timing:   load: range: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                    " bytes read (%" G_GUINT64_FORMAT " after the packets up to the range's end)\n",
                    hl_trace_reader_tell (reader), total, hl_trace_reader_tell (reader) - prefix_end);
      /* the rest is not read (nor its stats gathered) */
      hl_trace_reader_seek (reader, total);
      rc = 0;
    }
  else if ((data->flags & HL_LOAD_FLAGS_SERIAL) == 0)
    {
      if (!load_pipelined (reader, rec, data, cancellable, total, &rc, &err, &events, &corrupt_packets))
        {
          g_cancellable_set_error_if_cancelled (cancellable, error);
          hl_trace_reader_free (reader);
          return NULL;
        }
    }
  else
    {
      cursor = g_new0 (HlEventCursor, 1);
      while ((rc = hl_trace_reader_next_packet (reader, &pkt, &err)) > 0)
        {
          HlEvent ev;
          int erc;

          if (g_cancellable_set_error_if_cancelled (cancellable, error))
            {
              g_free (cursor);
              hl_trace_reader_free (reader);
              return NULL;
            }
          hl_event_cursor_init (cursor, &pkt);
          while ((erc = hl_event_cursor_next (cursor, &ev, &err)) > 0)
            {
              hl_recording_load_apply_event (rec, &ev);
              events++;
            }
          hl_recording_aggregate_packets_done (rec, pkt.offset);
          if (erc < 0)
            corrupt_packets++;
          report (data, pkt.offset, total, events, FALSE);
        }
      g_free (cursor);
    }

  hl_trace_reader_stats (reader, &stats);
  if (rc < 0)
    {
      if (stats.packets == 0 && parallel_packets == 0)
        {
          set_format_error (error, path, &err);
          hl_trace_reader_free (reader);
          return NULL;
        }
      hl_recording_append_warning (rec, err.message);
      hl_recording_set_truncated (rec, TRUE);
    }
  if (stats.bytes_ignored_at_end > 0)
    {
      g_autofree char *n = g_strdup_printf ("%" G_GUINT64_FORMAT, (guint64) stats.bytes_ignored_at_end);
      g_autofree char *w = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                         "The trace is truncated: %s byte after the last complete packet was ignored",
                                                         "The trace is truncated: %s bytes after the last complete packet were ignored",
                                                         stats.bytes_ignored_at_end), n);
      hl_recording_append_warning (rec, w);
      hl_recording_set_truncated (rec, TRUE);
    }
  if (stats.warning[0] != '\0')
    hl_recording_append_warning (rec, stats.warning);
  hl_recording_set_lost_events (rec, stats.frame_events_damaged, stats.frame_events_cut, stats.frame_regions_unknown);
  if (index_damaged)
    hl_recording_append_warning (rec, _("The trace's trailing index is damaged and was ignored: its packets were found by a walk over their headers"));
  if (corrupt_packets > 0)
    {
      g_autofree char *n = g_strdup_printf ("%" G_GUINT64_FORMAT, corrupt_packets);
      g_autofree char *w = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                         "%s packet had malformed events (read up to the damage)",
                                                         "%s packets had malformed events (read up to the damage)",
                                                         corrupt_packets), n);
      hl_recording_append_warning (rec, w);
    }
  hl_trace_reader_free (reader);

  if ((data->flags & HL_LOAD_FLAGS_AGGREGATE) != 0 && !hl_recording_end_aggregate (rec))
    {
      g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_UNSUPPORTED,
                   _("%s: events earlier than their packet index allows: load it in full"), path);
      return NULL;
    }
  g_clear_pointer (&prefault, hl_prefault_finish);
  load_timing_stage (&timing, "events");
  hl_recording_commit (rec);
  hl_recording_load_warn_dropped (rec);
  /* complete: the builder's memory (address map, frees waiting) goes */
  hl_recording_end_filling (rec);
  load_timing_stage (&timing, "commit");
  report (data, total, total, events, TRUE);
  {
    HlRecording *done = add_symbols (data, g_steal_pointer (&rec), g_steal_pointer (&prefetch), cancellable, error);

    load_timing_stage (&timing, "symbols");
    return done;
  }
}

HlRecording *
hl_recording_load (GFile              *file,
                   HlLoadFlags         flags,
                   GCancellable       *cancellable,
                   HlLoadProgressFunc  progress,
                   gpointer            progress_data,
                   GError            **error)
{
  LoadData data = { 0 };

  g_return_val_if_fail (G_IS_FILE (file), NULL);

  data.file = file;
  data.flags = flags;
  data.progress = progress;
  data.progress_data = progress_data;
  return load (&data, cancellable, error);
}

HlRecording *
hl_recording_load_range (GFile         *file,
                         guint64        t0_ns,
                         guint64        t1_ns,
                         HlLoadFlags    flags,
                         GCancellable  *cancellable,
                         GError       **error)
{
  LoadData data = { 0 };

  g_return_val_if_fail (G_IS_FILE (file), NULL);
  g_return_val_if_fail ((flags & (HL_LOAD_FLAGS_AGGREGATE | HL_LOAD_FLAGS_SAVED_COSTS_ONLY)) == 0, NULL);

  data.file = file;
  data.flags = flags;
  data.range = TRUE;
  data.range_t0_ns = t0_ns;
  data.range_t1_ns = t1_ns;
  return load (&data, cancellable, error);
}

static void
load_thread (GTask        *task,
             gpointer      source,
             gpointer      task_data,
             GCancellable *cancellable)
{
  GError *error = NULL;
  HlRecording *rec = load (task_data, cancellable, &error);

  if (rec == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, rec, g_object_unref);
}

void
hl_recording_load_async (GFile               *file,
                         HlLoadFlags          flags,
                         GCancellable        *cancellable,
                         HlLoadProgressFunc   progress,
                         gpointer             progress_data,
                         GDestroyNotify       progress_notify,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  g_autoptr (GTask) task = NULL;
  LoadData *data;

  g_return_if_fail (G_IS_FILE (file));

  data = g_atomic_rc_box_new0 (LoadData);
  data->file = g_object_ref (file);
  data->flags = flags;
  data->progress = progress;
  data->progress_data = progress_data;
  data->progress_notify = progress_notify;
  data->context = g_main_context_ref_thread_default ();
  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, hl_recording_load_async);
  g_task_set_task_data (task, data, load_data_release);
  g_task_run_in_thread (task, load_thread);
}

HlRecording *
hl_recording_load_finish (GAsyncResult *result,
                          GError      **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
