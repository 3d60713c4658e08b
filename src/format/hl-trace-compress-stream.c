/* hl-trace-compress-stream.c — writes the compressed form of a plain trace
 * as it grows (hl-trace-compress-stream.h); hl_trace_compress_file is a
 * stream polled once, at the end. */
#define _POSIX_C_SOURCE 200809L

#include "hl-trace-compress-stream.h"
#include "hl-trace-compress.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hl-crc32c.h"
#include "hl-trace-index.h"
#include "private/hl-trace-compress-columns.h"
#include "private/hl-trace-columns.h"
#include "private/hl-trace-compress-private.h"
#include "private/hl-trace-model.h"
#include "private/hl-trace-reader-private.h"

struct HlTraceCompressStream
{
  char               *in_path;
  char               *out_path;
  char               *tmp_path;
  const HlTraceCodec *codec;
  size_t              frame_raw;
  int                 fd;            /* the temporary output, -1 until the header is written */
  bool                follow_only;   /* OUT_PATH NULL: the packets are told, nothing is written */
  bool                started;       /* the plain file's header was read */
  uint64_t            poll_limit;    /* set_poll_limit(): plain bytes a poll takes at most, 0: all */
  dev_t               dev;           /* the plain file polled: a replaced file is an error */
  ino_t               ino;
  uint32_t            pid;           /* the file header's */
  uint64_t            frame_start;   /* plain offsets: the frame being filled */
  uint64_t            frame_end;
  HlPacketHeader      sum;           /* its packets' times, ids, events, flags */
  HlColumns           cols;          /* zstd: the frame's columns (a model frame, codec 4) */
  HlColumnPack        zcols[HL_COL_COUNT]; /* packed as they grow, once large */
  HlTraceModel       *model;         /* the frame's model state, NULL until its first bytes */
  uint8_t            *raw;           /* any other codec: the frame's plain bytes */
  size_t              raw_len, raw_cap;
  bool                finished;
  bool                frames_done;   /* finish_frames(): the last frame is written */
  HlTraceStreamPacketFunc packet_func; /* told of each packet taken, or NULL */
  void               *packet_data;
  bool                index;         /* set_index(): the image ends with a trailing index */
  HlTraceIndexEntry  *entries;       /* its entries so far: the packets taken, crc checked */
  size_t              n_entries, entries_cap;
};

static void clear_columns (HlTraceCompressStream *s);

/* Free deltas compress better as varint planes (python3: -25%); sizes
 * and stacks do not (sqlite3), nor, since 6.0 writes them as differences
 * to the class's last address, addresses (python3: +5%). A large column
 * in planes is packed as it grows, plane by plane
 * (hl-trace-compress-columns.h); a small one made planes at the end. */
static bool
column_in_planes (unsigned col)
{
  return col == HL_COL_FREE;
}

static void
sum_reset (HlPacketHeader *sum)
{
  memset (sum, 0, sizeof *sum);
  sum->time_begin_ns = UINT64_MAX;
  sum->alloc_id_begin = UINT64_MAX;
}

static void
sum_add (HlPacketHeader *sum, const HlPacketHeader *h)
{
  if (h->time_begin_ns < sum->time_begin_ns)
    sum->time_begin_ns = h->time_begin_ns;
  if (h->time_end_ns > sum->time_end_ns)
    sum->time_end_ns = h->time_end_ns;
  if (h->alloc_id_end > h->alloc_id_begin)
    {
      if (h->alloc_id_begin < sum->alloc_id_begin)
        sum->alloc_id_begin = h->alloc_id_begin;
      if (h->alloc_id_end > sum->alloc_id_end)
        sum->alloc_id_end = h->alloc_id_end;
    }
  sum->n_events += h->n_events;
  sum->flags |= h->flags;
}

static char *
dup_string (const char *s)
{
  size_t n = strlen (s) + 1;
  char *d = malloc (n);
  if (d != NULL)
    memcpy (d, s, n);
  return d;
}

