/* hl-recording-costs-stream.c — a trace's saved costs computed as its
 * packets are written (hl-recording-costs-stream.h).
 *
 * take() runs on the follower's thread (the compress stream's poll): it
 * copies the packets of a poll into one chunk and queues it at the poll's
 * end. A thread of the stream's own applies the chunks in order, so the
 * follower never waits for the decoding (the compression keeps its pace)
 * and the recording sees the same packets and poll ends, in the same
 * order, as if take() applied them itself: the result does not depend on
 * the thread's timing.
 *
 * The thread runs at a low priority while the program runs (the program
 * goes first). Once the program has exited, that would make the user wait
 * (a nice-10 thread gets a tenth of a core beside the compression's
 * finish), and an unprivileged thread cannot raise its priority again:
 * hurry() has a thread of the caller's priority take over. The first
 * thread stops between two packets, and the new one goes on from there,
 * the same chunks in the same order. */
#include "hl-recording-costs-stream.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "hl-model-error.h"
#include "hl-recording-aggregate-private.h"
#include "hl-recording-builder-private.h"

/* The thread's lag: the CPU time the bytes queued and not applied yet
 * would take it, at the pace it has kept so far (its own CPU time, not
 * the wall clock: a thread kept waiting by the program's own threads is
 * not slower). Following is given up when the lag passes MAX_LAG while
 * the program runs (the queue holds a copy of every byte not applied:
 * python3's pace, 37 us a KiB, makes 5 s about 140 MB), or passes
 * FINISH_LAG when the program has exited: `record` then loads the costs
 * from the events, for at most 10 s (HEAPLENS_RECORD_COSTS_FINISH_S), or
 * `report` decodes the events. Below those, the thread goes on: what it
 * has applied is never thrown away, and finishing what is left (at
 * record's own priority once the program has exited) costs less than
 * loading the whole trace again. With 1 s for both, python3 (then 1.1 s
 * of the costs thread's CPU for its 31 MB of trace, at nice 10 beside the
 * program and the compression) gave up and was loaded again after the
 * exit, 1.4 s of the user's wait instead of what was left, 0.3 to 0.5 s
 * (bench/results/costs-python-20261203-1845.md). */
#define DEFAULT_MAX_LAG_NS    ((guint64) 5000000000)
#define DEFAULT_FINISH_LAG_NS ((guint64) 10000000000)
/* The pace is known once the thread has applied PACE_MIN_BYTES (python3
 * in fp mode: 60 ns a byte of trace); before, nothing is given up on a
 * guess (a program shorter than a poll: one chunk, applied whole). */
#define PACE_MIN_BYTES        ((guint64) 256 << 10)

/* A thread's last packet's end; EXITED once its THREAD exit event came
 * (it writes no packet after that one). */
typedef struct
{
  guint64  time_end_ns;
  gboolean exited;
} Writer;

/* The packets of one poll, copied: whole packets from OFFSET on. GAP:
 * the follower skipped bytes before them (not followed any further). */
typedef struct
{
  GByteArray *bytes;
  guint64     offset;
  guint64     trailing;   /* bytes after them the poll saw */
  guint64     gap_at;     /* where bytes were skipped, with GAP */
  guint64     gap;
  gboolean    last;       /* finish(): nothing after this */
  gboolean    handover;   /* hurry(): the first thread stops here (the next ignores it) */
} Chunk;

struct _HlCostsStream
{
  /* The follower's side (take()). */
  guint32        pid;
  gboolean       started;
  Chunk         *filling;
  guint64        next_offset;   /* where the next packet must start */
  gboolean       gap_queued;
  GAsyncQueue   *queue;
  GMutex         thread_lock;   /* THREAD: replaced by hurry() on the caller's thread */
  GThread       *thread;
  gboolean       stopped;       /* under THREAD_LOCK: stop_thread() took THREAD, hurry() is too late */
  gint           hurried;       /* atomic: hurry() was called, the first thread stops */
  gsize          queued_bytes;  /* atomic: queued, not applied yet */
  gint           failed;        /* atomic: the thread gave up */
  gint           dropped;       /* atomic: freed unfinished, the rest is not applied */
  gint           lagged;        /* atomic: given up for the lag (lag_reason says) */
  gint           lag_claimed;   /* atomic: the one that writes lag_reason took it */
  char          *lag_reason;    /* written before lagged is set */
  guint64        max_lag_ns, finish_lag_ns;
  guint64        worst_lag_ns;  /* the most seen at a poll's end */
  guint64        ns_per_kib;    /* atomic: the thread's pace, 0 until known */
  int            nice;          /* of the thread, from its start */

