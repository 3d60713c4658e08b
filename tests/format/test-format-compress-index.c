/* test-format-compress-index.c — the trailing index of a compressed trace
 * (docs/trace-format.md 7, 7b): the compress stream puts it at the end of
 * the last frame without touching the plain file, the image is the plain
 * trace with hl_trace_index_append_file's index appended, a reader reads
 * it (not a walk), and its time and thread seeks give the same events as a
 * walk of the compressed trace. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hl-format-test-gen.h"
#include "hl-test-util.h"
#include "hl-trace-compress-stream.h"
#include "hl-trace-compress.h"
#include "hl-trace-index.h"
#include "hl-trace-zstd.h"

static bool
write_file (const char *path, const void *data, size_t len, const char *mode)
{
  FILE *f = fopen (path, mode);
  if (f == NULL)
    return false;
  bool ok = fwrite (data, 1, len, f) == len;
  return fclose (f) == 0 && ok;
}

static bool
same_file (const char *a, const char *b)
{
  size_t la, lb;
  char *da = hl_test_read_file (a, &la), *db = hl_test_read_file (b, &lb);
  bool same = da != NULL && db != NULL && la == lb && memcmp (da, db, la) == 0;
  free (da);
  free (db);
  return same;
}

static bool
same_entries (const HlTraceIndex *a, const HlTraceIndex *b)
{
  if (a->n_entries != b->n_entries)
    return false;
  for (size_t i = 0; i < a->n_entries; i++)
    if (a->entries[i].offset != b->entries[i].offset
        || a->entries[i].size != b->entries[i].size || a->entries[i].kind != b->entries[i].kind
        || a->entries[i].tid != b->entries[i].tid || a->entries[i].flags != b->entries[i].flags
        || a->entries[i].n_events != b->entries[i].n_events
        || a->entries[i].time_begin_ns != b->entries[i].time_begin_ns
        || a->entries[i].time_end_ns != b->entries[i].time_end_ns
        || a->entries[i].alloc_id_begin != b->entries[i].alloc_id_begin
        || a->entries[i].alloc_id_end != b->entries[i].alloc_id_end)
      return false;
  return true;
}

/* What a run of events adds up to: their count and a hash of their order. */
typedef struct
{
  size_t   n;
  uint64_t hash;
} Events;

static void
events_add (Events *e, const HlEvent *ev)
{
  uint64_t v[4] = { ev->type, ev->time_ns, ev->tid, ev->offset };
  for (int k = 0; k < 4; k++)
    e->hash = (e->hash ^ v[k]) * 0x100000001b3ull;
  e->n++;
}

/* The events at or after TIME_NS of the packet PKT (of thread TID, or any
 * when TID is 0) added to E. */
static void
packet_events (const HlPacketView *pkt, uint64_t time_ns, Events *e)
{
  HlEventCursor *c = malloc (sizeof *c);
  HlFormatError err;
  HlEvent ev;
  hl_event_cursor_init (c, pkt);
  while (hl_event_cursor_next (c, &ev, &err) > 0)
    if (ev.time_ns >= time_ns)
      events_add (e, &ev);
  free (c);
}

/* Where the trace's packets start (the file header's end). */
static uint64_t data_start;

/* A walk of R from its first packet: events at or after TIME_NS of thread
 * TID (0: all). */
static Events
walk_events (HlTraceReader *r, uint64_t time_ns, uint32_t tid)
{
  Events e = { 0, 0 };
  HlPacketView pkt;
  HlFormatError err;
  hl_trace_reader_seek (r, data_start);
  while (hl_trace_reader_next_packet (r, &pkt, &err) > 0)
    if (tid == 0 || pkt.header.tid == tid)
      packet_events (&pkt, time_ns, &e);
  return e;
}

/* The same through the index: the packets from find_time's entry on, or
 * one thread's by find_thread. */
static Events
seek_events (const HlTraceReader *r, const HlTraceIndex *x, uint64_t time_ns, uint32_t tid, size_t *failures)
{
  Events e = { 0, 0 };
  HlPacketView pkt;
  HlFormatError err;
  size_t i = tid == 0 ? hl_trace_index_find_time (x, time_ns) : hl_trace_index_find_thread (x, tid, 0);
  while (i < x->n_entries)
    {
      if (hl_trace_reader_packet_at (r, x->entries[i].offset, &pkt, &err) != 0)
        (*failures)++;
      else
        packet_events (&pkt, time_ns, &e);
      i = tid == 0 ? i + 1 : hl_trace_index_find_thread (x, tid, i + 1);
    }
  return e;
}

