/* hl-session-salvage.c — the packets a killed program was still
 * building, taken from its session and appended to its trace; the record
 * of its death (hl-session-salvage.h). */
#define _GNU_SOURCE
#include "hl-config.h"

#include "hl-session-salvage.h"

#include <glib.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hl-live-discovery.h"
#include "hl-model-error.h"
#include "hl-shm-layout.h"
#include "hl-trace-index.h"
#include "hl-trace-reader.h"
#include "hl-trace-writer.h"

/* A packet of the trace, known without its offset. */
typedef struct
{
  uint32_t tid, crc32c, content_size;
  uint64_t time_begin_ns;
} PacketKey;

static guint
key_hash (gconstpointer p)
{
  const PacketKey *k = p;
  return k->crc32c ^ (k->tid * 2654435761u) ^ (guint) k->time_begin_ns;
}

static gboolean
key_equal (gconstpointer a,
           gconstpointer b)
{
  const PacketKey *x = a, *y = b;
  return x->tid == y->tid && x->crc32c == y->crc32c && x->content_size == y->content_size
         && x->time_begin_ns == y->time_begin_ns;
}

/* The packets of TRACE (their keys into KEYS) and where its last whole
 * packet ends (*END: a packet cut by the death lies past it). */
static bool
walk_trace (const char *trace,
            GHashTable *keys,
            uint64_t   *end,
            uint64_t   *size)
{
  HlTraceReader *r = NULL;
  HlFormatError err;
  HlPacketView pkt;
  if (hl_trace_reader_open_file (trace, &r, &err) != 0)
    return false;
  /* packets appended to a compressed trace would be outside its frames */
  if (hl_trace_reader_is_compressed (r))
    {
      hl_trace_reader_free (r);
      return false;
    }
  *end = HL_TRACE_FILE_HEADER_SIZE;
  *size = hl_trace_reader_file_size (r);
  while (hl_trace_reader_next_header (r, &pkt, &err) == 1)
    {
      PacketKey *k = g_new (PacketKey, 1);
      k->tid = pkt.header.tid;
      k->crc32c = pkt.header.crc32c;
      k->content_size = pkt.header.content_size;
      k->time_begin_ns = pkt.header.time_begin_ns;
      g_hash_table_add (keys, k);
      *end = pkt.offset + pkt.header.header_size + pkt.header.content_size;
    }
  hl_trace_reader_free (r);
  return true;
}

/* The allocations and frees in TRACE (a REALLOC is one of each), as the
 * session counts its calls. */
static bool
count_calls (const char *trace,
             uint64_t   *out)
{
  HlTraceReader *r = NULL;
  HlFormatError err;
  HlPacketView pkt;
  if (hl_trace_reader_open_file (trace, &r, &err) != 0)
    return false;
  g_autofree HlEventCursor *c = g_new (HlEventCursor, 1);
  uint64_t n = 0;
  while (hl_trace_reader_next_packet (r, &pkt, &err) == 1)
    {
      HlEvent ev;
      hl_event_cursor_init (c, &pkt);
      while (hl_event_cursor_next (c, &ev, &err) == 1)
        switch (ev.type)
          {
          case HL_EVENT_ALLOC:
          case HL_EVENT_ALLOC_ALIGNED:
          case HL_EVENT_FREE:
          case HL_EVENT_FREE_ADDR:
            n++;
            break;
          case HL_EVENT_REALLOC:
          case HL_EVENT_REALLOC_ADDR:
            n += 2;
            break;
          default:
            break;
          }
    }
  hl_trace_reader_free (r);
  *out = n;
  return true;
}

/* Finishes the packet whose whole events are PACKET[HL_PACKET_HEADER_SIZE,
 * LEN) as the preload's writer would have: its header made from the slot
 * and from the events themselves. The number of events, 0 when they do
 * not decode. */
