/* test-format-compress-stream.c — compressing a plain trace while it grows
 * (hl-trace-compress-stream.h): whatever the cuts between polls, even in
 * the middle of a packet or of the file header, the output is the one
 * hl_trace_compress_file writes for the finished file, and it reads back as
 * the plain file; so too with columns large enough to be compressed while
 * they grow (hl-trace-compress-columns.h); a file replaced or shrunk while
 * followed is an error, and an abandoned stream leaves nothing behind; a
 * stream that only follows (no output) is told of the same packets, in
 * steps of its poll limit, and writes nothing. */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hl-format-test-gen.h"
#include "hl-test-util.h"
#include "hl-trace-compress-columns.h"
#include "hl-trace-compress-stream.h"
#include "hl-trace-dump.h"
#include "hl-trace-index.h"
#include "hl-trace-reader-private.h"
#include "hl-trace-zstd.h"
#include "hl-trace-compress.h"

static bool
append_file (const char *path, const void *data, size_t len, const char *mode)
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

/* Writes DATA[0..N) to GROWING in pieces cut at CUTS (ascending offsets,
 * ending with N), polling STREAM after each; finishes. */
static bool
grow_and_poll (const char *growing, const uint8_t *data, size_t n, const size_t *cuts, size_t n_cuts,
               HlTraceCompressStream *stream, HlFormatError *err)
{
  size_t done = 0;
  bool ok = append_file (growing, "", 0, "wb");
  for (size_t k = 0; ok && k < n_cuts; k++)
    {
      ok = append_file (growing, data + done, cuts[k] - done, "ab");
      done = cuts[k];
      ok = ok && hl_trace_compress_stream_poll (stream, err) == 0;
    }
  return ok && done == n && hl_trace_compress_stream_finish (stream, err) == 0;
}

/* Cuts of a file of N bytes for grow_and_poll: FIRST[0..N_FIRST), then
 * pseudo-random steps from SEED, each 1 + a value below SMALL or (by a bit
 * of the seed) LARGE, up to N, the last cut; at most MAX. Returns how
 * many. */
static size_t
random_cuts (size_t *cuts, size_t max, const size_t *first, size_t n_first, size_t n, uint32_t seed,
             size_t small, size_t large)
{
  size_t n_cuts = 0, at = 0;
  for (; n_cuts < n_first; n_cuts++)
    at = cuts[n_cuts] = first[n_cuts];
  while (at < n && n_cuts + 1 < max)
    {
      seed = seed * 1103515245u + 12345u;
      size_t step = 1 + (seed >> 8) % (seed & 0x100 ? large : small);
      at = at + step < n ? at + step : n;
      cuts[n_cuts++] = at;
    }
  if (n_cuts == 0 || cuts[n_cuts - 1] != n)
    cuts[n_cuts++] = n;
  return n_cuts;
}

/* True when the compressed trace PATH reads back as PLAIN[0..N). */
static bool
reads_back (const char *path, const HlTraceCodec *codec, const uint8_t *plain, size_t n)
{
  HlTraceReader *r;
  HlFormatError err;
  if (hl_trace_reader_open_file_codec (path, codec, &r, &err) != 0)
    return false;
  /* the image keeps the compressed file's header (flags, version) */
  bool same = r->size == n && r->data_start <= n
              && memcmp (r->data + r->data_start, plain + r->data_start, n - r->data_start) == 0;
  hl_trace_reader_free (r);
  return same;
}

/* 5. a trace whose columns grow past HL_COLUMN_STREAM_MIN in one frame:
 * streamed while polled, the same bytes as compressed whole at the end, and
 * not the bytes of a codec without streams (so the streams did the work) */
