/* hl-recording-load-parallel.c — loading a trace with its packet index: the
 * packets are cut into runs of about OPTIONS->run_events events, worker
 * threads claim runs in turn and decode each into a batch
 * (hl_trace_reader_packet_at is thread-safe), and the calling thread
 * applies the batches strictly in file order, so the recording is the one
 * the serial walk builds. Workers stay at most WINDOW runs ahead of the
 * applier, which bounds the memory held in decoded batches; applied
 * batches are emptied and reused (a fresh batch's pages cost as much to
 * fault in as its decoding); with OPTIONS->release_behind the reader's
 * pages behind the runs applied are given back. Full and costs-only
 * loads differ only in those options. */
#include "hl-recording-loader-private.h"

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
  GMutex               lock;
  GCond                cond;
  gsize                next_run;    /* next run a worker claims */
  gsize                applied;     /* runs applied so far */
  gboolean             stop;
  GPtrArray           *pool;        /* applied batches, emptied, for reuse */
} Shared;

static void
decode_run (Shared *sh,
            gsize   r)
{
  HlEventCursor *cursor = g_new0 (HlEventCursor, 1);
  HlDecodedBatch *b = NULL;
  gsize failed = G_MAXSIZE;

  /* A batch of 32,768 events is megabytes: reusing them saves faulting in
   * (and unmapping) fresh pages for every run. */
  g_mutex_lock (&sh->lock);
  if (sh->pool->len > 0)
    b = g_ptr_array_steal_index_fast (sh->pool, sh->pool->len - 1);
  g_mutex_unlock (&sh->lock);
  if (b == NULL)
    b = hl_decoded_batch_new ();

  for (gsize e = sh->run_begin[r]; e < sh->run_begin[r + 1]; e++)
    {
      HlPacketView pkt;
      HlFormatError err;

      /* The packet must be what the index says, or the serial walk (which
       * would not skip a byte) takes over: an index can lie. */
      if (hl_trace_reader_packet_at (sh->reader, sh->index->entries[e].offset, &pkt, &err) != 0 ||
          (guint64) pkt.header.header_size + pkt.header.content_size != sh->index->entries[e].size ||
          (pkt.header.kind != HL_PACKET_KIND_INFO && pkt.header.kind != HL_PACKET_KIND_EVENTS))
        {
          failed = e;
          break;
        }
      hl_decoded_batch_add_packet (b, cursor, &pkt);
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
      g_mutex_unlock (&sh->lock);
      decode_run (sh, r);
    }
}

/* Entries from the reader's position on that follow each other. */
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
hl_recording_load_parallel (HlTraceReader      *reader,
                            const HlTraceIndex *index,
                            HlRecording        *rec,
                            const HlParallelLoadOptions *options,
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
      while (e < n && (in_run == 0 || in_run + index->entries[e].n_events <= options->run_events))
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
  sh.pool = g_ptr_array_new_with_free_func ((GDestroyNotify) hl_decoded_batch_free);
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
      hl_decoded_batch_reset (run.batch);
      /* Workers read packets of the runs after this one only (the serial
       * walk, when it takes over, starts inside this run). */
      if (options->release_behind && run.failed_entry == G_MAXSIZE && r + 1 < sh.n_runs)
        hl_trace_reader_release_before (reader, index->entries[sh.run_begin[r + 1]].offset);

      g_mutex_lock (&sh.lock);
      g_ptr_array_add (sh.pool, run.batch);
      sh.applied = r + 1;
      if (run.failed_entry != G_MAXSIZE || g_cancellable_is_cancelled (cancellable))
        sh.stop = TRUE;
      g_cond_broadcast (&sh.cond);
      g_mutex_unlock (&sh.lock);

      if (run.failed_entry != G_MAXSIZE)
        {
          /* The serial walk takes over at the packet that did not load:
           * it skips or reports it exactly as without the index. */
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
  g_free (sh.runs);
  g_free (sh.done);
  g_ptr_array_unref (sh.pool);
  g_mutex_clear (&sh.lock);
  g_cond_clear (&sh.cond);
  return resume;
}
