/* hl-aggregate-load.c — the parallel decode of a costs-only load
 * (HL_LOAD_FLAGS_AGGREGATE): hl_trace_load_parallel()'s contract (runs of
 * packets decoded by workers, applied strictly in file order by the
 * caller, the serial walk taking over at a packet that does not load), with
 * what suits a load that keeps no allocation records:
 *   - runs of about HL_AGGREGATE_RUN_EVENTS events, not a full batch: a
 *     decoded event takes 88 bytes, and the batches in flight are most of
 *     such a load's memory;
 *   - batches are recycled: a worker refills one the caller has applied
 *     instead of allocating fresh pages for every run (the kernel zeroing
 *     and faulting them in cost as much as the decoding);
 *   - the reader's pages before the runs still to come are given back
 *     (hl_trace_reader_release_before): a compressed trace's plain image
 *     is otherwise the largest thing in memory.
 * The recording is the same as with hl_trace_load_parallel(): the same
 * events reach it in the same order. */
#include "hl-aggregate-load.h"
#include "hl-recording-aggregate.h"

#define HL_AGGREGATE_RUN_EVENTS 8192

typedef struct
{
  HlDecodedBatch *batch;
  gsize           failed_entry;  /* G_MAXSIZE, or the entry packet_at refused */
} Run;

typedef struct
{
  const HlTraceReader *reader;
  const HlTraceIndex  *index;
  const gsize         *run_begin;   /* n_runs + 1 entry numbers */
  gsize                n_runs;
  gsize                window;
  Run                 *runs;
  gboolean            *done;
  GPtrArray           *spare;       /* applied batches, emptied, for the workers */
  GMutex               lock;
  GCond                cond;
  gsize                next_run;
  gsize                applied;
  gboolean             stop;
} Shared;

static void
batch_reset (HlDecodedBatch *b)
{
  g_array_set_size (b->events, 0);
  g_array_set_size (b->frames, 0);
  g_string_chunk_clear (b->strings);
  g_ptr_array_set_size (b->blocks, 0);
  b->last_offset = 0;
  b->corrupt_packets = 0;
  b->last = FALSE;
}

static inline gboolean
holds_no_pointer (HlEventType type)
{
  switch (type)
    {
    case HL_EVENT_ALLOC:
    case HL_EVENT_ALLOC_ALIGNED:
    case HL_EVENT_FREE:
    case HL_EVENT_FREE_ADDR:
    case HL_EVENT_REALLOC:
    case HL_EVENT_REALLOC_ADDR:
    case HL_EVENT_COUNTERS:
    case HL_EVENT_DROPPED:
    case HL_EVENT_END:
      return TRUE;
    default:
      return FALSE;
    }
}

static void
decode_run (Shared         *sh,
            gsize           r,
            HlDecodedBatch *b)
{
  HlEventCursor *cursor = g_new0 (HlEventCursor, 1);
  gsize failed = G_MAXSIZE;

  for (gsize e = sh->run_begin[r]; e < sh->run_begin[r + 1]; e++)
    {
      HlPacketView pkt;
      HlFormatError err;
      HlEvent ev;
      int erc;

      /* As hl_trace_load_parallel(): the packet must be what the index
       * says, or the serial walk takes over. */
      if (hl_trace_reader_packet_at (sh->reader, sh->index->entries[e].offset, &pkt, &err) != 0 ||
          (guint64) pkt.header.header_size + pkt.header.content_size != sh->index->entries[e].size ||
          (pkt.header.kind != HL_PACKET_KIND_INFO && pkt.header.kind != HL_PACKET_KIND_EVENTS))
        {
          failed = e;
          break;
        }
      hl_event_cursor_init (cursor, &pkt);
      /* Decoded in place: most events (allocations, frees) hold no
       * pointer into the cursor and need no copy; the others go through
       * hl_decoded_batch_add(), which keeps their strings and frames. */
      for (;;)
        {
          HlEvent *slot;

          g_array_set_size (b->events, b->events->len + 1);
          slot = &g_array_index (b->events, HlEvent, b->events->len - 1);
          erc = hl_event_cursor_next (cursor, slot, &err);
          if (erc <= 0)
            {
              g_array_set_size (b->events, b->events->len - 1);
              break;
            }
          if (!holds_no_pointer (slot->type))
            {
              ev = *slot;
              g_array_set_size (b->events, b->events->len - 1);
              hl_decoded_batch_add (b, &ev);
            }
        }
      if (erc < 0)
        b->corrupt_packets++;
      b->last_offset = pkt.offset;
    }
  g_free (cursor);

  g_mutex_lock (&sh->lock);
  sh->runs[r].batch = b;
  sh->runs[r].failed_entry = failed;
  sh->done[r] = TRUE;
  g_cond_broadcast (&sh->cond);
  g_mutex_unlock (&sh->lock);
}

