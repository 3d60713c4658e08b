/* hl-trace-compress.c — compressed traces (hl-trace-codec.h): the whole
 * decompression at open, and the rewrite of a plain trace into frames. */
#define _POSIX_C_SOURCE 200809L

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
#include "hl-trace-columns.h"
#include "hl-trace-codec.h"
#include "hl-trace-reader-private.h"

/* A columns frame (docs/trace-format.md 7c): codec raw_size n_columns
 * (plain_len packed_len) x n_columns, then the packed columns, each
 * compressed on its own. Decompresses and joins into DST; RAW bytes or 0. */
#define COLS_HEADER_SIZE (HL_ZFRAME_HEADER_SIZE + 4u + 12u * HL_COL_COUNT)
#define COL_FIELD(i, k)  (HL_ZFRAME_HEADER_SIZE + 4u + 12u * (i) + 4u * (k))

static size_t
unpack_columns (const HlTraceCodec *codec, const uint8_t *content, size_t size, uint8_t *dst, size_t raw)
{
  if (size < COLS_HEADER_SIZE)
    return 0;
  uint32_t n_cols, plain[HL_COL_COUNT], packed[HL_COL_COUNT], split32;
  size_t split[HL_COL_COUNT];
  memcpy (&n_cols, content + HL_ZFRAME_HEADER_SIZE, 4);
  if (n_cols != HL_COL_COUNT)
    return 0;
  uint64_t sum_plain = 0, sum_packed = 0;
  for (unsigned i = 0; i < HL_COL_COUNT; i++)
    {
      memcpy (&plain[i], content + COL_FIELD (i, 0), 4);
      memcpy (&packed[i], content + COL_FIELD (i, 1), 4);
      memcpy (&split32, content + COL_FIELD (i, 2), 4);
      split[i] = split32;
      if ((plain[i] == 0) != (packed[i] == 0) || split32 > plain[i])
        return 0;
      sum_plain += plain[i];
      sum_packed += packed[i];
    }
  /* the columns hold the raw bytes plus at most a length varint per event
   * or chunk (one per two raw bytes, of at most 3 bytes for a packet) */
  if (sum_packed != size - COLS_HEADER_SIZE || sum_plain > 2 * (uint64_t) raw + 4096)
    return 0;
  uint8_t *buf = malloc (sum_plain ? sum_plain : 1);
  if (buf == NULL)
    return 0;
  const uint8_t *src = content + COLS_HEADER_SIZE;
  const uint8_t *data[HL_COL_COUNT];
  size_t len[HL_COL_COUNT];
  uint8_t *at = buf;
  size_t got = raw;
  for (unsigned i = 0; i < HL_COL_COUNT; i++)
    {
      data[i] = at;
      len[i] = plain[i];
      if (plain[i] > 0 && codec->decompress (codec->user, src, packed[i], at, plain[i]) != plain[i])
        got = 0;
      src += packed[i];
      at += plain[i];
    }
  if (got != 0 && hl_trace_columns_join_planes (data, len, split, dst, raw) != 0)
    got = 0;
  free (buf);
  return got;
}

/* One frame to decompress: where its content is and where its bytes go in
 * the image (as if every frame before it decompressed). */
typedef struct
{
  const uint8_t *content;
  uint32_t       content_size;
  uint32_t       codec_id;
  uint32_t       raw;
  uint64_t       total;        /* the ZFRAME packet's size in the file */
  uint64_t       out;          /* offset in the image */
  bool           failed;
} Frame;

typedef struct
{
  const HlTraceCodec *codec;
  Frame              *frames;
  size_t              n_frames;
  uint8_t            *image;
  atomic_size_t       next;
} Work;

static void *
decompress_frames (void *data)
{
  Work *w = data;
  size_t i;

  while ((i = atomic_fetch_add (&w->next, 1)) < w->n_frames)
    {
      Frame *f = &w->frames[i];
      size_t got = f->codec_id == HL_CODEC_ZSTD_COLUMNS
                     ? unpack_columns (w->codec, f->content, f->content_size, w->image + f->out, f->raw)
                     : w->codec->decompress (w->codec->user, f->content + HL_ZFRAME_HEADER_SIZE,
                                             f->content_size - HL_ZFRAME_HEADER_SIZE, w->image + f->out, f->raw);
      f->failed = got != f->raw;
    }
  return NULL;
}

/* Frames are independent: the walk lists them (checking what the serial
 * reading checked: header, crc, codec, raw size), then up to
 * MAX_DECOMPRESS_THREADS threads decompress them straight into their place
 * (the codecs are thread-safe: no shared context). A frame that fails to
 * decompress is dropped afterwards by moving the ones after it down, so
 * the image is the one frame-by-frame reading would give. */
#define MAX_DECOMPRESS_THREADS 4

