/* hl-trace-reader.c — the packet walk over a trace in memory or mapped. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hl-crc32c.h"
#include "hl-trace-codec.h"
#include "private/hl-trace-reader-private.h"

#define PACKET_HEADER_SIZE_LIMIT 1024u /* newer minors may grow the header up to this */

int
hl_trace_open_data (HlTraceReader *r, HlFormatError *err)
{
  const uint8_t *d = r->data;
  uint64_t size = r->size;

  if (size < HL_TRACE_MAGIC_SIZE || memcmp (d, HL_TRACE_MAGIC, HL_TRACE_MAGIC_SIZE) != 0)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_NOT_A_TRACE, 0,
                           size == 0 ? "the file is empty, not a Heaplens trace"
                                     : "no Heaplens trace magic at the start of the file");
      return -1;
    }
  if (size < HL_TRACE_FILE_HEADER_SIZE)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_TRUNCATED, size,
                           "the file ends inside its %u-byte header (%llu bytes)",
                           HL_TRACE_FILE_HEADER_SIZE, (unsigned long long) size);
      return -1;
    }
  memcpy (&r->header, d, sizeof r->header);
  const HlTraceFileHeader *h = &r->header;
  if (h->version_major > HL_TRACE_VERSION_MAJOR || h->version_major < HL_TRACE_VERSION_MAJOR_MIN)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_VERSION, 8,
                           "trace format version %u.%u is %s than this reader's %u.%u%s",
                           h->version_major, h->version_minor,
                           h->version_major > HL_TRACE_VERSION_MAJOR ? "newer" : "older",
                           HL_TRACE_VERSION_MAJOR, HL_TRACE_VERSION_MINOR,
                           h->version_major > HL_TRACE_VERSION_MAJOR ? ": update Heaplens" : "");
      return -1;
    }
  if (h->byte_order != HL_TRACE_BYTE_ORDER_MARK)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_CORRUPT, 16,
                           "byte-order mark 0x%08x instead of 0x%08x (big-endian or damaged)",
                           h->byte_order, HL_TRACE_BYTE_ORDER_MARK);
      return -1;
    }
  if (h->header_size < HL_TRACE_FILE_HEADER_SIZE || h->header_size > 65536)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_CORRUPT, 12,
                           "file header size %u out of range", h->header_size);
      return -1;
    }
  if (h->header_size > size)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_TRUNCATED, size,
                           "the file ends inside its %u-byte header", h->header_size);
      return -1;
    }
  r->data_start = h->header_size;
  r->pos = r->data_start;
  return 0;
}

int
hl_trace_reader_open_memory (const void     *data,
                             size_t          size,
                             HlTraceReader **out,
                             HlFormatError  *err)
{
  return hl_trace_reader_open_memory_codec (data, size, NULL, out, err);
}

int
hl_trace_reader_open_memory_codec (const void          *data,
                                   size_t               size,
                                   const HlTraceCodec  *codec,
                                   HlTraceReader      **out,
                                   HlFormatError       *err)
{
  *out = NULL;
  HlTraceReader *r = calloc (1, sizeof *r);
  if (r == NULL)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_IO, 0, "out of memory");
      return -1;
    }
  r->data = data;
  r->size = size;
  if (data == NULL && size > 0)
    r->size = 0;
  if (hl_trace_open_data (r, err) != 0
      || ((r->header.flags & HL_TRACE_FLAG_COMPRESSED) && hl_trace_decompress_image (r, codec, err) != 0))
    {
      free (r->image);
      free (r);
      return -1;
    }
  *out = r;
  return 0;
}

int
hl_trace_reader_is_compressed (const HlTraceReader *r)
{
  return r->compressed;
}

int
hl_trace_reader_open_file (const char     *path,
                           HlTraceReader **out,
                           HlFormatError  *err)
{
  return hl_trace_reader_open_file_codec (path, NULL, out, err);
}