  /* The thread's side. */
  GThread       *resume_from;   /* the first thread, stopping: the next one joins it */
  Chunk         *resume;        /* the chunk the first thread stopped in ... */
  gsize          resume_at;     /* ... and where: the next thread goes on there */
  HlRecording   *rec;
  HlEventCursor *cursor;
  GHashTable    *writers;       /* tid → Writer */
  guint64        packets;
  guint64        keep;
  gboolean       short_path;    /* allocations and frees applied here (set_short_path) */
  guint64        applied_bytes, applied_ns;
  guint64        trailing;      /* bytes after the packets, as the last poll saw them */
  char          *failure;       /* why no payload, NULL while it follows */
  HlProfileWriter *profiler;    /* continuous profiles, NULL without */
  gboolean       profile_failed;/* said once */
  guint64        n_profiles;    /* written, once finish() freed the writer */
};

HlCostsStream *
hl_costs_stream_new (void)
{
  HlCostsStream *self = g_new0 (HlCostsStream, 1);

  self->rec = hl_recording_new ();
  hl_recording_begin_aggregate (self->rec, NULL);
  self->cursor = g_new0 (HlEventCursor, 1);
  self->writers = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  self->keep = HL_COSTS_STREAM_KEEP;
  self->short_path = TRUE;
  self->max_lag_ns = DEFAULT_MAX_LAG_NS;
  self->finish_lag_ns = DEFAULT_FINISH_LAG_NS;
  self->queue = g_async_queue_new ();
  g_mutex_init (&self->thread_lock);
  return self;
}

static void
chunk_free (Chunk *c)
{
  if (c == NULL)
    return;
  g_byte_array_unref (c->bytes);
  g_free (c);
}

static void
stop_thread (HlCostsStream *self)
{
  Chunk *last, *c;
  GThread *thread;

  g_mutex_lock (&self->thread_lock);
  thread = g_steal_pointer (&self->thread);
  self->stopped = TRUE;
  g_mutex_unlock (&self->thread_lock);
  if (thread == NULL)
    return;
  last = g_new0 (Chunk, 1);
  last->bytes = g_byte_array_new ();
  last->last = TRUE;
  g_async_queue_lock (self->queue);
  /* Nothing more to apply (given up, or freed unfinished): the chunks
   * still queued are freed here, not by the thread, which runs at a low
   * priority and may be kept waiting; it only ends its packet. Not the
   * hand-over of hurry(): the first thread, still waiting in its pop,
   * must find it before LAST, which is the thread taking over's (THREAD,
   * joined here). Taken, the first thread would end on LAST and the one
   * taking over wait for a chunk forever. */
  if (g_atomic_int_get (&self->lagged) || g_atomic_int_get (&self->dropped))
    {
      Chunk *handover = NULL;

      while ((c = g_async_queue_try_pop_unlocked (self->queue)) != NULL)
        if (c->handover)
          handover = c;
        else
          {
            __atomic_fetch_sub (&self->queued_bytes, (gsize) c->bytes->len, __ATOMIC_RELAXED);
            chunk_free (c);
          }
      if (handover != NULL)
        g_async_queue_push_front_unlocked (self->queue, handover);
    }
  g_async_queue_push_unlocked (self->queue, last);
  g_async_queue_unlock (self->queue);
  g_thread_join (thread);
}

