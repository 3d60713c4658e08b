/* hl-trace-compress.c — compressed traces (hl-trace-codec.h): the whole
 * decompression at open. The rewrite of a plain trace into frames is
 * hl-trace-compress-stream.c. */
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
#include "private/hl-trace-columns.h"
#include "hl-trace-codec.h"
#include "private/hl-trace-compress-private.h"
#include "private/hl-trace-reader-private.h"

/* A columns frame (hl-trace-compress-private.h; codec 2 has the first
 * HL_COL_COUNT_V2 columns, codec 3 (4.0's model frames) the first
 * HL_COL_COUNT_V4, codec 4 (5.0's) the first HL_COL_COUNT_V5, codec 5
 * (6.0's) all HL_COL_COUNT):
 * decompresses and joins into DST; RAW bytes or 0. */
static size_t
unpack_columns (const HlTraceCodec *codec, uint32_t codec_id, const uint8_t *content, size_t size, uint8_t *dst,
                size_t raw)
{
  unsigned want = codec_id == HL_CODEC_ZSTD_MODEL6   ? HL_COL_COUNT
                  : codec_id == HL_CODEC_ZSTD_MODEL5 ? HL_COL_COUNT_V5
                  : codec_id == HL_CODEC_ZSTD_MODEL  ? HL_COL_COUNT_V4
                                                     : HL_COL_COUNT_V2;
  HlJoinKind kind = codec_id == HL_CODEC_ZSTD_MODEL6   ? HL_JOIN_MODEL
                    : codec_id == HL_CODEC_ZSTD_MODEL5 ? HL_JOIN_MODEL_5
                    : codec_id == HL_CODEC_ZSTD_MODEL  ? HL_JOIN_MODEL_4
                                                       : HL_JOIN_COLUMNS;
  if (size < HL_COLS_HEADER_SIZE (want))
    return 0;
  uint32_t n_cols, plain[HL_COL_COUNT] = { 0 }, packed[HL_COL_COUNT] = { 0 }, split32;
  size_t split[HL_COL_COUNT] = { 0 };
  memcpy (&n_cols, content + HL_ZFRAME_HEADER_SIZE, 4);
  if (n_cols != want)
    return 0;
  uint64_t sum_plain = 0, sum_packed = 0;
  for (unsigned i = 0; i < want; i++)
    {
      memcpy (&plain[i], content + HL_COL_FIELD (i, 0), 4);
      memcpy (&packed[i], content + HL_COL_FIELD (i, 1), 4);
      memcpy (&split32, content + HL_COL_FIELD (i, 2), 4);
      split[i] = split32;
      if ((plain[i] == 0) != (packed[i] == 0) || split32 > plain[i])
        return 0;
      sum_plain += plain[i];
      sum_packed += packed[i];
    }
  /* the columns hold the raw bytes plus at most a length varint per event
   * or chunk (one per two raw bytes, of at most 3 bytes for a packet) */
  if (sum_packed != size - HL_COLS_HEADER_SIZE (want) || sum_plain > 2 * (uint64_t) raw + 4096)
    return 0;
  uint8_t *buf = malloc (sum_plain ? sum_plain : 1);
  if (buf == NULL)
    return 0;
  const uint8_t *src = content + HL_COLS_HEADER_SIZE (want);
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
  if (got != 0 && hl_trace_columns_join_any (data, len, split, kind, dst, raw) != 0)
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
  uint32_t       n_events;     /* its header's count of the events inside */
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
      size_t got = f->codec_id == HL_CODEC_ZSTD_COLUMNS || f->codec_id == HL_CODEC_ZSTD_MODEL
                       || f->codec_id == HL_CODEC_ZSTD_MODEL5 || f->codec_id == HL_CODEC_ZSTD_MODEL6
                     ? unpack_columns (w->codec, f->codec_id, f->content, f->content_size, w->image + f->out, f->raw)
                     : w->codec->decompress (w->codec->user, f->content + HL_ZFRAME_HEADER_SIZE,
                                             f->content_size - HL_ZFRAME_HEADER_SIZE, w->image + f->out, f->raw);
      f->failed = got != f->raw;
    }
  return NULL;
}

/* The events the frame at POS (cut by the file's end) says it holds, when
 * its header is there and looks like a frame's; 0 otherwise. */
static uint64_t
frame_claim (const HlTraceReader *r, uint64_t pos)
{
  HlPacketHeader h;
  if (r->size - pos < sizeof h)
    return 0;
  memcpy (&h, r->data + pos, sizeof h);
  return h.magic == HL_PACKET_MAGIC && h.kind == HL_PACKET_KIND_ZFRAME ? h.n_events : 0;
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
          /* a damaged header: go on at the next frame that validates with
           * its crc (frames are independent); none after a header that
           * runs past the end: the file was cut inside that frame */
          uint64_t next = hl_trace_reader_resync (r, pos + 1, true);
          if (next >= r->size && e.code == HL_FORMAT_ERROR_TRUNCATED)
            {
              s->frames_cut++;
              s->frame_events_cut += frame_claim (r, pos);
              s->bytes_ignored_at_end += r->size - pos;
              break;
            }
          s->frames_damaged++;
          s->frame_regions_unknown++;
          s->bytes_skipped += next - pos;
          pos = next;
          continue;
        }
      uint64_t total = (uint64_t) pkt.header.header_size + pkt.header.content_size;
      /* the costs cache after the frames (section 7e) is not part of the image */
      if (pkt.header.kind == HL_PACKET_KIND_COSTS)
        {
          pos += total;
          continue;
        }
      uint32_t codec_id = 0, raw = 0;
      if (pkt.header.content_size >= HL_ZFRAME_HEADER_SIZE)
        {
          memcpy (&codec_id, pkt.content, 4);
          memcpy (&raw, pkt.content + 4, 4);
        }
      if (!hl_trace_packet_check_crc (r, &pkt))
        {
          /* the header may be the damaged part (a wrong size): the next
           * frame that validates, if it comes before the one the size
           * says */
          uint64_t next = hl_trace_reader_resync (r, pos + 1, true);
          if (next > pos + total)
            next = pos + total;
          s->frames_damaged++;
          s->frame_events_damaged += pkt.header.n_events;
          s->bytes_skipped += next - pos;
          pos = next;
          continue;
        }
      pos += total;
      if (pkt.header.kind != HL_PACKET_KIND_ZFRAME || pkt.header.content_size < HL_ZFRAME_HEADER_SIZE
          || raw > HL_ZFRAME_MAX_RAW
          || (codec_id != codec->id
              && !((codec_id == HL_CODEC_ZSTD_COLUMNS || codec_id == HL_CODEC_ZSTD_MODEL
                    || codec_id == HL_CODEC_ZSTD_MODEL5 || codec_id == HL_CODEC_ZSTD_MODEL6)
                   && codec->id == HL_CODEC_ZSTD)))
        {
          s->frames_damaged++;
          s->frame_events_damaged += pkt.header.n_events;
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
      frames[n_frames++]
          = (Frame) { pkt.content, pkt.header.content_size, codec_id, raw, total, planned, pkt.header.n_events, false };
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
          s->frame_events_damaged += f->n_events;
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