static HlTraceIndex *
load_index (const char *path, const HlTraceCodec *codec, HlTraceReader **r_out)
{
  HlTraceReader *r;
  HlFormatError err;
  HlTraceIndex *x = NULL;
  if (hl_trace_reader_open_file_codec (path, codec, &r, &err) != 0)
    return NULL;
  if (hl_trace_index_load (r, &x, &err) != 0)
    x = NULL;
  if (r_out != NULL)
    *r_out = r;
  else
    hl_trace_reader_free (r);
  return x;
}

int
main (void)
{
  hl_tap_plan (12);
  const HlTraceCodec *zstd = hl_trace_codec_zstd (3);
  char *dir = hl_test_tmpdir_new ("hl-format-compress-index");
  char plain[4096], indexed[4096], growing[4096], out[4096], whole[4096], bare[4096];
  snprintf (plain, sizeof plain, "%s/plain.hltrace", dir);
  snprintf (indexed, sizeof indexed, "%s/indexed.hltrace", dir);
  snprintf (growing, sizeof growing, "%s/growing.hltrace", dir);
  snprintf (out, sizeof out, "%s/out.hltrace", dir);
  snprintf (whole, sizeof whole, "%s/whole.hltrace", dir);
  snprintf (bare, sizeof bare, "%s/bare.hltrace", dir);

  HlGenOptions o = { 57, 80000, 4, 4096, 1 };
  HlGenTrace t;
  hl_gen_trace (&t, &o);
  write_file (plain, t.data, t.size, "wb");
  HlFormatError err;
  /* the reference: the plain trace with its index appended, compressed */
  write_file (indexed, t.data, t.size, "wb");
  hl_trace_index_append_file (indexed, &err);
  const size_t frame = 128 * 1024; /* several frames */
  hl_trace_compress_file (indexed, whole, zstd, frame, &err);

  /* 1. streamed in pieces, with the index */
  HlTraceCompressStream *s = hl_trace_compress_stream_new (growing, out, zstd, frame);
  hl_trace_compress_stream_set_index (s, true);
  bool ok = write_file (growing, "", 0, "wb");
  size_t done = 0;
  uint32_t seed = 3;
  while (ok && done < t.size)
    {
      seed = seed * 1103515245u + 12345u;
      size_t step = 1 + (seed >> 8) % 40000;
      step = done + step < t.size ? step : t.size - done;
      ok = write_file (growing, t.data + done, step, "ab") && hl_trace_compress_stream_poll (s, &err) == 0;
      done += step;
    }
  ok = ok && hl_trace_compress_stream_finish (s, &err) == 0;
  hl_trace_compress_stream_free (s);
  hl_tap_ok (ok, "streamed with its index and finished%s%s", ok ? "" : ": ", ok ? "" : err.message);
  size_t grown_len = 0;
  char *grown = hl_test_read_file (growing, &grown_len);
  hl_tap_ok (grown != NULL && grown_len == t.size && memcmp (grown, t.data, t.size) == 0,
             "the plain file is left as it was (no index appended to it)");
  free (grown);
  hl_tap_ok (same_file (out, whole),
             "byte-identical to the plain trace with its appended index compressed (the index in the last frame)");

  /* 2. compressed whole, with the index */
  hl_tap_ok (hl_trace_compress_file_indexed (plain, bare, zstd, frame, &err) == 0 && same_file (bare, whole),
             "compress_file_indexed writes the same file");

  /* 3. a reader reads the index, equal to a walk of the plain trace */
  HlTraceIndex *walked = load_index (plain, NULL, NULL);
  data_start = walked != NULL && walked->n_entries > 0 ? walked->entries[0].offset : 0;
  HlTraceReader *r = NULL;
  HlTraceIndex *x = load_index (out, zstd, &r);
  hl_tap_ok (walked != NULL && x != NULL && x->from_file && x->note[0] == '\0' && same_entries (walked, x)
             && x->data_end == t.size && walked->n_entries == t.n_packets,
             "the compressed trace's index is read (not walked): %zu entries, as the walk of the plain trace",
             x != NULL ? x->n_entries : 0);

  /* 4. seeks give the events a walk of the compressed trace gives */
  size_t bad_time = 0, failures = 0;
  uint64_t t_end = x->max_end_ns[x->n_entries - 1];
  for (int k = 0; k <= 16; k++)
    {
      uint64_t T = t_end / 16 * (uint64_t) k;
      Events a = walk_events (r, T, 0), b = seek_events (r, x, T, 0, &failures);
      bad_time += a.n != b.n || a.hash != b.hash;
    }
  hl_tap_ok (bad_time == 0 && failures == 0, "find_time: 17 times, the same events as a walk (%zu packets unread)",
             failures);
  uint32_t tids[64];
  size_t n_tids = 0, bad_thread = 0, n_thread_events = 0;
  for (size_t i = 0; i < x->n_entries && n_tids < 64; i++)
    {
      size_t k = 0;
      while (k < n_tids && tids[k] != x->entries[i].tid)
        k++;
      if (k == n_tids && x->entries[i].tid != 0)
        tids[n_tids++] = x->entries[i].tid;
    }
  for (size_t k = 0; k < n_tids; k++)
    {
      Events a = walk_events (r, 0, tids[k]), b = seek_events (r, x, 0, tids[k], &failures);
      bad_thread += a.n != b.n || a.hash != b.hash;
      n_thread_events += b.n;
    }
  hl_tap_ok (n_tids >= 2 && bad_thread == 0 && failures == 0 && n_thread_events == walk_events (r, 0, 0).n,
             "find_thread: %zu threads, each the events a walk gives (%zu in all)", n_tids, n_thread_events);
  hl_trace_reader_free (r);
  hl_trace_index_free (x);

  /* 5. a plain trace that has its index gets no second one */
  hl_tap_ok (hl_trace_compress_file_indexed (indexed, bare, zstd, frame, &err) == 0 && same_file (bare, whole),
             "an indexed plain trace compressed with the index: its own index, not a second one");

  /* 6. without the index (hl_trace_compress_file): walked, and says so */
  hl_trace_compress_file (plain, bare, zstd, frame, &err);
  HlTraceIndex *none = load_index (bare, zstd, NULL);
  hl_tap_ok (none != NULL && !none->from_file && strstr (none->note, "no trailing index") != NULL
             && same_entries (walked, none),
             "compressed without the index: walked to the same entries (%s)", none != NULL ? none->note : "");
  hl_trace_index_free (none);

  /* 7. a damaged index, compressed as it is: walked, with the note; with
   * the index, a new one after it, read */
  size_t ilen = 0;
  char *idata = hl_test_read_file (indexed, &ilen);
  idata[t.size + HL_PACKET_HEADER_SIZE + 3] ^= 0x10;
  write_file (plain, idata, ilen, "wb");
  free (idata);
  hl_trace_compress_file (plain, bare, zstd, frame, &err);
  HlTraceIndex *damaged = load_index (bare, zstd, NULL);
  hl_tap_ok (damaged != NULL && !damaged->from_file && strstr (damaged->note, "damaged") != NULL
             && same_entries (walked, damaged),
             "a compressed trace with a damaged index: walked to the same entries (%s)",
             damaged != NULL ? damaged->note : "");
  hl_trace_index_free (damaged);
  HlTraceIndex *renewed = NULL;
  if (hl_trace_compress_file_indexed (plain, bare, zstd, frame, &err) == 0)
    renewed = load_index (bare, zstd, NULL);
  hl_tap_ok (renewed != NULL && renewed->from_file && same_entries (walked, renewed) && renewed->data_end == ilen,
             "compressed with the index: a new index after the damaged one, read");
  hl_trace_index_free (renewed);

  /* 8. an empty trace (the file header only) gets an empty index */
  write_file (plain, t.data, (size_t) data_start, "wb");
  HlTraceIndex *empty = NULL;
  if (hl_trace_compress_file_indexed (plain, bare, zstd, frame, &err) == 0)
    empty = load_index (bare, zstd, NULL);
  hl_tap_ok (empty != NULL && empty->from_file && empty->n_entries == 0, "an empty trace: an empty index, read");
  hl_trace_index_free (empty);

  hl_trace_index_free (walked);
  hl_gen_trace_clear (&t);
  hl_test_tmpdir_remove (dir);
  return hl_tap_finish ();
}
