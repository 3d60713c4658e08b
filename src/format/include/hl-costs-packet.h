/* hl-costs-packet.h — the COSTS packet around a payload
 * (docs/trace-format.md section 7e): the 64-byte packet header, the
 * content head (codec, raw_size, covered_size, covered_crc,
 * model_version), the payload stored or compressed, and the footer
 * (packet_size, "HLCOSTS\0") that lets a reader find it from the file's
 * last 16 bytes.
 *
 * Writing is two steps: hl_costs_packet_wrap() builds the packet of a
 * payload (compressing it), hl_costs_packet_seal() fills in what depends
 * on the file it is appended to (the size and crc it covers, the pid, the
 * packet's own crc). Reading: hl_costs_packet_find() checks that a file
 * ends with a packet that matches its bytes, hl_costs_packet_unpack()
 * gives its payload back. The payload itself is hl-costs-payload.h.
 *
 * Plain C11, libc only; compression comes in through an HlTraceCodec. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "hl-costs-payload.h"
#include "hl-trace-codec.h"

/* "HLCOSTS\0": the last 8 bytes of a file ending with a COSTS packet. */
#define HL_COSTS_MAGIC        "HLCOSTS"
#define HL_COSTS_FOOTER_SIZE  16u   /* packet_size:u64 magic[8] */
#define HL_COSTS_CONTENT_HEAD 24u   /* codec raw_size covered_size covered_crc model_version */
#define HL_COSTS_CODEC_STORED 0u
#define HL_COSTS_PAYLOAD_MAX  (64u << 20)

/* A file's COSTS packet, found and checked: its payload's bytes as the
 * file holds them (STORED_SIZE bytes at STORED, compressed with CODEC
 * unless HL_COSTS_CODEC_STORED), RAW_SIZE once unpacked. */
typedef struct
{
  uint64_t       offset;       /* of the packet: the bytes it covers */
  uint32_t       codec;
  uint32_t       raw_size;
  const uint8_t *stored;
  size_t         stored_size;
} HlCostsPacketView;

/* Appends to OUT (zeroed by the caller) the packet of the LEN bytes of
 * PAYLOAD for cost rules MODEL_VERSION: compressed with CODEC (NULL:
 * none) when that makes it smaller, else stored; the fields of the file
 * it goes into are left for seal(). 0, or -1 when out of memory. */
int  hl_costs_packet_wrap   (const uint8_t      *payload,
                             size_t              len,
                             const HlTraceCodec *codec,
                             uint32_t            model_version,
                             HlCostsBuffer      *out);

/* Completes the packet of LEN bytes at PACKET (wrap()'s) for a file of
 * COVERED_SIZE bytes whose CRC-32C is COVERED_CRC and whose pid is PID:
 * the content head, the header's pid and the packet's crc. */
void hl_costs_packet_seal   (uint8_t  *packet,
                             size_t    len,
                             uint64_t  covered_size,
                             uint32_t  covered_crc,
                             uint32_t  pid);

/* Whether the SIZE bytes of a file at DATA end with a COSTS packet that
 * matches them: the footer's magic and size, a valid COSTS header with
 * its crc and the file header's pid, a compressed trace of this major
 * version, covered_size the packet's offset and covered_crc the CRC-32C
 * of the bytes before it, MODEL_VERSION the packet's, raw_size within
 * 1 .. HL_COSTS_PAYLOAD_MAX. 0 with OUT, or -1 with ERR (NOT_A_TRACE or
 * CORRUPT: a reader then decodes the events). */
int  hl_costs_packet_find   (const uint8_t     *data,
                             size_t             size,
                             uint32_t           model_version,
                             HlCostsPacketView *out,
                             HlFormatError     *err);

/* The payload of V into DST (V->raw_size bytes): copied when stored,
 * decompressed with CODEC when it is the packet's (NULL: none). 0, or -1
 * with ERR (UNSUPPORTED for another codec, CORRUPT when the bytes do not
 * give exactly raw_size). */
int  hl_costs_packet_unpack (const HlCostsPacketView *v,
                             const HlTraceCodec      *codec,
                             uint8_t                 *dst,
                             HlFormatError           *err);