int
hl_trace_reader_open_file_codec (const char          *path,
                                 const HlTraceCodec  *codec,
                                 HlTraceReader      **out,
                                 HlFormatError       *err)
{
  *out = NULL;
  /* O_NONBLOCK: a FIFO (or a device) must not block the open; it is
   * refused below before a byte is read. */
  int fd = open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_IO, 0, "cannot open %s: %s", path, strerror (errno));
      return -1;
    }
  struct stat st;
  bool stat_ok = fstat (fd, &st) == 0;
  if (!stat_ok || !S_ISREG (st.st_mode))
    {
      const char *why = !stat_ok                                   ? strerror (errno)
                        : S_ISDIR (st.st_mode)                     ? "is a directory"
                        : S_ISFIFO (st.st_mode)                    ? "is a FIFO, not a trace file"
                        : S_ISSOCK (st.st_mode)                    ? "is a socket, not a trace file"
                        : S_ISCHR (st.st_mode) || S_ISBLK (st.st_mode) ? "is a device, not a trace file"
                                                                   : "is not a regular file";
      hl_format_error_set (err, HL_FORMAT_ERROR_IO, 0, "cannot read %s: %s", path, why);
      close (fd);
      return -1;
    }
  void *map = NULL;
  size_t size = (size_t) st.st_size;
  if (size > 0)
    {
      map = mmap (NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
      if (map == MAP_FAILED)
        {
          hl_format_error_set (err, HL_FORMAT_ERROR_IO, 0, "cannot map %s: %s", path, strerror (errno));
          close (fd);
          return -1;
        }
    }
  close (fd);
  if (hl_trace_reader_open_memory_codec (map, size, codec, out, err) != 0)
    {
      if (map != NULL)
        munmap (map, size);
      return -1;
    }
  if ((*out)->image != NULL)
    {
      /* A compressed file was read into its plain image: the mapping's
       * pages would only add to the reader's resident memory. */
      if (map != NULL)
        munmap (map, size);
      return 0;
    }
  (*out)->mapping = map;
  (*out)->mapping_size = size;
  return 0;
}

void
hl_trace_reader_free (HlTraceReader *r)
{
  if (r == NULL)
    return;
  if (r->mapping != NULL)
    munmap (r->mapping, r->mapping_size);
  free (r->image);
  free (r);
}

const HlTraceFileHeader *
hl_trace_reader_file_header (const HlTraceReader *r)
{
  return &r->header;
}

uint64_t
hl_trace_reader_file_size (const HlTraceReader *r)
{
  return r->size;
}

/* ---- Packets ---------------------------------------------------------- */

uint64_t
hl_trace_packet_max_size (uint16_t kind)
{
  if (kind == HL_PACKET_KIND_ZFRAME || kind == HL_PACKET_KIND_COSTS)
    return (uint64_t) PACKET_HEADER_SIZE_LIMIT + HL_ZFRAME_MAX_CONTENT;
  return HL_PACKET_MAX_SIZE;
}

int
hl_trace_packet_check_header (const HlTraceReader *r,
                              uint64_t             offset,
                              HlPacketView        *pkt,
                              HlFormatError       *err)
{
  if (offset > r->size || r->size - offset < HL_PACKET_HEADER_SIZE)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_TRUNCATED, offset,
                           "the file ends inside a packet header");
      return -1;
    }
  HlPacketHeader *h = &pkt->header;
  memcpy (h, r->data + offset, sizeof *h);
  if (h->magic != HL_PACKET_MAGIC)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_CORRUPT, offset, "no packet magic");
      return -1;
    }
  if (h->header_size < HL_PACKET_HEADER_SIZE || h->header_size > PACKET_HEADER_SIZE_LIMIT)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_CORRUPT, offset + 8,
                           "packet header size %u out of range", h->header_size);
      return -1;
    }
  uint64_t total = (uint64_t) h->header_size + h->content_size;
  if (total > hl_trace_packet_max_size (h->kind))
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_CORRUPT, offset + 4,
                           "packet of %llu bytes, more than the maximum %llu",
                           (unsigned long long) total,
                           (unsigned long long) hl_trace_packet_max_size (h->kind));
      return -1;
    }
  if (h->time_begin_ns > h->time_end_ns || h->alloc_id_begin > h->alloc_id_end
      || (h->kind != HL_PACKET_KIND_ZFRAME && (uint64_t) h->n_events * 2 > h->content_size))
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_CORRUPT, offset,
                           "packet header fields out of order (times, ids or event count)");
      return -1;
    }
  if (total > r->size - offset)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_TRUNCATED, offset,
                           "the file ends inside a packet of %llu bytes",
                           (unsigned long long) total);
      return -1;
    }
  pkt->offset = offset;
  pkt->content = r->data + offset + h->header_size;
  return 0;
}

