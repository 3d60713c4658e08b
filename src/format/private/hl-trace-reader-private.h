/* hl-trace-reader-private.h — what the reader's files share. */
#pragma once

#include <stdarg.h>

#include "hl-trace-reader.h"

struct HlTraceReader
{
  /* Owned when mapped */
  const uint8_t     *data;
  uint64_t           size;
  void              *mapping;
  size_t             mapping_size;
  uint8_t           *image;       /* decompressed trace (owned), or NULL */
  bool               compressed;
  /* Walk */
  HlTraceFileHeader  header;
  uint64_t           data_start;  /* first packet */
  uint64_t           pos;
  HlTraceReaderStats stats;
  /* hl_trace_reader_release_before: the end of the bytes given back */
  uint64_t           released_before;
};

void hl_format_error_set (HlFormatError  *err,
                          HlFormatStatus  code,
                          uint64_t        offset,
                          const char     *fmt,
                          ...) __attribute__ ((format (printf, 4, 5)));

/* Validates the packet header at OFFSET: magic, sizes inside the file and
 * within the maxima, times and ids ordered. Fills PKT. 0, or -1 with ERR
 * (TRUNCATED when the file ends inside the packet, CORRUPT otherwise). */
int  hl_trace_packet_check_header (const HlTraceReader *r,
                                   uint64_t             offset,
                                   HlPacketView        *pkt,
                                   HlFormatError       *err);
/* Largest packet (header + content) of KIND. */
uint64_t hl_trace_packet_max_size (uint16_t kind);

/* Checks the crc of a packet whose header passed the check above. */
bool hl_trace_packet_check_crc    (const HlTraceReader *r,
                                   const HlPacketView  *pkt);

/* Next offset after FROM where a packet header validates (and its crc
 * matches, when VERIFY_CRC), or r->size: where a walk resynchronises after
 * damage. */
uint64_t hl_trace_reader_resync   (const HlTraceReader *r,
                                   uint64_t             from,
                                   bool                 verify_crc);

struct HlTraceCodec;

/* Validates the file header of r->data and sets the walk's start. */
int  hl_trace_open_data                 (HlTraceReader *r, HlFormatError *err);
/* Replaces r->data by the decompressed image of a compressed trace. */
int  hl_trace_decompress_image (HlTraceReader *r, const struct HlTraceCodec *codec, HlFormatError *err);
