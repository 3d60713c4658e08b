/* hl-trace-format.h — the bytes of a Heaplens trace file (.hltrace).
 *
 * This header is the single definition of the on-disk layout; the writer
 * (linked into the preload) and the reader (linked into the model) both use
 * it, and docs/trace-format.md describes the same bytes for humans.
 *
 * Overview
 *   file    := file-header packet*
 *   packet  := packet-header content[content_size]
 *   content := event*
 *   event   := type:u8 [time_delta:varint] [len:varint if type >= 64] payload
 *              (bit 7 of the type byte set: no time_delta, it is 0)
 *
 * All fixed-width fields are little-endian. "varint" is unsigned LEB128
 * (at most 10 bytes for 64 bits); "svarint" is a zigzag-encoded varint;
 * "string" is varint length + that many bytes (no NUL, at most
 * HL_TRACE_STRING_MAX bytes).
 *
 * Packets are written whole with one write(2) on an O_APPEND descriptor, so
 * packets of different threads interleave but never tear. Each packet decodes
 * on its own: every delta below restarts at zero at a packet boundary, so a
 * reader can start at any packet (seeking, parallel loading) and a file cut
 * anywhere reads up to its last complete packet.
 *
 * Plain C11, libc only: this file is compiled into the preload.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* ---- File header ------------------------------------------------------ */

#define HL_TRACE_MAGIC            "HLTRACE" /* 8 bytes with its NUL */
#define HL_TRACE_MAGIC_SIZE       8
#define HL_TRACE_VERSION_MAJOR    6  /* 6.0: model frames whose unpredicted addresses follow the class's last (HL_CODEC_ZSTD_MODEL6); 5.0: with free cursors; 4.0: model frames; 3.0: columns frames */
#define HL_TRACE_VERSION_MAJOR_MIN 2 /* oldest major this reader reads (2.x: same packets, zstd frames only) */
#define HL_TRACE_VERSION_MINOR    0  /* newer minors only add skippable data */
#define HL_TRACE_BYTE_ORDER_MARK  0x01020304u
#define HL_TRACE_FILE_HEADER_SIZE 64
#define HL_TRACE_FILE_EXTENSION   ".hltrace"

typedef struct
{
  uint8_t  magic[HL_TRACE_MAGIC_SIZE]; /* "HLTRACE\0" */
  uint16_t version_major;
  uint16_t version_minor;
  uint32_t header_size;                /* HL_TRACE_FILE_HEADER_SIZE; a reader skips to it */
  uint32_t byte_order;                 /* HL_TRACE_BYTE_ORDER_MARK as written */
  uint32_t flags;                      /* HL_TRACE_FLAG_* */
  uint64_t start_wall_ns;              /* CLOCK_REALTIME at start */
  uint64_t start_mono_ns;              /* CLOCK_MONOTONIC at start; event times count from it */
  uint32_t pid;                        /* process that created the file */
  uint32_t reserved[5];                /* zero */
} HlTraceFileHeader;

_Static_assert (sizeof (HlTraceFileHeader) == HL_TRACE_FILE_HEADER_SIZE,
                "HlTraceFileHeader is 64 bytes on disk");

enum
{
  HL_TRACE_FLAG_COARSE_CLOCK = 1u << 0, /* times from CLOCK_MONOTONIC_COARSE, after the first 50 ms */
  HL_TRACE_FLAG_COMPRESSED   = 1u << 1, /* the packets are in ZFRAME packets (hl-trace-codec.h) */
};

/* ---- Packets ---------------------------------------------------------- */

#define HL_PACKET_MAGIC        0x4b504c48u /* "HLPK" as little-endian bytes */
#define HL_PACKET_HEADER_SIZE  64
#define HL_PACKET_MAX_SIZE     (32u * 1024u) /* header + content, one write(2) */
#define HL_PACKET_MAX_CONTENT  (HL_PACKET_MAX_SIZE - HL_PACKET_HEADER_SIZE)