bool
hl_trace_packet_check_crc (const HlTraceReader *r,
                           const HlPacketView  *pkt)
{
  size_t total = (size_t) pkt->header.header_size + pkt->header.content_size;
  return hl_packet_crc32c (r->data + pkt->offset, total) == pkt->header.crc32c;
}

uint32_t
hl_packet_crc32c (const uint8_t *packet,
                  size_t         total)
{
  static const uint8_t zero[4];
  size_t at = offsetof (HlPacketHeader, crc32c);
  uint32_t crc = hl_crc32c (0, packet, at);
  crc = hl_crc32c (crc, zero, 4);
  return hl_crc32c (crc, packet + at + 4, total - at - 4);
}

int
hl_trace_reader_packet_at (const HlTraceReader *r,
                           uint64_t             offset,
                           HlPacketView        *pkt,
                           HlFormatError       *err)
{
  if (offset < r->data_start)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_CORRUPT, offset, "offset inside the file header");
      return -1;
    }
  if (hl_trace_packet_check_header (r, offset, pkt, err) != 0)
    return -1;
  if (!hl_trace_packet_check_crc (r, pkt))
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_CHECKSUM, offset,
                           "packet content does not match its crc32c");
      return -1;
    }
  if (pkt->header.pid != r->header.pid)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_CORRUPT, offset,
                           "packet of pid %u in the trace of pid %u", pkt->header.pid, r->header.pid);
      return -1;
    }
  return 0;
}

uint64_t
hl_trace_reader_resync (const HlTraceReader *r,
                        uint64_t             from,
                        bool                 verify_crc)
{
  static const uint8_t magic[4] = { 0x48, 0x4c, 0x50, 0x4b }; /* HL_PACKET_MAGIC, LE */
  uint64_t pos = from;
  while (pos + HL_PACKET_HEADER_SIZE <= r->size)
    {
      const uint8_t *hit = memchr (r->data + pos, magic[0], (size_t) (r->size - pos));
      if (hit == NULL)
        break;
      pos = (uint64_t) (hit - r->data);
      if (r->size - pos >= 4 && memcmp (hit, magic, 4) == 0)
        {
          HlPacketView pkt;
          if (hl_trace_packet_check_header (r, pos, &pkt, NULL) == 0
              && (!verify_crc || hl_trace_packet_check_crc (r, &pkt)))
            return pos;
        }
      pos++;
    }
  return r->size;
}

static int
walk (HlTraceReader *r, HlPacketView *pkt, bool verify_crc)
{
  HlTraceReaderStats *s = &r->stats;
  for (;;)
    {
      if (r->pos >= r->size)
        return 0;
      HlFormatError e;
      if (hl_trace_packet_check_header (r, r->pos, pkt, &e) != 0)
        {
          uint64_t next = hl_trace_reader_resync (r, r->pos + 1, verify_crc);
          if (next >= r->size && e.code == HL_FORMAT_ERROR_TRUNCATED)
            {
              s->bytes_ignored_at_end += r->size - r->pos;
              r->pos = r->size;
              return 0;
            }
          s->corrupt_regions++;
          s->bytes_skipped += next - r->pos;
          r->pos = next;
          continue;
        }
      uint64_t total = (uint64_t) pkt->header.header_size + pkt->header.content_size;
      if (verify_crc && !hl_trace_packet_check_crc (r, pkt))
        {
          /* The header may be damaged too (a wrong size): look for the
           * next valid packet rather than trusting content_size. */
          uint64_t next = hl_trace_reader_resync (r, r->pos + 1, true);
          if (next > r->pos + total)
            next = r->pos + total;
          s->packets_bad_checksum++;
          s->bytes_skipped += next - r->pos;
          r->pos = next;
          continue;
        }
      r->pos += total;
      if (pkt->header.pid != r->header.pid)
        {
          if (s->packets_other_pid == 0)
            s->other_pid = pkt->header.pid;
          s->packets_other_pid++;
          s->bytes_skipped += total;
          continue;
        }
      switch (pkt->header.kind)
        {
        case HL_PACKET_KIND_INFO:
        case HL_PACKET_KIND_EVENTS:
          s->packets++;
          return 1;
        case HL_PACKET_KIND_INDEX:
        case HL_PACKET_KIND_INDEX_TAIL:
          s->packets_index++;
          continue;
        case HL_PACKET_KIND_COSTS:
          /* a cache of what the events say (section 7e), not data */
          continue;
        default:
          s->packets_unknown_kind++;
          continue;
        }
    }
}