int
hl_trace_decompress_image (HlTraceReader *r, const HlTraceCodec *codec, HlFormatError *err)
{
  if (codec == NULL || codec->decompress == NULL)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_UNSUPPORTED, 20,
                           "the trace is compressed and this program reads plain traces only");
      return -1;
    }
  HlTraceReaderStats *s = &r->stats;
  Frame *frames = NULL;
  size_t n_frames = 0, cap_frames = 0;
  uint64_t planned = r->data_start;
  uint8_t *image = NULL;

  uint64_t pos = r->data_start;
  while (pos < r->size)
    {
      HlPacketView pkt;
      HlFormatError e;
      if (hl_trace_packet_check_header (r, pos, &pkt, &e) != 0)
        {
          if (e.code == HL_FORMAT_ERROR_TRUNCATED)
            {
              s->bytes_ignored_at_end += r->size - pos;
              break;
            }
          /* a damaged header: the rest cannot be framed reliably */
          s->frames_damaged++;
          s->bytes_skipped += r->size - pos;
          break;
        }
      uint64_t total = (uint64_t) pkt.header.header_size + pkt.header.content_size;
      pos += total;
      /* the costs cache after the frames (section 7e) is not part of the image */
      if (pkt.header.kind == HL_PACKET_KIND_COSTS)
        continue;
      uint32_t codec_id = 0, raw = 0;
      if (pkt.header.content_size >= HL_ZFRAME_HEADER_SIZE)
        {
          memcpy (&codec_id, pkt.content, 4);
          memcpy (&raw, pkt.content + 4, 4);
        }
      if (pkt.header.kind != HL_PACKET_KIND_ZFRAME || pkt.header.content_size < HL_ZFRAME_HEADER_SIZE
          || !hl_trace_packet_check_crc (r, &pkt) || raw > HL_ZFRAME_MAX_RAW
          || (codec_id != codec->id && !(codec_id == HL_CODEC_ZSTD_COLUMNS && codec->id == HL_CODEC_ZSTD)))
        {
          s->frames_damaged++;
          s->bytes_skipped += total;
          continue;
        }
      if (planned + raw > HL_TRACE_MAX_IMAGE)
        {
          hl_format_error_set (err, HL_FORMAT_ERROR_UNSUPPORTED, pkt.offset,
                               "the trace decompresses to more than %llu bytes",
                               (unsigned long long) HL_TRACE_MAX_IMAGE);
          free (frames);
          return -1;
        }
      if (n_frames == cap_frames)
        {
          size_t c = cap_frames ? 2 * cap_frames : 256;
          Frame *n = realloc (frames, c * sizeof *frames);
          if (n == NULL)
            goto oom;
          frames = n;
          cap_frames = c;
        }
      frames[n_frames++] = (Frame) { pkt.content, pkt.header.content_size, codec_id, raw, total, planned, false };
      planned += raw;
    }

  image = malloc (planned > 0 ? planned : 1);
  if (image == NULL)
    goto oom;
  memcpy (image, r->data, r->data_start);
  {
    Work w = { .codec = codec, .frames = frames, .n_frames = n_frames, .image = image };
    pthread_t threads[MAX_DECOMPRESS_THREADS - 1];
    long cpus = sysconf (_SC_NPROCESSORS_ONLN);
    size_t n_threads = cpus > 1 ? (size_t) cpus : 1, started = 0;

    atomic_init (&w.next, 0);
    if (n_threads > MAX_DECOMPRESS_THREADS)
      n_threads = MAX_DECOMPRESS_THREADS;
    /* Small traces are not worth a thread. */
    if (planned < ((uint64_t) 4 << 20))
      n_threads = 1;
    for (size_t t = 0; t + 1 < n_threads; t++)
      if (pthread_create (&threads[started], NULL, decompress_frames, &w) == 0)
        started++;
    decompress_frames (&w);
    for (size_t t = 0; t < started; t++)
      pthread_join (threads[t], NULL);
  }
  /* Frames that did not decompress are skipped, as if never there. */
  uint64_t len = r->data_start;
  for (size_t i = 0; i < n_frames; i++)
    {
      const Frame *f = &frames[i];
      if (f->failed)
        {
          s->frames_damaged++;
          s->bytes_skipped += f->total;
          continue;
        }
      if (f->out != len)
        memmove (image + len, image + f->out, f->raw);
      len += f->raw;
    }
  free (frames);

  /* The image is the plain trace: clear the flag in its header. */
  HlTraceFileHeader h;
  memcpy (&h, image, sizeof h);
  h.flags &= ~(uint32_t) HL_TRACE_FLAG_COMPRESSED;
  memcpy (image, &h, sizeof h);
  r->image = image;
  r->data = image;
  r->size = len;
  r->compressed = true;
  if (hl_trace_open_data (r, err) != 0)
    return -1;
  return 0;

