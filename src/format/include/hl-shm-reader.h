/* hl-shm-reader.h — reads a live session segment from another process.
 *
 * Maps the segment read-only, validates the header (magic, version, sizes
 * against the real size of the object, owner uid == caller's uid, every
 * region inside the segment, 64-byte aligned, large enough for its fixed
 * part and not overlapping another) and bounds-checks every offset and
 * length it follows afterwards; every shared field is read once, with an
 * acquire load where it publishes something. A corrupt, hostile, truncated
 * or concurrently rewritten segment yields an HlFormatError or is skipped,
 * never a crash or a read outside the mapping. Reading never blocks or
 * disturbs the target.
 *
 * One limit: the owner of a segment (same uid) can shrink it with
 * ftruncate while it is mapped, and a read past the new end raises SIGBUS.
 * Every call re-checks the object's size first (fstat), which closes all
 * but a tiny window; a reader that must survive even that installs a
 * SIGBUS handler.
 *
 * The writer side lives in src/capture (hl-capture-session.c and friends),
 * following the protocols of hl-shm-layout.h.
 *
 * Plain C11 + libc.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "hl-shm-layout.h"
#include "hl-trace-reader.h" /* HlFormatError */

typedef struct HlShmReader HlShmReader;

/* NAME is a segment name as in /dev/shm ("heaplens-1000-4242-ab12cd"), or a
 * path. 0, or -1 with ERR (ERROR_IO with the reason for permission and
 * ownership refusals: "owned by uid 0, not you (1000)"). /dev/shm is
 * world-writable, so the file is opened O_NONBLOCK | O_NOFOLLOW and
 * refused, before a byte is read, unless it is a regular file owned by
 * the caller with mode 0600 (a FIFO, a symlink, a socket never block). */
int   hl_shm_reader_open        (const char     *name,
                                 HlShmReader   **out,
                                 HlFormatError  *err);
int   hl_shm_reader_open_memory (const void     *data,
                                 size_t          size,
                                 uint32_t        expected_uid,
                                 HlShmReader   **out,
                                 HlFormatError  *err);
void  hl_shm_reader_free        (HlShmReader    *r);
/* The checks of an open descriptor FD of PATH (as hl_shm_reader_open makes
 * them): fstat into ST; 0 when it is a regular file owned by the caller's
 * uid with mode 0600, else -1 with ERR (ERROR_IO, "PATH is a FIFO, not a
 * session segment", "... owned by uid 0, not you (1000)", "... has mode
 * 0644, not 0600"). */
int   hl_shm_check_candidate    (int             fd,
                                 const char     *path,
                                 struct stat    *st,
                                 HlFormatError  *err);

/* A validated copy of the header, taken at open; strings are NUL-terminated
 * in the copy. The changing fields (state, heartbeat, exit status, end
 * time, flags) come from hl_shm_reader_state. */
const HlShmHeader *hl_shm_reader_header (const HlShmReader *r);
/* The trace's path ("" when none is written). A session opened while it
 * was STARTING may not have it in the header copy yet: this copies it
 * from the segment once the session is past STARTING. */
const char        *hl_shm_reader_trace_path (HlShmReader *r);
/* Current state (an unknown value reads as STARTING); HEARTBEAT_NS, when
 * not NULL, gets the last sign of life. */
HlShmState         hl_shm_reader_state  (const HlShmReader *r, uint64_t *heartbeat_ns);
/* Exit status, end time and flags as they are now (valid once ENDED). */
void               hl_shm_reader_end_info (const HlShmReader *r, int32_t *exit_status,
                                           uint64_t *ended_ns, uint32_t *flags);
/* Mapped size of the segment. */
size_t             hl_shm_reader_size   (const HlShmReader *r);

typedef struct
{
  uint64_t n_allocs, n_frees, bytes_allocated, bytes_freed;
  uint64_t frees_unknown;            /* frees of blocks the live table did not hold */
  uint64_t heap_bytes, peak_heap_bytes, peak_heap_time_ns;
  uint64_t rss_bytes, peak_rss_bytes;
  uint64_t dropped[HL_DROP_REASONS_MAX]; /* by HlDropReason */
  uint64_t n_samples;
  uint64_t n_threads;                /* thread slots in use, exited ones included */
  uint64_t n_stacks;                 /* stack ids handed out */
  uint64_t stacks_dropped;           /* resources table full */
  uint64_t live_count, live_dropped; /* live table: approximate count, inserts without room */
  uint64_t fp_checks, fp_mismatches;
  /* The header's words beside the heap (docs/shm-layout.md §3; 0 in
   * segments of older preloads): the program's own anonymous mappings,
   * and glibc's mallinfo2() at the last allocator sample (at
   * malloc_sample_ns, 0: none) */
  uint64_t mmap_bytes, peak_mmap_bytes, mmap_regions;
  uint64_t malloc_arena_bytes, malloc_in_use_bytes, malloc_free_bytes, malloc_mmapped_bytes;
  uint64_t malloc_sample_ns;
} HlShmTotals;