static uint32_t
finish_packet (uint8_t               *packet,
               size_t                 len,
               const HlShmPacketSlot *slot)
{
  HlPacketHeader h = { 0 };
  h.magic = HL_PACKET_MAGIC;
  h.content_size = (uint32_t) (len - HL_PACKET_HEADER_SIZE);
  h.header_size = HL_PACKET_HEADER_SIZE;
  h.kind = HL_PACKET_KIND_EVENTS;
  h.pid = slot->pid;
  h.tid = slot->tid;
  h.time_begin_ns = slot->time_begin_ns;
  h.time_end_ns = UINT64_MAX;
  h.alloc_id_begin = slot->alloc_id_begin;
  h.alloc_id_end = UINT64_MAX;

  HlPacketView view = { 0, h, packet + HL_PACKET_HEADER_SIZE };
  g_autofree HlEventCursor *c = g_new (HlEventCursor, 1);
  HlEvent ev;
  HlFormatError err;
  uint32_t n = 0, flags = 0;
  uint64_t n_allocs = 0, time_end = h.time_begin_ns;
  int rc;
  hl_event_cursor_init (c, &view);
  while ((rc = hl_event_cursor_next (c, &ev, &err)) == 1)
    {
      n++;
      if (ev.time_ns > time_end)
        time_end = ev.time_ns;
      switch (ev.type)
        {
        case HL_EVENT_ALLOC:
        case HL_EVENT_ALLOC_ALIGNED:
        case HL_EVENT_REALLOC:
        case HL_EVENT_REALLOC_ADDR:
          n_allocs++;
          break;
        case HL_EVENT_STACK:
          flags |= HL_PACKET_FLAG_HAS_STACKS;
          break;
        case HL_EVENT_MODULE:
          flags |= HL_PACKET_FLAG_HAS_MODULES;
          break;
        case HL_EVENT_THREAD:
          flags |= HL_PACKET_FLAG_HAS_THREADS;
          break;
        case HL_EVENT_META_INT:
        case HL_EVENT_META_STRING:
        case HL_EVENT_META_REMOVE:
        case HL_EVENT_MARK:
          flags |= HL_PACKET_FLAG_HAS_META;
          break;
        case HL_EVENT_END:
          flags |= HL_PACKET_FLAG_HAS_END;
          break;
        default:
          break;
        }
    }
  if (rc < 0 || n == 0)
    return 0;
  h.time_end_ns = time_end;
  h.alloc_id_begin = n_allocs > 0 ? slot->alloc_id_begin : 0;
  h.alloc_id_end = n_allocs > 0 ? c->next_id : 0;
  h.n_events = n;
  h.flags = flags;
  h.crc32c = 0;
  memcpy (packet, &h, sizeof h);
  h.crc32c = hl_packet_crc32c (packet, len);
  memcpy (packet, &h, sizeof h);
  return n;
}

/* The session NAME mapped read-only, when it is a regular file of ours
 * with mode 0600 and a header of this layout (never blocks: /dev/shm is
 * anyone's). */