typedef enum
{
  HL_PACKET_KIND_INFO   = 1, /* trace info: one HL_EVENT_INFO (the first packet) */
  HL_PACKET_KIND_EVENTS = 2, /* events of one thread */
  HL_PACKET_KIND_INDEX  = 3, /* trailing index: one entry per packet before it */
  HL_PACKET_KIND_INDEX_TAIL = 4, /* last 88 bytes of an indexed file: where the INDEX is */
  HL_PACKET_KIND_ZFRAME = 5, /* compressed run of packets (files with HL_TRACE_FLAG_COMPRESSED) */
  HL_PACKET_KIND_COSTS  = 6, /* the costs a report needs, after the last ZFRAME (docs/trace-format.md 7e) */
} HlPacketKind;

/* HlPacketHeader.flags: what a packet holds, so that a reader seeking to a
 * time can still load every definition (stacks, modules, threads) before it
 * without decoding the allocations. A reader ignores bits it does not know. */
enum
{
  HL_PACKET_FLAG_HAS_STACKS  = 1u << 0, /* at least one STACK event */
  HL_PACKET_FLAG_HAS_MODULES = 1u << 1, /* MODULE */
  HL_PACKET_FLAG_HAS_THREADS = 1u << 2, /* THREAD */
  HL_PACKET_FLAG_HAS_META    = 1u << 3, /* META_*, MARK */
  HL_PACKET_FLAG_HAS_END     = 1u << 4, /* END */
  HL_PACKET_FLAG_DEFINITIONS = 0x7u,    /* STACKS | MODULES | THREADS */
};

typedef struct
{
  uint32_t magic;          /* HL_PACKET_MAGIC */
  uint32_t content_size;   /* bytes after the header */
  uint16_t header_size;    /* HL_PACKET_HEADER_SIZE; bigger in newer minors, skip the rest */
  uint16_t kind;           /* HlPacketKind */
  uint32_t pid;            /* writer's pid: packets of another pid are skipped with a warning */
  uint32_t tid;            /* writing thread; every event in the packet is that thread's */
  uint32_t crc32c;         /* CRC-32C (Castagnoli) of the whole packet, header
                              included, computed with this field set to 0 */
  uint64_t time_begin_ns;  /* first event's time base (relative to start_mono_ns) */
  uint64_t time_end_ns;    /* last event's time; time_begin_ns <= time_end_ns */
  uint64_t alloc_id_begin; /* id of the packet's first allocation */
  uint64_t alloc_id_end;   /* one past the last: ids [begin, end) are this packet's */
  uint32_t n_events;       /* events in the content, ID_SKIP not counted */
  uint32_t flags;          /* HL_PACKET_FLAG_* */
} HlPacketHeader;

_Static_assert (sizeof (HlPacketHeader) == HL_PACKET_HEADER_SIZE,
                "HlPacketHeader is 64 bytes on disk");