HlTraceCompressStream *
hl_trace_compress_stream_new (const char         *in_path,
                              const char         *out_path,
                              const HlTraceCodec *codec,
                              size_t              frame_raw)
{
  HlTraceCompressStream *s = calloc (1, sizeof *s);
  if (s == NULL)
    return NULL;
  s->in_path = dup_string (in_path);
  s->follow_only = out_path == NULL;
  s->fd = -1;
  if (s->in_path == NULL)
    {
      hl_trace_compress_stream_free (s);
      return NULL;
    }
  if (s->follow_only)
    return s; /* no frame, no codec, no output */
  s->out_path = dup_string (out_path);
  size_t tn = strlen (out_path) + sizeof ".tmp-compress";
  s->tmp_path = malloc (tn);
  if (s->out_path == NULL || s->tmp_path == NULL)
    {
      hl_trace_compress_stream_free (s);
      return NULL;
    }
  snprintf (s->tmp_path, tn, "%s.tmp-compress", out_path);
  if (frame_raw == 0)
    frame_raw = HL_ZFRAME_DEFAULT_RAW;
  if (frame_raw > HL_ZFRAME_MAX_RAW)
    frame_raw = HL_ZFRAME_MAX_RAW;
  s->frame_raw = frame_raw;
  s->codec = codec;
  for (unsigned i = 0; i < HL_COL_COUNT; i++)
    s->zcols[i].planes = column_in_planes (i);
  sum_reset (&s->sum);
  return s;
}

void
hl_trace_compress_stream_set_packet_func (HlTraceCompressStream  *s,
                                          HlTraceStreamPacketFunc func,
                                          void                   *user_data)
{
  s->packet_func = func;
  s->packet_data = user_data;
}

void
hl_trace_compress_stream_set_index (HlTraceCompressStream *s,
                                    bool                   index)
{
  s->index = index && !s->follow_only;
}

void
hl_trace_compress_stream_set_poll_limit (HlTraceCompressStream *s,
                                         unsigned long long     max_bytes)
{
  s->poll_limit = max_bytes;
}

unsigned long long
hl_trace_compress_stream_taken (const HlTraceCompressStream *s)
{
  return s->frame_end;
}

void
hl_trace_compress_stream_free (HlTraceCompressStream *s)
{
  if (s == NULL)
    return;
  if (s->fd >= 0)
    {
      close (s->fd);
      if (!s->finished)
        unlink (s->tmp_path);
    }
  clear_columns (s);
  hl_trace_model_free (s->model);
  free (s->raw);
  free (s->entries);
  free (s->in_path);
  free (s->out_path);
  free (s->tmp_path);
  free (s);
}

/* Feeds the large columns' streams with what they gained. */
static void
advance_columns (HlTraceCompressStream *s)
{
  for (unsigned i = 0; i < HL_COL_COUNT; i++)
    hl_column_pack_advance (&s->zcols[i], s->codec, i, s->cols.data[i], s->cols.len[i]);
}

static void
clear_columns (HlTraceCompressStream *s)
{
  if (s->follow_only)
    return; /* no codec, no column */
  hl_trace_columns_clear (&s->cols);
  for (unsigned i = 0; i < HL_COL_COUNT; i++)
    hl_column_pack_clear (&s->zcols[i], s->codec);
}

static int
write_all (int fd, const void *p, size_t n)
{
  const uint8_t *b = p;
  while (n > 0)
    {
      ssize_t w = write (fd, b, n);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        return -1;
      b += w;
      n -= (size_t) w;
    }
  return 0;
}

static int
io_error (HlTraceCompressStream *s, HlFormatError *err, const char *what)
{
  hl_format_error_set (err, HL_FORMAT_ERROR_IO, 0, "cannot %s %s: %s", what, s->tmp_path, strerror (errno));
  return -1;
}

/* ---- One frame's columns, compressed two at a time -------------------- */

