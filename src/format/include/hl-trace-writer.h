/* hl-trace-writer.h — encodes events into packets in a caller-owned buffer.
 *
 * Used by the preload on its hot path: no allocation, no locks, no syscalls,
 * no stdio. One HlPacketWriter per thread; the caller owns both the writer
 * struct and the buffer (HL_PACKET_MAX_SIZE bytes) and does the write(2).
 *
 * Protocol:
 *   hl_packet_writer_init (&w, buf, sizeof buf, pid, tid);
 *   hl_packet_writer_begin (&w, now_ns);
 *   while (...) {
 *     if (hl_packet_writer_alloc (&w, ...) == HL_WRITE_FULL) {
 *       size_t n = hl_packet_writer_finish (&w);   // header + crc filled in
 *       write (fd, buf, n);
 *       hl_packet_writer_begin (&w, now_ns);
 *       hl_packet_writer_alloc (&w, ...);          // always fits now
 *     }
 *   }
 * An event that returns HL_WRITE_FULL wrote nothing; after begin() every
 * single event fits (see HL_EVENT_MAX_SIZE) provided the buffer holds
 * HL_PACKET_MAX_SIZE bytes (a bigger buffer is used up to that size only).
 * Strings longer than HL_TRACE_STRING_MAX, build-ids longer than
 * HL_TRACE_BUILD_ID_MAX and stacks deeper than HL_TRACE_MAX_FRAMES are cut
 * (a cut stack gets HL_STACK_FLAG_TRUNCATED). Times must not go backwards
 * within a packet; a time before the previous event's is written as equal.
 *
 * The file header and the INFO packet are written once, at start, with
 * hl_trace_write_file_header() and hl_packet_writer_info().
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hl-trace-format.h"

typedef enum
{
  HL_WRITE_OK   = 0,
  HL_WRITE_FULL = 1, /* not enough room, or an allocation id that does not
                        follow the packet's last one: finish and begin anew */
} HlWriteStatus;

typedef struct
{
  /* Borrowed */
  uint8_t  *buf;
  size_t    cap;
  /* Packet being built */
  size_t    len;           /* header + content bytes used */
  uint32_t  pid;
  uint32_t  tid;
  uint16_t  kind;
  uint32_t  n_events;
  uint32_t  flags;         /* HL_PACKET_FLAG_* gathered from the events */
  uint64_t  time_begin_ns;
  uint64_t  time_last_ns;
  uint64_t  alloc_id_begin;
  uint64_t  next_id;       /* 0 and n_allocs == 0 until the first allocation */
  uint64_t  n_allocs;
  /* Delta state, reset by begin() */
  uint64_t  prev_id;
  uint64_t  prev_stack;
  uint64_t  prev_addr;
  uint32_t  prev_n_frames;
  uint64_t  prev_frames[HL_TRACE_MAX_FRAMES];
  HlAddrPredictor pred;    /* reset by begin() */
} HlPacketWriter;

/* Fills a 64-byte file header into OUT. */
void          hl_trace_file_header_init   (HlTraceFileHeader *out,
                                           uint32_t           pid,
                                           uint64_t           start_wall_ns,
                                           uint64_t           start_mono_ns,
                                           uint32_t           flags);

void          hl_packet_writer_init       (HlPacketWriter *w,
                                           void           *buf,
                                           size_t          cap,
                                           uint32_t        pid,
                                           uint32_t        tid);
void          hl_packet_writer_begin      (HlPacketWriter *w,
                                           uint64_t        time_ns);
bool          hl_packet_writer_is_empty   (const HlPacketWriter *w);
/* Completes the header (sizes, times, ids, flags, crc32c); returns the
 * number of bytes to write from the buffer's start, or 0 when the packet
 * has no event (nothing to write). Call begin() before the next event. */
size_t        hl_packet_writer_finish     (HlPacketWriter *w);

/* ALIGNMENT 0 (or HL_TRACE_DEFAULT_ALIGNMENT) writes ALLOC, otherwise
 * ALLOC_ALIGNED. ID is any id when the packet has no allocation yet, else at
 * least the packet's next id: a gap (ids taken by other threads) is written
 * as an ID_SKIP event; an id below the next one returns HL_WRITE_FULL. The
 * same rule holds for NEW_ID of the realloc events. */
HlWriteStatus hl_packet_writer_alloc      (HlPacketWriter *w,
                                           uint64_t        time_ns,
                                           uint64_t        id,
                                           uint64_t        size,
                                           uint64_t        alignment,
                                           uint32_t        stack_id,
                                           uint64_t        address);
HlWriteStatus hl_packet_writer_free       (HlPacketWriter *w,
                                           uint64_t        time_ns,
                                           uint64_t        id);
HlWriteStatus hl_packet_writer_free_addr  (HlPacketWriter *w,
                                           uint64_t        time_ns,
                                           uint64_t        address);
