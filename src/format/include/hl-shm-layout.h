/* hl-shm-layout.h — the shared-memory session of one profiled process.
 *
 * Segment name: /heaplens-<uid>-<pid>-<nonce> (under /dev/shm), created
 * O_EXCL with mode 0600 by the preload, mapped read-only by readers.
 *
 * Layout: HlShmHeader at offset 0, then six regions (the sixth, packets,
 * is absent (offset and size 0) in segments of older preloads), each at an offset
 * (relative to the segment start, 64-byte aligned) and of a size given in
 * the header. All fields are little-endian, fixed width, naturally aligned.
 *
 * Concurrency: one process writes (many of its threads), any number of
 * readers in other processes read. Writers publish a record by filling it
 * and then storing its "publish" field with a release store; readers load
 * that field with an acquire load before reading the rest, and re-check
 * sequence numbers where a record can change (metadata items, live slots).
 * Fields named *_atomic are only ever accessed with __atomic builtins.
 * Readers never trust a value they have not bounds-checked: see
 * hl-shm-reader.h.
 *
 * Plain C11, libc only: this file is compiled into the preload.
 */
#pragma once

#include <stdint.h>

#include "hl-trace-format.h" /* HlDropReason, HL_DROP_REASONS_MAX */

#define HL_SHM_MAGIC          "HLSHMEM" /* 8 bytes with its NUL */
#define HL_SHM_MAGIC_SIZE     8
#define HL_SHM_VERSION        3         /* readers refuse another version
                                         * (2: 32-byte packed live entries;
                                         * 3: the recorder's clock word) */
#define HL_SHM_NAME_PREFIX    "heaplens-"
#define HL_SHM_HEADER_SIZE    4096
#define HL_SHM_EXE_MAX        512
#define HL_SHM_CMDLINE_MAX    1536
#define HL_SHM_PATH_MAX       1024
#define HL_SHM_REGION_ALIGN   64

typedef enum
{
  HL_SHM_STATE_STARTING = 0,
  HL_SHM_STATE_RUNNING  = 1,
  HL_SHM_STATE_ENDED    = 2, /* exit_status is valid */
} HlShmState;

/* HlShmHeader.flags (written once before the state becomes RUNNING, except
 * KEPT and ENDED_BY_EXEC, which are set before the state becomes ENDED,
 * UNFOLLOWED, SHM_FULL and ABANDONED, set at any time, and MALLOC_ESTIMATED,
 * set and cleared at any time). */
enum
{
  HL_SHM_FLAG_COARSE_CLOCK  = 1u << 0, /* times from CLOCK_MONOTONIC_COARSE, after the first 50 ms */
  HL_SHM_FLAG_ENDED_BY_EXEC = 1u << 1, /* ENDED because the process exec'd (a new session follows) */
  HL_SHM_FLAG_KEPT          = 1u << 2, /* the name is left for the launcher to unlink */
  HL_SHM_FLAG_UNFOLLOWED    = 1u << 3, /* the process started a program without the preload,
                                        * which it cannot take (a mark in the trace says which) */
  HL_SHM_FLAG_SHM_FULL      = 1u << 4, /* /dev/shm could not back more of the segment: its tables
                                        * stopped growing (set at any time; drops count what it cost) */
  HL_SHM_FLAG_ABANDONED     = 1u << 5, /* the launcher left the session to its process, which
                                        * unlinks it at its end (docs/shm-layout.md §1) */
  HL_SHM_FLAG_ATTACHED      = 1u << 6, /* the preload was loaded into the running process by
                                        * `heaplens-cli attach`: it records from then on */
  HL_SHM_FLAG_MALLOC_ESTIMATED = 1u << 7, /* the malloc_* words are estimates: mallinfo2() had become
                                           * too slow to call (set and cleared at each allocator sample) */
};

/* HlShmHeader.control_atomic: requests of another process to the
 * preload, which it polls at its counters' tick (every 10 ms while the
 * program allocates). */
enum
{
  HL_SHM_CONTROL_DETACH = 1u << 0, /* attached: end the recording, put the
                                    * allocator back, let the process run on */
  HL_SHM_CONTROL_LEAK_SCAN = 1u << 1, /* run the leak scan now: the preload clears
                                       * the bit, scans at that tick and publishes
                                       * HlShmHeader.leak_scan (docs/capture.md,
                                       * "Leaks on demand") */
};

/* HlShmLeakScan.status: how the last scan on demand went. */
typedef enum
{
  HL_SHM_LEAK_SCAN_NONE        = 0, /* none yet */
  HL_SHM_LEAK_SCAN_DONE        = 1, /* the kinds below are the scan's */
  HL_SHM_LEAK_SCAN_OFF         = 2, /* HEAPLENS_LEAK_SCAN=0 (record --no-leak-scan) */
  HL_SHM_LEAK_SCAN_SAMPLED     = 3, /* sampling mode: only sampled blocks are known */
  HL_SHM_LEAK_SCAN_ATTACHED    = 4, /* attached: blocks from before the attach are unknown */
  HL_SHM_LEAK_SCAN_UNREADABLE  = 5, /* process_vm_readv refused (errno in flags) */
  HL_SHM_LEAK_SCAN_NO_MEMORY   = 6, /* no memory for the scan's arrays */
  HL_SHM_LEAK_SCAN_NO_TRACE    = 7, /* no trace or live table to scan from */
} HlShmLeakScanStatus;

/* The last leak scan on demand (HL_SHM_CONTROL_LEAK_SCAN). seq_atomic
 * counts the scans published; the writer makes it odd while it writes the
 * rest and even after (release), so a reader copies the fields between
 * two equal even reads (acquire). Blocks and bytes by HlReachKind (0
 * still reachable … 3 definitely lost), time_ns when it ran (monotonic
 * ns since start), scan_ns how long it took. Zero in older segments. */
typedef struct
{
  uint64_t blocks[4];
  uint64_t bytes[4];
  uint64_t time_ns;
  uint64_t scan_ns;
  uint32_t status;       /* HlShmLeakScanStatus */
  uint32_t flags;        /* HL_REACH_FLAG_INCOMPLETE; UNREADABLE: the errno */
  uint32_t seq_atomic;
  uint32_t reserved;
} HlShmLeakScan;

_Static_assert (sizeof (HlShmLeakScan) == 96, "HlShmLeakScan is 96 bytes");

/* The name (/proc/PID/comm) a launcher takes before it looks for its
 * sessions a last time: a process that ends after it unlinks its own. */
#define HL_SHM_LAUNCHER_ENDING_COMM "heaplens-ending"

typedef struct
{
  uint64_t offset; /* from the segment start, multiple of HL_SHM_REGION_ALIGN */
  uint64_t size;   /* bytes */
} HlShmRegion;

typedef struct
{
  uint8_t     magic[HL_SHM_MAGIC_SIZE];     /* "HLSHMEM\0" */
  uint32_t    version;                      /* HL_SHM_VERSION */
  uint32_t    header_size;                  /* HL_SHM_HEADER_SIZE */
  uint64_t    segment_size;                 /* must equal the mapped size */
  uint32_t    pid;
  uint32_t    ppid;
  uint32_t    uid;                          /* must equal the segment owner */
  uint32_t    flags;
  uint64_t    start_wall_ns;                /* CLOCK_REALTIME at start */
  uint64_t    start_mono_ns;                /* CLOCK_MONOTONIC at start */
  uint64_t    heartbeat_ns_atomic;          /* monotonic ns since start of the last sign of life */
  uint32_t    state_atomic;                 /* HlShmState */
  int32_t     exit_status;                  /* valid when ENDED */
  uint64_t    ended_ns;                     /* monotonic ns since start, when ENDED */
  HlShmRegion resources;                    /* HlShmResourcesHeader + buckets + nodes */
  HlShmRegion callsites;                    /* HlShmCallsitesHeader + HlShmCallsite[] */
  HlShmRegion live;                         /* HlShmLiveHeader + HlShmLiveEntry[] */
  HlShmRegion metadata;                     /* HlShmMetadata */
  HlShmRegion counters;                     /* HlShmCounters */
  char        exe[HL_SHM_EXE_MAX];          /* NUL-terminated */
  char        cmdline[HL_SHM_CMDLINE_MAX];  /* arguments separated by NUL, ends with two NULs */
  char        trace_path[HL_SHM_PATH_MAX];  /* "" when no trace is written */
  uint64_t    clock_ns_atomic;              /* CLOCK_MONOTONIC_COARSE, kept by the recorder; 0: not kept */
  HlShmRegion packets;                      /* HlShmPacketsHeader + HlShmPacketSlot[]; 0, 0: none */
  /* The trace cut (a write failed: a full disk, EFBIG, EIO): the time of
   * the first event it lost (monotonic ns since start, at least 1; 0: not
   * cut), lowered while pending packets are dropped, and the errno of the
   * failed write, stored last (0: not cut). Zero in older segments. */
  uint64_t    trace_cut_ns_atomic;
  int32_t     trace_cut_errno_atomic;
  uint32_t    reserved_cut;
  /* Sampling mode's mean bytes between samples (HEAPLENS_SAMPLE_BYTES;
   * 0: every allocation recorded, and in older segments). The call sites'
   * sums then weigh each sampled block (hl-sample-weight-core.h). */
  uint64_t    sample_bytes;
  /* HL_SHM_CONTROL_*, set by another process (an atomic OR); 0 in older
   * segments */
  uint32_t    control_atomic;
  uint32_t    reserved_control;
  /* Where the memory the system sees goes (docs/shm-layout.md §3): the
   * program's own anonymous private mappings (mmap, munmap, mremap),
   * updated at each call, and the allocator's view, glibc's mallinfo2(),
   * sampled at the counters' tick at a rate its cost allows;
   * malloc_sample_ns_atomic (ns since start of that sample, 0: none yet)
   * is stored last, with release. Zero in older segments. */
  uint64_t    mmap_bytes_atomic;
  uint64_t    peak_mmap_bytes_atomic;
  uint64_t    mmap_regions_atomic;
  uint64_t    malloc_arena_bytes_atomic;
  uint64_t    malloc_in_use_bytes_atomic;
  uint64_t    malloc_free_bytes_atomic;
  uint64_t    malloc_mmapped_bytes_atomic;
  uint64_t    malloc_sample_ns_atomic;
  uint32_t    launcher_pid;                 /* HEAPLENS_LAUNCHER: the recorder that keeps the family's sessions; 0: none */
  uint32_t    reserved_launcher;
  HlShmLeakScan leak_scan;                  /* the last leak scan on demand */
  uint8_t     reserved[HL_SHM_HEADER_SIZE - 8 - 4 * 2 - 8 - 4 * 4 - 8 * 3 - 4 * 2 - 8
                       - 16 * 5 - HL_SHM_EXE_MAX - HL_SHM_CMDLINE_MAX - HL_SHM_PATH_MAX - 8 - 16 - 16 - 8 - 8
                       - 8 * 8 - 4 * 2 - 96];
} HlShmHeader;

_Static_assert (sizeof (HlShmHeader) == HL_SHM_HEADER_SIZE, "HlShmHeader is one page");

/* ---- Resources table (seed 000): interned stacks and thread records ---- *
 *
 * HlShmResourcesHeader, then bucket heads (uint32_t[n_buckets], offsets of
 * the first node of each hash chain, 0 = none; internal to the writer),
 * then nodes, appended from nodes_offset up to watermark_atomic. A node is
 * an HlShmResourceNode followed by `length` payload bytes, padded to 8. Offsets are
 * relative to the region start; a reader walks nodes in order up to the
 * watermark (acquire), checking each length against it. */

typedef struct
{
  uint32_t n_buckets;
  uint32_t nodes_offset;         /* first node, relative to the region */
  uint64_t watermark_atomic;     /* end of the last published node */
  uint64_t n_stacks_atomic;      /* stack ids handed out (ids are 1..n_stacks) */
  uint64_t n_dropped_atomic;     /* stacks not interned: table full */
} HlShmResourcesHeader;

typedef enum
{
  HL_SHM_NODE_STACK  = 1, /* payload: frames, see below */
  HL_SHM_NODE_THREAD = 2, /* payload: the thread's name (no NUL); a later node of the same tid renames it */
} HlShmNodeKind;

typedef struct
{
  uint32_t next;      /* next node of the same hash chain (writer-internal) */
  uint32_t id;        /* stack id (>= 1) or tid */
  uint16_t kind;      /* HlShmNodeKind */
  uint16_t length;    /* payload bytes */
  uint32_t hash;      /* writer-internal */
} HlShmResourceNode;

_Static_assert (sizeof (HlShmResourceNode) == 16, "resource node header is 16 bytes");

/* Stack payload: frames innermost first, each a zigzag varint of the
 * difference to the previous frame (the first to 0), n_frames implied by
 * the payload length. Flags (truncated) are in the call-site record. */

/* ---- Call-site table (seed 001): per-stack counters -------------------- *
 * Indexed by stack id; record 0 collects allocations with no stack. */

typedef struct
{
  uint64_t n_slots;              /* records that follow (stack ids 0..n_slots-1) */
  uint64_t reserved;
} HlShmCallsitesHeader;

typedef struct
{
  uint32_t node_offset_atomic;   /* resources node of the stack; published last; 0 = unused */
  uint32_t flags;                /* HL_STACK_FLAG_* */
  uint64_t calls_atomic;         /* allocations */
  uint64_t bytes_atomic;         /* bytes allocated */
  uint64_t frees_atomic;         /* live count = calls - frees */
  uint64_t freed_bytes_atomic;   /* live bytes = bytes - freed_bytes */
} HlShmCallsite;

_Static_assert (sizeof (HlShmCallsite) == 40, "call-site record is 40 bytes");

/* ---- Live allocations table: address -> allocation -------------------- *
 * Open addressing, linear probing, power-of-two n_slots. A slot's
 * address_atomic is HL_SHM_LIVE_EMPTY, HL_SHM_LIVE_TOMBSTONE,
 * HL_SHM_LIVE_BUSY (being written) or the allocation's address, stored
 * with release after the other fields. A reader reads address (acquire),
 * the fields, then address again: if both agree the slot is consistent.
 *
 * An entry is 32 bytes, two to a cache line, the fields packed into three
 * words: the table is as large as the part of the heap it maps (one entry
 * per 32-byte granule of glibc's heap), and a lookup touches one line. */

#define HL_SHM_LIVE_EMPTY     0u
#define HL_SHM_LIVE_TOMBSTONE 1u
#define HL_SHM_LIVE_BUSY      2u

typedef struct
{
  uint64_t n_slots;
  uint64_t n_live_atomic;        /* approximate */
  uint64_t n_dropped_atomic;     /* inserts that found no free slot */
  union
  {
    uint64_t reserved;
    /* frees of addresses the live table did not hold, made by threads that
     * have exited (running threads count theirs in frees_unknown) */
    uint64_t exited_frees_unknown_atomic;
  };
} HlShmLiveHeader;

/* Field widths of an entry: an allocation whose id or size does not fit is
 * not entered (it counts as a live-table drop); the time is kept in units
 * of 2^HL_SHM_LIVE_TIME_SHIFT ns (about 1 ms, the coarse clock's
 * resolution), saturating after about 52 days. */
#define HL_SHM_LIVE_ID_BITS    48
#define HL_SHM_LIVE_SIZE_BITS  48
#define HL_SHM_LIVE_TIME_SHIFT 20
#define HL_SHM_LIVE_LOW48      ((UINT64_C (1) << 48) - 1)

typedef struct
{
  uint64_t address_atomic;
  uint64_t id_time;    /* allocation id (bits 0-47), time bits 0-15 (48-63) */
  uint64_t size_time;  /* bytes (bits 0-47), time bits 16-31 (48-63) */
  uint64_t stack_tid;  /* stack id (bits 0-31), allocating thread (32-63) */
} HlShmLiveEntry;

_Static_assert (sizeof (HlShmLiveEntry) == 32, "live entry is 32 bytes");

/* After the n_slots entries the region holds the writer's region
 * directory (writer-internal; readers ignore it): which block of entries
 * each region (2^HL_SHM_LIVE_REGION_SHIFT bytes: 128 KiB) of the address
 * space was given, so that distinct regions of the heap never share a
 * block while blocks remain. A 32-byte header, then n_words 64-bit words,
 * each 0 (empty) or the region's first address | its block (block <
 * HL_SHM_LIVE_DIR_MAX_BLOCKS), then n_blocks uint32 counts of the regions
 * given each block. The region at address 0 is never entered. */
#define HL_SHM_LIVE_REGION_SHIFT   17
#define HL_SHM_LIVE_DIR_MAX_BLOCKS 65536

typedef struct
{
  uint64_t n_words;              /* a power of two */
  uint64_t n_blocks;             /* blocks of entries handed out one per region */
  uint64_t next_block_atomic;    /* blocks handed out (may pass n_blocks: then all are) */
  uint64_t n_used_atomic;        /* words in use (approximate upper bound) */
} HlShmLiveDirHeader;

_Static_assert (sizeof (HlShmLiveDirHeader) == 32, "live directory header is 32 bytes");

/* An entry's fields, unpacked (what a reader hands out; not in the
 * segment). */
typedef struct
{
  uint64_t address_atomic; /* the address (> HL_SHM_LIVE_BUSY) */
  uint64_t alloc_id;
  uint64_t size;
  uint64_t time_ns;        /* a multiple of 2^HL_SHM_LIVE_TIME_SHIFT */
  uint32_t stack_id;
  uint32_t tid;
} HlShmLiveSlot;

/* Packs the three words of an entry; false when ID or SIZE do not fit. */
static inline int
hl_shm_live_pack (uint64_t id, uint64_t size, uint64_t time_ns, uint32_t stack_id, uint32_t tid,
                  uint64_t *id_time, uint64_t *size_time, uint64_t *stack_tid)
{
  if ((id | size) > HL_SHM_LIVE_LOW48)
    return 0;
  uint64_t t = time_ns >> HL_SHM_LIVE_TIME_SHIFT;
  if (t > UINT32_MAX)
    t = UINT32_MAX;
  *id_time = id | (t << 48);
  *size_time = size | ((t >> 16) << 48);
  *stack_tid = (uint64_t) stack_id | ((uint64_t) tid << 32);
  return 1;
}

static inline void
hl_shm_live_unpack (uint64_t address, uint64_t id_time, uint64_t size_time, uint64_t stack_tid,
                    HlShmLiveSlot *out)
{
  out->address_atomic = address;
  out->alloc_id = id_time & HL_SHM_LIVE_LOW48;
  out->size = size_time & HL_SHM_LIVE_LOW48;
  out->time_ns = ((id_time >> 48) | ((size_time >> 48) << 16)) << HL_SHM_LIVE_TIME_SHIFT;
  out->stack_id = (uint32_t) stack_tid;
  out->tid = (uint32_t) (stack_tid >> 32);
}

/* ---- Packet buffers: each thread's packet under construction ----------- *
 * The preload builds every thread's trace packet in a slot of this region
 * (slot i is thread block i's), so that a launcher can take the events
 * still buffered when the process died without writing them (SIGKILL, the
 * OOM killer): `heaplens-cli record` appends them to the trace.
 *
 * state_atomic, stored with release after the bytes it covers:
 *   0                          no event buffered
 *   L (< HL_SHM_PACKET_FLUSHING) packet[HL_PACKET_HEADER_SIZE, L) holds
 *                              whole events; the packet header is not
 *                              filled yet (the reader makes it: pid, tid,
 *                              time_begin_ns and alloc_id_begin below, the
 *                              rest from the events); not in the trace
 *   L | HL_SHM_PACKET_FLUSHING packet[0, L) is a finished packet being
 *                              written to the trace: it may be there,
 *                              whole or in part, or not at all
 * A thread killed inside an append leaves bytes past L: ignored. */

#define HL_SHM_PACKET_FLUSHING (UINT64_C (1) << 63)

typedef struct
{
  uint32_t n_slots;
  uint32_t slot_size;            /* sizeof (HlShmPacketSlot) */
  uint64_t reserved[7];
} HlShmPacketsHeader;

typedef struct
{
  uint64_t state_atomic;         /* see above */
  uint32_t pid;                  /* of the packet being built */
  uint32_t tid;
  uint64_t time_begin_ns;        /* the packet's time base */
  uint64_t alloc_id_begin;       /* id of its first allocation (0: none yet);
                                  * stored before the state that covers it */
  uint64_t reserved[4];
  uint8_t  packet[HL_PACKET_MAX_SIZE];
} HlShmPacketSlot;

_Static_assert (sizeof (HlShmPacketsHeader) == 64, "packets header is 64 bytes");
_Static_assert (sizeof (HlShmPacketSlot) == 64 + HL_PACKET_MAX_SIZE, "packet slot layout");

/* ---- Metadata recorder (seed 003) ------------------------------------- *
 * HL_SHM_META_ITEMS item slots; a slot keeps its key once used (so a reader
 * never pairs a key with another key's value). Each item is a seqlock:
 * seq_atomic is odd while a writer changes it; a reader retries when seq
 * was odd or changed. Writers serialise among themselves (spin on
 * writer_lock_atomic, never held across a syscall); readers never block
 * writers. Every change is also appended to the log ring. */

#define HL_SHM_META_ITEMS     64
#define HL_SHM_META_KEY_MAX   32  /* bytes, NUL included */
#define HL_SHM_META_VALUE_MAX 64  /* bytes, NUL included */
#define HL_SHM_META_LOG       512

enum
{
  HL_SHM_META_ACTIVE    = 1u << 0,
  HL_SHM_META_IS_STRING = 1u << 1,
  HL_SHM_META_IS_MARK   = 1u << 2, /* log entries only */
  HL_SHM_META_REMOVED   = 1u << 3, /* log entries only */
};

typedef struct
{
  uint32_t seq_atomic;
  uint32_t flags;
  int64_t  int_value;
  uint64_t time_ns;
  char     key[HL_SHM_META_KEY_MAX];
  char     string_value[HL_SHM_META_VALUE_MAX];
} HlShmMetaItem;

_Static_assert (sizeof (HlShmMetaItem) == 120, "metadata item is 120 bytes");

typedef struct
{
  uint32_t      writer_lock_atomic;
  uint32_t      n_items_atomic;              /* slots in use */
  uint64_t      log_count_atomic;            /* entries ever appended; entry i is log[i % HL_SHM_META_LOG] */
  HlShmMetaItem items[HL_SHM_META_ITEMS];
  HlShmMetaItem log[HL_SHM_META_LOG];
} HlShmMetadata;

/* ---- Counters: totals, per thread, and a ring of samples --------------- *
 * Per-thread slots are written only by their thread (relaxed atomic stores,
 * no read-modify-write on the hot path); a reader sums them. The process
 * totals that need a global view (peak, RSS) are updated about every 10 ms. */

#define HL_SHM_THREAD_SLOTS   1024
#define HL_SHM_SAMPLES        8192

typedef struct
{
  uint32_t tid_atomic;           /* 0 = free slot */
  uint32_t flags;                /* 1 = exited (slot reusable after the reader saw it) */
  uint64_t n_allocs;
  uint64_t n_frees;              /* all frees, frees_unknown included */
  uint64_t bytes_allocated;
  uint64_t bytes_freed;
  union
  {
    uint64_t reserved[3];
    struct
    {
      uint64_t frees_unknown;    /* frees of blocks not in the live table (size unknown) */
      uint64_t reserved_tail[2];
    };
  };
} HlShmThreadCounters;

_Static_assert (sizeof (HlShmThreadCounters) == 64, "thread counters fill one cache line");

typedef struct
{
  uint64_t time_ns;
  uint64_t heap_bytes;
  uint64_t rss_bytes;
  uint64_t n_allocs;
} HlShmSample;

typedef struct
{
  /* Updated on the sampling tick (about every 10 ms) */
  uint64_t            heap_bytes_atomic;
  uint64_t            peak_heap_bytes_atomic;
  uint64_t            peak_heap_time_ns_atomic;
  uint64_t            rss_bytes_atomic;
  uint64_t            peak_rss_bytes_atomic;
  /* Drops, indexed by HlDropReason (hl-trace-format.h); 0 unused */
  uint64_t            dropped_atomic[HL_DROP_REASONS_MAX];
  /* Exited threads' totals are folded in here */
  uint64_t            exited_n_allocs_atomic;
  uint64_t            exited_n_frees_atomic;
  uint64_t            exited_bytes_allocated_atomic;
  uint64_t            exited_bytes_freed_atomic;
  uint64_t            n_samples_atomic;       /* sample i is samples[i % HL_SHM_SAMPLES] */
  union
  {
    uint64_t          reserved[2];
    struct
    {
      uint64_t        fp_checks_atomic;       /* HEAPLENS_UNWIND=check: stacks compared */
      uint64_t        fp_mismatches_atomic;   /* of which the fp walk differed */
    };
  };
  HlShmThreadCounters threads[HL_SHM_THREAD_SLOTS];
  HlShmSample         samples[HL_SHM_SAMPLES];
} HlShmCounters;

_Static_assert (sizeof (HlShmMetadata) == 16 + 120 * (HL_SHM_META_ITEMS + HL_SHM_META_LOG),
                "metadata region layout");
_Static_assert (sizeof (HlShmCounters) == 8 * (5 + HL_DROP_REASONS_MAX + 4 + 1 + 2)
                + 64 * HL_SHM_THREAD_SLOTS + 32 * HL_SHM_SAMPLES, "counters region layout");