typedef struct
{
  const HlTraceCodec *codec;
  HlColumns          *cols;               /* each job changes its own column only */
  HlColumnPack       *zcols;
  size_t              split[HL_COL_COUNT];   /* of a column packed in planes */
  uint8_t            *out[HL_COL_COUNT];
  size_t              packed[HL_COL_COUNT];
  unsigned            order[HL_COL_COUNT];  /* column_before's order */
  atomic_uint         next;
} ColumnJobs;

static void *
compress_columns (void *data)
{
  ColumnJobs *j = data;
  unsigned k;
  while ((k = atomic_fetch_add (&j->next, 1)) < HL_COL_COUNT)
    {
      unsigned i = j->order[k];
      size_t n = j->cols->len[i];
      if (n == 0)
        continue;
      size_t cap = j->codec->compress_bound (j->codec->user, n) + HL_COLUMN_PACK_SLACK;
      bool streamed = hl_column_pack_streamed (&j->zcols[i], j->codec, n);
      if (streamed)
        j->packed[i] = hl_column_pack_finish (&j->zcols[i], j->codec, i, j->cols->data[i], n, j->out[i], cap,
                                              &j->split[i]);
      if (streamed && j->packed[i] == 0 && j->zcols[i].planes)
        j->split[i] = hl_trace_columns_to_planes (j->cols, (HlColumn) i); /* its streams failed: whole */
      if (!streamed || (j->packed[i] == 0 && j->zcols[i].planes))
        j->packed[i] = hl_column_compress_whole (j->codec, j->cols->data[i], n, j->out[i], cap);
      /* its streams (zstd's tables, the copy) are not needed any more:
       * freed here, beside the other columns' work, not after the frame
       * (python3's last frame: about 9 ms of munmap the user waited for) */
      hl_column_pack_clear (&j->zcols[i], j->codec);
    }
  return NULL;
}

/* The order in which the two workers take a frame's columns: the longest
 * jobs first. A column still below HL_COLUMN_STREAM_MIN has no stream: all
 * of its compression is left (the ordinary level, then the strong one,
 * which takes 4 to 5 times as long); a streamed one has its last block
 * left. So the columns without a stream go first, the longest first, then
 * the streamed ones, the longest first. (python3's last frame: three
 * columns of 40 to 130 KiB took 9 to 12 ms each at the end of the queue,
 * after the six large ones, 0.5 to 6 ms each, and one worker waited for
 * the other.) */
static bool
column_before (const HlTraceCompressStream *s,
               unsigned                     a,
               unsigned                     b)
{
  size_t na = s->cols.len[a], nb = s->cols.len[b];
  bool whole_a = na < HL_COLUMN_STREAM_MIN, whole_b = nb < HL_COLUMN_STREAM_MIN;
  if (whole_a != whole_b)
    return whole_a;
  return na > nb;
}

/* The frame's packet in a new buffer at *PACKET: room for the packet
 * header, then the columns content (docs/trace-format.md 7c) after the
 * ZFRAME header's codec and raw size, which the caller fills. The content's
 * length, or 0. */