void
hl_costs_stream_free (HlCostsStream *self)
{
  Chunk *c;

  if (self == NULL)
    return;
  /* not finished: what is queued need not be applied first */
  g_atomic_int_set (&self->dropped, 1);
  stop_thread (self);
  while ((c = g_async_queue_try_pop (self->queue)) != NULL)
    chunk_free (c);
  g_async_queue_unref (self->queue);
  g_mutex_clear (&self->thread_lock);
  chunk_free (self->resume);
  chunk_free (self->filling);
  g_clear_object (&self->rec);
  g_free (self->cursor);
  g_hash_table_unref (self->writers);
  g_free (self->failure);
  g_free (self->lag_reason);
  hl_profile_writer_free (self->profiler);
  g_free (self);
}

void
hl_costs_stream_set_profiler (HlCostsStream   *self,
                              HlProfileWriter *writer)
{
  hl_profile_writer_free (self->profiler);
  self->profiler = writer;
}

guint64
hl_costs_stream_n_profiles (const HlCostsStream *self)
{
  return self->profiler != NULL ? hl_profile_writer_n_written (self->profiler) : self->n_profiles;
}

void
hl_costs_stream_set_keep (HlCostsStream *self,
                          guint64        keep)
{
  self->keep = keep;
}

void
hl_costs_stream_set_short_path (HlCostsStream *self,
                                gboolean       short_path)
{
  self->short_path = short_path;
}

void
hl_costs_stream_set_max_lag (HlCostsStream *self,
                             guint64        running_ns,
                             guint64        finish_ns)
{
  self->max_lag_ns = running_ns;
  self->finish_lag_ns = finish_ns;
}

void
hl_costs_stream_set_nice (HlCostsStream *self,
                          int            nice)
{
  self->nice = nice;
}

void
hl_costs_stream_set_pace (HlCostsStream *self,
                          guint64        ns_per_kib)
{
  __atomic_store_n (&self->ns_per_kib, ns_per_kib, __ATOMIC_RELAXED);
  self->applied_bytes = G_MAXUINT64 / 2; /* measured no further */
}

void
hl_costs_stream_applied (const HlCostsStream *self,
                         guint64             *cpu_ns,
                         guint64             *bytes)
{
  *cpu_ns = self->applied_ns;
  *bytes = self->applied_bytes < G_MAXUINT64 / 2 ? self->applied_bytes : 0;
}

gboolean
hl_costs_stream_failed (const HlCostsStream *self)
{
  return g_atomic_int_get (&self->failed) != 0 || self->gap_queued || g_atomic_int_get (&self->lagged) != 0;
}

gboolean
hl_costs_stream_lagged (const HlCostsStream *self)
{
  return g_atomic_int_get (&self->lagged) != 0;
}

const char *
hl_costs_stream_lag_reason (const HlCostsStream *self)
{
  return g_atomic_int_get (&self->lagged) != 0 ? self->lag_reason : NULL;
}

guint64
hl_costs_stream_queued (const HlCostsStream *self)
{
  return __atomic_load_n (&self->queued_bytes, __ATOMIC_RELAXED);
}

guint64
hl_costs_stream_worst_lag (const HlCostsStream *self)
{
  return self->worst_lag_ns;
}

/* ---- The thread: packets applied -------------------------------------- */

static void fail (HlCostsStream *self,
                  const char    *fmt,
                  ...) G_GNUC_PRINTF (2, 3);
static void give_up_for (HlCostsStream *self,
                         char          *reason);

static void
fail (HlCostsStream *self,
      const char    *fmt,
      ...)
{
  va_list ap;

  if (self->failure != NULL)
    return;
  va_start (ap, fmt);
  self->failure = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_atomic_int_set (&self->failed, 1);
  if (self->profiler != NULL)
    g_printerr ("heaplens: heap profiles stopped: %s\n", self->failure);
  /* what was built is of no further use: let its memory go */
  g_clear_object (&self->rec);
}

/* The least last-packet end of the threads that may still write: no
 * packet to come holds an earlier event (but see the header). */