HlWriteStatus hl_packet_writer_realloc    (HlPacketWriter *w,
                                           uint64_t        time_ns,
                                           uint64_t        old_id,
                                           uint64_t        new_id,
                                           uint64_t        size,
                                           uint32_t        stack_id,
                                           uint64_t        address);
HlWriteStatus hl_packet_writer_realloc_addr (HlPacketWriter *w,
                                             uint64_t        time_ns,
                                             uint64_t        old_address,
                                             uint64_t        new_id,
                                             uint64_t        size,
                                             uint32_t        stack_id,
                                             uint64_t        address);
/* FRAMES innermost first, N_FRAMES <= HL_TRACE_MAX_FRAMES. */
HlWriteStatus hl_packet_writer_stack      (HlPacketWriter *w,
                                           uint64_t        time_ns,
                                           uint32_t        stack_id,
                                           uint32_t        flags,
                                           const uint64_t *frames,
                                           uint32_t        n_frames);
HlWriteStatus hl_packet_writer_module     (HlPacketWriter *w,
                                           uint64_t        time_ns,
                                           uint32_t        flags,
                                           uint64_t        start,
                                           uint64_t        size,
                                           uint64_t        file_offset,
                                           const uint8_t  *build_id,
                                           size_t          build_id_len,
                                           const char     *path);
HlWriteStatus hl_packet_writer_thread     (HlPacketWriter *w,
                                           uint64_t        time_ns,
                                           uint32_t        tid,
                                           uint32_t        flags,
                                           const char     *name);
HlWriteStatus hl_packet_writer_meta_int   (HlPacketWriter *w,
                                           uint64_t        time_ns,
                                           const char     *key,
                                           int64_t         value);
HlWriteStatus hl_packet_writer_meta_string (HlPacketWriter *w,
                                            uint64_t        time_ns,
                                            const char     *key,
                                            const char     *value);
HlWriteStatus hl_packet_writer_meta_remove (HlPacketWriter *w,
                                            uint64_t        time_ns,
                                            const char     *key);
HlWriteStatus hl_packet_writer_mark       (HlPacketWriter *w,
                                           uint64_t        time_ns,
                                           const char     *text);
HlWriteStatus hl_packet_writer_counters   (HlPacketWriter *w,
                                           uint64_t        time_ns,
                                           uint64_t        heap_bytes,
                                           uint64_t        rss_bytes,
                                           uint64_t        n_allocs,
                                           uint64_t        n_frees);
HlWriteStatus hl_packet_writer_dropped    (HlPacketWriter *w,
                                           uint64_t        time_ns,
                                           uint64_t        count,
                                           uint32_t        reason);
/* A REACHABILITY event with TOTALS and as many of the N records REC (ids
 * rising) as fit the packet: *N_WRITTEN of them (0 when N is 0). FULL
 * when not even the totals and one record (or the totals alone, N 0) fit. */
HlWriteStatus hl_packet_writer_reachability (HlPacketWriter      *w,
                                             uint64_t             time_ns,
                                             const HlReachTotals *totals,
                                             const HlReachRecord *rec,
                                             size_t               n,
                                             size_t              *n_written);
/* The skippable events of the program's own anonymous mappings and of the
 * allocator's view (docs/trace-format.md 5.3). */
HlWriteStatus hl_packet_writer_mmap       (HlPacketWriter *w,
                                           uint64_t        time_ns,
                                           uint64_t        address,
                                           uint64_t        size,
                                           uint32_t        stack_id,
                                           uint32_t        prot,
                                           uint32_t        flags);
HlWriteStatus hl_packet_writer_munmap     (HlPacketWriter *w,
                                           uint64_t        time_ns,
                                           uint64_t        address,
                                           uint64_t        size);
HlWriteStatus hl_packet_writer_mremap     (HlPacketWriter *w,
                                           uint64_t        time_ns,
                                           uint64_t        old_address,
                                           uint64_t        old_size,
                                           uint64_t        address,
                                           uint64_t        size,
                                           uint32_t        stack_id,
                                           uint32_t        flags);
HlWriteStatus hl_packet_writer_allocator  (HlPacketWriter          *w,
                                           uint64_t                 time_ns,
                                           const HlAllocatorSample *s);
HlWriteStatus hl_packet_writer_end        (HlPacketWriter *w,
                                           uint64_t        time_ns,
                                           int32_t         exit_status);

/* Builds a whole INFO packet (kind HL_PACKET_KIND_INFO) from N key/value
 * pairs into the writer's buffer, replacing anything begun; returns the
 * bytes to write, or 0 when the pairs do not fit in one packet. */
size_t        hl_packet_writer_info       (HlPacketWriter     *w,
                                           uint64_t            time_ns,
                                           const char * const *keys,
                                           const char * const *values,
                                           size_t              n);