static size_t
pack_columns (HlTraceCompressStream *s, uint8_t **packet)
{
  HlColumns *cols = &s->cols;
  size_t split[HL_COL_COUNT] = { 0 };
  for (unsigned i = 0; i < HL_COL_COUNT; i++)
    if (!hl_column_pack_streamed (&s->zcols[i], s->codec, cols->len[i]))
      split[i] = hl_trace_columns_to_planes (cols, (HlColumn) i); /* small: planes made whole here */

  ColumnJobs j = { .codec = s->codec, .cols = cols, .zcols = s->zcols };
  size_t need = HL_PACKET_HEADER_SIZE + HL_COLS_HEADER_SIZE (HL_COL_COUNT);
  for (unsigned i = 0; i < HL_COL_COUNT; i++)
    {
      j.order[i] = i;
      need += cols->len[i] ? s->codec->compress_bound (s->codec->user, cols->len[i]) + HL_COLUMN_PACK_SLACK : 0;
    }
  for (unsigned a = 1; a < HL_COL_COUNT; a++)
    for (unsigned b = a; b > 0 && column_before (s, j.order[b], j.order[b - 1]); b--)
      {
        unsigned t = j.order[b];
        j.order[b] = j.order[b - 1];
        j.order[b - 1] = t;
      }
  uint8_t *buf = malloc (need);
  if (buf == NULL)
    return 0;
  /* each column compressed straight into its own room, then moved down */
  uint8_t *at = buf + HL_PACKET_HEADER_SIZE + HL_COLS_HEADER_SIZE (HL_COL_COUNT);
  for (unsigned i = 0; i < HL_COL_COUNT; i++)
    {
      j.out[i] = at;
      at += cols->len[i] ? s->codec->compress_bound (s->codec->user, cols->len[i]) + HL_COLUMN_PACK_SLACK : 0;
    }
  pthread_t helper;
  bool two = pthread_create (&helper, NULL, compress_columns, &j) == 0;
  compress_columns (&j);
  if (two)
    pthread_join (helper, NULL);

  uint8_t *content = buf + HL_PACKET_HEADER_SIZE;
  uint32_t n_cols = HL_COL_COUNT;
  memcpy (content + HL_ZFRAME_HEADER_SIZE, &n_cols, 4);
  uint8_t *w = content + HL_COLS_HEADER_SIZE (HL_COL_COUNT);
  bool failed = false;
  for (unsigned i = 0; i < HL_COL_COUNT; i++)
    {
      size_t p = cols->len[i] > 0 ? j.packed[i] : 0;
      failed |= cols->len[i] > 0 && p == 0;
      failed |= cols->len[i] > UINT32_MAX;
      if (p > 0)
        memmove (w, j.out[i], p);
      if (j.split[i] > 0)
        split[i] = j.split[i];
      uint32_t plain32 = (uint32_t) cols->len[i], packed32 = (uint32_t) p, split32 = (uint32_t) split[i];
      memcpy (content + HL_COL_FIELD (i, 0), &plain32, 4);
      memcpy (content + HL_COL_FIELD (i, 1), &packed32, 4);
      memcpy (content + HL_COL_FIELD (i, 2), &split32, 4);
      w += p;
    }
  if (failed)
    {
      free (buf);
      return 0;
    }
  *packet = buf;
  return (size_t) (w - content);
}

/* Writes the frame [frame_start, frame_end) as one ZFRAME packet and
 * starts the next one there. */
static int
emit_frame (HlTraceCompressStream *s, HlFormatError *err)
{
  size_t raw = (size_t) (s->frame_end - s->frame_start);
  if (raw == 0)
    return 0;
  if (raw > HL_ZFRAME_MAX_RAW)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_UNSUPPORTED, s->frame_start, "an unframeable region of %zu bytes",
                           raw);
      return -1;
    }
  uint8_t *packet = NULL;
  size_t content_size = 0;
  uint32_t id = s->codec->id;
  if (s->codec->id == HL_CODEC_ZSTD)
    {
      id = HL_CODEC_ZSTD_MODEL6;
      content_size = pack_columns (s, &packet);
    }
  else
    {
      size_t cap = HL_PACKET_HEADER_SIZE + HL_ZFRAME_HEADER_SIZE + s->codec->compress_bound (s->codec->user, raw);
      packet = malloc (cap);
      size_t z = packet == NULL ? 0
                                : s->codec->compress (s->codec->user, s->raw, raw,
                                                      packet + HL_PACKET_HEADER_SIZE + HL_ZFRAME_HEADER_SIZE,
                                                      cap - HL_PACKET_HEADER_SIZE - HL_ZFRAME_HEADER_SIZE);
      content_size = z == 0 ? 0 : HL_ZFRAME_HEADER_SIZE + z;
    }
  if (content_size == 0 || content_size > HL_ZFRAME_MAX_CONTENT)
    {
      free (packet);
      hl_format_error_set (err, HL_FORMAT_ERROR_IO, s->frame_start, "compression failed");
      return -1;
    }
  uint8_t *content = packet + HL_PACKET_HEADER_SIZE;
  uint32_t raw32 = (uint32_t) raw;
  memcpy (content, &id, 4);
  memcpy (content + 4, &raw32, 4);

  HlPacketHeader h = s->sum;
  if (h.time_begin_ns > h.time_end_ns)
    h.time_begin_ns = h.time_end_ns;
  if (h.alloc_id_begin > h.alloc_id_end)
    h.alloc_id_begin = h.alloc_id_end = 0;
  h.magic = HL_PACKET_MAGIC;
  h.content_size = (uint32_t) content_size;
  h.header_size = HL_PACKET_HEADER_SIZE;
  h.kind = HL_PACKET_KIND_ZFRAME;
  h.pid = s->pid;
  h.tid = 0;
  h.crc32c = 0;
  memcpy (packet, &h, sizeof h);
  size_t total = HL_PACKET_HEADER_SIZE + content_size;
  uint32_t crc = hl_crc32c (0, packet, total);
  memcpy (packet + offsetof (HlPacketHeader, crc32c), &crc, 4);
  int rc = write_all (s->fd, packet, total);
  free (packet);
  if (rc != 0)
    return io_error (s, err, "write");

  clear_columns (s);
  hl_trace_model_free (s->model);
  s->model = NULL; /* every frame starts a model of its own, as its joiner does */
  s->raw_len = 0;
  s->frame_start = s->frame_end;
  sum_reset (&s->sum);
  return 0;
}

