/* hl-trace-summary — decodes a trace with the format reader and prints
 * what the capture tests check, one "key=value" per line:
 *   allocs frees bytes leaked_bytes leaked_blocks free_unknown stacks
 *   truncated_stacks max_frames modules modules_unloaded threads
 *   thread_names (comma separated) meta marks counters dropped end_status
 *   packets bad_checksum other_pid bytes_ignored site_hits peak_bytes ends
 *   sample_bytes (INFO; 0: a full recording) est_allocs est_bytes
 *   est_peak_bytes (each sampled block weighs 1 / (1 - exp (-size / N)),
 *   computed here independently of the model) counters_allocs
 *   counters_frees counters_heap (the last COUNTERS event)
 *   size_allocs (allocations of HL_SUMMARY_SIZE bytes; 0 without it)
 * site_hits counts allocations whose innermost frame lies in
 * [site_lo, site_hi), two integers the target publishes as metadata
 * (META_INT events) — the address range of its allocating function.
 * Test support: allocates freely, never runs inside a target. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hl-trace-codec.h"
#include "hl-trace-reader.h"
#ifdef HL_HAVE_ZSTD
#include "hl-trace-zstd.h"
#endif

typedef struct
{
  uint64_t id;
  uint64_t size;
  uint32_t stack;
  int      used;
} Slot;

static Slot *slots;
static uint64_t n_slots = 1u << 20;
static uint64_t n_used;

static uint64_t
hash_id (uint64_t id)
{
  id ^= id >> 31;
  id *= 0x9e3779b97f4a7c15ull;
  return id ^ (id >> 29);
}

static void grow (void);

static void
put (uint64_t id, uint64_t size, uint32_t stack)
{
  if (n_used * 2 >= n_slots)
    grow ();
  uint64_t i = hash_id (id) & (n_slots - 1);
  while (slots[i].used == 1 && slots[i].id != id)
    i = (i + 1) & (n_slots - 1);
  if (slots[i].used != 1)
    n_used++;
  slots[i] = (Slot) { id, size, stack, 1 };
}

static int
take (uint64_t id, uint64_t *size)
{
  uint64_t i = hash_id (id) & (n_slots - 1);
  while (slots[i].used != 0)
    {
      if (slots[i].used == 1 && slots[i].id == id)
        {
          *size = slots[i].size;
          slots[i].used = 2;
          return 1;
        }
      i = (i + 1) & (n_slots - 1);
    }
  return 0;
}

static void
grow (void)
{
  Slot *old = slots;
  uint64_t old_n = n_slots;
  n_slots *= 2;
  slots = calloc (n_slots, sizeof *slots);
  n_used = 0;
  for (uint64_t i = 0; i < old_n; i++)
    if (old[i].used == 1)
      put (old[i].id, old[i].size, old[i].stack);
  free (old);
}

static double sample_n; /* INFO sample_bytes; 0: every block weighs 1 */

static double
weight (uint64_t size)
{
  if (sample_n <= 0)
    return 1.0;
  return 1.0 / -expm1 (-(double) size / sample_n);
}

/* stack id -> innermost frame */
static uint64_t *frame0;
static uint64_t n_frame0;