static guint64
watermark (HlCostsStream *self)
{
  GHashTableIter it;
  gpointer value;
  guint64 least = G_MAXUINT64;

  g_hash_table_iter_init (&it, self->writers);
  while (g_hash_table_iter_next (&it, NULL, &value))
    {
      const Writer *w = value;
      if (!w->exited && w->time_end_ns < least)
        least = w->time_end_ns;
    }
  return least;
}

static Writer *
writer_of (HlCostsStream *self,
           guint32        tid)
{
  Writer *w = g_hash_table_lookup (self->writers, GUINT_TO_POINTER (tid));

  if (w == NULL)
    {
      w = g_new0 (Writer, 1);
      g_hash_table_insert (self->writers, GUINT_TO_POINTER (tid), w);
    }
  return w;
}

/* ---- The short path of the common events --------------------------------
 * What hl_recording_load_apply_event() does with an allocation or a free by id
 * (hl_recording_append_alloc/free on an aggregate recording), without the
 * layers between, for the usual case: a known stack, the thread of the
 * previous allocation, no free waiting for its allocation. Anything else
 * (FALSE, nothing done) takes the general path. test-costs-stream checks
 * that both give the same saved costs. */

static gboolean
short_alloc (HlRecording        *rec,
             HlRecordingBuilder *b,
             const HlEvent      *ev)
{
  guint64 id = ev->u.alloc.id;
  guint32 stack = 0;
  guint32 t;
  HlThreadInfo *info;

  if (id >= G_MAXINT32 || (id >= rec->allocs->len && id > 16 * (rec->n_allocs + (1u << 20))) ||
      rec->threads->len == 0 || ev->tid != b->last_tid ||
      (b->pending_frees != NULL && g_hash_table_size (b->pending_frees) > 0) ||
      hl_aggregate_seen_inline (rec->aggregate, id))
    return FALSE;
  if (ev->u.alloc.stack_id != 0)
    {
      guint32 found = ev->u.alloc.stack_id < rec->stack_ids->len
                        ? g_array_index (rec->stack_ids, guint32, ev->u.alloc.stack_id) : 0;
      if (found == 0)
        return FALSE;
      stack = found - 1;
    }
  /* thread_index() of the last thread */
  info = &g_array_index (rec->threads, HlThreadInfo, b->last_thread);
  if (ev->time_ns > info->end_ns)
    info->end_ns = ev->time_ns;
  if (ev->time_ns < info->start_ns)
    info->start_ns = ev->time_ns;
  t = MIN (b->last_thread, HL_MAX_THREADS - 1);
  hl_aggregate_alloc_inline (rec->aggregate, id, ev->time_ns, rec->seq++, t, stack, ev->u.alloc.size, ev->u.alloc.address);
  g_array_index (b->thread_last, guint64, t) = id;
  rec->n_allocs++;
  rec->bytes_allocated += ev->u.alloc.size;
  if (ev->time_ns > rec->end_ns)
    rec->end_ns = ev->time_ns;
  return TRUE;
}

static gboolean
short_free (HlRecording        *rec,
            HlRecordingBuilder *b,
            const HlEvent      *ev)
{
  guint64 id = ev->u.free.id;
  gboolean temporary;

  if (id == HL_ID_NONE)
    return FALSE;
  /* a live id was seen; one not live: unknown when seen, else its free
   * waits for the allocation (the general path) */
  if (!hl_aggregate_free_id_inline (rec->aggregate, id, ev->time_ns, rec->seq, (const guint64 *) b->thread_last->data,
                                    b->applying_pending, &temporary))
    {
      if (!hl_aggregate_seen_inline (rec->aggregate, id))
        return FALSE;
      rec->frees_unknown++;
      return TRUE;
    }
  rec->seq++;
  if (temporary)
    rec->temporary++;
  rec->n_frees++;
  if (ev->time_ns > rec->end_ns)
    rec->end_ns = ev->time_ns;
  return TRUE;
}

