/* hl-costs-payload.h — the payload of a COSTS packet (docs/trace-format.md
 * section 7e) as plain C: what a costs-only recording holds, in the order
 * and the encoding the payload has it.
 *
 * hl_costs_payload_encode() writes an HlCostsPayload as the payload's
 * bytes; hl_costs_payload_decode() reads them back, checking every count
 * against the bytes left, every index against what it points into, the
 * trie's depth and the frames' total, and that the payload reads to its
 * last byte. Decoded strings point into the payload (they are not
 * NUL-terminated): the payload must outlive the description.
 *
 * What the numbers mean (cost rules, which thread owns a stack) is the
 * model's; this file only lays them out. The packet around the payload
 * (its header, compression, footer) is hl-costs-packet.h.
 *
 * Plain C11, libc only. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hl-trace-reader.h" /* HlFormatError */

/* How the payload holds the stacks' frames: INLINE (a trie of frames), or
 * BY_REFERENCE to the trace's own STACK events (only their counts and a
 * crc of every frame, hl_costs_frames_crc()). */
typedef enum
{
  HL_COSTS_FORM_INLINE       = 0,
  HL_COSTS_FORM_BY_REFERENCE = 1,
} HlCostsForm;

/* The size histogram's buckets. */
#define HL_COSTS_HISTOGRAM_BUCKETS 65u
/* The frames all stacks of a payload may have (as a 64 MiB payload of
 * one-byte frames could). */
#define HL_COSTS_MAX_TOTAL_FRAMES ((uint64_t) 1 << 25)

/* A string: DATA NULL for none (written as 0), else LEN bytes. */
typedef struct
{
  const char *data;
  size_t      len;
} HlCostsString;

/* The seven costs of a stack, a thread or a pair, in the payload's order. */
typedef struct
{
  uint64_t allocations;
  uint64_t bytes;
  uint64_t temporary;
  uint64_t peak_bytes;
  uint64_t leaked_bytes;
  uint64_t leaked_blocks;
  uint64_t live_bytes;
} HlCostsRow;

typedef struct
{
  uint64_t seq;              /* events in (time, sequence) order */
  uint64_t n_allocs;
  uint64_t n_frees;
  uint64_t bytes_allocated;
  uint64_t temporary;
  uint64_t frees_unknown;
  uint64_t ids_out_of_range;
  uint64_t dropped;
  uint64_t end_ns;
  uint64_t peak_heap;
  uint64_t peak_time_ns;
  uint64_t peak_rss;
  uint64_t leaked_bytes;
  uint64_t leaked_blocks;
  bool     has_exit;
  int64_t  exit_status;
  bool     truncated;
  uint64_t committed_allocs;
} HlCostsSummary;

typedef struct
{
  HlCostsString key;
  HlCostsString value;
} HlCostsInfo;

typedef struct
{
  HlCostsString path;
  HlCostsString name;
  HlCostsString build_id;    /* hex */
  uint64_t      start;
  uint64_t      size;
} HlCostsModule;

typedef struct
{
  uint32_t      tid;
  HlCostsString name;
  uint64_t      start_ns;
  uint64_t      end_ns;
} HlCostsThread;

/* A trace stack id that maps to a stack: INDEX is the stack's index + 1
 * (1 .. n_stacks - 1). */
typedef struct
{
  uint64_t id;
  uint32_t index;
} HlCostsStackId;

/* A stack's frames: frames[begin .. begin + n), innermost first. */
typedef struct
{
  uint64_t begin;
  uint32_t n;
  bool     defined;
} HlCostsSpan;

typedef struct
{
  uint64_t time_ns;
  uint64_t heap_bytes;
  uint64_t rss_bytes;
} HlCostsCounter;

typedef struct
{
  uint64_t time_ns;
  uint64_t count;
} HlCostsDrop;

typedef struct
{
  HlCostsString key;
  HlCostsString value;
  uint64_t      start_ns;
  uint64_t      end_ns;      /* UINT64_MAX: still set at the end */
  uint32_t      tid;
} HlCostsMeta;

typedef struct
{
  uint64_t      time_ns;
  HlCostsString text;
  uint32_t      tid;
} HlCostsMark;

/* The costs of STACK in THREAD (a thread other than the stack's owner). */
typedef struct
{
  uint32_t   stack;
  uint32_t   thread;
  HlCostsRow costs;
} HlCostsPair;