int   hl_shm_reader_totals      (HlShmReader *r, HlShmTotals *out, HlFormatError *err);

/* The last leak scan on demand (HlShmHeader.leak_scan), copied whole
 * between two equal even reads of its sequence. OUT->seq_atomic is twice
 * the number of scans published (0: none yet). -1 (NOT_READY) when a
 * scan was being published at each of a few tries: ask again later. */
int   hl_shm_reader_leak_scan   (HlShmReader *r, HlShmLeakScan *out, HlFormatError *err);

/* One running thread's counters (its slot of HlShmCounters.threads; a
 * thread's slot is cleared when it exits, its totals folded into the
 * exited ones). */
typedef struct
{
  uint32_t tid;
  uint64_t n_allocs, n_frees, bytes_allocated, bytes_freed;
} HlShmThreadView;

typedef void (*HlShmThreadCountersFunc) (void *user_data, const HlShmThreadView *thread);
/* Calls FUNC for every used thread slot, in slot order. */
int   hl_shm_reader_threads     (HlShmReader *r, HlShmThreadCountersFunc func, void *user_data, HlFormatError *err);

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

/* Calls FUNC for every consistent live entry, unpacked (a snapshot of what
 * is live). */
typedef void (*HlShmLiveFunc) (void *user_data, const HlShmLiveSlot *slot);
int   hl_shm_reader_live        (HlShmReader *r, HlShmLiveFunc func, void *user_data, HlFormatError *err);
/* Slots of the live table (0 when it has none or is malformed). */
uint64_t hl_shm_reader_live_n_slots (HlShmReader *r);
/* What changed in the live table since the last call, without a callback
 * per slot: SHADOW holds one value per slot (the allocation id seen there
 * folded to 32 bits, 0 = none; zero it before the first call) and must
 * have room for hl_shm_reader_live_n_slots(). For each slot whose
 * allocation left, REMOVED (INDEX); then, for a new allocation in it,
 * ADDED (INDEX, a consistent copy). Slots being written are left for the
 * next call. An allocation keeps its slot for its life, so a steady table
 * costs one sequential pass. */
typedef void (*HlShmLiveAddedFunc)   (void *user_data, uint64_t index, const HlShmLiveSlot *slot);
typedef void (*HlShmLiveRemovedFunc) (void *user_data, uint64_t index);
int   hl_shm_reader_live_diff   (HlShmReader *r, uint32_t *shadow, uint64_t n_shadow, HlShmLiveAddedFunc added,
                                 HlShmLiveRemovedFunc removed, void *user_data, HlFormatError *err);

/* Current items (flags & ACTIVE; each a consistent seqlock read, NUL-
 * terminated) and log entries >= *LOG_CURSOR still in the ring (older ones
 * were overwritten and are skipped); *LOG_CURSOR advances. */
typedef void (*HlShmMetaFunc) (void *user_data, const HlShmMetaItem *item);
int   hl_shm_reader_metadata    (HlShmReader *r, HlShmMetaFunc item_func, void *user_data, HlFormatError *err);
int   hl_shm_reader_metadata_log (HlShmReader *r, uint64_t *log_cursor, HlShmMetaFunc entry_func, void *user_data, HlFormatError *err);

/* ---- Finding sessions ------------------------------------------------- */

typedef struct
{
  char     name[256];  /* "heaplens-1000-4242-ab12cd" (no leading '/') */
  uint32_t uid, pid;   /* parsed from the name */
} HlShmSessionName;

/* Calls FUNC for each /dev/shm/heaplens-<UID>-* segment (any uid when UID is
 * UINT32_MAX) whose name parses; returns how many, or -1 when /dev/shm
 * cannot be read. The segments are not opened. */
typedef void (*HlShmSessionFunc) (void *user_data, const HlShmSessionName *session);
int   hl_shm_list_sessions      (uint32_t uid, HlShmSessionFunc func, void *user_data);