/* The packet at OFFSET of the trace, its bytes at P (at most N). */
static gsize
apply_packet (HlCostsStream *self,
              const guint8  *p,
              gsize          n,
              guint64        offset)
{
  HlPacketView pkt;
  HlFormatError err;
  HlEvent evs[64];
  HlRecordingBuilder *b;
  gsize total;
  int rc;

  if (n < HL_PACKET_HEADER_SIZE)
    {
      fail (self, "a cut packet at offset %" G_GUINT64_FORMAT, offset);
      return n;
    }
  memcpy (&pkt.header, p, sizeof pkt.header);
  total = (gsize) pkt.header.header_size + pkt.header.content_size;
  /* the follower's walk validated the header: checked again all the same */
  if (pkt.header.header_size < HL_PACKET_HEADER_SIZE || total > n || pkt.header.pid != self->pid ||
      hl_packet_crc32c (p, total) != pkt.header.crc32c)
    {
      fail (self, "the packet at offset %" G_GUINT64_FORMAT " is damaged or another process's", offset);
      return n;
    }
  pkt.offset = offset;
  pkt.content = p + pkt.header.header_size;
  hl_event_cursor_init (self->cursor, &pkt);
  /* the recording's builder, for the whole packet (kept until finish()) */
  b = self->rec->builder;
  while ((rc = hl_event_cursor_next_batch (self->cursor, evs, G_N_ELEMENTS (evs), &err)) > 0)
    for (int i = 0; i < rc; i++)
      {
        const HlEvent *ev = &evs[i];

        /* a sampled recording weighs each block (hl-sample-weight.h):
         * the general path */
        if (self->short_path && self->rec->sample_bytes == 0)
          {
            if ((ev->type == HL_EVENT_ALLOC || ev->type == HL_EVENT_ALLOC_ALIGNED) && short_alloc (self->rec, b, ev))
              continue;
            if (ev->type == HL_EVENT_FREE && short_free (self->rec, b, ev))
              continue;
          }
        hl_recording_load_apply_event (self->rec, ev);
        if (ev->type == HL_EVENT_THREAD && (ev->u.thread.flags & HL_THREAD_FLAG_EXIT) != 0 &&
            ev->u.thread.tid == pkt.header.tid)
          writer_of (self, pkt.header.tid)->exited = TRUE;
      }
  if (rc < 0)
    {
      fail (self, "malformed events in the packet at offset %" G_GUINT64_FORMAT ": %s", offset, err.message);
      return n;
    }
  self->packets++;
  {
    Writer *w = writer_of (self, pkt.header.tid);
    w->time_end_ns = MAX (w->time_end_ns, pkt.header.time_end_ns);
  }
  /* a poll that takes in much: some released before its end */
  if (hl_aggregate_n_waiting (self->rec->aggregate) > self->keep)
    hl_aggregate_release_until (self->rec->aggregate, 0, self->keep);
  return total;
}

/* Applies chunk C from *AT on; FALSE when STOPPABLE and hurry() asked
 * the thread to stop (*AT then says where the next one goes on). */
static gboolean
apply_chunk (HlCostsStream *self,
             const Chunk   *c,
             gsize         *at,
             gboolean       stoppable)
{
  while (*at < c->bytes->len && self->failure == NULL && !g_atomic_int_get (&self->lagged))
    {
      if (stoppable && g_atomic_int_get (&self->hurried))
        return FALSE;
      *at += apply_packet (self, c->bytes->data + *at, c->bytes->len - *at, c->offset + *at);
    }
  if (g_atomic_int_get (&self->lagged))
    {
      fail (self, "%s", self->lag_reason);
      return TRUE;
    }
  if (self->failure != NULL)
    return TRUE;
  if (c->gap > 0)
    {
      fail (self, "%" G_GUINT64_FORMAT " bytes at offset %" G_GUINT64_FORMAT " were not a packet of the trace",
            c->gap, c->gap_at);
      return TRUE;
    }
  /* The end of a poll: what may be released is known now (within a poll,
   * a thread's first packet may come after others'); the bytes after the
   * packets are one being written, unless this was the last poll. */
  self->trailing = c->trailing;
  hl_aggregate_release_until (self->rec->aggregate, watermark (self), self->keep);
  return TRUE;
}

