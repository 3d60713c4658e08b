/* test-format-frames.c — a compressed trace in independent frames keeps
 * what is whole (issue 26, points 6 and 11): a cut reads the whole
 * frames before it and warns, a flipped byte of a frame loses that frame
 * only and says how many events at most (every offset near a frame's
 * edge and a stride between; every offset with HL_TEST_EXHAUSTIVE=1). And the
 * trailing index (point 3): used when there (no packet header read),
 * its absence and its damage (every byte flipped in turn) give a walk,
 * the same events and a note; the seeks land on the right packets. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hl-format-test-gen.h"
#include "hl-test-util.h"
#include "hl-trace-compress.h"
#include "hl-trace-index.h"
#include "hl-trace-zstd.h"

/* Which offsets the loops below try: all of them with
 * HL_TEST_EXHAUSTIVE=1 (minutes under ASan), else every byte within 48
 * of a frame's start or end, where the framing logic decides, and every
 * STRIDE-th byte between, so the suite stays quick. */
static size_t
offset_stride (size_t stride)
{
  const char *all = getenv ("HL_TEST_EXHAUSTIVE");
  return all != NULL && strcmp (all, "1") == 0 ? 1 : stride;
}

static bool
near_edge (size_t at, uint64_t begin, uint64_t end)
{
  return at < begin + 48 || at + 48 >= end;
}

static bool
write_file (const char *path, const void *data, size_t len)
{
  FILE *f = fopen (path, "wb");
  if (f == NULL)
    return false;
  bool ok = fwrite (data, 1, len, f) == len;
  return fclose (f) == 0 && ok;
}

/* Events of the trace R walks, and a digest of them (type, time, thread,
 * offset, ids and sizes): the same events give the same digest. */
static uint64_t
digest_events (HlTraceReader *r, uint64_t *n_events)
{
  HlEventCursor *c = malloc (sizeof *c);
  HlPacketView pkt;
  HlFormatError err;
  uint64_t h = 1469598103934665603ull, n = 0;

  while (hl_trace_reader_next_packet (r, &pkt, &err) > 0)
    {
      HlEvent ev;
      hl_event_cursor_init (c, &pkt);
      while (hl_event_cursor_next (c, &ev, &err) > 0)
        {
          uint64_t v[5] = { (uint64_t) ev.type, ev.time_ns, ev.tid, ev.offset,
                            ev.type == HL_EVENT_ALLOC ? ev.u.alloc.id ^ ev.u.alloc.size : 0 };
          for (size_t k = 0; k < 5; k++)
            h = (h ^ v[k]) * 1099511628211ull;
          n++;
        }
    }
  free (c);
  *n_events = n;
  return h;
}

typedef struct
{
  uint64_t end;      /* where the frame's packet ends in the compressed file */
  uint32_t n_events; /* its header's count */
} FrameInfo;

/* The ZFRAME packets of the compressed file DATA[0..LEN): their ends and
 * event counts, into FRAMES (at most CAP); the count. */
static size_t
list_frames (const uint8_t *data, size_t len, FrameInfo *frames, size_t cap)
{
  size_t n = 0, pos = HL_TRACE_FILE_HEADER_SIZE;
  while (pos + HL_PACKET_HEADER_SIZE <= len && n < cap)
    {
      HlPacketHeader h;
      memcpy (&h, data + pos, sizeof h);
      pos += (size_t) h.header_size + h.content_size;
      frames[n++] = (FrameInfo) { pos, h.n_events };
    }
  return n;
}

/* Opens DATA[0..LEN) with CODEC and digests its events; false when it
 * does not open. ST gets the stats. */
static bool
read_memory (const void *data, size_t len, const HlTraceCodec *codec, uint64_t *n_events, uint64_t *digest,
             HlTraceReaderStats *st)
{
  HlTraceReader *r;
  HlFormatError err;
  if (hl_trace_reader_open_memory_codec (data, len, codec, &r, &err) != 0)
    return false;
  *digest = digest_events (r, n_events);
  hl_trace_reader_stats (r, st);
  hl_trace_reader_free (r);
  return true;
}

#define MAX_FRAMES 256