static void
large_columns (const char *dir, const HlTraceCodec *zstd)
{
  char plain[4096], whole[4096], growing[4096], nostream[4096];
  snprintf (plain, sizeof plain, "%s/large.hltrace", dir);
  snprintf (whole, sizeof whole, "%s/large-whole.hltrace", dir);
  snprintf (growing, sizeof growing, "%s/large-growing.hltrace", dir);
  snprintf (nostream, sizeof nostream, "%s/large-nostream.hltrace", dir);
  HlGenOptions o = { 5, 700000, 2, 0, 0 };
  HlGenTrace t;
  hl_gen_trace (&t, &o);
  append_file (plain, t.data, t.size, "wb");
  HlFormatError err;
  bool ok = hl_trace_compress_file (plain, whole, zstd, 0, &err) == 0;

  static const size_t header[] = { 64 };
  size_t cuts[512];
  size_t n_cuts = random_cuts (cuts, 512, header, 1, t.size, 11, 250000, 250000);
  HlTraceCompressStream *s = hl_trace_compress_stream_new (growing, growing, zstd, 0);
  ok = ok && grow_and_poll (growing, t.data, t.size, cuts, n_cuts, s, &err);
  hl_trace_compress_stream_free (s);
  hl_tap_ok (ok && same_file (growing, whole), "%zu plain bytes in %zu pieces, large columns streamed: the same file",
             t.size, n_cuts);

  HlTraceCodec plain_codec = *zstd;
  plain_codec.stream_new = NULL;
  plain_codec.stream_feed = NULL;
  plain_codec.stream_free = NULL;
  bool written = hl_trace_compress_file (plain, nostream, &plain_codec, 0, &err) == 0;
  bool other = written && !same_file (nostream, whole);
  bool back = reads_back (whole, zstd, t.data, t.size), back2 = reads_back (nostream, zstd, t.data, t.size);
  hl_tap_ok (other && back && back2, "streamed columns differ from whole ones (%d), and both read back as the plain file (%d %d)",
             other, back, back2);
  hl_gen_trace_clear (&t);
}

/* 6. the codec's streams (HlTraceCodec.stream_*): for every effort, the
 * same output however the input grew between calls, and it decompresses
 * back; two outputs one after the other decompress as the two inputs */
static void
codec_streams (const HlTraceCodec *zstd)
{
  size_t n = 700000;
  uint8_t *src = malloc (n), *back = malloc (2 * n);
  uint32_t seed = 3;
  for (size_t i = 0; src != NULL && i < n; i++)
    {
      seed = seed * 1103515245u + 12345u;
      src[i] = (uint8_t) (i % 251 < 200 ? i % 7 : seed >> 24); /* half repetitive, half noise */
    }
  bool same = src != NULL && back != NULL, decodes = same;
  uint8_t *cat = NULL;
  size_t cat_len = 0;
  for (int effort = HL_CODEC_STREAM_FAST; effort <= HL_CODEC_STREAM_STRONG_LIGHT && same; effort++)
    {
      uint8_t *out[2] = { NULL, NULL };
      size_t len[2] = { 0, 0 }, cap[2] = { 0, 0 };
      for (int way = 0; way < 2; way++)
        {
          void *st = zstd->stream_new (zstd->user, effort);
          size_t at = 0;
          bool ok = st != NULL;
          while (ok && at < n)
            {
              /* way 0: all at once; way 1: pieces of 1..99999 bytes */
              seed = seed * 1103515245u + 12345u;
              at = way == 0 ? n : at + 1 + (seed >> 8) % 99999;
              at = at < n ? at : n;
              ok = zstd->stream_feed (st, src, at, 0, &out[way], &len[way], &cap[way]) == 0;
            }
          ok = ok && zstd->stream_feed (st, src, n, 1, &out[way], &len[way], &cap[way]) == 0;
          if (st != NULL)
            zstd->stream_free (st);
          same &= ok;
        }
      same &= len[0] == len[1] && len[0] > 0 && memcmp (out[0], out[1], len[0]) == 0;
      decodes &= zstd->decompress (zstd->user, out[0], len[0], back, n) == n && memcmp (back, src, n) == 0;
      if (effort == HL_CODEC_STREAM_ORDINARY && same)
        {
          cat = malloc (2 * len[0]);
          if (cat != NULL)
            {
              memcpy (cat, out[0], len[0]);
              memcpy (cat + len[0], out[0], len[0]);
              cat_len = 2 * len[0];
            }
        }
      free (out[0]);
      free (out[1]);
    }
  hl_tap_ok (same, "codec streams: the same output however the input grew, at every effort");
  bool two = decodes && cat != NULL && zstd->decompress (zstd->user, cat, cat_len, back, 2 * n) == 2 * n
             && memcmp (back, src, n) == 0 && memcmp (back + n, src, n) == 0;
  hl_tap_ok (two, "codec streams: outputs decompress back, and two one after the other as both inputs");
  free (cat);
  free (src);
  free (back);
}