static guint64
thread_cpu_ns (void)
{
  struct timespec ts;

  if (clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
    return 0;
  return (guint64) ts.tv_sec * 1000000000u + (guint64) ts.tv_nsec;
}

/* After a chunk of N bytes that took NS of the thread's CPU: its pace. */
static void
measure_pace (HlCostsStream *self,
              gsize          n,
              guint64        ns)
{
  self->applied_bytes += n;
  self->applied_ns += ns;
  if (self->applied_bytes >= PACE_MIN_BYTES && self->applied_bytes < G_MAXUINT64 / 2)
    __atomic_store_n (&self->ns_per_kib, MAX (self->applied_ns * 1024 / self->applied_bytes, 1),
                      __ATOMIC_RELAXED);
}

/* Applies chunk C from AT on, unless the stream has stopped applying;
 * FALSE when STOPPABLE and hurry() stopped it (C is then kept in
 * self->resume). Else frees it. */
static gboolean
run_chunk (HlCostsStream *self,
           Chunk         *c,
           gsize          at,
           gboolean       stoppable)
{
  if (self->failure == NULL && !g_atomic_int_get (&self->dropped))
    {
      guint64 t0 = thread_cpu_ns ();
      gsize from = at;
      gboolean done = apply_chunk (self, c, &at, stoppable);

      measure_pace (self, at - from, thread_cpu_ns () - t0);
      if (!done)
        {
          self->resume = c;
          self->resume_at = at;
          return FALSE;
        }
    }
  __atomic_fetch_sub (&self->queued_bytes, (gsize) c->bytes->len, __ATOMIC_RELAXED);
  chunk_free (c);
  return TRUE;
}

/* The profiles of the packets applied so far (the end of a poll: every
 * packet of it applied), on the stream's thread. */
static void
write_profile (HlCostsStream *self)
{
  g_autoptr (GError) error = NULL;

  if (self->failure != NULL || self->rec == NULL)
    return;
  if (!hl_profile_writer_write (self->profiler, self->rec, self->pid, &error) && !self->profile_failed)
    {
      self->profile_failed = TRUE;
      g_printerr ("heaplens: heap profile not written: %s\n", error->message);
    }
}

/* The next chunk; with profiles, NULL when one is due before it comes. */
static Chunk *
next_chunk (HlCostsStream *self)
{
  gint64 wait_us;

  /* given up: no profile to write any more (fail() said so) */
  if (self->profiler == NULL || self->failure != NULL)
    return g_async_queue_pop (self->queue);
  wait_us = hl_profile_writer_due_us (self->profiler) - g_get_monotonic_time ();
  if (wait_us <= 0)
    return NULL;
  return g_async_queue_timeout_pop (self->queue, (guint64) wait_us);
}

/* Applies the queued chunks until the last one; the first thread
 * (STOPPABLE) until hurry() too. */
static void
apply_queue (HlCostsStream *self,
             gboolean       stoppable)
{
  for (;;)
    {
      Chunk *c;

      if (stoppable && g_atomic_int_get (&self->hurried))
        return;
      c = next_chunk (self);
      if (c == NULL)
        {
          write_profile (self);
          continue;
        }
      if (c->handover)
        {
          chunk_free (c);
          if (stoppable)
            return;
          continue;
        }
      if (c->last)
        {
          chunk_free (c);
          return;
        }
      if (!run_chunk (self, c, 0, stoppable))
        return;
    }
}

/* The first thread, started before hurry(). */
static gpointer
apply_thread (gpointer data)
{
  HlCostsStream *self = data;

  /* Linux: the calling thread's own nice value */
  if (self->nice != 0 && setpriority (PRIO_PROCESS, 0, self->nice) != 0)
    g_debug ("costs thread: setpriority: %s", g_strerror (errno));
  apply_queue (self, TRUE);
  return NULL;
}

/* A thread started after hurry() (the first chunk came after it): at its
 * creator's priority. */
static gpointer
apply_thread_hurried (gpointer data)
{
  apply_queue (data, FALSE);
  return NULL;
}

/* The thread hurry() starts: the first one stopped, it goes on where
 * that one was. */
static gpointer
take_over_thread (gpointer data)
{
  HlCostsStream *self = data;

  g_thread_join (g_steal_pointer (&self->resume_from));
  if (self->resume != NULL)
    {
      Chunk *c = g_steal_pointer (&self->resume);
      run_chunk (self, c, self->resume_at, FALSE);
    }
  apply_queue (self, FALSE);
  return NULL;
}

void
hl_costs_stream_hurry (HlCostsStream *self)
{
  Chunk *handover;

  g_mutex_lock (&self->thread_lock);
  /* once stop_thread() took the thread, its LAST chunk ends it: a hurry
   * then would stop it between two packets with nobody to go on */
  if (!g_atomic_int_get (&self->hurried) && !self->stopped)
    {
      g_atomic_int_set (&self->hurried, 1);
      if (self->thread != NULL)
        {
          /* wakes the first thread if it waits for a chunk; else the
           * next thread finds it first in the queue and passes it by */
          handover = g_new0 (Chunk, 1);
          handover->bytes = g_byte_array_new ();
          handover->handover = TRUE;
          g_async_queue_push_front (self->queue, handover);
          self->resume_from = self->thread;
          self->thread = g_thread_new ("hl-costs", take_over_thread, self);
        }
    }
  g_mutex_unlock (&self->thread_lock);
}

/* ---- The follower's side ------------------------------------------------ */

/* The thread's lag now: the CPU time what is queued would take it (0
 * while its pace is not known). */
static guint64
lag_ns (HlCostsStream *self)
{
  guint64 queued = __atomic_load_n (&self->queued_bytes, __ATOMIC_RELAXED);
  guint64 pace = __atomic_load_n (&self->ns_per_kib, __ATOMIC_RELAXED);

  return pace > 0 && queued > G_MAXUINT64 / pace ? G_MAXUINT64 : queued * pace / 1024;
}

/* Gives up following, for REASON (taken), so that the recorder finishes
 * the costs from the events once the program has exited. The first
 * caller wins: the poll's thread (the lag) and the costs thread (the
 * stacks) may both give up at once. */
static void
give_up_for (HlCostsStream *self,
             char          *reason)
{
  if (!g_atomic_int_compare_and_exchange (&self->lag_claimed, 0, 1))
    {
      g_free (reason);
      return;
    }
  self->lag_reason = reason;
  g_atomic_int_set (&self->lagged, 1);
}

/* Gives up for a lag of LAG (WHEN: while the program runs, or after). */
static void
give_up_lag (HlCostsStream *self,
             guint64        lag,
             const char    *when)
{
  give_up_for (self, g_strdup_printf ("the costs thread fell %.2f s behind %s, %.1f MiB of trace to go",
                                      (double) lag / 1e9, when,
                                      (double) __atomic_load_n (&self->queued_bytes, __ATOMIC_RELAXED) / 1048576.0));
}

static void
queue_chunk (HlCostsStream *self)
{
  Chunk *c = g_steal_pointer (&self->filling);
  guint64 lag;

  g_mutex_lock (&self->thread_lock);
  if (self->thread == NULL)
    self->thread = g_thread_new ("hl-costs", g_atomic_int_get (&self->hurried) ? apply_thread_hurried : apply_thread,
                                 self);
  g_mutex_unlock (&self->thread_lock);
  __atomic_fetch_add (&self->queued_bytes, (gsize) c->bytes->len, __ATOMIC_RELAXED);
  /* the thread far behind: give up rather than keep a core busy for a
   * result the exit would wait for (and copy the whole trace); this
   * chunk counts whatever the thread does meanwhile */
  lag = lag_ns (self);
  g_async_queue_push (self->queue, c);
  self->worst_lag_ns = MAX (self->worst_lag_ns, lag);
  if (lag > self->max_lag_ns && !g_atomic_int_get (&self->lagged))
    give_up_lag (self, lag, "the program");
}

/* The chunk of this poll; a new one has room for the SIZE - OFFSET
 * bytes the file has after OFFSET (the packets a poll takes are those),
 * so that it is not copied again and again as it grows. */
static Chunk *
filling (HlCostsStream *self,
         guint64        offset,
         guint64        size)
{
  if (self->filling == NULL)
    {
      self->filling = g_new0 (Chunk, 1);
      self->filling->bytes = g_byte_array_sized_new ((guint) MIN (size > offset ? size - offset : 0, (guint64) 1 << 30));
      self->filling->offset = offset;
    }
  return self->filling;
}

void
hl_costs_stream_take (void                *user_data,
                      const HlTraceReader *reader,
                      const HlPacketView  *pkt,
                      guint64              from)
{
  HlCostsStream *self = user_data;
  guint64 size = hl_trace_reader_file_size (reader);
  Chunk *c;

  if (self->gap_queued || g_atomic_int_get (&self->failed) || g_atomic_int_get (&self->lagged))
    return;
  if (!self->started)
    {
      self->pid = hl_trace_reader_file_header (reader)->pid;
      self->next_offset = from;
      self->started = TRUE;
    }
  c = filling (self, from, size);
  if (pkt == NULL)
    {
      c->trailing = size - MIN (from, size);
      queue_chunk (self);
      return;
    }
  if (pkt->offset != from || from != self->next_offset)
    {
      c->gap_at = from;
      c->gap = pkt->offset > from ? pkt->offset - from : 1;
      self->gap_queued = TRUE;
      queue_chunk (self);
      return;
    }
  {
    gsize total = (gsize) pkt->header.header_size + pkt->header.content_size;
    const guint8 *start = pkt->content - pkt->header.header_size;

    /* the header as the walk validated it, then the rest as the file has it */
    g_byte_array_append (c->bytes, (const guint8 *) &pkt->header, sizeof pkt->header);
    g_byte_array_append (c->bytes, start + sizeof pkt->header, total - sizeof pkt->header);
    self->next_offset = pkt->offset + total;
  }
}

HlRecording *
hl_costs_stream_finish (HlCostsStream *self,
                        GError       **error)
{
  g_autoptr (HlRecording) rec = NULL;

  if (self->filling != NULL)
    queue_chunk (self); /* a poll not ended (a caller other than the compress stream) */
  /* the program has exited: what the thread has left is waited for */
  {
    guint64 lag = lag_ns (self);
    self->worst_lag_ns = MAX (self->worst_lag_ns, lag);
    if (lag > self->finish_lag_ns && !g_atomic_int_get (&self->lagged))
      give_up_lag (self, lag, "at the end");
  }
  stop_thread (self);
  /* every packet applied: the last profile; what fails from here on is
   * the costs packet's, not the profiles' */
  if (self->profiler != NULL && !g_atomic_int_get (&self->lagged))
    write_profile (self);
  if (self->profiler != NULL)
    {
      self->n_profiles = hl_profile_writer_n_written (self->profiler);
      g_clear_pointer (&self->profiler, hl_profile_writer_free);
    }
  if (self->failure == NULL && g_atomic_int_get (&self->lagged))
    fail (self, "%s", self->lag_reason);
  if (self->failure == NULL && self->packets == 0)
    fail (self, "no packet");
  if (self->failure == NULL && self->trailing > 0)
    fail (self, "%" G_GUINT64_FORMAT " bytes after the last packet", self->trailing);
  if (self->failure != NULL)
    {
      g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_UNSUPPORTED, "costs not followed: %s", self->failure);
      return NULL;
    }
  rec = g_steal_pointer (&self->rec);
  /* What a costs-only load does after the last packet (hl-recording-loader.c)
   * when the reader had nothing to warn about. */
  if (!hl_recording_end_aggregate (rec))
    {
      fail (self, "a thread's events came after later ones were counted");
      g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_UNSUPPORTED, "costs not followed: %s", self->failure);
      return NULL;
    }
  hl_recording_commit (rec);
  hl_recording_load_warn_dropped (rec);
  hl_recording_end_filling (rec);
  return g_steal_pointer (&rec);
}