static void
test_cuts_and_flips (const char *dir, const HlTraceCodec *zstd)
{
  char plain[4096], packed[4096];
  snprintf (plain, sizeof plain, "%s/small.hltrace", dir);
  snprintf (packed, sizeof packed, "%s/small.z.hltrace", dir);
  HlGenOptions o = { 77, 500, 3, 1024, 1 };
  HlGenTrace t;
  HlFormatError err;
  hl_gen_trace (&t, &o);
  write_file (plain, t.data, t.size);
  bool ok = hl_trace_index_append_file (plain, &err) == 0
            && hl_trace_compress_file (plain, packed, zstd, 2 * 1024, &err) == 0;
  size_t len = 0;
  uint8_t *data = ok ? (uint8_t *) hl_test_read_file (packed, &len) : NULL;
  FrameInfo frames[MAX_FRAMES];
  size_t n_frames = data != NULL ? list_frames (data, len, frames, MAX_FRAMES) : 0;
  uint64_t total = 0, digest_all = 0;
  HlTraceReaderStats st;
  ok = ok && n_frames >= 4 && n_frames < MAX_FRAMES && frames[n_frames - 1].end == len
       && read_memory (data, len, zstd, &total, &digest_all, &st) && st.warning[0] == '\0';
  hl_tap_ok (ok, "a small trace in %zu frames of 2 KiB (%zu bytes, %llu events)", n_frames, len,
             (unsigned long long) total);
  if (!ok)
    {
      free (data);
      hl_gen_trace_clear (&t);
      return;
    }

  /* HL_FRAMES_CORPUS=DIR: writes the fuzz corpus's seeds of the framing
   * (tests/fuzz/corpus/trace-reader: whole, cut, a damaged frame header) */
  const char *corpus = getenv ("HL_FRAMES_CORPUS");
  if (corpus != NULL)
    {
      char out[4096];
      snprintf (out, sizeof out, "%s/frames.hltrace", corpus);
      write_file (out, data, len);
      snprintf (out, sizeof out, "%s/frames-cut.hltrace", corpus);
      write_file (out, data, frames[1].end + 100);
      data[frames[0].end + 5] ^= 0x40;
      snprintf (out, sizeof out, "%s/frames-bad-size.hltrace", corpus);
      write_file (out, data, len);
      data[frames[0].end + 5] ^= 0x40;
      free (data);
      hl_gen_trace_clear (&t);
      return; /* the seeds only: no checks */
    }


  /* Every cut near a frame's edge or in the last two frames, and a
   * stride between: the events of the whole frames before it, and a
   * warning unless the cut falls between two frames (nothing then says
   * the file was longer: the index, in the last frame, is missing). */
  size_t bad_cut = 0, cut_at = 0;
  size_t cut_stride = offset_stride (41), n_cuts = 0;
  for (size_t cut = 0; cut < len && bad_cut == 0; cut++)
    {
      uint64_t n = 0, d;
      uint64_t want = 0, in_cut = 0;
      bool boundary = cut == HL_TRACE_FILE_HEADER_SIZE;
      bool edge = cut <= HL_TRACE_FILE_HEADER_SIZE + 48;
      for (size_t k = 0; k < n_frames; k++)
        {
          uint64_t begin = k == 0 ? HL_TRACE_FILE_HEADER_SIZE : frames[k - 1].end;
          /* the cut's own frame decides, and the last two frames are
           * tried at every offset (a recording cut while its last frames
           * were written) */
          if (begin <= cut && cut < frames[k].end)
            edge |= near_edge (cut, begin, frames[k].end) || k + 2 >= n_frames;
          if (frames[k].end <= cut)
            want += frames[k].n_events;
          else if (begin < cut && in_cut == 0)
            in_cut = cut - begin >= HL_PACKET_HEADER_SIZE ? frames[k].n_events : 0;
          if (frames[k].end == cut)
            boundary = true;
        }
      if (!edge && cut % cut_stride != 0)
        continue;
      n_cuts++;
      bool opened = read_memory (data, cut, zstd, &n, &d, &st);
      if (cut < HL_TRACE_FILE_HEADER_SIZE ? opened
                                           : !opened || n != want || (boundary != (st.warning[0] == '\0'))
                                                 || (!boundary && (st.frames_cut != 1 || st.frame_events_cut != in_cut)))
        {
          bad_cut++;
          cut_at = cut;
        }
    }
  hl_tap_ok (bad_cut == 0, "%zu cuts of %zu bytes (near a frame's edge, in the last two frames, a stride between) read the whole frames before them and warn (first bad: %zu)",
             n_cuts, len, cut_at);

  /* Every flipped byte of a frame: that frame is lost, no other; the
   * warning says so with the events it lost. */
  size_t bad_flip = 0, flip_at = 0, n_flips = 0;
  size_t flip_stride = offset_stride (97);
  for (size_t at = HL_TRACE_FILE_HEADER_SIZE; at < len && bad_flip == 0; at++)
    {
      size_t k = 0;
      while (frames[k].end <= at)
        k++;
      /* every byte of the frame headers, every 97th of their contents
       * (each read joins the frames again: every byte takes minutes;
       * HL_TEST_EXHAUSTIVE=1 tries them all) */
      uint64_t begin = k == 0 ? HL_TRACE_FILE_HEADER_SIZE : frames[k - 1].end;
      if (at - begin >= HL_PACKET_HEADER_SIZE + HL_ZFRAME_HEADER_SIZE && at % flip_stride != 0)
        continue;
      n_flips++;
      uint64_t n = 0, d;
      data[at] ^= 0x10;
      bool opened = read_memory (data, len, zstd, &n, &d, &st);
      data[at] ^= 0x10;
      /* the last frame's size made larger reads as a cut */
      bool warned = (st.frames_damaged >= 1 && strstr (st.warning, "damaged compressed frames skipped") != NULL)
                    || (k == n_frames - 1 && st.frames_cut == 1);
      if (!opened || n != total - frames[k].n_events || !warned || strstr (st.warning, "events lost") == NULL)
        {
          bad_flip++;
          flip_at = at;
        }
    }
  hl_tap_ok (bad_flip == 0, "each of %zu flipped bytes loses its frame only, with a warning (first bad: %zu)",
             n_flips, flip_at);

  /* One flip in the middle: the count of events lost is the frame's. */
  size_t mid = n_frames / 2;
  data[frames[mid].end - 10] ^= 0x01;
  uint64_t n = 0, d;
  ok = read_memory (data, len, zstd, &n, &d, &st);
  data[frames[mid].end - 10] ^= 0x01;
  char want[64];
  snprintf (want, sizeof want, "%u events lost (bound)", frames[mid].n_events);
  hl_tap_ok (ok && st.frames_damaged == 1 && st.frame_events_damaged == frames[mid].n_events
               && strstr (st.warning, want) != NULL,
             "one damaged frame in %zu: %s", n_frames, st.warning);
  free (data);
  hl_gen_trace_clear (&t);
}

