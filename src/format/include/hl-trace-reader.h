/* hl-trace-reader.h — reads a trace file safely.
 *
 * Every offset and length is checked before use: a truncated, corrupt or
 * hostile file gives an HlFormatError {code, byte offset, message}, never a
 * crash or an out-of-bounds read. A file cut in the middle of a packet reads
 * up to the last complete packet; the reader counts the bytes it ignored.
 * Packets with a bad checksum or another pid are skipped and counted.
 *
 * Compressed traces (HL_TRACE_FLAG_COMPRESSED) need a codec: open them with
 * hl_trace_reader_open_file_codec() (hl-trace-codec.h); the plain open
 * functions refuse them with HL_FORMAT_ERROR_UNSUPPORTED.
 *
 * Plain C11 + libc (the reader may allocate; it never runs in a target).
 *
 *   HlTraceReader *r;
 *   HlFormatError err;
 *   if (hl_trace_reader_open_file (path, &r, &err) != 0) { report err; }
 *   HlPacketView pkt;
 *   while (hl_trace_reader_next_packet (r, &pkt, &err) > 0) {
 *     HlEventCursor c;
 *     hl_event_cursor_init (&c, &pkt);
 *     HlEvent ev;
 *     int rc;
 *     while ((rc = hl_event_cursor_next (&c, &ev, &err)) > 0) { use ev; }
 *     if (rc < 0) { the packet is corrupt from err.offset on }
 *   }
 *   hl_trace_reader_free (r);
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hl-trace-format.h"

typedef enum
{
  HL_FORMAT_OK = 0,
  HL_FORMAT_ERROR_IO,          /* open/stat/mmap failed (errno in message) */
  HL_FORMAT_ERROR_NOT_A_TRACE, /* bad file magic */
  HL_FORMAT_ERROR_VERSION,     /* newer major version: message names both */
  HL_FORMAT_ERROR_TRUNCATED,   /* ends inside a header, packet or event */
  HL_FORMAT_ERROR_CORRUPT,     /* a field out of range, bad packet magic, ... */
  HL_FORMAT_ERROR_CHECKSUM,    /* packet content does not match its crc32c */
  HL_FORMAT_ERROR_UNSUPPORTED, /* unknown non-skippable event type */
  HL_FORMAT_ERROR_NOT_READY,   /* a session segment still being created (no magic yet) */
} HlFormatStatus;

typedef struct
{
  HlFormatStatus code;
  uint64_t       offset;       /* byte offset in the file where it went wrong */
  char           message[256]; /* one line, for a person */
} HlFormatError;

const char *hl_format_status_to_string (HlFormatStatus code);

typedef struct HlTraceReader HlTraceReader;
/* A decompressor for compressed traces (hl-trace-codec.h). */
typedef struct HlTraceCodec HlTraceCodec;

/* Both return 0, or -1 with ERR filled in. open_memory borrows DATA. */
int   hl_trace_reader_open_file   (const char     *path,
                                   HlTraceReader **out,
                                   HlFormatError  *err);
int   hl_trace_reader_open_memory (const void     *data,
                                   size_t          size,
                                   HlTraceReader **out,
                                   HlFormatError  *err);
/* Like hl_trace_reader_open_file / _open_memory, able to read compressed
 * traces with CODEC (NULL: plain traces only). A compressed trace is
 * decompressed at open into memory the reader owns. */
int hl_trace_reader_open_file_codec   (const char          *path,
                                       const HlTraceCodec  *codec,
                                       HlTraceReader      **out,
                                       HlFormatError       *err);
int hl_trace_reader_open_memory_codec (const void          *data,
                                       size_t               size,
                                       const HlTraceCodec  *codec,
                                       HlTraceReader      **out,
                                       HlFormatError       *err);
/* True when the reader decompressed its trace. */
int hl_trace_reader_is_compressed     (const HlTraceReader *r);
void  hl_trace_reader_free        (HlTraceReader  *r);

const HlTraceFileHeader *hl_trace_reader_file_header (const HlTraceReader *r);
uint64_t                 hl_trace_reader_file_size   (const HlTraceReader *r);

typedef struct
{
  uint64_t       offset;   /* of the packet header in the file */
  HlPacketHeader header;   /* validated copy */
  const uint8_t *content;  /* header.content_size bytes, inside the mapping */
} HlPacketView;

/* 1 with the next valid packet, 0 at the end, -1 on an error that stops the
 * walk (ERR says what and where; nothing in 1.0 stops it: damage is skipped
 * and reported through the stats). Skipped, counted in the stats, never
 * returned: packets with a bad crc, of another pid, of a kind this reader
 * does not know, and INDEX / INDEX_TAIL packets (see hl-trace-index.h).
 * After a damaged packet header the walk resynchronises on the next packet
 * that validates (magic, header fields, crc). A file cut inside a packet
 * ends the walk at the last complete one. */