/* ---- Events ----------------------------------------------------------- *
 *
 * Every event: a type byte, then time_delta:varint (ns since the previous
 * event of the packet, the first one since time_begin_ns) unless bit 7 of
 * the type byte (HL_EVENT_FLAG_NO_TIME) is set: then the delta is 0 and
 * omitted (the type is the low 7 bits). Types >= 64 then carry
 * len:varint, the payload size, so that a reader skips types it does not
 * know; types < 64 have the fixed payloads below, and an unknown one is an
 * error (it needs a new major version).
 *
 * Packet-local state, reset to 0 at every packet start:
 *   next_id    — id of the next allocation (starts at alloc_id_begin)
 *   prev_id    — last id allocated or freed in this packet
 *   prev_stack — last stack id referred to or defined
 *   prev_addr  — last address allocated
 *   prev_frames— frames of the last STACK event (prefix sharing)
 *
 * ALLOC          size:varint stack:svarint(Δprev_stack) addr:addrdelta(vs prediction)
 *                → id = next_id++   (alignment HL_TRACE_DEFAULT_ALIGNMENT)
 * ALLOC_ALIGNED  size:varint align:varint stack:svarint addr:addrdelta
 *                addrdelta: d = addr - predicted (mod 2^64, as int64; the
 *                prediction is described below, at HlAddrPredictor);
 *                varint(zigzag(d >> 4) << 1 | (d & 15 ? 1 : 0)) (>> is
 *                arithmetic), then when that bit is 1 one byte d & 15 (1..15).
 *                malloc's addresses are 16-aligned, so d & 15 is nearly
 *                always 0 and this saves 4 bits. prev_addr = addr.
 * FREE           id:svarint(prev_id - id); prev_id = id
 * FREE_ADDR      addr:varint            (a free whose allocation id is unknown,
 *                                         e.g. the live table was full)
 * REALLOC        old_id:svarint(prev_id - old_id) size:varint stack:svarint addr:addrdelta
 *                → frees old_id, new id = next_id++  (1 allocation + 1 free);
 *                prev_id = the new id
 * REALLOC_ADDR   old_addr:varint size:varint stack:svarint addr:addrdelta
 * ID_SKIP        gap:varint   next_id += gap (ids handed out to other threads)
 * STACK          id:svarint(Δprev_stack) flags:varint n_frames:varint n_shared:varint
 *                frame[i]:svarint(frame[i] - prev_frames[i]) for i in
 *                0 .. n_frames - n_shared - 1 (prev_frames[i] is 0 when the
 *                previous STACK had no frame i).
 *                Frames are return addresses, innermost first; the last
 *                n_shared (outermost) frames equal the last n_shared frames of
 *                the packet's previous STACK (n_shared <= its n_frames).
 *                n_frames <= HL_TRACE_MAX_FRAMES. A stack id is defined once
 *                per file; a STACK may follow, in file order, an event of
 *                another thread's packet that uses its id.
 * MODULE         flags:varint start:varint size:varint file_offset:varint
 *                build_id:string path:string
 * THREAD         tid:varint flags:varint name:string
 * META_INT       key:string value:svarint
 * META_STRING    key:string value:string
 * META_REMOVE    key:string
 * MARK           text:string
 * COUNTERS       heap_bytes:varint rss_bytes:varint n_allocs:varint n_frees:varint
 * DROPPED        count:varint reason:varint(HlDropReason)
 * INFO           n:varint (key:string value:string) × n   (exe, cmdline, host,
 *                page_size, clock, unwinder, options, ...); n <=
 *                HL_TRACE_INFO_MAX_PAIRS and the sum of key and value lengths
 *                plus 2n <= HL_TRACE_INFO_MAX_BYTES
 * END            exit_status:svarint   (written once at a clean exit)
 * REACHABILITY   (64, skippable) flags scan_ns roots_bytes blocks_scanned
 *                (blocks bytes) x 4 kinds, n, then n records
 *                id_delta:varint kind:varint stack:varint size:varint
 *                (ids rising; kinds 1..3; docs/trace-format.md 5.3)
 *
 * Skippable events (type >= 64: len:varint, then the payload; a reader
 * reads the fields it knows and steps over the rest of the LEN bytes):
 * MMAP           addr:varint size:varint stack:varint prot:varint flags:varint
 *                (an anonymous private mapping the program made itself;
 *                stack is absolute, prev_stack unchanged)
 * MUNMAP         addr:varint size:varint  (a munmap, or a MAP_FIXED mapping,
 *                over part of the program's anonymous mappings)
 * MREMAP         old_addr:varint old_size:varint addr:varint size:varint
 *                stack:varint flags:varint
 * ALLOCATOR      flags:varint(HL_ALLOCATOR_FLAG_*) rss:varint heap:varint
 *                mmap:varint arena:varint in_use:varint free:varint
 *                mmapped_chunks_bytes:varint mmapped_chunks:varint
 *                (glibc's mallinfo2() with the counters at the same time)
 */