/* Adds the plain bytes P[0..N) (whole packets, or the verbatim tail) to the
 * frame being filled. */
static int
take (HlTraceCompressStream *s, const uint8_t *p, size_t n, HlFormatError *err)
{
  int rc = 0;
  if (s->follow_only)
    ; /* only where the packets taken end */
  else if (s->codec->id == HL_CODEC_ZSTD)
    {
      if (s->model == NULL)
        s->model = hl_trace_model_new ();
      rc = s->model == NULL ? -1 : hl_trace_columns_split_with (p, n, &s->cols, s->model);
    }
  else
    {
      if (s->raw_len + n > s->raw_cap)
        {
          size_t cap = s->raw_cap ? s->raw_cap : 65536;
          while (cap < s->raw_len + n)
            cap *= 2;
          uint8_t *d = realloc (s->raw, cap);
          if (d == NULL)
            rc = -1;
          else
            {
              s->raw = d;
              s->raw_cap = cap;
            }
        }
      if (rc == 0)
        {
          memcpy (s->raw + s->raw_len, p, n);
          s->raw_len += n;
        }
    }
  if (rc != 0)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_IO, s->frame_end, "out of memory compressing the trace");
      return -1;
    }
  s->frame_end += n;
  return 0;
}

/* Notes PKT, a packet taken in, for the trailing index: the INFO and
 * EVENTS packets of the file's pid with a valid crc, as
 * hl_trace_index_append_file's walk finds them. */
static int
index_packet (HlTraceCompressStream *s, const HlTraceReader *r, const HlPacketView *pkt, HlFormatError *err)
{
  if (!hl_trace_packet_check_crc (r, pkt))
    return 0;
  if (s->n_entries == s->entries_cap)
    {
      size_t cap = s->entries_cap ? s->entries_cap * 2 : 1024;
      HlTraceIndexEntry *e = realloc (s->entries, cap * sizeof *e);
      if (e == NULL)
        {
          hl_format_error_set (err, HL_FORMAT_ERROR_IO, pkt->offset, "out of memory indexing the trace");
          return -1;
        }
      s->entries = e;
      s->entries_cap = cap;
    }
  hl_trace_index_entry_from_packet (&s->entries[s->n_entries++], pkt);
  return 0;
}

/* Takes in the trailing index of the packets taken (docs/trace-format.md
 * 7) after the plain file's last byte, at the end of the last frame, as if
 * hl_trace_index_append_file had appended it to the finished plain file;
 * nothing when the plain file ends with one already. */
