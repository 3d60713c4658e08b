/* hl-trace-dump.h — a readable text form of a trace: packets, events and
 * the reader's warnings (`heaplens-cli dump`, golden-file tests).
 * Plain C11 + libc (stdio). */
#pragma once

#include <stdio.h>

#include "hl-trace-reader.h"

enum
{
  HL_DUMP_OFFSETS      = 1u << 0, /* prefix events with their file offset */
  HL_DUMP_HEADERS_ONLY = 1u << 1, /* packets only, no events */
  HL_DUMP_NO_SUMMARY   = 1u << 2, /* no closing summary line */
};

typedef struct
{
  unsigned long long packets, events, malformed_packets;
} HlTraceDumpStats;

/* Prints the file header, every packet and its events from R's current
 * position to its end, malformed events as "! ..." lines, then the reader's
 * warning and a summary. Returns 0 when everything decoded cleanly, 1 when
 * something was skipped or malformed (still printed). */
int  hl_trace_dump (HlTraceReader    *r,
                    FILE             *out,
                    unsigned          flags,
                    HlTraceDumpStats *stats);

/* One event on one line (no newline), for other tools. */
void hl_trace_dump_event (FILE *out, const HlEvent *ev);
