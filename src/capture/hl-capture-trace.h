/* hl-capture-trace.h — the trace file of the preload: per-thread packet
 * buffers filled by the format writer, each flushed with one write(2) on an
 * O_APPEND descriptor. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "hl-trace-writer.h"

typedef struct
{
  int            begun;
  HlPacketWriter w;
  uint8_t        buf[HL_PACKET_MAX_SIZE];
} HlTraceBuffer;

struct HlThreadBlock;

int  hl_trace_open        (void);
void hl_trace_buffer_init (HlTraceBuffer *t, uint32_t pid, uint32_t tid);
/* Writes the packet being built, if any, and begins a new one. */
void hl_trace_flush       (struct HlThreadBlock *b, uint64_t now);
/* The writer of B's packet, begun at NOW if needed. */
HlPacketWriter *hl_trace_writer (struct HlThreadBlock *b, uint64_t now);

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
            if ((CALL) != HL_WRITE_FULL || try_ > 0)                   \
              break;                                                   \
            hl_trace_flush ((b), (now));                               \
          }                                                            \
    }                                                                  \
  while (0)
