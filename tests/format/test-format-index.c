/* test-format-index.c — the trailing index, the header walk that replaces
 * it, seeking to a time and reading packets at offsets. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hl-crc32c.h"
#include "hl-format-test-gen.h"
#include "hl-test-util.h"
#include "hl-trace-index.h"

static bool
write_file (const char *path, const void *data, size_t len)
{
  FILE *f = fopen (path, "wb");
  if (f == NULL)
    return false;
  bool ok = fwrite (data, 1, len, f) == len;
  return fclose (f) == 0 && ok;
}

static bool
same_entries (const HlTraceIndex *a, const HlTraceIndex *b)
{
  if (a->n_entries != b->n_entries)
    return false;
  for (size_t i = 0; i < a->n_entries; i++)
    {
      const HlTraceIndexEntry *x = &a->entries[i], *y = &b->entries[i];
      if (x->offset != y->offset || x->size != y->size || x->kind != y->kind || x->tid != y->tid
          || x->flags != y->flags || x->n_events != y->n_events || x->time_begin_ns != y->time_begin_ns
          || x->time_end_ns != y->time_end_ns || x->alloc_id_begin != y->alloc_id_begin
          || x->alloc_id_end != y->alloc_id_end)
        return false;
    }
  return true;
}

/* Parallel loading: threads decode disjoint packets through packet_at. */
typedef struct
{
  const HlTraceReader *r;
  const HlTraceIndex  *x;
  size_t               first, step;
  uint64_t             events, failures;
} Loader;

static void *
load_part (void *data)
{
  Loader *l = data;
  HlEventCursor *c = malloc (sizeof *c);
  for (size_t i = l->first; i < l->x->n_entries; i += l->step)
    {
      HlPacketView pkt;
      HlFormatError err;
      if (hl_trace_reader_packet_at (l->r, l->x->entries[i].offset, &pkt, &err) != 0)
        {
          l->failures++;
          continue;
        }
      hl_event_cursor_init (c, &pkt);
      HlEvent ev;
      while (hl_event_cursor_next (c, &ev, &err) > 0)
        l->events++;
    }
  free (c);
  return NULL;
}

static HlTraceIndex *
load (const char *path, HlTraceReader **r_out)
{
  HlTraceReader *r;
  HlFormatError err;
  HlTraceIndex *x = NULL;
  if (hl_trace_reader_open_file (path, &r, &err) != 0)
    return NULL;
  if (hl_trace_index_load (r, &x, &err) != 0)
    x = NULL;
  if (r_out != NULL)
    *r_out = r;
  else
    hl_trace_reader_free (r);
  return x;
}