int   hl_trace_reader_next_packet (HlTraceReader *r,
                                   HlPacketView  *pkt,
                                   HlFormatError *err);
/* Like next_packet, but validates headers only (no crc): the fast walk that
 * builds an index. PKT->content is set but not verified. */
int   hl_trace_reader_next_header (HlTraceReader *r,
                                   HlPacketView  *pkt,
                                   HlFormatError *err);
/* Continue from the packet at OFFSET (an offset a previous walk or the
 * index returned). 0, or -1 when OFFSET is outside the file's packets. */
int   hl_trace_reader_seek        (HlTraceReader *r,
                                   uint64_t       offset);
/* Offset the next walk step starts from. */
uint64_t hl_trace_reader_tell     (const HlTraceReader *r);
/* Reads and fully validates (header, bounds, crc, pid) the packet at OFFSET
 * without touching the reader's walk state or stats: safe to call from
 * several threads at once (parallel loading). 0, or -1 with ERR. */
int   hl_trace_reader_packet_at   (const HlTraceReader *r,
                                   uint64_t             offset,
                                   HlPacketView        *pkt,
                                   HlFormatError       *err);

/* The caller reads nothing before OFFSET again (no walk step, no
 * packet_at there): the reader gives back the memory of those bytes —
 * whole pages of a decompressed image, or of the file mapping (read again
 * from the file if touched). A decompressed image reads as zeros there
 * afterwards: errors, never a crash. A reader over borrowed memory
 * (open_memory) ignores it. For one-pass loads that keep little else. */
void  hl_trace_reader_release_before (HlTraceReader *r,
                                      uint64_t       offset);

typedef struct
{
  uint64_t packets;               /* valid packets returned so far */
  uint64_t packets_bad_checksum;
  uint64_t packets_other_pid;
  uint64_t packets_unknown_kind;  /* valid, of a kind this reader skips */
  uint64_t packets_index;         /* INDEX / INDEX_TAIL packets stepped over */
  uint64_t corrupt_regions;       /* damaged headers the walk resynchronised after */
  uint64_t bytes_skipped;         /* in skipped packets and corrupt regions */
  uint64_t bytes_ignored_at_end;  /* an incomplete last packet */
  uint64_t frames_damaged;        /* compressed traces: ZFRAMEs skipped (their bytes in bytes_skipped) */
  uint64_t frames_cut;            /* compressed traces: 1 when the file ends inside a ZFRAME (its bytes in bytes_ignored_at_end) */
  uint64_t frame_events_damaged;  /* events the skipped frames' headers say they held: a bound, not a count */
  uint64_t frame_events_cut;      /* events the cut frame's header says it held: a bound */
  uint64_t frame_regions_unknown; /* damaged regions of a compressed trace resynchronised over: their events unknown */
  uint32_t other_pid;             /* pid of the first packet of another pid */
  char     warning[256];          /* "" or one line a person should see */
} HlTraceReaderStats;

void  hl_trace_reader_stats       (const HlTraceReader *r,
                                   HlTraceReaderStats  *out);

/* CRC-32C of the TOTAL bytes (header and content, TOTAL >=
 * HL_PACKET_HEADER_SIZE) of the packet at PACKET with its crc32c field
 * counted as zero: what a valid packet's header.crc32c holds. */
uint32_t hl_packet_crc32c         (const uint8_t *packet,
                                   size_t         total);

/* ---- Events of one packet --------------------------------------------- */

#define HL_ID_NONE UINT64_MAX

typedef struct
{
  HlEventType type;
  uint64_t    time_ns;     /* since start_mono_ns */
  uint32_t    tid;         /* the packet's thread */
  uint64_t    offset;      /* of the event's type byte in the file */
  union
  {
    struct { uint64_t id, size, alignment, address; uint32_t stack_id; } alloc;        /* ALLOC, ALLOC_ALIGNED (alignment 0 = default) */
    struct { uint64_t id, address; } free;                                               /* FREE (address 0), FREE_ADDR (id HL_ID_NONE) */
    struct { uint64_t old_id, old_address, id, size, address; uint32_t stack_id; } realloc; /* REALLOC(_ADDR): the unknown one is HL_ID_NONE / 0 */
    struct { uint32_t id, flags, n_frames; const uint64_t *frames; } stack;              /* frames innermost first */
    struct { uint32_t flags; uint64_t start, size, file_offset; const uint8_t *build_id; uint32_t build_id_len; const char *path; } module;
    struct { uint32_t tid, flags; const char *name; } thread;
    struct { const char *key; bool is_string; int64_t int_value; const char *string_value; } meta; /* META_INT, META_STRING, META_REMOVE */
    struct { const char *text; } mark;
    struct { uint64_t heap_bytes, rss_bytes, n_allocs, n_frees; } counters;
    struct { uint64_t count; uint32_t reason; } dropped;
    struct { uint32_t n; const char * const *keys; const char * const *values; } info;
    struct { int32_t exit_status; } end;
    struct { uint64_t address, size; uint32_t stack_id, prot, flags; } mmap;            /* MMAP */
    struct { uint64_t address, size; } munmap;                                           /* MUNMAP */
    struct { uint64_t old_address, old_size, address, size; uint32_t stack_id, flags; } mremap; /* MREMAP */
    const HlAllocatorSample *allocator;                                                  /* ALLOCATOR: in the cursor */
    struct { uint32_t size; const uint8_t *data; } unknown;                              /* a skippable type this reader does not know */
    struct { uint32_t size; const uint8_t *data; } reach;                                /* REACHABILITY: its payload, checked (hl_reach_read) */
  } u;
} HlEvent;