typedef enum
{
  HL_EVENT_ALLOC         = 1,
  HL_EVENT_ALLOC_ALIGNED = 2,
  HL_EVENT_FREE          = 3,
  HL_EVENT_FREE_ADDR     = 4,
  HL_EVENT_REALLOC       = 5,
  HL_EVENT_REALLOC_ADDR  = 6,
  HL_EVENT_STACK         = 7,
  HL_EVENT_MODULE        = 8,
  HL_EVENT_THREAD        = 9,
  HL_EVENT_META_INT      = 10,
  HL_EVENT_META_STRING   = 11,
  HL_EVENT_META_REMOVE   = 12,
  HL_EVENT_MARK          = 13,
  HL_EVENT_COUNTERS      = 14,
  HL_EVENT_DROPPED       = 15,
  HL_EVENT_INFO          = 16,
  HL_EVENT_END           = 17,
  HL_EVENT_ID_SKIP       = 18,
  HL_EVENT_FIRST_SKIPPABLE = 64, /* types from here on carry a length */
  HL_EVENT_REACHABILITY  = 64, /* the leak scan at a clean exit (docs/trace-format.md 5.3) */
  HL_EVENT_MMAP          = 65,
  HL_EVENT_MUNMAP        = 66,
  HL_EVENT_MREMAP        = 67,
  HL_EVENT_ALLOCATOR     = 68,
  HL_EVENT_TYPE_MAX      = 127,
} HlEventType;

/* REACHABILITY: Valgrind memcheck's categories of the blocks live at exit
 * (the kinds index blocks[] and bytes[]; the records name blocks of the
 * last three kinds only) and the event's flags. */
typedef enum
{
  HL_REACH_STILL_REACHABLE = 0,
  HL_REACH_POSSIBLY_LOST   = 1,
  HL_REACH_INDIRECTLY_LOST = 2,
  HL_REACH_DEFINITELY_LOST = 3,
} HlReachKind;

#define HL_REACH_KINDS 4

enum
{
  HL_REACH_FLAG_FIRST      = 1u << 0, /* the scan's first event: its totals start a new scan */
  HL_REACH_FLAG_INCOMPLETE = 1u << 1, /* blocks unknown (live-table drops) or memory not read */
  HL_REACH_FLAG_ON_DEMAND  = 1u << 2, /* a scan asked for while the program ran
                                       * (HL_SHM_CONTROL_LEAK_SCAN), not the exit's */
};

/* The fields every REACHABILITY event repeats (a reader keeps the first
 * event's), and one record: a block not still reachable. */
typedef struct
{
  uint32_t flags;           /* HL_REACH_FLAG_* */
  uint64_t scan_ns;         /* the scan's wall time */
  uint64_t roots_bytes;     /* bytes of roots read */
  uint64_t blocks_scanned;  /* heap blocks whose contents were read */
  uint64_t blocks[HL_REACH_KINDS];
  uint64_t bytes[HL_REACH_KINDS];
} HlReachTotals;

typedef struct
{
  uint64_t id;              /* allocation id */
  uint64_t size;
  uint32_t stack_id;
  uint32_t kind;            /* HL_REACH_POSSIBLY_LOST .. HL_REACH_DEFINITELY_LOST */
} HlReachRecord;

#define HL_EVENT_FLAG_NO_TIME 0x80u /* in the type byte: time delta 0, omitted */

enum
{
  HL_STACK_FLAG_TRUNCATED = 1u << 0, /* deeper than the depth limit */
};

enum
{
  HL_MODULE_FLAG_LOADED   = 1u << 0,
  HL_MODULE_FLAG_UNLOADED = 1u << 1,
};

enum
{
  HL_THREAD_FLAG_START = 1u << 0,
  HL_THREAD_FLAG_EXIT  = 1u << 1,
  HL_THREAD_FLAG_NAME  = 1u << 2, /* name changed (pthread_setname_np, prctl) */
};

enum
{
  HL_ALLOCATOR_FLAG_MALLINFO  = 1u << 0, /* arena, in_use, free and mmapped_* are mallinfo2()'s */
  HL_ALLOCATOR_FLAG_ESTIMATED = 1u << 1, /* with MALLINFO: estimated from the last mallinfo2() call,
                                          * the program break and the heap since (mallinfo2() had
                                          * become too slow to call while the program ran) */
};

/* An ALLOCATOR event: the allocator's view (glibc's mallinfo2(), valid
 * with HL_ALLOCATOR_FLAG_MALLINFO) beside the counters at that time. */
