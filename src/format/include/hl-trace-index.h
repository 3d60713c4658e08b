/* hl-trace-index.h — seeking in a trace without decoding it.
 *
 * A trace can end with a trailing index: INDEX packets (one entry per
 * INFO/EVENTS packet before them, delta-encoded) followed by one
 * INDEX_TAIL packet of exactly HL_INDEX_TAIL_SIZE bytes that says where the
 * INDEX packets start. The preload never writes it (with O_APPEND its
 * threads do not know their packets' offsets); `heaplens-cli record` appends
 * it with hl_trace_index_append_file() once the program has exited to a
 * plain recording, and the compress stream puts it at the end of a
 * compressed one's image (hl_trace_compress_stream_set_index()). A file
 * without it (cut by a crash, or recorded by hand) is indexed by a walk over
 * the packet headers alone: 64 bytes read per packet of up to 32 KiB.
 *
 * With the index a reader jumps to the first packet that can hold events at
 * or after a time, and loads packets in parallel with
 * hl_trace_reader_packet_at(). Plain C11 + libc (allocates; not for the
 * preload).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hl-trace-reader.h"

/* INDEX_TAIL content: first_index_offset:u64 n_index_packets:u64 n_entries:u64 */
#define HL_INDEX_TAIL_CONTENT_SIZE 24u
#define HL_INDEX_TAIL_SIZE         (HL_PACKET_HEADER_SIZE + HL_INDEX_TAIL_CONTENT_SIZE)

typedef struct
{
  uint64_t offset;          /* of the packet header */
  uint32_t size;            /* header + content bytes */
  uint16_t kind;            /* HL_PACKET_KIND_INFO or _EVENTS */
  uint32_t tid;
  uint32_t flags;           /* HL_PACKET_FLAG_* */
  uint32_t n_events;
  uint64_t time_begin_ns;
  uint64_t time_end_ns;
  uint64_t alloc_id_begin;
  uint64_t alloc_id_end;
} HlTraceIndexEntry;

typedef struct
{
  HlTraceIndexEntry *entries;     /* in file order */
  size_t             n_entries;
  uint64_t          *max_end_ns;  /* max_end_ns[i]: greatest time_end_ns of entries[0..i] */
  bool               from_file;   /* read from a trailing index, not built by a walk */
  uint64_t           data_end;    /* where indexed packets end (the index, or the file's end) */
  /* "" when read from the trailing index; else that the packets were
   * walked and why, one line a caller shows a person: "walked (no
   * trailing index: ...)" or "walked (the trailing index is damaged:
   * ignored)" */
  char               note[160];
  uint64_t           n_index_packets; /* INDEX / INDEX_TAIL packets a walk stepped over */
} HlTraceIndex;

/* Reads the trailing index when it is there and valid, otherwise walks the
 * packet headers (crc not checked; hl_trace_reader_packet_at() checks it
 * when a packet is loaded). Does not disturb R's walk. 0, or -1 with ERR. */
int    hl_trace_index_load        (const HlTraceReader *r,
                                   HlTraceIndex       **out,
                                   HlFormatError       *err);
void   hl_trace_index_free        (HlTraceIndex        *index);

/* The first entry i such that every entry before i ended before TIME_NS
 * (so events at or after TIME_NS are all in entries[i..]); n_entries when
 * none. Entries before i may still hold definitions (flags &
 * HL_PACKET_FLAG_DEFINITIONS) a reader needs. */
size_t hl_trace_index_find_time   (const HlTraceIndex  *index,
                                   uint64_t             time_ns);

/* The first entry i >= FROM whose packet is thread TID's; n_entries when
 * none. A reader of one thread's events steps from packet to packet so
 * (hl_trace_reader_packet_at (r, entries[i].offset, ...)), with the
 * definitions (flags & HL_PACKET_FLAG_DEFINITIONS) of the others. */
size_t hl_trace_index_find_thread (const HlTraceIndex  *index,
                                   uint32_t             tid,
                                   size_t               from);

/* Appends a trailing index to the trace at PATH (walking it with crc
 * checks). Nothing is done when it already ends with a valid index.
 * 0, or -1 with ERR. */
int    hl_trace_index_append_file (const char          *path,
                                   HlFormatError       *err);

/* Whether R ends with a valid trailing index (the one
 * hl_trace_index_load() would read). */
bool   hl_trace_index_present     (const HlTraceReader *r);

/* The entry of the INFO or EVENTS packet PKT, as a walk makes it. */
void   hl_trace_index_entry_from_packet (HlTraceIndexEntry  *e,
                                         const HlPacketView *pkt);

/* Encodes the trailing index of ENTRIES (packets before DATA_END) into a
 * malloc'd buffer of *SIZE bytes: INDEX packets then the INDEX_TAIL, for a
 * file of pid PID whose INDEX packets will start at DATA_END. NULL when out
 * of memory. */
uint8_t *hl_trace_index_encode    (const HlTraceIndexEntry *entries,
                                   size_t                   n_entries,
                                   uint32_t                 pid,
                                   uint64_t                 data_end,
                                   size_t                  *size);
