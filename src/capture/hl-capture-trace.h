/* hl-capture-trace.h — the trace file of the preload: per-thread packet
 * buffers filled by the format writer, each flushed with one write(2) on an
 * O_APPEND descriptor. A thread's packet is built in its slot of the
 * session's packets region (hl-shm-layout.h), whose state word says after
 * each event how much of it is whole, so that a launcher can append what a
 * killed process left there. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hl-shm-layout.h"
#include "hl-trace-writer.h"

typedef struct
{
  int              begun;
  HlShmPacketSlot *slot;  /* where the packet is built: the session's slot
                           * of the block, else own (chosen at each begin) */
  HlPacketWriter   w;
  HlShmPacketSlot  own;
} HlTraceBuffer;

/* A thread's packet is written once it is this old, at the thread's next
 * call (checked every HL_PENDING_FLUSH_NS of its activity, so at most
 * about 50 ms old), or at the sampling tick. */
#define HL_TRACE_FLUSH_NS 40000000u

struct HlThreadBlock;

int  hl_trace_open        (void);
/* The trace's descriptor, checked before each write: a program may close it
 * (a daemon's closefrom (3), say) and reuse its number for a file of its
 * own, which must never receive a packet. The trace is then opened again
 * by its path, when that still names the same file, so that nothing is
 * lost; -1 when there is no trace, or it could not be (then
 * hl_g.trace_lost is set and later events count as dropped). errno is
 * kept. */
int  hl_trace_fd_checked  (void);
/* In a forked child: the parent's trace is not the child's. Its
 * descriptor is closed when it is still the trace (the program may have
 * put a file of its own on that number), and forgotten. */
void hl_trace_forget      (void);
/* Removes TRACE.tmp-compress, the file a launcher that is gone was
 * compressing the trace to (hl-trace-compress-stream.h names it so):
 * nobody will finish it. Async-signal-safe. */
void hl_trace_unlink_compress_tmp (void);
/* Appends LEN bytes of BUF to the trace on FD, within the file-size limit
 * (RLIMIT_FSIZE: past it the program would get SIGXFSZ); -1 when not
 * written. The first packet of the open trace that cannot be written
 * (a full disk, the limit, EIO) cuts it: it ends at its last whole packet
 * with a record of the cut, one line says so, nothing is written after
 * it, and the session's header holds the cut (trace_cut_ns_atomic,
 * trace_cut_errno_atomic). */
int  hl_trace_write       (int fd, const void *buf, size_t len);
/* Whether the trace was cut (above). */
bool hl_trace_is_cut      (void);
void hl_trace_buffer_init (HlTraceBuffer *t, uint32_t pid, uint32_t tid);
/* A new session: no packet slot of it has its pages reserved yet. */
void hl_trace_slots_forget (void);
/* Writes the packet being built, if any, and begins a new one. */
void hl_trace_flush       (struct HlThreadBlock *b, uint64_t now);
/* The writer of B's packet, begun at NOW if needed. */
HlPacketWriter *hl_trace_writer (struct HlThreadBlock *b, uint64_t now);

/* After an event: the slot's state covers it (a release store, a plain
 * one on x86), with the packet's first allocation id before it. */
static inline void
hl_trace_commit (HlTraceBuffer *t)
{
  HlShmPacketSlot *s = t->slot;
  s->alloc_id_begin = t->w.alloc_id_begin;
  __atomic_store_n (&s->state_atomic, (uint64_t) t->w.len, __ATOMIC_RELEASE);
}

/* Appends one event through CALL (an expression using `w_`), flushing and
 * retrying once when the packet is full (one call site, so that the
 * optimiser can inline the writer). */
#define HL_TRACE_EMIT(b, now, CALL)                                    \
  do                                                                   \
    {                                                                  \
      if (hl_g.trace_fd >= 0)                                          \
        for (int try_ = 0;; try_++)                                    \
          {                                                            \
            HlPacketWriter *w_ = hl_trace_writer ((b), (now));         \
            if ((CALL) != HL_WRITE_FULL)                               \
              {                                                        \
                hl_trace_commit (&(b)->trace);                         \
                break;                                                 \
              }                                                        \
            if (try_ > 0)                                              \
              break;                                                   \
            hl_trace_flush ((b), (now));                               \
          }                                                            \
      else if (HL_UNLIKELY (hl_g.trace_lost))                          \
        hl_counters_drop (HL_DROP_TRACE_WRITE, 1);                     \
    }                                                                  \
  while (0)