typedef struct
{
  uint32_t flags;                /* HL_ALLOCATOR_FLAG_* */
  uint64_t rss_bytes;
  uint64_t heap_bytes;           /* the preload's heap (requested bytes) */
  uint64_t mmap_bytes;           /* the program's own anonymous mappings */
  uint64_t arena_bytes;          /* mallinfo2 arena: bytes malloc took from the system (sbrk, heaps) */
  uint64_t in_use_bytes;         /* uordblks: in use inside the arenas */
  uint64_t free_bytes;           /* fordblks: free inside the arenas */
  uint64_t mmapped_chunks_bytes; /* hblkhd: blocks malloc mapped on their own */
  uint64_t mmapped_chunks;       /* hblks */
} HlAllocatorSample;

typedef enum
{
  HL_DROP_TRACE_WRITE   = 1, /* write(2) failed or the disk was too slow */
  HL_DROP_STACK_TABLE   = 2, /* resources table full: stack recorded as id 0 */
  HL_DROP_LIVE_TABLE    = 3, /* live table full: frees refer by address */
  HL_DROP_CALLSITE      = 4, /* call-site table full */
  HL_DROP_METADATA      = 5, /* metadata recorder busy or full */
  HL_DROP_MMAP_TABLE    = 6, /* the preload's table of the program's mappings full: an mmap not recorded */
} HlDropReason;

#define HL_DROP_REASONS_MAX 8 /* counters keep one slot per reason, 0 unused */

#define HL_STACK_ID_UNKNOWN    0u   /* "stack not recorded" */
#define HL_TRACE_STRING_MAX    4096u
#define HL_TRACE_MAX_FRAMES    256u
#define HL_TRACE_BUILD_ID_MAX  64u
#define HL_VARINT_MAX_BYTES    10u
#define HL_TRACE_DEFAULT_ALIGNMENT 16u /* ALLOC; other alignments use ALLOC_ALIGNED */
#define HL_TRACE_INFO_MAX_PAIRS 64u
#define HL_TRACE_INFO_MAX_BYTES 8192u  /* keys + values + 2 per pair (their NULs) */

/* ---- Address prediction (packet-local state of writer and reader) ------ *
 *
 * malloc hands back the block freed last of the same size class (glibc's
 * tcache is a LIFO per class), so an allocation's address is written as a
 * difference to a prediction: the address most recently freed in this
 * packet in the allocation's class, else prev_addr. Both sides keep:
 *   slots   — allocations of this packet by id: slot id % HL_PRED_SLOTS
 *             holds (id, address, class), a later id evicts an earlier one;
 *   freed   — per class, a stack of up to HL_PRED_DEPTH addresses freed in
 *             this packet, most recent first.
 * class(size) = (max(32, (size + 23) & ~15) >> 4) % HL_PRED_CLASSES.
 * FREE and REALLOC of an id whose slot holds that id push its address on
 * its class's stack (dropping the deepest when full) and empty the slot.
 * An allocation (ALLOC, ALLOC_ALIGNED, REALLOC, REALLOC_ADDR; for REALLOC
 * after the old id's free) predicts the top of its class's stack (prev_addr
 * when empty), pops it when the address equals it, then takes its slot. */
#define HL_PRED_SLOTS   1024u
#define HL_PRED_CLASSES 64u
#define HL_PRED_DEPTH   8u /* a power of two */

typedef struct
{
  uint64_t slot_id[HL_PRED_SLOTS];    /* id + 1; 0 = empty */
  uint64_t slot_addr[HL_PRED_SLOTS];
  uint8_t  slot_class[HL_PRED_SLOTS];
  uint8_t  depth[HL_PRED_CLASSES];  /* entries on the class's stack */
  uint8_t  top[HL_PRED_CLASSES];    /* ring position of the top (the stack is a ring) */
  uint64_t freed[HL_PRED_CLASSES][HL_PRED_DEPTH];
} HlAddrPredictor;

/* The largest encoded size of one event with a full stack, strings at their
 * maximum: a writer that has fewer bytes left flushes first. */
#define HL_EVENT_MAX_SIZE (2u + HL_VARINT_MAX_BYTES * (6u + HL_TRACE_MAX_FRAMES) + 2u * HL_TRACE_STRING_MAX + HL_TRACE_BUILD_ID_MAX)

_Static_assert (HL_EVENT_MAX_SIZE < HL_PACKET_MAX_CONTENT,
                "one event always fits in an empty packet");