int
main (void)
{
  hl_tap_plan (16);
  char *dir = hl_test_tmpdir_new ("hl-format-index");
  char path[4096];
  snprintf (path, sizeof path, "%s/t.hltrace", dir);

  HlGenOptions o = { 31, 60000, 4, 4096, 1 };
  HlGenTrace t;
  hl_gen_trace (&t, &o);
  write_file (path, t.data, t.size);

  HlTraceReader *r;
  HlTraceIndex *walked = load (path, &r);
  hl_tap_ok (walked != NULL && strstr (walked->note, "no trailing index") != NULL,
             "a plain trace is noted as having no index: %s", walked != NULL ? walked->note : "");

  /* A plain trace whose last packet is exactly HL_INDEX_TAIL_SIZE bytes: it
   * looks like a tail by its magic and size but is an EVENTS packet. */
  {
    size_t len = t.size + HL_INDEX_TAIL_SIZE;
    uint8_t *copy = calloc (1, len);
    memcpy (copy, t.data, t.size);
    HlPacketHeader h;
    memset (&h, 0, sizeof h);
    h.magic = HL_PACKET_MAGIC;
    h.content_size = HL_INDEX_TAIL_CONTENT_SIZE;
    h.header_size = HL_PACKET_HEADER_SIZE;
    h.kind = HL_PACKET_KIND_EVENTS;
    memcpy (copy + t.size, &h, sizeof h);
    uint32_t crc = hl_crc32c (0, copy + t.size, HL_INDEX_TAIL_SIZE);
    memcpy (copy + t.size + offsetof (HlPacketHeader, crc32c), &crc, 4);
    HlTraceReader *rr;
    HlTraceIndex *xx = NULL;
    HlFormatError e;
    bool ok = hl_trace_reader_open_memory (copy, len, &rr, &e) == 0;
    if (ok)
      {
        ok = hl_trace_index_load (rr, &xx, &e) == 0;
        hl_trace_reader_free (rr);
      }
    hl_tap_ok (ok && !xx->from_file && xx->n_entries >= t.n_packets
                 && strstr (xx->note, "no trailing index") != NULL,
               "a plain trace ending in a tail-sized packet is not called damaged (%zu packets): %s",
               xx != NULL ? xx->n_entries : 0, xx != NULL ? xx->note : "");
    hl_trace_index_free (xx);
    free (copy);
  }
  hl_tap_ok (walked != NULL && !walked->from_file && walked->n_entries == t.n_packets,
             "without an index the header walk finds all %zu packets", t.n_packets);

  /* packet_at on every entry, last first */
  size_t bad = 0;
  for (size_t i = walked->n_entries; i-- > 0;)
    {
      HlPacketView pkt;
      HlFormatError err;
      if (hl_trace_reader_packet_at (r, walked->entries[i].offset, &pkt, &err) != 0
          || pkt.header.n_events != walked->entries[i].n_events)
        bad++;
    }
  HlPacketView pkt;
  HlFormatError err;
  hl_tap_ok (bad == 0 && hl_trace_reader_packet_at (r, walked->entries[1].offset + 1, &pkt, &err) != 0,
             "packet_at reads every indexed packet and refuses an offset that is not one: %s", err.message);

  /* Seek to times: events at or after T are all in entries[i..] */
  size_t bad_seek = 0;
  uint64_t t_end = walked->max_end_ns[walked->n_entries - 1];
  for (int k = 0; k <= 20; k++)
    {
      uint64_t T = t_end / 20 * (uint64_t) k;
      size_t i = hl_trace_index_find_time (walked, T);
      for (size_t j = 0; j < i; j++)
        if (walked->entries[j].time_end_ns >= T)
          bad_seek++;
      if (i < walked->n_entries && walked->entries[i].time_end_ns < T)
        bad_seek++;
      /* count events >= T from the seek point and from the start */
      size_t from_seek = 0, from_start = 0;
      HlEventCursor *c = malloc (sizeof *c);
      for (size_t j = 0; j < walked->n_entries; j++)
        {
          hl_trace_reader_packet_at (r, walked->entries[j].offset, &pkt, &err);
          hl_event_cursor_init (c, &pkt);
          HlEvent ev;
          while (hl_event_cursor_next (c, &ev, &err) > 0)
            if (ev.time_ns >= T)
              {
                from_start++;
                from_seek += j >= i;
              }
        }
      free (c);
      if (from_seek != from_start)
        bad_seek++;
    }
  hl_tap_ok (bad_seek == 0, "find_time: 21 times, every event at or after T is in the packets from the seek point");

  Loader parts[4];
  pthread_t threads[4];
  uint64_t total = 0, failures = 0;
  for (int k = 0; k < 4; k++)
    {
      parts[k] = (Loader) { r, walked, (size_t) k, 4, 0, 0 };
      pthread_create (&threads[k], NULL, load_part, &parts[k]);
    }
  for (int k = 0; k < 4; k++)
    {
      pthread_join (threads[k], NULL);
      total += parts[k].events;
      failures += parts[k].failures;
    }
  hl_tap_ok (failures == 0 && total == t.n_events, "4 threads load the packets in parallel: %llu events of %zu",
             (unsigned long long) total, t.n_events);
  hl_trace_reader_free (r);

  hl_tap_ok (hl_trace_index_append_file (path, &err) == 0, "append a trailing index");
  size_t indexed_len;
  char *indexed = hl_test_read_file (path, &indexed_len);
  HlTraceIndex *from_file = load (path, NULL);
  hl_tap_ok (from_file != NULL && from_file->from_file && same_entries (walked, from_file)
             && from_file->data_end == t.size,
             "the trailing index is read back equal to the walk (%zu bytes for %zu packets)",
             indexed_len - t.size, t.n_packets);
  bool again_ok = hl_trace_index_append_file (path, &err) == 0;
  size_t len2 = 0;
  free (hl_test_read_file (path, &len2));
  hl_tap_ok (again_ok && len2 == indexed_len, "appending again changes nothing");

  /* The walk steps over the index packets */
  hl_trace_reader_open_file (path, &r, &err);
  size_t n = 0;
  while (hl_trace_reader_next_packet (r, &pkt, &err) > 0)
    n++;
  HlTraceReaderStats st;
  hl_trace_reader_stats (r, &st);
  hl_tap_ok (n == t.n_packets && st.packets_index >= 2 && st.warning[0] == '\0',
             "a walk over an indexed file returns the same packets (%llu index packets skipped)",
             (unsigned long long) st.packets_index);
  hl_trace_reader_free (r);

  /* Cut before the tail: the walk takes over */
  write_file (path, indexed, indexed_len - 1);
  HlTraceIndex *cut = load (path, NULL);
  hl_tap_ok (cut != NULL && !cut->from_file && same_entries (walked, cut), "a file cut inside its index is indexed by the walk");
  hl_trace_index_free (cut);

  /* A damaged index packet: the walk takes over */
  indexed[t.size + HL_PACKET_HEADER_SIZE + 3] ^= 0x10;
  write_file (path, indexed, indexed_len);
  HlTraceIndex *damaged = load (path, NULL);
  hl_tap_ok (damaged != NULL && !damaged->from_file && same_entries (walked, damaged),
             "a damaged index is ignored and the walk takes over");
  hl_tap_ok (damaged != NULL && strstr (damaged->note, "damaged") != NULL,
             "a damaged real index is noted as damaged: %s", damaged != NULL ? damaged->note : "");
  hl_trace_index_free (damaged);

  /* Hostile tails: random bytes in place of the index content, never a crash */
  size_t survived = 0;
  uint32_t seed = 7;
  for (int k = 0; k < 2000; k++)
    {
      char *copy = malloc (indexed_len);
      memcpy (copy, indexed, indexed_len);
      copy[t.size + HL_PACKET_HEADER_SIZE + 3] ^= 0x10; /* undo the damage */
      for (int m = 0; m < 4; m++)
        {
          seed = seed * 1103515245u + 12345u;
          size_t at = t.size + (seed >> 8) % (indexed_len - t.size);
          copy[at] = (char) (seed >> 24);
        }
      HlTraceReader *rr;
      HlTraceIndex *xx;
      if (hl_trace_reader_open_memory (copy, indexed_len, &rr, &err) == 0)
        {
          if (hl_trace_index_load (rr, &xx, &err) == 0)
            {
              survived += xx->n_entries == walked->n_entries;
              hl_trace_index_free (xx);
            }
          hl_trace_reader_free (rr);
        }
      free (copy);
    }
  hl_tap_ok (survived == 2000, "2000 randomly damaged indexes: all load the right entries (%zu)", survived);

  /* encode/decode of an empty index */
  size_t sz;
  uint8_t *empty = hl_trace_index_encode (NULL, 0, 1, 64, &sz);
  hl_tap_ok (empty != NULL && sz == HL_INDEX_TAIL_SIZE, "an empty index is just the tail (%zu bytes)", sz);
  free (empty);

  hl_tap_ok (hl_trace_index_append_file ("/nonexistent/x.hltrace", &err) != 0 && err.code == HL_FORMAT_ERROR_IO,
             "appending to a missing file fails: %s", err.message);

  free (indexed);
  hl_trace_index_free (walked);
  hl_trace_index_free (from_file);
  hl_gen_trace_clear (&t);
  hl_test_tmpdir_remove (dir);
  return hl_tap_finish ();
}