int
main (int argc, char **argv)
{
  const char *size_env = getenv ("HL_SUMMARY_SIZE");
  uint64_t size_of_interest = size_env != NULL ? strtoull (size_env, NULL, 10) : UINT64_MAX, size_allocs = 0;
  if (argc < 2)
    {
      fprintf (stderr, "usage: hl-trace-summary TRACE\n");
      return 2;
    }
  HlTraceReader *r;
  HlFormatError err;
#ifdef HL_HAVE_ZSTD
  const HlTraceCodec *codec = hl_trace_codec_zstd (0);
#else
  const HlTraceCodec *codec = NULL;
#endif
  if (hl_trace_reader_open_file_codec (argv[1], codec, &r, &err) != 0)
    {
      printf ("error=%s\n", err.message);
      return 1;
    }
  slots = calloc (n_slots, sizeof *slots);
  n_frame0 = 1u << 16;
  frame0 = calloc (n_frame0, sizeof *frame0);
  uint64_t allocs = 0, frees = 0, bytes = 0, free_unknown = 0, stacks = 0, truncated = 0;
  uint64_t max_frames = 0, modules = 0, unloaded = 0, threads = 0, meta = 0, marks = 0;
  uint64_t counters = 0, dropped = 0, bad_events = 0;
  int64_t end_status = -999; /* of the first END */
  uint64_t n_ends = 0;
  uint64_t heap = 0, peak = 0; /* in file order: exact for one thread */
  double est_allocs = 0, est_bytes = 0, est_heap = 0, est_peak = 0;
  uint64_t c_allocs = 0, c_frees = 0, c_heap = 0;
  int64_t site_lo = 0, site_hi = 0;
  char names[4096] = "";
  /* allocation sites for site_hits: (stack id) per allocation, resolved at the end */
  uint32_t *alloc_stacks = NULL;
  uint64_t n_alloc_stacks = 0, cap_alloc_stacks = 0;

  HlPacketView pkt;
  static HlEventCursor c;
  HlEvent ev;
  int rc;
  while ((rc = hl_trace_reader_next_packet (r, &pkt, &err)) > 0)
    {
      hl_event_cursor_init (&c, &pkt);
      int erc;
      while ((erc = hl_event_cursor_next (&c, &ev, &err)) > 0)
        {
          uint32_t new_stack = UINT32_MAX;
          switch (ev.type)
            {
            case HL_EVENT_ALLOC:
            case HL_EVENT_ALLOC_ALIGNED:
              allocs++;
              if (ev.u.alloc.size == size_of_interest)
                size_allocs++;
              bytes += ev.u.alloc.size;
              put (ev.u.alloc.id, ev.u.alloc.size, ev.u.alloc.stack_id);
              new_stack = ev.u.alloc.stack_id;
              heap += ev.u.alloc.size;
              if (heap > peak)
                peak = heap;
              est_allocs += weight (ev.u.alloc.size);
              est_bytes += ev.u.alloc.size * weight (ev.u.alloc.size);
              est_heap += ev.u.alloc.size * weight (ev.u.alloc.size);
              if (est_heap > est_peak)
                est_peak = est_heap;
              break;
            case HL_EVENT_FREE:
              {
                uint64_t size;
                frees++;
                if (!take (ev.u.free.id, &size))
                  free_unknown++;
                else
                  {
                    heap -= size;
                    est_heap -= size * weight (size);
                  }
              }
              break;
            case HL_EVENT_FREE_ADDR:
              frees++;
              free_unknown++;
              break;
            case HL_EVENT_REALLOC:
            case HL_EVENT_REALLOC_ADDR:
              {
                uint64_t size;
                allocs++;
                frees++;
                bytes += ev.u.realloc.size;
                if (ev.u.realloc.old_id == HL_ID_NONE || !take (ev.u.realloc.old_id, &size))
                  free_unknown++;
                else
                  {
                    heap -= size;
                    est_heap -= size * weight (size);
                  }
                put (ev.u.realloc.id, ev.u.realloc.size, ev.u.realloc.stack_id);
                heap += ev.u.realloc.size;
                if (heap > peak)
                  peak = heap;
                est_allocs += weight (ev.u.realloc.size);
                est_bytes += ev.u.realloc.size * weight (ev.u.realloc.size);
                est_heap += ev.u.realloc.size * weight (ev.u.realloc.size);
                if (est_heap > est_peak)
                  est_peak = est_heap;
                new_stack = ev.u.realloc.stack_id;
              }
              break;
            case HL_EVENT_STACK:
              stacks++;
              if (ev.u.stack.flags & HL_STACK_FLAG_TRUNCATED)
                truncated++;
              if (ev.u.stack.n_frames > max_frames)
                max_frames = ev.u.stack.n_frames;
              while (ev.u.stack.id >= n_frame0)
                {
                  frame0 = realloc (frame0, 2 * n_frame0 * sizeof *frame0);
                  memset (frame0 + n_frame0, 0, n_frame0 * sizeof *frame0);
                  n_frame0 *= 2;
                }
              frame0[ev.u.stack.id] = ev.u.stack.n_frames ? ev.u.stack.frames[0] : 0;
              break;
            case HL_EVENT_MODULE:
              if (ev.u.module.flags & HL_MODULE_FLAG_UNLOADED)
                unloaded++;
              else
                modules++;
              break;
            case HL_EVENT_THREAD:
              if (ev.u.thread.flags & HL_THREAD_FLAG_START)
                threads++;
              if ((ev.u.thread.flags & HL_THREAD_FLAG_NAME) && strlen (names) + strlen (ev.u.thread.name) + 2 < sizeof names)
                {
                  if (names[0])
                    strcat (names, ",");
                  strcat (names, ev.u.thread.name);
                }
              break;
            case HL_EVENT_META_INT:
              meta++;
              if (strcmp (ev.u.meta.key, "site_lo") == 0)
                site_lo = ev.u.meta.int_value;
              if (strcmp (ev.u.meta.key, "site_hi") == 0)
                site_hi = ev.u.meta.int_value;
              break;
            case HL_EVENT_META_STRING:
            case HL_EVENT_META_REMOVE:
              meta++;
              break;
            case HL_EVENT_MARK:
              marks++;
              break;
            case HL_EVENT_COUNTERS:
              counters++;
              c_allocs = ev.u.counters.n_allocs;
              c_frees = ev.u.counters.n_frees;
              c_heap = ev.u.counters.heap_bytes;
              break;
            case HL_EVENT_INFO:
              for (uint32_t k = 0; k < ev.u.info.n; k++)
                if (strcmp (ev.u.info.keys[k], "sample_bytes") == 0)
                  sample_n = strtod (ev.u.info.values[k], NULL);
              break;
            case HL_EVENT_DROPPED:
              dropped += ev.u.dropped.count;
              break;
            case HL_EVENT_END:
              if (n_ends++ == 0)
                end_status = ev.u.end.exit_status;
              break;
            default:
              break;
            }
          if (new_stack != UINT32_MAX)
            {
              if (n_alloc_stacks == cap_alloc_stacks)
                {
                  cap_alloc_stacks = cap_alloc_stacks ? 2 * cap_alloc_stacks : 4096;
                  alloc_stacks = realloc (alloc_stacks, cap_alloc_stacks * sizeof *alloc_stacks);
                }
              alloc_stacks[n_alloc_stacks++] = new_stack;
            }
        }
      if (erc < 0)
        {
          if (bad_events++ == 0)
            fprintf (stderr, "hl-trace-summary: %s at %llu\n", err.message, (unsigned long long) err.offset);
        }
    }
  if (rc < 0)
    printf ("error=%s\n", err.message);

  uint64_t leaked_bytes = 0, leaked_blocks = 0;
  for (uint64_t i = 0; i < n_slots; i++)
    if (slots[i].used == 1)
      {
        leaked_blocks++;
        leaked_bytes += slots[i].size;
      }
  uint64_t site_hits = 0;
  for (uint64_t i = 0; i < n_alloc_stacks; i++)
    {
      uint32_t s = alloc_stacks[i];
      uint64_t f = s < n_frame0 ? frame0[s] : 0;
      if (site_lo != 0 && f >= (uint64_t) site_lo && f < (uint64_t) site_hi)
        site_hits++;
    }

  HlTraceReaderStats st;
  hl_trace_reader_stats (r, &st);
  printf ("allocs=%" PRIu64 "\nfrees=%" PRIu64 "\nbytes=%" PRIu64 "\n", allocs, frees, bytes);
  printf ("leaked_bytes=%" PRIu64 "\nleaked_blocks=%" PRIu64 "\n", leaked_bytes, leaked_blocks);
  printf ("free_unknown=%" PRIu64 "\nstacks=%" PRIu64 "\ntruncated_stacks=%" PRIu64 "\n", free_unknown, stacks, truncated);
  printf ("max_frames=%" PRIu64 "\nmodules=%" PRIu64 "\nmodules_unloaded=%" PRIu64 "\n", max_frames, modules, unloaded);
  printf ("threads=%" PRIu64 "\nthread_names=%s\nmeta=%" PRIu64 "\nmarks=%" PRIu64 "\n", threads, names, meta, marks);
  printf ("counters=%" PRIu64 "\ndropped=%" PRIu64 "\nend_status=%" PRId64 "\n", counters, dropped, end_status);
  printf ("packets=%" PRIu64 "\nbad_checksum=%" PRIu64 "\nother_pid=%" PRIu64 "\n", st.packets, st.packets_bad_checksum, st.packets_other_pid);
  printf ("peak_bytes=%" PRIu64 "\nends=%" PRIu64 "\n", peak, n_ends);
  printf ("bytes_ignored=%" PRIu64 "\nbad_events=%" PRIu64 "\nsite_hits=%" PRIu64 "\n", st.bytes_ignored_at_end, bad_events, site_hits);
  printf ("sample_bytes=%.0f\nest_allocs=%.0f\nest_bytes=%.0f\nest_peak_bytes=%.0f\n", sample_n, est_allocs, est_bytes, est_peak);
  printf ("size_allocs=%" PRIu64 "\n", size_allocs);
  printf ("counters_allocs=%" PRIu64 "\ncounters_frees=%" PRIu64 "\ncounters_heap=%" PRIu64 "\n", c_allocs, c_frees, c_heap);
  hl_trace_reader_free (r);
  free (slots);
  free (frame0);
  free (alloc_stacks);
  return 0;
}