/* 7. a column bound to the end of the strong pass (its first 256 KiB
 * compress at least 64 times): the light stream until 4 MiB, then the
 * full one from the first byte; and one that ends before 4 MiB on the
 * light stream. The same packed bytes whole, in pieces up to 300 KB, and
 * in pieces that step over 4 MiB at once. */
static void
strong_column_cuts (const HlTraceCodec *zstd)
{
  size_t total_max = (size_t) 6 << 20;
  uint8_t *col = malloc (total_max);
  uint32_t seed = 5;
  for (size_t i = 0; col != NULL && i < total_max; i++)
    {
      seed = seed * 1103515245u + 12345u;
      col[i] = (uint8_t) (i % 1000 < 990 ? (i / 3) % 5 : seed >> 24);
    }
  bool same = col != NULL;
  HlStrongState end_state[2] = { HL_STRONG_UNPROBED, HL_STRONG_UNPROBED };
  for (int c = 0; c < 2 && same; c++)
    {
      size_t total = c == 0 ? (size_t) 3 << 20 : total_max;
      uint8_t *dst[3] = { NULL, NULL, NULL };
      size_t len[3] = { 0, 0, 0 };
      for (int way = 0; way < 3; way++)
        {
          HlColumnStream cs;
          memset (&cs, 0, sizeof cs);
          for (size_t at = 0; at < total;)
            {
              seed = seed * 1103515245u + 12345u;
              size_t next = way == 0 ? total : way == 1 ? at + 1 + (seed >> 8) % 300000 : at + ((size_t) 4 << 20) + 1;
              next = next < total ? next : total;
              hl_column_stream_append (&cs, zstd, col + at, next - at);
              at = next;
            }
          end_state[c] = cs.strong;
          dst[way] = malloc (total);
          len[way] = dst[way] != NULL ? hl_column_stream_finish (&cs, zstd, col, total, dst[way], total) : 0;
          hl_column_stream_clear (&cs, zstd);
        }
      same &= len[0] > 0 && len[0] == len[1] && len[1] == len[2] && memcmp (dst[0], dst[1], len[0]) == 0
              && memcmp (dst[0], dst[2], len[0]) == 0;
      for (int way = 0; way < 3; way++)
        free (dst[way]);
    }
  hl_tap_ok (same && end_state[0] == HL_STRONG_BOUND_LIGHT && end_state[1] == HL_STRONG_FULL,
             "a strong column of 3 MiB (light to the end) and of 6 MiB (full from 4 MiB): the same bytes "
             "however it grew (end states %d %d)", (int) end_state[0], (int) end_state[1]);
  free (col);
}

/* The packets a stream told of: their offsets, in order; the poll ends. */
typedef struct
{
  uint64_t offsets[65536];
  size_t   n, polls;
  uint64_t largest_poll, poll_from;
} Told;

static void
told_cb (void *user_data, const HlTraceReader *r, const HlPacketView *pkt, uint64_t from)
{
  Told *t = user_data;
  (void) r;
  if (pkt == NULL)
    {
      t->polls++;
      if (from - t->poll_from > t->largest_poll)
        t->largest_poll = from - t->poll_from;
      t->poll_from = from;
      return;
    }
  if (t->n == 0)
    t->poll_from = from;
  if (t->n < sizeof t->offsets / sizeof t->offsets[0])
    t->offsets[t->n++] = pkt->offset;
}