/* An allocator sample (ALLOCATOR events, docs/trace-format.md 5.3). */
typedef struct
{
  uint64_t time_ns;
  uint64_t flags;
  uint64_t rss_bytes, heap_bytes, mmap_bytes;
  uint64_t arena_bytes, in_use_bytes, free_bytes, mmapped_chunks_bytes;
} HlCostsAllocator;

/* The program's own mappings of one trace stack id (MMAP events). */
typedef struct
{
  uint64_t stack_id;
  uint64_t calls, bytes, live_bytes, peak_bytes;
} HlCostsMmapSite;

typedef struct
{
  uint64_t calls, bytes, live_bytes, peak_bytes, peak_time_ns, regions;
} HlCostsMmapTotals;

typedef struct
{
  HlCostsSummary  summary;
  size_t          n_info;
  HlCostsInfo    *info;
  size_t          n_warnings;
  HlCostsString  *warnings;
  size_t          n_modules;
  HlCostsModule  *modules;
  size_t          n_threads;
  HlCostsThread  *threads;
  /* The stack map: the length of the trace-id table, then the ids that
   * map, ascending. */
  uint64_t        stack_table_size;
  size_t          n_stack_ids;
  HlCostsStackId *stack_ids;
  /* The stacks, stack 0 (no frames) included: spans[0] is not written. */
  size_t          n_stacks;
  HlCostsForm     form;
  HlCostsSpan    *spans;
  /* INLINE: the frames the spans point into. BY_REFERENCE: their total
   * (frames NULL once decoded; the encoder reads them for the crc). */
  uint64_t        n_frames;
  uint64_t       *frames;
  uint32_t        frames_crc;  /* BY_REFERENCE, decoded: hl_costs_frames_crc() of every frame */
  size_t          n_counters;
  HlCostsCounter *counters;
  size_t          n_drops;
  HlCostsDrop    *drops;
  size_t          n_meta;
  HlCostsMeta    *meta;
  size_t          n_marks;
  HlCostsMark    *marks;
  /* Per stack (n_stacks): its costs and owner (thread index + 1, 0 none). */
  HlCostsRow     *stack_costs;
  uint32_t       *owners;
  HlCostsRow     *thread_costs; /* n_threads */
  size_t          n_pairs;
  HlCostsPair    *pairs;
  uint64_t        histogram_count[HL_COSTS_HISTOGRAM_BUCKETS];
  uint64_t        histogram_bytes[HL_COSTS_HISTOGRAM_BUCKETS];
  /* The leak scan at exit (REACHABILITY events; model version 3): its
   * totals when HAS_REACH, and the blocks not still reachable, by rising
   * id, each record's stack_id an internal stack index (< n_stacks). */
  bool            has_reach;
  HlReachTotals   reach;
  size_t          n_reach;
  HlReachRecord  *reach_records;
  /* Memory beside the heap (model version 3) */
  size_t             n_allocator;
  HlCostsAllocator  *allocator;
  HlCostsMmapTotals  mmap;
  size_t             n_mmap_sites;
  HlCostsMmapSite   *mmap_sites;
} HlCostsPayload;

/* A growing byte buffer (malloc'd DATA, LEN used of CAP). */
typedef struct
{
  uint8_t *data;
  size_t   len;
  size_t   cap;
} HlCostsBuffer;

/* Frees B's bytes and zeroes it. */
void     hl_costs_buffer_clear  (HlCostsBuffer *b);

/* CRC-32C of N frames as little-endian u64s, continuing CRC. */
uint32_t hl_costs_frames_crc    (uint32_t        crc,
                                 const uint64_t *frames,
                                 size_t          n);

/* Appends P's payload to OUT (zeroed by the caller, or a buffer to add
 * to). 0, or -1 when out of memory (OUT then holds what it held before
 * plus part of the payload). */
int      hl_costs_payload_encode (const HlCostsPayload *p,
                                  HlCostsBuffer        *out);

/* Decodes the LEN bytes at DATA into OUT (its arrays allocated, strings
 * into DATA). 0, or -1 with ERR (CORRUPT or TRUNCATED, the offset in the
 * payload where it went wrong; IO when out of memory) and OUT cleared. */
int      hl_costs_payload_decode (const uint8_t  *data,
                                  size_t          len,
                                  HlCostsPayload *out,
                                  HlFormatError  *err);

/* Frees what decode() allocated in P and zeroes it. */
void     hl_costs_payload_clear  (HlCostsPayload *p);