static gpointer
worker (gpointer user_data)
{
  Shared *sh = user_data;

  for (;;)
    {
      HlDecodedBatch *b;
      gsize r;

      g_mutex_lock (&sh->lock);
      while (!sh->stop && sh->next_run < sh->n_runs && sh->next_run >= sh->applied + sh->window)
        g_cond_wait (&sh->cond, &sh->lock);
      if (sh->stop || sh->next_run >= sh->n_runs)
        {
          g_mutex_unlock (&sh->lock);
          return NULL;
        }
      r = sh->next_run++;
      b = sh->spare->len > 0 ? g_ptr_array_steal_index_fast (sh->spare, sh->spare->len - 1) : NULL;
      g_mutex_unlock (&sh->lock);
      decode_run (sh, r, b != NULL ? b : hl_decoded_batch_new ());
    }
}

static gsize
contiguous_entries (const HlTraceReader *reader,
                    const HlTraceIndex  *index)
{
  guint64 at = hl_trace_reader_tell (reader);
  gsize n = 0;

  while (n < index->n_entries && index->entries[n].offset == at)
    {
      at += index->entries[n].size;
      n++;
    }
  return n;
}

guint64
hl_aggregate_load_parallel (HlTraceReader      *reader,
                            const HlTraceIndex *index,
                            HlRecording        *rec,
                            guint               n_threads,
                            GCancellable       *cancellable,
                            HlLoadReportFunc    report,
                            gpointer            report_data,
                            guint64            *events,
                            guint64            *corrupt_packets,
                            guint64            *packets)
{
  gsize n = contiguous_entries (reader, index);
  g_autoptr (GArray) begins = g_array_new (FALSE, FALSE, sizeof (gsize));
  g_autofree GThread **threads = NULL;
  Shared sh = { 0 };
  guint64 resume;
  gsize e = 0;

  if (n == 0)
    return hl_trace_reader_tell (reader);
  resume = index->entries[n - 1].offset + index->entries[n - 1].size;

  while (e < n)
    {
      guint64 in_run = 0;
      g_array_append_val (begins, e);
      while (e < n && (in_run == 0 || in_run + index->entries[e].n_events <= HL_AGGREGATE_RUN_EVENTS))
        in_run += index->entries[e++].n_events;
    }
  g_array_append_val (begins, e);

  sh.reader = reader;
  sh.index = index;
  sh.run_begin = (const gsize *) begins->data;
  sh.n_runs = begins->len - 1;
  n_threads = CLAMP (n_threads, 1, 16);
  sh.window = 2 * (gsize) n_threads;
  sh.runs = g_new0 (Run, sh.n_runs);
  sh.done = g_new0 (gboolean, sh.n_runs);
  sh.spare = g_ptr_array_new_with_free_func ((GDestroyNotify) hl_decoded_batch_free);
  g_mutex_init (&sh.lock);
  g_cond_init (&sh.cond);

  threads = g_new0 (GThread *, n_threads);
  for (guint t = 0; t < n_threads; t++)
    threads[t] = g_thread_new ("hl-trace-decode", worker, &sh);

  for (gsize r = 0; r < sh.n_runs; r++)
    {
      Run run;

      g_mutex_lock (&sh.lock);
      while (!sh.done[r])
        g_cond_wait (&sh.cond, &sh.lock);
      run = sh.runs[r];
      sh.runs[r].batch = NULL;
      g_mutex_unlock (&sh.lock);

      hl_decoded_batch_apply (run.batch, rec);
      *events += run.batch->events->len;
      *corrupt_packets += run.batch->corrupt_packets;
      if (run.batch->last_offset > 0)
        report (report_data, run.batch->last_offset, *events);
      batch_reset (run.batch);
      /* Workers read packets of the runs after this one only (the serial
       * walk, when it takes over, starts inside this run). */
      if (run.failed_entry == G_MAXSIZE && r + 1 < sh.n_runs)
        hl_trace_reader_release_before (reader, index->entries[sh.run_begin[r + 1]].offset);

      g_mutex_lock (&sh.lock);
      g_ptr_array_add (sh.spare, run.batch);
      sh.applied = r + 1;
      if (run.failed_entry != G_MAXSIZE || g_cancellable_is_cancelled (cancellable))
        sh.stop = TRUE;
      g_cond_broadcast (&sh.cond);
      g_mutex_unlock (&sh.lock);

      if (run.failed_entry != G_MAXSIZE)
        {
          *packets += run.failed_entry - sh.run_begin[r];
          resume = index->entries[run.failed_entry].offset;
          break;
        }
      *packets += sh.run_begin[r + 1] - sh.run_begin[r];
      if (sh.stop)
        {
          resume = G_MAXUINT64;
          break;
        }
    }

  for (guint t = 0; t < n_threads; t++)
    g_thread_join (threads[t]);
  for (gsize r = 0; r < sh.n_runs; r++)
    if (sh.runs[r].batch != NULL)
      hl_decoded_batch_free (sh.runs[r].batch);
  g_ptr_array_unref (sh.spare);
  g_free (sh.runs);
  g_free (sh.done);
  g_mutex_clear (&sh.lock);
  g_cond_clear (&sh.cond);
  return resume;
}
