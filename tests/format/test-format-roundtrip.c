/* test-format-roundtrip.c — random event streams of every kind, across
 * packet boundaries and thread interleavings, written and read back equal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hl-format-test-gen.h"
#include "hl-test-util.h"
#include "hl-trace-reader.h"

/* Reads T back; returns NULL when every event matched, else a reason. */
static const char *
check_trace (const HlGenTrace *t, size_t *n_read, char *why, size_t why_len)
{
  HlTraceReader *r;
  HlFormatError err;
  *n_read = 0;
  if (hl_trace_reader_open_memory (t->data, t->size, &r, &err) != 0)
    {
      snprintf (why, why_len, "open: %.200s", err.message);
      return why;
    }
  /* Per thread, the expected events in order. */
  size_t *next = calloc (t->n_events + 1, sizeof *next);
  size_t *order = malloc ((t->n_events + 1) * sizeof *order);
  uint32_t tids[16];
  size_t n_tids = 0, *pos = calloc (16, sizeof *pos), *start = calloc (17, sizeof *start);
  for (size_t i = 0; i < t->n_events; i++)
    {
      size_t k = 0;
      while (k < n_tids && tids[k] != t->events[i].ev.tid)
        k++;
      if (k == n_tids)
        tids[n_tids++] = t->events[i].ev.tid;
      start[k + 1]++;
    }
  for (size_t k = 1; k <= n_tids; k++)
    start[k] += start[k - 1];
  for (size_t k = 0; k < n_tids; k++)
    pos[k] = start[k];
  for (size_t i = 0; i < t->n_events; i++)
    {
      size_t k = 0;
      while (tids[k] != t->events[i].ev.tid)
        k++;
      order[pos[k]++] = i;
    }
  for (size_t k = 0; k < n_tids; k++)
    pos[k] = start[k];

  const char *result = NULL;
  HlPacketView pkt;
  HlEventCursor *c = malloc (sizeof *c);
  int rc;
  while (result == NULL && (rc = hl_trace_reader_next_packet (r, &pkt, &err)) > 0)
    {
      size_t k = 0;
      while (k < n_tids && tids[k] != pkt.header.tid)
        k++;
      if (k == n_tids)
        {
          result = "packet of an unknown thread";
          break;
        }
      hl_event_cursor_init (c, &pkt);
      HlEvent ev;
      while ((rc = hl_event_cursor_next (c, &ev, &err)) > 0)
        {
          if (pos[k] >= start[k + 1])
            {
              result = "more events than written";
              break;
            }
          const char *diff = hl_gen_event_compare (t, &t->events[order[pos[k]]], &ev);
          if (diff != NULL)
            {
              snprintf (why, why_len, "event %zu (type %d): %s differs", order[pos[k]], ev.type, diff);
              result = why;
              break;
            }
          pos[k]++;
          (*n_read)++;
        }
      if (result == NULL && rc < 0)
        {
          snprintf (why, why_len, "cursor: %.200s", err.message);
          result = why;
        }
      if (result == NULL && c->n_decoded != pkt.header.n_events)
        result = "n_events in the header differs from the events decoded";
    }
  if (result == NULL && *n_read != t->n_events)
    {
      snprintf (why, why_len, "read %zu events of %zu", *n_read, t->n_events);
      result = why;
    }
  HlTraceReaderStats st;
  hl_trace_reader_stats (r, &st);
  if (result == NULL && (st.warning[0] != '\0' || st.packets != t->n_packets))
    {
      snprintf (why, why_len, "stats: %llu packets of %zu, warning '%.150s'",
                (unsigned long long) st.packets, t->n_packets, st.warning);
      result = why;
    }
  free (c);
  free (next);
  free (order);
  free (pos);
  free (start);
  hl_trace_reader_free (r);
  return result;
}

int
main (void)
{
  static const HlGenOptions cases[] = {
    { 1, 10, 1, 0, 0 },
    { 2, 5000, 1, 0, 0 },
    { 3, 20000, 4, 0, 1 },
    { 4, 20000, 8, 512, 1 },
    { 5, 3000, 3, 320, 1 },
    { 6, 50000, 2, 0, 1 },
    { 7, 1, 1, 0, 1 },
    { 8, 0, 1, 0, 1 },
  };
  size_t n_cases = sizeof cases / sizeof cases[0];
  hl_tap_plan ((int) n_cases + 2);
  char why[256];
  for (size_t i = 0; i < n_cases; i++)
    {
      HlGenTrace t;
      hl_gen_trace (&t, &cases[i]);
      size_t n_read;
      const char *res = check_trace (&t, &n_read, why, sizeof why);
      hl_tap_ok (res == NULL, "seed %u: %zu events, %u threads, %zu packets of <= %zu bytes round trip%s%s",
                 cases[i].seed, t.n_events, cases[i].n_threads, t.n_packets,
                 cases[i].packet_cap ? cases[i].packet_cap : (size_t) HL_PACKET_MAX_SIZE,
                 res ? ": " : "", res ? res : "");
      hl_gen_trace_clear (&t);
    }

  /* Allocation-only stream: bytes per event (for the size target). */
  HlGenOptions o = { 9, 100000, 1, 0, 0 };
  HlGenTrace t;
  hl_gen_trace (&t, &o);
  hl_tap_diag ("%.2f bytes per event for random alloc/free streams", (double) t.size / (double) t.n_events);
  hl_tap_ok (t.size < t.n_events * 32, "random alloc/free streams (worst-case deltas) take < 32 bytes per event");
  hl_gen_trace_clear (&t);

  HlTraceReader *r;
  HlFormatError err;
  hl_tap_ok (hl_trace_reader_open_memory ("HLTRACE", 8, &r, &err) != 0 && err.code == HL_FORMAT_ERROR_TRUNCATED,
             "a file of its magic alone is truncated: %s", err.message);
  return hl_tap_finish ();
}
