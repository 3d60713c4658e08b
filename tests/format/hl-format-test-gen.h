/* hl-format-test-gen.h — builds random traces in memory with the writer
 * and remembers every event written, for round-trip and damage tests and
 * for the fuzz corpus. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "hl-trace-reader.h"

typedef struct
{
  HlEvent  ev;           /* as the reader should return it */
  uint64_t frames_at;    /* STACK: index into frames pool */
  size_t   str_at[2];    /* strings: offsets into the string pool (+1, 0 = none) */
} HlGenEvent;

typedef struct
{
  uint8_t    *data;
  size_t      size, cap;
  HlGenEvent *events;
  size_t      n_events, cap_events;
  uint64_t   *frames;
  size_t      n_frames, cap_frames;
  char       *strings;
  size_t      n_strings, cap_strings;
  size_t      n_packets;
  uint32_t    pid;
} HlGenTrace;

typedef struct
{
  uint32_t seed;
  size_t   n_events;    /* events to write (about) */
  unsigned n_threads;   /* 1..8 */
  size_t   packet_cap;  /* writer buffer size, <= HL_PACKET_MAX_SIZE */
  int      all_kinds;   /* every event kind, not only allocations */
} HlGenOptions;

void hl_gen_trace       (HlGenTrace *t, const HlGenOptions *opt);
/* The tests' pseudo-random numbers: one xorshift64 step of *STATE
 * (nonzero), so that each test keeps its own reproducible sequence. */
uint64_t hl_gen_xorshift (uint64_t *state);
void hl_gen_trace_clear (HlGenTrace *t);
/* Compares a decoded event with the expected one; NULL when equal, else
 * what differs (static string). */
const char *hl_gen_event_compare (const HlGenTrace *t, const HlGenEvent *want, const HlEvent *got);

/* The dump (hl_trace_dump, no summary) of the trace file at PATH, read
 * with CODEC (NULL: plain only), as a malloc'd string; NULL when it does
 * not open. ST, when not NULL, gets the reader's stats. */
struct HlTraceCodec;
char *hl_gen_dump_file (const char *path, const struct HlTraceCodec *codec, HlTraceReaderStats *st);