static size_t
count_entries (const char *dir)
{
  char cmd[4400];
  snprintf (cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
  FILE *p = popen (cmd, "r");
  size_t n = 0;
  if (p == NULL || fscanf (p, "%zu", &n) != 1)
    n = 0;
  if (p != NULL)
    pclose (p);
  return n;
}

/* 6. following only (OUT_PATH NULL, `heaplens-cli profiles`): told of the
 * packets a compressing stream is told of, in steps of at most the poll
 * limit, and nothing written anywhere */
static void
follow_only (const char *dir, const char *plain, const HlTraceCodec *zstd)
{
  static Told a, b;
  HlFormatError err;
  char out[4200], sub[4200], copy[4400];
  memset (&a, 0, sizeof a);
  memset (&b, 0, sizeof b);
  snprintf (out, sizeof out, "%s/told.hltrace", dir);
  HlTraceCompressStream *s = hl_trace_compress_stream_new (plain, out, zstd, 0);
  hl_trace_compress_stream_set_packet_func (s, told_cb, &a);
  bool ok = hl_trace_compress_stream_poll (s, &err) == 0;
  hl_trace_compress_stream_free (s);
  unlink (out);

  snprintf (sub, sizeof sub, "%s/follow", dir);
  mkdir (sub, 0700);
  snprintf (copy, sizeof copy, "%s/plain.hltrace", sub);
  size_t n;
  char *data = hl_test_read_file (plain, &n);
  ok = ok && data != NULL && append_file (copy, data, n, "wb");
  struct stat before, after;
  ok = ok && stat (copy, &before) == 0;
  s = hl_trace_compress_stream_new (copy, NULL, NULL, 0);
  hl_trace_compress_stream_set_poll_limit (s, 64 * 1024);
  hl_trace_compress_stream_set_packet_func (s, told_cb, &b);
  for (int k = 0; ok && k < 1000 && (k == 0 || hl_trace_compress_stream_taken (s) != a.poll_from); k++)
    ok = hl_trace_compress_stream_poll (s, &err) == 0;
  unsigned long long taken = hl_trace_compress_stream_taken (s);
  ok = ok && hl_trace_compress_stream_finish (s, &err) == 0;
  hl_trace_compress_stream_free (s);
  ok = ok && stat (copy, &after) == 0;
  char *again = hl_test_read_file (copy, &n);
  hl_tap_ok (ok && b.n == a.n && memcmp (a.offsets, b.offsets, a.n * sizeof a.offsets[0]) == 0 && taken == a.poll_from,
             "following only: told of the same %zu packets (%zu) as a compressing stream%s%s", a.n, b.n,
             ok ? "" : ": ", ok ? "" : err.message);
  hl_tap_ok (b.polls > 2 && b.largest_poll <= 64 * 1024 + 65536 + 64,
             "following only: %zu polls of at most the limit and one packet (largest %llu)", b.polls,
             (unsigned long long) b.largest_poll);
  hl_tap_ok (count_entries (sub) == 1 && again != NULL && memcmp (again, data, n) == 0
             && before.st_mtim.tv_sec == after.st_mtim.tv_sec && before.st_mtim.tv_nsec == after.st_mtim.tv_nsec
             && before.st_ino == after.st_ino,
             "following only: the plain file untouched, nothing written beside it");
  free (again);
  free (data);
}

int
main (void)
{
  hl_tap_plan (18);
  const HlTraceCodec *zstd = hl_trace_codec_zstd (3);
  char *dir = hl_test_tmpdir_new ("hl-format-stream");
  char plain[4096], whole[4096], growing[4096], out[4096], tmp[4200];
  snprintf (plain, sizeof plain, "%s/plain.hltrace", dir);
  snprintf (whole, sizeof whole, "%s/whole.hltrace", dir);
  snprintf (growing, sizeof growing, "%s/growing.hltrace", dir);
  snprintf (out, sizeof out, "%s/out.hltrace", dir);
  snprintf (tmp, sizeof tmp, "%s.tmp-compress", out);

  HlGenOptions o = { 91, 120000, 4, 0, 1 };
  HlGenTrace t;
  hl_gen_trace (&t, &o);
  append_file (plain, t.data, t.size, "wb");
  HlFormatError err;
  hl_trace_index_append_file (plain, &err);
  size_t n;
  uint8_t *data = (uint8_t *) hl_test_read_file (plain, &n);
  /* a cut packet at the end, as after kill -9: goes verbatim in the last frame */
  if (data != NULL && n > 64 + 1000)
    append_file (plain, data + 64, 1000, "ab");
  free (data);
  data = (uint8_t *) hl_test_read_file (plain, &n);
  if (data == NULL)
    return 1;

  const size_t frame = 192 * 1024;
  hl_tap_ok (hl_trace_compress_file (plain, whole, zstd, frame, &err) == 0, "the finished file compressed whole");

  /* 1. pieces of pseudo-random sizes: inside the file header, inside
   * packets, several frames at once */
  static const size_t in_header[] = { 10, 64 };
  size_t cuts[4096];
  size_t n_cuts = random_cuts (cuts, 4096, in_header, 2, n, 7, 9000, 300000);
  HlTraceCompressStream *s = hl_trace_compress_stream_new (growing, out, zstd, frame);
  bool ok = grow_and_poll (growing, data, n, cuts, n_cuts, s, &err);
  hl_tap_ok (ok, "%zu pieces polled and finished%s%s", n_cuts, ok ? "" : ": ", ok ? "" : err.message);
  hl_tap_ok (hl_trace_compress_stream_taken (s) == n, "every plain byte taken in");
  hl_trace_compress_stream_free (s);
  hl_tap_ok (same_file (out, whole), "byte-identical to compressing the finished file");
  char *d_plain = hl_gen_dump_file (plain, NULL, NULL), *d_out = hl_gen_dump_file (out, zstd, NULL);
  hl_tap_ok (d_plain != NULL && d_out != NULL && strcmp (d_plain, d_out) == 0, "reads back as the plain file");
  free (d_out);

  /* 2. in place (the recorder's case), one byte at a time at the start */
  unlink (growing);
  size_t n2 = 0;
  for (size_t k = 1; k <= 200; k++)
    cuts[n2++] = k;
  cuts[n2++] = n;
  s = hl_trace_compress_stream_new (growing, growing, zstd, frame);
  ok = grow_and_poll (growing, data, n, cuts, n2, s, &err);
  hl_trace_compress_stream_free (s);
  hl_tap_ok (ok && same_file (growing, whole), "in place, fed a byte at a time: the same file");

  /* 2b. in place, finished in two halves (record syncs while it ends the
   * costs): the plain file is still there after the first, and the same
   * file comes out of the second */
  unlink (growing);
  append_file (growing, data, n, "wb");
  s = hl_trace_compress_stream_new (growing, growing, zstd, frame);
  ok = hl_trace_compress_stream_poll (s, &err) == 0 && hl_trace_compress_stream_finish_frames (s, &err) == 0;
  bool still_plain = ok && !same_file (growing, whole) && hl_trace_compress_stream_taken (s) == n;
  ok = ok && hl_trace_compress_stream_finish_frames (s, &err) == 0 && hl_trace_compress_stream_finish (s, &err) == 0;
  hl_trace_compress_stream_free (s);
  hl_tap_ok (ok && still_plain && same_file (growing, whole), "finished in two halves: the same file (%d)", still_plain);

  /* 3. replaced while followed: an error, and no temporary left */
  unlink (growing);
  append_file (growing, data, n / 3, "wb");
  s = hl_trace_compress_stream_new (growing, out, zstd, frame);
  ok = hl_trace_compress_stream_poll (s, &err) == 0;
  char replacement[4200];
  snprintf (replacement, sizeof replacement, "%s.new", growing);
  append_file (replacement, data, n / 2, "wb"); /* created first: another inode */
  rename (replacement, growing);
  bool refused = hl_trace_compress_stream_poll (s, &err) != 0;
  hl_tap_ok (ok && refused && strstr (err.message, "replaced") != NULL, "a replaced file is refused (%s)",
             refused ? err.message : "accepted");
  hl_trace_compress_stream_free (s);
  hl_tap_ok (access (tmp, F_OK) != 0, "the abandoned stream's temporary output is removed");

  /* 4. an already compressed file is refused */
  s = hl_trace_compress_stream_new (whole, out, zstd, frame);
  refused = hl_trace_compress_stream_finish (s, &err) != 0;
  hl_trace_compress_stream_free (s);
  hl_tap_ok (refused && strstr (err.message, "compressed") != NULL, "a compressed file is refused (%s)",
             refused ? err.message : "accepted");

  follow_only (dir, plain, zstd);
  large_columns (dir, zstd);
  codec_streams (zstd);
  strong_column_cuts (zstd);

  free (d_plain);
  free (data);
  hl_gen_trace_clear (&t);
  hl_test_tmpdir_remove (dir);
  return hl_tap_finish ();
}