static int
take_index (HlTraceCompressStream *s, const HlTraceReader *r, HlFormatError *err)
{
  if (hl_trace_index_present (r))
    return 0;
  size_t size = 0;
  uint8_t *index = hl_trace_index_encode (s->entries, s->n_entries, s->pid, s->frame_end, &size);
  if (index == NULL)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_IO, s->frame_end, "out of memory indexing the trace");
      return -1;
    }
  /* a frame holds at most HL_ZFRAME_MAX_RAW bytes: the index may need one of its own */
  int rc = 0;
  if (s->frame_end - s->frame_start + size > HL_ZFRAME_MAX_RAW)
    rc = emit_frame (s, err);
  rc = rc == 0 ? take (s, index, size, err) : rc;
  free (index);
  return rc;
}

/* Writes the output's file header: the plain one, marked compressed. */
static int
start_output (HlTraceCompressStream *s, const HlTraceReader *r, HlFormatError *err)
{
  if (r->header.flags & HL_TRACE_FLAG_COMPRESSED)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_UNSUPPORTED, 20, "%s is compressed already", s->in_path);
      return -1;
    }
  if (s->follow_only)
    {
      s->pid = r->header.pid;
      s->frame_start = s->frame_end = r->data_start;
      s->started = true;
      return 0;
    }
  s->fd = open (s->tmp_path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (s->fd < 0)
    return io_error (s, err, "write");
  HlTraceFileHeader h = r->header;
  h.flags |= HL_TRACE_FLAG_COMPRESSED;
  if (s->codec->id == HL_CODEC_ZSTD)
    {
      /* model frames are 5.0: an older reader says so instead of skipping them */
      h.version_major = HL_TRACE_VERSION_MAJOR;
      h.version_minor = HL_TRACE_VERSION_MINOR;
    }
  uint8_t hbuf[65536];
  memcpy (hbuf, r->data, r->data_start);
  memcpy (hbuf, &h, sizeof h);
  if (write_all (s->fd, hbuf, r->data_start) != 0)
    return io_error (s, err, "write");
  s->pid = r->header.pid;
  s->frame_start = s->frame_end = r->data_start;
  s->started = true;
  return 0;
}

/* Takes in every whole packet there is; with FINAL, the rest too, and
 * writes the last frame. */
static int
poll_file (HlTraceCompressStream *s, bool final, HlFormatError *err)
{
  struct stat st;
  if (stat (s->in_path, &st) != 0)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_IO, 0, "cannot read %s: %s", s->in_path, strerror (errno));
      return -1;
    }
  if (s->started && (st.st_dev != s->dev || st.st_ino != s->ino))
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_IO, 0, "%s was replaced while it was %s", s->in_path,
                           s->follow_only ? "followed" : "compressed");
      return -1;
    }
  s->dev = st.st_dev;
  s->ino = st.st_ino;
  if (!s->started && !final && (uint64_t) st.st_size < HL_TRACE_FILE_HEADER_SIZE)
    return 0; /* the preload has not written the file header yet */
  if (s->started && (uint64_t) st.st_size == s->frame_end && !final)
    return 0; /* nothing new */

  HlTraceReader *r;
  if (hl_trace_reader_open_file (s->in_path, &r, err) != 0)
    return -1;
  int rc = -1;
  if (!s->started && start_output (s, r, err) != 0)
    goto out;
  if (r->size < s->frame_end)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_IO, r->size, "%s shrank while it was %s", s->in_path,
                           s->follow_only ? "followed" : "compressed");
      goto out;
    }
  /* Frames are cut at packet starts found by the header walk; every byte
   * of the plain file is in exactly one frame, which holds at most
   * frame_raw bytes plus one packet (or the verbatim tail). */
  r->pos = s->frame_end;
  uint64_t poll_start = s->frame_end;
  HlPacketView pkt;
  while ((final || s->poll_limit == 0 || s->frame_end - poll_start < s->poll_limit)
         && hl_trace_reader_next_header (r, &pkt, NULL) > 0)
    {
      uint64_t pend = pkt.offset + pkt.header.header_size + pkt.header.content_size;
      if (!s->follow_only && pend - s->frame_start > s->frame_raw && s->frame_end > s->frame_start
          && emit_frame (s, err) != 0)
        goto out;
      if (s->packet_func != NULL)
        s->packet_func (s->packet_data, r, &pkt, s->frame_end);
      if (s->index && index_packet (s, r, &pkt, err) != 0)
        goto out;
      if (take (s, r->data + s->frame_end, (size_t) (pend - s->frame_end), err) != 0)
        goto out;
      sum_add (&s->sum, &pkt.header);
    }
  /* the final frame's columns are finished two at a time by emit_frame */
  if (!s->follow_only && s->codec->id == HL_CODEC_ZSTD && !final)
    advance_columns (s);
  if (s->packet_func != NULL)
    s->packet_func (s->packet_data, r, NULL, s->frame_end);
  /* following only: the bytes after the last whole packet are not taken */
  if (final && !s->follow_only)
    {
      /* trailing bytes (index, damage, a cut packet) go verbatim in the last frame */
      if (r->size > s->frame_end && take (s, r->data + s->frame_end, (size_t) (r->size - s->frame_end), err) != 0)
        goto out;
      if (s->index && take_index (s, r, err) != 0)
        goto out;
      if (emit_frame (s, err) != 0)
        goto out;
    }
  rc = 0;