static void
test_index (const char *dir)
{
  char path[4096];
  snprintf (path, sizeof path, "%s/indexed.hltrace", dir);
  HlGenOptions o = { 91, 8000, 4, 2048, 1 };
  HlGenTrace t;
  HlFormatError err;
  HlTraceReader *r;
  HlTraceIndex *x = NULL, *walked = NULL;
  HlTraceReaderStats st;
  uint64_t n0 = 0, d0 = 0;
  hl_gen_trace (&t, &o);

  /* Absent: a walk, with a note. */
  bool ok = hl_trace_reader_open_memory (t.data, t.size, &r, &err) == 0 && hl_trace_index_load (r, &walked, &err) == 0;
  hl_tap_ok (ok && !walked->from_file && strstr (walked->note, "no trailing index") != NULL,
             "no index: walked, noted: %s", ok ? walked->note : err.message);
  if (ok)
    {
      d0 = digest_events (r, &n0);
      hl_trace_reader_free (r);
    }

  write_file (path, t.data, t.size);
  size_t len = 0;
  ok = hl_trace_index_append_file (path, &err) == 0;
  uint8_t *data = (uint8_t *) hl_test_read_file (path, &len);

  /* Used: with every data packet's header wiped, the index still loads
   * the same entries: it read none of them. */
  uint8_t *wiped = malloc (len);
  memcpy (wiped, data, len);
  for (size_t i = 0; walked != NULL && i < walked->n_entries; i++)
    memset (wiped + walked->entries[i].offset, 0, HL_PACKET_HEADER_SIZE);
  ok = ok && hl_trace_reader_open_memory (wiped, len, &r, &err) == 0;
  if (ok)
    {
      ok = hl_trace_index_load (r, &x, &err) == 0 && x->from_file && x->note[0] == '\0'
           && x->n_entries == walked->n_entries;
      for (size_t i = 0; ok && i < x->n_entries; i++)
        ok = x->entries[i].offset == walked->entries[i].offset && x->entries[i].time_end_ns == walked->entries[i].time_end_ns
             && x->entries[i].tid == walked->entries[i].tid;
      hl_trace_index_free (x);
      x = NULL;
      hl_trace_reader_free (r);
    }
  hl_tap_ok (ok, "the index is used: it loads without reading one packet header (%zu packets)",
             walked != NULL ? walked->n_entries : 0);
  free (wiped);

  /* The seeks land on the right packets: to a time, to a thread. */
  ok = hl_trace_reader_open_memory (data, len, &r, &err) == 0 && hl_trace_index_load (r, &x, &err) == 0;
  size_t bad = 0;
  uint64_t end = x != NULL && x->n_entries > 0 ? x->max_end_ns[x->n_entries - 1] : 0;
  for (uint64_t k = 0; ok && k <= 16; k++)
    {
      uint64_t time = end / 16 * k;
      size_t i = hl_trace_index_find_time (x, time);
      HlPacketView pkt;
      for (size_t j = 0; j < i; j++)
        if (x->entries[j].time_end_ns >= time)
          bad++;
      if (i < x->n_entries
          && (hl_trace_reader_packet_at (r, x->entries[i].offset, &pkt, &err) != 0 || pkt.header.time_end_ns < time))
        bad++;
    }
  for (uint32_t tid = 0; ok && tid < 8; tid++)
    {
      size_t i = 0, seen = 0, want = 0;
      for (size_t j = 0; j < x->n_entries; j++)
        want += x->entries[j].tid == x->entries[tid % x->n_entries].tid;
      uint32_t which = x->entries[tid % x->n_entries].tid;
      while ((i = hl_trace_index_find_thread (x, which, i)) < x->n_entries)
        {
          HlPacketView pkt;
          if (hl_trace_reader_packet_at (r, x->entries[i].offset, &pkt, &err) != 0 || pkt.header.tid != which)
            bad++;
          seen++;
          i++;
        }
      if (seen != want)
        bad++;
    }
  hl_tap_ok (ok && bad == 0, "seeking to 17 times and 8 threads lands on their packets");
  hl_trace_index_free (x);
  x = NULL;
  if (ok)
    hl_trace_reader_free (r);

  const char *corpus = getenv ("HL_FRAMES_CORPUS");
  if (corpus != NULL && len > 200)
    {
      char out[4096];
      snprintf (out, sizeof out, "%s/index.hltrace", corpus);
      write_file (out, data, len);
      data[len - 30] ^= 0x04;
      snprintf (out, sizeof out, "%s/index-damaged.hltrace", corpus);
      write_file (out, data, len);
      data[len - 30] ^= 0x04;
    }

  /* Damaged: every byte of the index flipped in turn gives a walk with a
   * note and the same events. */
  size_t index_at = walked != NULL && walked->n_entries > 0 ? t.size : len;
  size_t bad_flip = 0, flip_at = 0;
  for (size_t at = index_at; at < len; at++)
    {
      uint64_t n = 0, d = 0;
      data[at] ^= 0x04;
      bool good = hl_trace_reader_open_memory (data, len, &r, &err) == 0;
      if (good)
        {
          good = hl_trace_index_load (r, &x, &err) == 0 && !x->from_file && strstr (x->note, "walked") != NULL;
          hl_trace_index_free (x);
          x = NULL;
          d = digest_events (r, &n);
          hl_trace_reader_stats (r, &st);
          hl_trace_reader_free (r);
        }
      data[at] ^= 0x04;
      if (!good || n != n0 || d != d0)
        {
          bad_flip++;
          flip_at = at;
        }
    }
  hl_tap_ok (index_at < len && bad_flip == 0,
             "every one of %zu flipped bytes of the index: a walk, a note, the same %llu events (first bad: %zu)",
             len - index_at, (unsigned long long) n0, flip_at);
  hl_trace_index_free (walked);
  free (data);
  hl_gen_trace_clear (&t);
}

int
main (void)
{
  hl_tap_plan (8);
  const HlTraceCodec *zstd = hl_trace_codec_zstd (3);
  char *dir = hl_test_tmpdir_new ("hl-format-frames");

  test_cuts_and_flips (dir, zstd);
  test_index (dir);

  hl_test_tmpdir_remove (dir);
  return hl_tap_finish ();
}