/* The records of a REACHABILITY payload, read in order. */
typedef struct
{
  const uint8_t *p, *end;
  uint64_t       left;
  uint64_t       prev_id;
} HlReachReader;

/* The totals of the REACHABILITY payload DATA (SIZE bytes) and a reader
 * of its records; false when it is malformed: a field that does not read,
 * a kind outside 1..3, ids that do not rise, a stack id over 32 bits, or
 * bytes left after the last record. The cursor checks every event so. */
bool  hl_reach_read (const uint8_t *data,
                     size_t         size,
                     HlReachTotals *totals,
                     HlReachReader *records);
/* The next record; false after the last (or on damage). */
bool  hl_reach_next (HlReachReader *r,
                     HlReachRecord *out);

/* Strings are NUL-terminated copies and frames a decoded array, all inside
 * the cursor: valid until the next hl_event_cursor_next() call. The cursor
 * checks every length and range (ids inside the packet's, times inside its
 * [time_begin, time_end], stack ids and tids within 32 bits, frames and
 * strings within their maxima). ID_SKIP events are applied, not returned. */
typedef struct
{
  const HlPacketView *pkt;
  const uint8_t *base;     /* pkt->content */
  size_t    size;          /* pkt->header.content_size */
  size_t    pos;
  uint64_t  content_offset; /* file offset of content[0] */
  uint64_t  time_ns;
  uint64_t  next_id;
  uint64_t  prev_id;
  uint64_t  prev_stack;
  uint64_t  prev_addr;
  uint32_t  prev_n_frames;
  uint32_t  n_decoded;     /* events returned so far */
  bool      failed;        /* a malformed event was met: next() keeps returning -1 */
  HlFormatError error;     /* what it was (valid when failed) */
  uint64_t  frames[HL_TRACE_MAX_FRAMES];
  HlAddrPredictor pred;
  char      strings[HL_TRACE_INFO_MAX_BYTES + 2 * 64];
  const char *info_keys[HL_TRACE_INFO_MAX_PAIRS];
  const char *info_values[HL_TRACE_INFO_MAX_PAIRS];
  HlAllocatorSample allocator; /* of the last ALLOCATOR event */
} HlEventCursor;

void  hl_event_cursor_init (HlEventCursor      *c,
                            const HlPacketView *pkt);
/* 1 with an event, 0 at the packet's end, -1 on a malformed event. */
int   hl_event_cursor_next (HlEventCursor *c,
                            HlEvent       *ev,
                            HlFormatError *err);
/* Whether an event of TYPE holds nothing that lives in the cursor (no
 * string, no frames): it stays valid after the cursor moves on. */
static inline bool
hl_event_type_is_plain (HlEventType type)
{
  switch (type)
    {
    case HL_EVENT_ALLOC:
    case HL_EVENT_ALLOC_ALIGNED:
    case HL_EVENT_FREE:
    case HL_EVENT_FREE_ADDR:
    case HL_EVENT_REALLOC:
    case HL_EVENT_REALLOC_ADDR:
    case HL_EVENT_COUNTERS:
    case HL_EVENT_DROPPED:
    case HL_EVENT_END:
    case HL_EVENT_MMAP:
    case HL_EVENT_MUNMAP:
    case HL_EVENT_MREMAP:
      return true;
    default:
      return false;
    }
}

/* Like next(), up to CAP (> 0) events at once into EVS, for a loop that
 * takes every event of a packet at the pace of the program (the costs
 * thread of `record`: a call for each event was 3 % of its
 * instructions): the common events (ALLOC, FREE) are decoded inline,
 * with a call per batch. A batch ends after an event whose strings or
 * frames live in the cursor (any but ALLOC*, FREE*, REALLOC*, COUNTERS,
 * DROPPED and END), so that they are valid until the next call. The
 * events, errors and cursor states of next(): the number of events
 * (1..CAP), 0 at the packet's end, -1 on a malformed event (ERR; the
 * events before it came in the batches before). */
int   hl_event_cursor_next_batch (HlEventCursor *c,
                                  HlEvent       *evs,
                                  size_t         cap,
                                  HlFormatError *err);