out:
  hl_trace_reader_free (r);
  return rc;
}

int
hl_trace_compress_stream_poll (HlTraceCompressStream *s,
                               HlFormatError         *err)
{
  return poll_file (s, false, err);
}

int
hl_trace_compress_stream_finish_frames (HlTraceCompressStream *s,
                                        HlFormatError         *err)
{
  if (s->frames_done)
    return 0;
  if (poll_file (s, true, err) != 0)
    return -1;
  s->frames_done = true;
  return 0;
}

int
hl_trace_compress_stream_finish (HlTraceCompressStream *s,
                                 HlFormatError         *err)
{
  if (hl_trace_compress_stream_finish_frames (s, err) != 0)
    return -1;
  if (s->follow_only)
    {
      s->finished = true;
      return 0;
    }
  if (fsync (s->fd) != 0)
    return io_error (s, err, "write");
  int fd = s->fd;
  s->fd = -1;
  if (close (fd) != 0)
    {
      unlink (s->tmp_path);
      return io_error (s, err, "write");
    }
  if (rename (s->tmp_path, s->out_path) != 0)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_IO, 0, "cannot rename %s to %s: %s", s->tmp_path, s->out_path,
                           strerror (errno));
      unlink (s->tmp_path);
      return -1;
    }
  s->finished = true;
  return 0;
}

static int
compress_file (const char         *in_path,
               const char         *out_path,
               const HlTraceCodec *codec,
               size_t              frame_raw,
               bool                index,
               HlFormatError      *err)
{
  HlTraceCompressStream *s = hl_trace_compress_stream_new (in_path, out_path, codec, frame_raw);
  if (s == NULL)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_IO, 0, "out of memory compressing %s", in_path);
      return -1;
    }
  hl_trace_compress_stream_set_index (s, index);
  int rc = hl_trace_compress_stream_finish (s, err);
  hl_trace_compress_stream_free (s);
  return rc;
}

int
hl_trace_compress_file (const char         *in_path,
                        const char         *out_path,
                        const HlTraceCodec *codec,
                        size_t              frame_raw,
                        HlFormatError      *err)
{
  return compress_file (in_path, out_path, codec, frame_raw, false, err);
}

int
hl_trace_compress_file_indexed (const char         *in_path,
                                const char         *out_path,
                                const HlTraceCodec *codec,
                                size_t              frame_raw,
                                HlFormatError      *err)
{
  return compress_file (in_path, out_path, codec, frame_raw, true, err);
}