int
hl_trace_reader_next_packet (HlTraceReader *r,
                             HlPacketView  *pkt,
                             HlFormatError *err)
{
  return walk (r, pkt, true);
}

int
hl_trace_reader_next_header (HlTraceReader *r,
                             HlPacketView  *pkt,
                             HlFormatError *err)
{
  return walk (r, pkt, false);
}

int
hl_trace_reader_seek (HlTraceReader *r,
                      uint64_t       offset)
{
  if (offset < r->data_start || offset > r->size)
    return -1;
  r->pos = offset;
  return 0;
}

uint64_t
hl_trace_reader_tell (const HlTraceReader *r)
{
  return r->pos;
}

static void
append (char *buf, size_t cap, const char *fmt, ...) __attribute__ ((format (printf, 3, 4)));

static void
append (char *buf, size_t cap, const char *fmt, ...)
{
  size_t len = strlen (buf);
  if (len + 1 >= cap)
    return;
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (buf + len, cap - len, fmt, ap);
  va_end (ap);
}

void
hl_trace_reader_stats (const HlTraceReader *r,
                       HlTraceReaderStats  *out)
{
  *out = r->stats;
  char *w = out->warning;
  size_t cap = sizeof out->warning;
  w[0] = '\0';
  const char *sep = "";
  if (out->frames_cut > 0)
    {
      append (w, cap, "the compressed trace ends inside a frame (cut by a crash or kill?): last %llu bytes ignored, "
              "%llu events lost (bound)", (unsigned long long) out->bytes_ignored_at_end,
              (unsigned long long) out->frame_events_cut);
      sep = "; ";
    }
  else if (out->bytes_ignored_at_end > 0)
    {
      append (w, cap, "the trace ends inside a packet (cut by a crash or kill?): last %llu bytes ignored",
              (unsigned long long) out->bytes_ignored_at_end);
      sep = "; ";
    }
  if (out->packets_bad_checksum > 0 || out->corrupt_regions > 0)
    {
      append (w, cap, "%s%llu damaged packets and %llu corrupt regions skipped (%llu bytes)", sep,
              (unsigned long long) out->packets_bad_checksum,
              (unsigned long long) out->corrupt_regions,
              (unsigned long long) out->bytes_skipped);
      sep = "; ";
    }
  if (out->frames_damaged > 0)
    {
      append (w, cap, "%s%llu damaged compressed frames skipped", sep,
              (unsigned long long) out->frames_damaged);
      if (out->frame_regions_unknown > 0)
        append (w, cap, ", at least %llu events lost (bound; %llu damaged regions held an unknown number)",
                (unsigned long long) out->frame_events_damaged, (unsigned long long) out->frame_regions_unknown);
      else
        append (w, cap, ", %llu events lost (bound)", (unsigned long long) out->frame_events_damaged);
      sep = "; ";
    }
  if (out->packets_other_pid > 0)
    {
      append (w, cap, "%s%llu packets of another process (pid %u, a child writing to the inherited trace) skipped",
              sep, (unsigned long long) out->packets_other_pid, out->other_pid);
      sep = "; ";
    }
  if (out->packets_unknown_kind > 0)
    append (w, cap, "%s%llu packets of a kind this version does not know skipped", sep,
            (unsigned long long) out->packets_unknown_kind);
}
