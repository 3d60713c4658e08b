/* hl-shm-reader.h — reads a live session segment from another process.
 *
 * Maps the segment read-only, validates the header (magic, version, sizes
 * against the real size of the object, owner uid == caller's uid, every
 * region inside the segment) and bounds-checks every offset and length it
 * follows afterwards. A corrupt, hostile, truncated or concurrently
 * rewritten segment yields an HlFormatError, never a crash. Reading never
 * blocks or disturbs the target.
 *
 * Plain C11 + libc.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hl-shm-layout.h"
#include "hl-trace-reader.h" /* HlFormatError */

typedef struct HlShmReader HlShmReader;

/* NAME is a segment name as in /dev/shm ("heaplens-1000-4242-ab12cd"), or a
 * path. 0, or -1 with ERR (ERROR_IO with the reason for permission and
 * ownership refusals: "owned by uid 0, not you (1000)"). */
int   hl_shm_reader_open        (const char     *name,
                                 HlShmReader   **out,
                                 HlFormatError  *err);
int   hl_shm_reader_open_memory (const void     *data,
                                 size_t          size,
                                 uint32_t        expected_uid,
                                 HlShmReader   **out,
                                 HlFormatError  *err);
void  hl_shm_reader_free        (HlShmReader    *r);

/* A validated copy of the header; strings are NUL-terminated in the copy. */
const HlShmHeader *hl_shm_reader_header (const HlShmReader *r);
HlShmState         hl_shm_reader_state  (const HlShmReader *r, uint64_t *heartbeat_ns);

typedef struct
{
  uint64_t n_allocs, n_frees, bytes_allocated, bytes_freed;
  uint64_t heap_bytes, peak_heap_bytes, peak_heap_time_ns;
  uint64_t rss_bytes, peak_rss_bytes;
  uint64_t dropped[8];
  uint64_t n_samples;
} HlShmTotals;

int   hl_shm_reader_totals      (HlShmReader *r, HlShmTotals *out, HlFormatError *err);

/* Samples with index >= FIRST (up to the ring's size back), oldest first;
 * returns how many were copied into OUT (at most MAX). */
size_t hl_shm_reader_samples    (HlShmReader *r, uint64_t first, HlShmSample *out, size_t max);

/* Walks resources nodes published after *CURSOR (0 to start), calling the
 * callbacks; advances *CURSOR. Stacks are decoded into frames (innermost
 * first). Returns 0, or -1 with ERR at the first malformed node. */
typedef void (*HlShmStackFunc)  (void *user_data, uint32_t stack_id, const uint64_t *frames, uint32_t n_frames);
typedef void (*HlShmThreadFunc) (void *user_data, uint32_t tid, const char *name);
int   hl_shm_reader_resources   (HlShmReader    *r,
                                 uint64_t       *cursor,
                                 HlShmStackFunc  stack_func,
                                 HlShmThreadFunc thread_func,
                                 void           *user_data,
                                 HlFormatError  *err);

typedef struct
{
  uint32_t stack_id;
  uint32_t flags;
  uint64_t calls, bytes, frees, freed_bytes;
} HlShmCallsiteView;

/* Calls FUNC for every used call-site record. */
typedef void (*HlShmCallsiteFunc) (void *user_data, const HlShmCallsiteView *site);
int   hl_shm_reader_callsites   (HlShmReader *r, HlShmCallsiteFunc func, void *user_data, HlFormatError *err);

/* Calls FUNC for every consistent live slot (a snapshot of what is live). */
typedef void (*HlShmLiveFunc) (void *user_data, const HlShmLiveSlot *slot);
int   hl_shm_reader_live        (HlShmReader *r, HlShmLiveFunc func, void *user_data, HlFormatError *err);

/* Current items (flags & ACTIVE) and log entries >= *LOG_CURSOR. */
typedef void (*HlShmMetaFunc) (void *user_data, const HlShmMetaItem *item);
int   hl_shm_reader_metadata    (HlShmReader *r, HlShmMetaFunc item_func, void *user_data, HlFormatError *err);
int   hl_shm_reader_metadata_log (HlShmReader *r, uint64_t *log_cursor, HlShmMetaFunc entry_func, void *user_data, HlFormatError *err);