oom:
  free (frames);
  free (image);
  hl_format_error_set (err, HL_FORMAT_ERROR_IO, 0, "out of memory decompressing the trace");
  return -1;
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

int
hl_trace_compress_file (const char          *in_path,
                        const char          *out_path,
                        const HlTraceCodec  *codec,
                        size_t               frame_raw,
                        HlFormatError       *err)
{
  if (frame_raw == 0)
    frame_raw = HL_ZFRAME_DEFAULT_RAW;
  if (frame_raw > HL_ZFRAME_MAX_RAW)
    frame_raw = HL_ZFRAME_MAX_RAW;
  HlTraceReader *r;
  if (hl_trace_reader_open_file (in_path, &r, err) != 0)
    return -1;
  int rc = -1, fd = -1;
  uint8_t *zbuf = NULL;
  char tmp[4096];
  snprintf (tmp, sizeof tmp, "%s.tmp-compress", out_path);
  if (r->header.flags & HL_TRACE_FLAG_COMPRESSED)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_UNSUPPORTED, 20, "%s is compressed already", in_path);
      goto out;
    }
  size_t zcap = HL_ZFRAME_HEADER_SIZE + codec->compress_bound (codec->user, frame_raw + HL_PACKET_MAX_SIZE);
  zbuf = malloc (HL_PACKET_HEADER_SIZE + zcap);
  fd = open (tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (zbuf == NULL || fd < 0)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_IO, 0, "cannot write %s: %s", tmp, strerror (errno));
      goto out;
    }
  HlTraceFileHeader h = r->header;
  h.flags |= HL_TRACE_FLAG_COMPRESSED;
  if (codec->id == HL_CODEC_ZSTD)
    {
      /* columns frames are 3.0: an older reader says so instead of skipping them */
      h.version_major = HL_TRACE_VERSION_MAJOR;
      h.version_minor = HL_TRACE_VERSION_MINOR;
    }
  uint8_t hbuf[65536];
  memcpy (hbuf, r->data, r->data_start);
  memcpy (hbuf, &h, sizeof h);
  if (write_all (fd, hbuf, r->data_start) != 0)
    goto write_error;

  /* Frames cut at packet starts found by the header walk; every byte of
   * the plain file is in exactly one frame. */
  uint64_t start = r->data_start;
  HlPacketView pkt;
  while (start < r->size)
    {
      HlPacketHeader sum;
      memset (&sum, 0, sizeof sum);
      sum.time_begin_ns = UINT64_MAX;
      sum.alloc_id_begin = UINT64_MAX;
      uint64_t end = start;
      r->pos = start;
      while (hl_trace_reader_next_header (r, &pkt, NULL) > 0)
        {
          uint64_t pend = pkt.offset + pkt.header.header_size + pkt.header.content_size;
          if (pend - start > frame_raw && end > start)
            break;
          end = pend;
          if (pkt.header.time_begin_ns < sum.time_begin_ns)
            sum.time_begin_ns = pkt.header.time_begin_ns;
          if (pkt.header.time_end_ns > sum.time_end_ns)
            sum.time_end_ns = pkt.header.time_end_ns;
          if (pkt.header.alloc_id_end > pkt.header.alloc_id_begin)
            {
              if (pkt.header.alloc_id_begin < sum.alloc_id_begin)
                sum.alloc_id_begin = pkt.header.alloc_id_begin;
              if (pkt.header.alloc_id_end > sum.alloc_id_end)
                sum.alloc_id_end = pkt.header.alloc_id_end;
            }
          sum.n_events += pkt.header.n_events;
          sum.flags |= pkt.header.flags;
        }
      if (end == start || r->pos >= r->size)
        end = r->size; /* trailing bytes (index, damage, a cut packet) go verbatim in the last frame */
      if (sum.time_begin_ns > sum.time_end_ns)
        sum.time_begin_ns = sum.time_end_ns;
      if (sum.alloc_id_begin > sum.alloc_id_end)
        sum.alloc_id_begin = sum.alloc_id_end = 0;
      /* a frame holds at most frame_raw + one packet, except a verbatim tail */
      size_t raw = (size_t) (end - start);
      if (raw > HL_ZFRAME_MAX_RAW)
        {
          hl_format_error_set (err, HL_FORMAT_ERROR_UNSUPPORTED, start, "an unframeable region of %zu bytes", raw);
          goto out;
        }
      if (HL_ZFRAME_HEADER_SIZE + codec->compress_bound (codec->user, raw) > zcap)
        {
          zcap = HL_ZFRAME_HEADER_SIZE + codec->compress_bound (codec->user, raw);
          uint8_t *nz = realloc (zbuf, HL_PACKET_HEADER_SIZE + zcap);
          if (nz == NULL)
            goto write_error;
          zbuf = nz;
        }
      uint32_t id = codec->id;
      size_t zlen = 0;
      uint8_t *content = NULL;
      if (codec->id == HL_CODEC_ZSTD)
        {
          /* columns frame */
          HlColumns cols = { 0 };
          if (hl_trace_columns_split (r->data + start, raw, &cols) != 0)
            goto write_error;
          /* addresses and free deltas compress better as varint planes
           * (python3: -22% and -25%); sizes and stacks do not (sqlite3) */
          size_t split[HL_COL_COUNT] = { 0 };
          split[HL_COL_ADDR] = hl_trace_columns_to_planes (&cols, HL_COL_ADDR);
          split[HL_COL_FREE] = hl_trace_columns_to_planes (&cols, HL_COL_FREE);
          size_t need = COLS_HEADER_SIZE;
          for (unsigned i = 0; i < HL_COL_COUNT; i++)
            need += cols.len[i] ? codec->compress_bound (codec->user, cols.len[i]) : 0;
          if (need > zcap)
            {
              uint8_t *nz = realloc (zbuf, HL_PACKET_HEADER_SIZE + need);
              if (nz == NULL)
                {
                  hl_trace_columns_clear (&cols);
                  goto write_error;
                }
              zbuf = nz;
              zcap = need;
            }
          content = zbuf + HL_PACKET_HEADER_SIZE;
          uint8_t *at = content + COLS_HEADER_SIZE;
          uint32_t n_cols = HL_COL_COUNT;
          memcpy (content + HL_ZFRAME_HEADER_SIZE, &n_cols, 4);
          bool failed = false;
          for (unsigned i = 0; i < HL_COL_COUNT; i++)
            {
              size_t p = 0;
              if (cols.len[i] > 0)
                {
                  p = codec->compress (codec->user, cols.data[i], cols.len[i], at,
                                       (size_t) (content + zcap - at));
                  failed |= p == 0;
                }
              uint32_t plain32 = (uint32_t) cols.len[i], packed32 = (uint32_t) p, split32 = (uint32_t) split[i];
              failed |= cols.len[i] > UINT32_MAX;
              memcpy (content + COL_FIELD (i, 0), &plain32, 4);
              memcpy (content + COL_FIELD (i, 1), &packed32, 4);
              memcpy (content + COL_FIELD (i, 2), &split32, 4);
              at += p;
            }
          hl_trace_columns_clear (&cols);
          zlen = (size_t) (at - content) - HL_ZFRAME_HEADER_SIZE;
          id = HL_CODEC_ZSTD_COLUMNS;
          if (failed)
            zlen = 0;
        }
      else
        {
          content = zbuf + HL_PACKET_HEADER_SIZE;
          zlen = codec->compress (codec->user, r->data + start, raw, content + HL_ZFRAME_HEADER_SIZE,
                                  zcap - HL_ZFRAME_HEADER_SIZE);
        }
      if (zlen == 0 || HL_ZFRAME_HEADER_SIZE + zlen > HL_ZFRAME_MAX_CONTENT)
        {
          hl_format_error_set (err, HL_FORMAT_ERROR_IO, start, "compression failed");
          goto out;
        }
      uint32_t raw32 = (uint32_t) raw;
      memcpy (content, &id, 4);
      memcpy (content + 4, &raw32, 4);
      sum.magic = HL_PACKET_MAGIC;
      sum.content_size = (uint32_t) (HL_ZFRAME_HEADER_SIZE + zlen);
      sum.header_size = HL_PACKET_HEADER_SIZE;
      sum.kind = HL_PACKET_KIND_ZFRAME;
      sum.pid = r->header.pid;
      sum.tid = 0;
      sum.crc32c = 0;
      memcpy (zbuf, &sum, sizeof sum);
      size_t total = HL_PACKET_HEADER_SIZE + sum.content_size;
      uint32_t crc = hl_crc32c (0, zbuf, total);
      memcpy (zbuf + offsetof (HlPacketHeader, crc32c), &crc, 4);
      if (write_all (fd, zbuf, total) != 0)
        goto write_error;
      start = end;
    }
  if (fsync (fd) != 0 || close (fd) != 0)
    {
      fd = -1;
      goto write_error;
    }
  fd = -1;
  if (rename (tmp, out_path) != 0)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_IO, 0, "cannot rename %s to %s: %s", tmp, out_path, strerror (errno));
      unlink (tmp);
      goto out;
    }
  rc = 0;
  goto out;

write_error:
  hl_format_error_set (err, HL_FORMAT_ERROR_IO, 0, "cannot write %s: %s", tmp, strerror (errno));
  unlink (tmp);
out:
  if (fd >= 0)
    {
      close (fd);
      if (rc != 0)
        unlink (tmp);
    }
  free (zbuf);
  hl_trace_reader_free (r);
  return rc;
}