static const HlShmHeader *
map_session (const char *name,
             size_t     *size,
             char       *err,
             size_t      err_size)
{
  char path[512];
  struct stat st;
  snprintf (path, sizeof path, "/dev/shm/%s", name);
  int fd = open (path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    {
      snprintf (err, err_size, "%s: %s", path, g_strerror (errno));
      return NULL;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || st.st_uid != getuid () || (st.st_mode & 0777) != 0600
      || (uint64_t) st.st_size < HL_SHM_HEADER_SIZE)
    {
      snprintf (err, err_size, "%s: not a session segment of this user", path);
      close (fd);
      return NULL;
    }
  void *map = mmap (NULL, (size_t) st.st_size, PROT_READ, MAP_SHARED, fd, 0);
  close (fd);
  if (map == MAP_FAILED)
    {
      snprintf (err, err_size, "%s: %s", path, g_strerror (errno));
      return NULL;
    }
  const HlShmHeader *h = map;
  if (memcmp (h->magic, HL_SHM_MAGIC, HL_SHM_MAGIC_SIZE) != 0 || h->version != HL_SHM_VERSION
      || h->segment_size != (uint64_t) st.st_size)
    {
      snprintf (err, err_size, "%s: not a session of this layout", path);
      munmap (map, (size_t) st.st_size);
      return NULL;
    }
  *size = (size_t) st.st_size;
  return h;
}

gboolean
hl_session_append_all (int           fd,
                       const guint8 *buf,
                       gsize         len)
{
  while (len > 0)
    {
      ssize_t n = write (fd, buf, len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return false;
      buf += n;
      len -= (size_t) n;
    }
  return true;
}

static gboolean
salvage (const char       *name,
         const char       *trace,
         uint64_t          n_calls,
         HlSessionSalvage *out,
         char             *err,
         size_t            err_size)
{
  size_t seg_size = 0;
  memset (out, 0, sizeof *out);
  const HlShmHeader *h = map_session (name, &seg_size, err, err_size);
  if (h == NULL)
    return false;
  const uint8_t *seg = (const uint8_t *) h;
  HlShmRegion r = h->packets;
  const HlShmPacketsHeader *ph = (const HlShmPacketsHeader *) (seg + r.offset);
  if (r.size < sizeof *ph || r.offset > seg_size || r.size > seg_size - r.offset
      || ph->slot_size != sizeof (HlShmPacketSlot)
      || (uint64_t) ph->n_slots * sizeof (HlShmPacketSlot) > r.size - sizeof *ph)
    {
      snprintf (err, err_size, "%s: no packet buffers in the session", name);
      munmap ((void *) h, seg_size);
      return false;
    }
  const HlShmPacketSlot *slots = (const HlShmPacketSlot *) (ph + 1);
  uint32_t pid = h->pid;

  g_autoptr (GHashTable) keys = g_hash_table_new_full (key_hash, key_equal, g_free, NULL);
  uint64_t end = 0, size = 0;
  if (!walk_trace (trace, keys, &end, &size))
    {
      snprintf (err, err_size, "%s: not a readable trace", trace);
      munmap ((void *) h, seg_size);
      return false;
    }
  int fd = open (trace, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
  /* a packet cut by the death at the end: it is in its slot whole */
  if (fd >= 0 && size > end)
    (void) ftruncate (fd, (off_t) end);
  if (fd < 0)
    {
      snprintf (err, err_size, "%s: %s", trace, g_strerror (errno));
      munmap ((void *) h, seg_size);
      return false;
    }
  g_autofree uint8_t *packet = g_malloc (HL_PACKET_MAX_SIZE);
  bool ok = true;
  for (uint32_t i = 0; i < ph->n_slots && ok; i++)
    {
      const HlShmPacketSlot *s = &slots[i];
      uint64_t state = __atomic_load_n (&s->state_atomic, __ATOMIC_ACQUIRE);
      uint64_t len = state & ~HL_SHM_PACKET_FLUSHING;
      if (state == 0 || len <= HL_PACKET_HEADER_SIZE || len > HL_PACKET_MAX_SIZE || s->pid != pid)
        continue;
      memcpy (packet, s->packet, len);
      uint32_t n_events;
      if (state & HL_SHM_PACKET_FLUSHING)
        {
          /* finished: in the trace already unless the death came first */
          HlPacketHeader ph2;
          memcpy (&ph2, packet, sizeof ph2);
          PacketKey k = { ph2.tid, ph2.crc32c, ph2.content_size, ph2.time_begin_ns };
          if (ph2.magic != HL_PACKET_MAGIC || ph2.content_size != len - HL_PACKET_HEADER_SIZE
              || hl_packet_crc32c (packet, len) != ph2.crc32c || g_hash_table_contains (keys, &k))
            continue;
          n_events = ph2.n_events;
        }
      else
        {
          /* made the same from the same slot: in the trace already when
           * an earlier salvage appended it */
          n_events = finish_packet (packet, len, s);
          HlPacketHeader ph2;
          memcpy (&ph2, packet, sizeof ph2);
          PacketKey k = { ph2.tid, ph2.crc32c, ph2.content_size, ph2.time_begin_ns };
          if (n_events > 0 && g_hash_table_contains (keys, &k))
            continue;
        }
      if (n_events == 0)
        continue;
      ok = hl_session_append_all (fd, packet, len);
      if (ok)
        {
          out->events += n_events;
          out->packets++;
        }
    }
  if (close (fd) != 0)
    ok = false;
  munmap ((void *) h, seg_size);
  if (!ok)
    {
      snprintf (err, err_size, "%s: %s", trace, g_strerror (errno));
      return false;
    }
  uint64_t in_trace = 0;
  out->lost_known = count_calls (trace, &in_trace);
  out->lost = out->lost_known && n_calls > in_trace ? n_calls - in_trace : 0;
  return true;
}

gboolean
hl_session_salvage (const char       *name,
                    const char       *trace,
                    guint64           n_calls,
                    HlSessionSalvage *out,
                    GError          **error)
{
  char err[1024];
  size_t err_size = sizeof err;
  gboolean ok = salvage (name, trace, n_calls, out, err, err_size);
  if (!ok)
    g_set_error_literal (error, HL_MODEL_ERROR, HL_MODEL_ERROR_IO, err);
  return ok;
}

gboolean
hl_session_salvage_note_death (const char             *trace,
                               guint32                 pid,
                               guint64                 start_mono_ns,
                               guint64                 died_mono_ns,
                               int                     sig,
                               const HlSessionSalvage *salvage)
{
  uint64_t t = died_mono_ns > start_mono_ns ? died_mono_ns - start_mono_ns : 0;
  char sig_text[16], events[24], lost[48];
  snprintf (sig_text, sizeof sig_text, "%d", sig);
  const char *keys[3], *values[3];
  size_t n = 0;
  if (sig > 0)
    {
      keys[n] = "ended_by_signal";
      values[n++] = sig_text;
    }
  else if (sig < 0)
    {
      keys[n] = "ended_unseen";
      values[n++] = "1";
    }
  if (salvage != NULL)
    {
      snprintf (events, sizeof events, "%" G_GUINT64_FORMAT, salvage->events);
      if (salvage->lost_known)
        snprintf (lost, sizeof lost, "%" G_GUINT64_FORMAT, salvage->lost);
      else
        snprintf (lost, sizeof lost, "unknown");
      keys[n] = "salvaged_events";
      values[n++] = events;
      keys[n] = "lost_events";
      values[n++] = lost;
    }
  if (n == 0)
    return true;
  g_autofree uint8_t *buf = g_malloc (HL_PACKET_MAX_SIZE);
  g_autofree HlPacketWriter *w = g_new0 (HlPacketWriter, 1);
  int fd = open (trace, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return false;
  hl_packet_writer_init (w, buf, HL_PACKET_MAX_SIZE, pid, pid);
  bool ok = true;
  size_t len;
  if (salvage != NULL && sig > 0)
    {
      hl_packet_writer_begin (w, t);
      hl_packet_writer_end (w, t, 128 + sig);
      len = hl_packet_writer_finish (w);
      ok = len > 0 && hl_session_append_all (fd, buf, len);
    }
  len = hl_packet_writer_info (w, t, keys, values, n);
  ok = ok && len > 0 && hl_session_append_all (fd, buf, len);
  return close (fd) == 0 && ok;
}

/* What a salvage needs of the session NAME's header, copied: its trace
 * path, pid, clocks and how it ended. FALSE with ERROR when it cannot be
 * mapped. */
typedef struct
{
  char     trace[sizeof ((HlShmHeader *) 0)->trace_path];
  guint32  pid;
  guint64  start_mono_ns;
  guint64  heartbeat_mono_ns;   /* the last sign of life, CLOCK_MONOTONIC */
  gboolean ended;               /* END written */
  gboolean cut;                 /* the trace cut by a full disk */
  gboolean by_exec;             /* the image replaced by exec */
} SessionFacts;

static gboolean
read_facts (const char    *name,
            SessionFacts  *f,
            GError       **error)
{
  char err[1024];
  size_t seg_size = 0;
  const HlShmHeader *h = map_session (name, &seg_size, err, sizeof err);
  if (h == NULL)
    {
      g_set_error_literal (error, HL_MODEL_ERROR, HL_MODEL_ERROR_IO, err);
      return FALSE;
    }
  memcpy (f->trace, h->trace_path, sizeof f->trace);
  f->trace[sizeof f->trace - 1] = '\0';
  f->pid = h->pid;
  f->start_mono_ns = h->start_mono_ns;
  f->heartbeat_mono_ns = h->start_mono_ns + __atomic_load_n (&h->heartbeat_ns_atomic, __ATOMIC_ACQUIRE);
  f->ended = __atomic_load_n (&h->state_atomic, __ATOMIC_ACQUIRE) == HL_SHM_STATE_ENDED;
  f->cut = __atomic_load_n (&h->trace_cut_errno_atomic, __ATOMIC_ACQUIRE) != 0;
  f->by_exec = (h->flags & HL_SHM_FLAG_ENDED_BY_EXEC) != 0;
  munmap ((void *) h, seg_size);
  return TRUE;
}

/* The packets of the session NAME (facts F) appended to its trace, the
 * death noted with SIG (hl_session_salvage_note_death's) and the index
 * appended. */
static gboolean
salvage_and_note (const char         *name,
                  const SessionFacts *f,
                  guint64             died_mono_ns,
                  int                 sig,
                  HlSessionSalvage   *out,
                  GError            **error)
{
  g_autoptr (HlLiveSessionInfo) info = hl_live_session_info_read (name);
  guint64 n_calls = info->readable ? info->totals.n_allocs + info->totals.n_frees : 0;
  if (!hl_session_salvage (name, f->trace, n_calls, out, error))
    return FALSE;
  if (!info->readable)
    out->lost_known = FALSE;
  if (!hl_session_salvage_note_death (f->trace, f->pid, f->start_mono_ns, died_mono_ns, sig, out))
    {
      g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_IO, "%s: the death could not be noted", f->trace);
      return FALSE;
    }
  HlFormatError ierr;
  if (hl_trace_index_append_file (f->trace, &ierr) != 0)
    g_warning ("no index appended to %s: %s", f->trace, ierr.message);
  return TRUE;
}

gboolean
hl_session_salvage_after_death (const char       *name,
                                int               wait_status,
                                guint64           died_mono_ns,
                                gboolean         *salvaged,
                                HlSessionSalvage *out,
                                GError          **error)
{
  HlSessionSalvage local;
  SessionFacts f;
  if (out == NULL)
    out = &local;
  memset (out, 0, sizeof *out);
  if (salvaged != NULL)
    *salvaged = FALSE;
  if (!read_facts (name, &f, error))
    return FALSE;
  int sig = !f.by_exec && WIFSIGNALED (wait_status) ? WTERMSIG (wait_status) : 0;
  if (f.trace[0] == '\0')
    return TRUE;
  /* a cut trace ends at its cut: nothing after it */
  if (f.ended || f.cut)
    {
      /* its END says 128 + SIG; that it was a signal, only we know */
      if (sig > 0 && !hl_session_salvage_note_death (f.trace, f.pid, f.start_mono_ns, died_mono_ns, sig, NULL))
        {
          g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_IO, "%s: the death could not be noted", f.trace);
          return FALSE;
        }
      return TRUE;
    }
  if (!salvage_and_note (name, &f, died_mono_ns, sig, out, error))
    return FALSE;
  if (salvaged != NULL)
    *salvaged = TRUE;
  return TRUE;
}

/* What a reader's salvage finds in the trace of a dead session. */
typedef enum
{
  TRACE_UNNOTED,    /* plain, no record of PID's death: salvage it */
  TRACE_NOTED,      /* the death of PID is noted: salvaged (or seen) before */
  TRACE_NOT_PLAIN,  /* compressed, or not a trace: nothing to append to */
} TraceState;

/* Whether TRACE notes the death of PID: an INFO packet of PID's with
 * ended_unseen, ended_by_signal or salvaged_events (what
 * hl_session_salvage_note_death writes). A walk over the packet headers;
 * the INFO packets alone are decoded. */
static TraceState
trace_state (const char *trace,
             guint32     pid)
{
  HlTraceReader *r = NULL;
  HlFormatError err;
  HlPacketView pkt;
  if (hl_trace_reader_open_file (trace, &r, &err) != 0)
    return TRACE_NOT_PLAIN;
  if (hl_trace_reader_is_compressed (r))
    {
      hl_trace_reader_free (r);
      return TRACE_NOT_PLAIN;
    }
  g_autofree HlEventCursor *c = g_new (HlEventCursor, 1);
  TraceState state = TRACE_UNNOTED;
  while (state == TRACE_UNNOTED && hl_trace_reader_next_header (r, &pkt, &err) == 1)
    {
      HlEvent ev;
      if (pkt.header.kind != HL_PACKET_KIND_INFO || pkt.header.pid != pid)
        continue;
      hl_event_cursor_init (c, &pkt);
      while (state == TRACE_UNNOTED && hl_event_cursor_next (c, &ev, &err) == 1)
        for (uint32_t i = 0; ev.type == HL_EVENT_INFO && i < ev.u.info.n; i++)
          if (strcmp (ev.u.info.keys[i], "ended_unseen") == 0 || strcmp (ev.u.info.keys[i], "ended_by_signal") == 0
              || strcmp (ev.u.info.keys[i], "salvaged_events") == 0)
            state = TRACE_NOTED;
    }
  hl_trace_reader_free (r);
  return state;
}

gboolean
hl_session_salvage_unseen (const char              *name,
                           HlSessionSalvageOutcome *outcome,
                           HlSessionSalvage        *out,
                           GError                 **error)
{
  HlSessionSalvage local;
  SessionFacts f;
  if (out == NULL)
    out = &local;
  memset (out, 0, sizeof *out);
  *outcome = HL_SESSION_SALVAGE_NOTHING;
  if (!read_facts (name, &f, error))
    return FALSE;
  const char *trace = f.trace;
  guint64 died_mono_ns = f.heartbeat_mono_ns;
  /* END written (or the image replaced, or the trace cut): nothing to add */
  if (trace[0] == '\0' || f.ended || f.cut || f.by_exec)
    return TRUE;
  /* one salvager at a time (two `sessions --prune` at once, a prune and a
   * report) */
  int lock = open (trace, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  if (lock < 0 || fstat (lock, &st) != 0 || !S_ISREG (st.st_mode) || st.st_uid != getuid ())
    {
      g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_IO, "%s: not a trace of this user", trace);
      if (lock >= 0)
        close (lock);
      return FALSE;
    }
  if (flock (lock, LOCK_EX | LOCK_NB) != 0)
    {
      close (lock);
      *outcome = HL_SESSION_SALVAGE_BUSY;
      return TRUE;
    }
  gboolean ok = TRUE;
  char path[512];
  snprintf (path, sizeof path, "/dev/shm/%s", name);
  /* the one before us finished and removed it, or salvaged it and left
   * it (a reader) */
  if (access (path, F_OK) == 0 && trace_state (trace, f.pid) == TRACE_UNNOTED)
    {
      ok = salvage_and_note (name, &f, died_mono_ns, -1, out, error);
      if (ok)
        *outcome = HL_SESSION_SALVAGE_DONE;
    }
  close (lock);
  return ok;
}
