/* hl-costs-packet.c — the COSTS packet built around a payload, and found
 * and checked at a file's end (hl-costs-packet.h, docs/trace-format.md
 * section 7e). */
#include "hl-costs-packet.h"

#include <stdlib.h>
#include <string.h>

#include "hl-crc32c.h"
#include "hl-trace-format.h"
#include "private/hl-trace-reader-private.h"

static uint64_t
read_u64 (const uint8_t *p)
{
  uint64_t v = 0;
  for (unsigned k = 0; k < 8; k++)
    v |= (uint64_t) p[k] << (8 * k);
  return v;
}

static uint32_t
read_u32 (const uint8_t *p)
{
  return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

static void
write_u64 (uint8_t  *p,
           uint64_t  v)
{
  for (unsigned k = 0; k < 8; k++)
    p[k] = (uint8_t) (v >> (8 * k));
}

static void
write_u32 (uint8_t  *p,
           uint32_t  v)
{
  for (unsigned k = 0; k < 4; k++)
    p[k] = (uint8_t) (v >> (8 * k));
}

int
hl_costs_packet_wrap (const uint8_t      *payload,
                      size_t              len,
                      const HlTraceCodec *codec,
                      uint32_t            model_version,
                      HlCostsBuffer      *out)
{
  size_t head = HL_PACKET_HEADER_SIZE + HL_COSTS_CONTENT_HEAD, body = len, total;
  size_t bound = codec != NULL ? codec->compress_bound (codec->user, len) : 0;
  uint32_t codec_id = HL_COSTS_CODEC_STORED;
  HlPacketHeader h = { 0 };
  uint8_t *p;

  if (bound < len)
    bound = len;
  p = malloc (head + bound + HL_COSTS_FOOTER_SIZE);
  if (p == NULL)
    return -1;
  memset (p, 0, head);
  if (codec != NULL)
    {
      size_t n = codec->compress (codec->user, payload, len, p + head, bound);
      if (n > 0 && n < len)
        {
          codec_id = codec->id;
          body = n;
        }
    }
  if (codec_id == HL_COSTS_CODEC_STORED && len > 0)
    memcpy (p + head, payload, len);
  total = head + body + HL_COSTS_FOOTER_SIZE;
  write_u64 (p + head + body, total);
  memcpy (p + head + body + 8, HL_COSTS_MAGIC, 8);
  /* the content head: covered_size and covered_crc are seal()'s */
  write_u32 (p + HL_PACKET_HEADER_SIZE, codec_id);
  write_u32 (p + HL_PACKET_HEADER_SIZE + 4, (uint32_t) len);
  write_u32 (p + HL_PACKET_HEADER_SIZE + 20, model_version);
  h.magic = HL_PACKET_MAGIC;
  h.content_size = (uint32_t) (total - HL_PACKET_HEADER_SIZE);
  h.header_size = HL_PACKET_HEADER_SIZE;
  h.kind = HL_PACKET_KIND_COSTS;
  memcpy (p, &h, sizeof h);
  free (out->data);
  out->data = p;
  out->len = total;
  out->cap = head + bound + HL_COSTS_FOOTER_SIZE;
  return 0;
}

void
hl_costs_packet_seal (uint8_t  *packet,
                      size_t    len,
                      uint64_t  covered_size,
                      uint32_t  covered_crc,
                      uint32_t  pid)
{
  HlPacketHeader h;

  write_u64 (packet + HL_PACKET_HEADER_SIZE + 8, covered_size);
  write_u32 (packet + HL_PACKET_HEADER_SIZE + 16, covered_crc);
  memcpy (&h, packet, sizeof h);
  h.pid = pid;
  h.crc32c = 0;
  memcpy (packet, &h, sizeof h);
  h.crc32c = hl_packet_crc32c (packet, len);
  memcpy (packet, &h, sizeof h);
}

int
hl_costs_packet_find (const uint8_t     *data,
                      size_t             size,
                      uint32_t           model_version,
                      HlCostsPacketView *out,
                      HlFormatError     *err)
{
  HlTraceFileHeader fh;
  HlPacketHeader h;
  const uint8_t *content;
  uint64_t total, offset;

  if (size < HL_TRACE_FILE_HEADER_SIZE + HL_PACKET_HEADER_SIZE + HL_COSTS_CONTENT_HEAD + HL_COSTS_FOOTER_SIZE ||
      memcmp (data + size - 8, HL_COSTS_MAGIC, 8) != 0)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_CORRUPT, size, "no COSTS packet at the end");
      return -1;
    }
  memcpy (&fh, data, sizeof fh);
  if (memcmp (fh.magic, HL_TRACE_MAGIC, HL_TRACE_MAGIC_SIZE) != 0 || fh.byte_order != HL_TRACE_BYTE_ORDER_MARK ||
      fh.version_major != HL_TRACE_VERSION_MAJOR || (fh.flags & HL_TRACE_FLAG_COMPRESSED) == 0)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_NOT_A_TRACE, 0, "not a compressed trace of this version");
      return -1;
    }
  total = read_u64 (data + size - HL_COSTS_FOOTER_SIZE);
  if (total > size - HL_TRACE_FILE_HEADER_SIZE ||
      total < HL_PACKET_HEADER_SIZE + HL_COSTS_CONTENT_HEAD + HL_COSTS_FOOTER_SIZE)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_CORRUPT, size - HL_COSTS_FOOTER_SIZE,
                           "the COSTS footer's packet size does not fit the file");
      return -1;
    }
  offset = size - total;
  memcpy (&h, data + offset, sizeof h);
  if (h.magic != HL_PACKET_MAGIC || h.kind != HL_PACKET_KIND_COSTS || h.header_size != HL_PACKET_HEADER_SIZE ||
      (uint64_t) h.header_size + h.content_size != total || h.pid != fh.pid ||
      hl_packet_crc32c (data + offset, (size_t) total) != h.crc32c)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_CORRUPT, offset, "not a valid COSTS packet of this file");
      return -1;
    }
  content = data + offset + HL_PACKET_HEADER_SIZE;
  out->offset = offset;
  out->codec = read_u32 (content);
  out->raw_size = read_u32 (content + 4);
  if (read_u64 (content + 8) != offset || read_u32 (content + 20) != model_version || out->raw_size == 0 ||
      out->raw_size > HL_COSTS_PAYLOAD_MAX || hl_crc32c (0, data, (size_t) offset) != read_u32 (content + 16))
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_CORRUPT, offset + HL_PACKET_HEADER_SIZE,
                           "the COSTS packet covers other bytes, another model version or no payload");
      return -1;
    }
  out->stored = content + HL_COSTS_CONTENT_HEAD;
  out->stored_size = h.content_size - HL_COSTS_CONTENT_HEAD - HL_COSTS_FOOTER_SIZE;
  return 0;
}

int
hl_costs_packet_unpack (const HlCostsPacketView *v,
                        const HlTraceCodec      *codec,
                        uint8_t                 *dst,
                        HlFormatError           *err)
{
  if (v->codec == HL_COSTS_CODEC_STORED)
    {
      if (v->stored_size == v->raw_size)
        {
          memcpy (dst, v->stored, v->raw_size);
          return 0;
        }
    }
  else if (codec == NULL || v->codec != codec->id)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_UNSUPPORTED, v->offset + HL_PACKET_HEADER_SIZE,
                           "COSTS payload of codec %u", v->codec);
      return -1;
    }
  else if (codec->decompress (codec->user, v->stored, v->stored_size, dst, v->raw_size) == v->raw_size)
    return 0;
  hl_format_error_set (err, HL_FORMAT_ERROR_CORRUPT, v->offset + HL_PACKET_HEADER_SIZE + HL_COSTS_CONTENT_HEAD,
                       "the COSTS payload is not %u bytes", v->raw_size);
  return -1;
}
