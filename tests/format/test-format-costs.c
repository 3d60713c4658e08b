/* test-format-costs.c — the COSTS packet's payload (hl-costs-payload.h)
 * encoded and decoded back, its checks, and the packet around it
 * (hl-costs-packet.h) wrapped, sealed, found and unpacked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hl-costs-packet.h"
#include "hl-crc32c.h"
#include "hl-test-util.h"
#include "hl-trace-format.h"

#define S(lit) ((HlCostsString) { lit, sizeof lit - 1 })

/* Two stacks sharing their outer frame, two threads, one of everything
 * else. */
static uint64_t frames[] = { 0x1010, 0x2000, 0x1020, 0x2000 };
static HlCostsInfo info[] = { { S ("exe"), S ("/bin/true") } };
static HlCostsString warnings[] = { S ("a warning") };
static HlCostsModule modules[] = { { S ("/lib/libc.so.6"), S ("libc.so.6"), S (""), 0x7f0000, 0x1000 } };
static HlCostsThread threads[] = { { 100, S ("main"), 1, 90 }, { 101, S (""), 5, 80 } };
static HlCostsStackId stack_ids[] = { { 1, 1 }, { 3, 2 } };
static HlCostsSpan spans[] = { { 0, 0, false }, { 0, 2, true }, { 2, 2, true } };
static HlCostsCounter counters[] = { { 10, 4096, 8192 }, { 5, 0, 8192 } };
static HlCostsDrop drops[] = { { 7, 3 } };
static HlCostsMeta meta[] = { { S ("phase"), S ("load"), 2, UINT64_MAX, 100 } };
static HlCostsMark marks[] = { { 3, S ("start"), 101 } };
static HlCostsRow stack_costs[] = { { 0 }, { 5, 500, 1, 400, 100, 1, 100 }, { 2, 20, 0, 20, 0, 0, 0 } };
static uint32_t owners[] = { 0, 1, 2 };
static HlCostsRow thread_costs[] = { { 5, 500, 1, 400, 100, 1, 100 }, { 2, 20, 0, 20, 0, 0, 0 } };
static HlCostsPair pairs[] = { { 1, 2, { 1, 10, 0, 10, 0, 0, 0 } } };

static void
sample (HlCostsPayload *p,
        HlCostsForm     form)
{
  memset (p, 0, sizeof *p);
  p->summary = (HlCostsSummary) { 42, 7, 6, 520, 1, 0, 0, 3, 90, 400, 50, 8192, 100, 1, true, -2, false, 7 };
  p->n_info = 1;
  p->info = info;
  p->n_warnings = 1;
  p->warnings = warnings;
  p->n_modules = 1;
  p->modules = modules;
  p->n_threads = 2;
  p->threads = threads;
  p->stack_table_size = 4;
  p->n_stack_ids = 2;
  p->stack_ids = stack_ids;
  p->n_stacks = 3;
  p->form = form;
  p->spans = spans;
  p->n_frames = 4;
  p->frames = frames;
  p->n_counters = 2;
  p->counters = counters;
  p->n_drops = 1;
  p->drops = drops;
  p->n_meta = 1;
  p->meta = meta;
  p->n_marks = 1;
  p->marks = marks;
  p->stack_costs = stack_costs;
  p->owners = owners;
  p->thread_costs = thread_costs;
  p->n_pairs = 1;
  p->pairs = pairs;
  for (unsigned i = 0; i < HL_COSTS_HISTOGRAM_BUCKETS; i++)
    {
      p->histogram_count[i] = i % 3;
      p->histogram_bytes[i] = (i % 3) << i % 20;
    }
}

static bool
same_string (HlCostsString a,
             HlCostsString b)
{
  return (a.data == NULL) == (b.data == NULL) && a.len == b.len && (a.len == 0 || memcmp (a.data, b.data, a.len) == 0);
}

static bool
same_row (const HlCostsRow *a,
          const HlCostsRow *b)
{
  return memcmp (a, b, sizeof *a) == 0;
}

/* Q (decoded) holds what P (the sample) does. */
static bool
same_payload (const HlCostsPayload *p,
              const HlCostsPayload *q)
{
  const HlCostsSummary *a = &p->summary, *b = &q->summary;
  if (a->seq != b->seq || a->n_allocs != b->n_allocs || a->end_ns != b->end_ns || a->has_exit != b->has_exit ||
      a->exit_status != b->exit_status || a->truncated != b->truncated || a->committed_allocs != b->committed_allocs ||
      a->peak_rss != b->peak_rss || a->dropped != b->dropped)
    return false;
  if (q->n_info != 1 || !same_string (q->info[0].key, info[0].key) || !same_string (q->info[0].value, info[0].value) ||
      q->n_warnings != 1 || !same_string (q->warnings[0], warnings[0]))
    return false;
  if (q->n_modules != 1 || !same_string (q->modules[0].build_id, S ("")) || q->modules[0].start != 0x7f0000 ||
      !same_string (q->modules[0].path, modules[0].path))
    return false;
  for (size_t i = 0; i < 2; i++)
    if (q->threads[i].tid != threads[i].tid || !same_string (q->threads[i].name, threads[i].name) ||
        q->threads[i].end_ns != threads[i].end_ns)
      return false;
  if (q->stack_table_size != 4 || q->n_stack_ids != 2 || q->stack_ids[1].id != 3 || q->stack_ids[1].index != 2 ||
      q->n_stacks != 3 || q->form != p->form || q->n_frames != 4)
    return false;
  for (size_t i = 1; i < 3; i++)
    {
      if (q->spans[i].n != spans[i].n || q->spans[i].defined != spans[i].defined)
        return false;
      if (p->form == HL_COSTS_FORM_INLINE &&
          memcmp (q->frames + q->spans[i].begin, frames + spans[i].begin, spans[i].n * sizeof *frames) != 0)
        return false;
    }
  if (p->form == HL_COSTS_FORM_BY_REFERENCE && (q->frames != NULL || q->frames_crc != hl_costs_frames_crc (0, frames, 4)))
    return false;
  if (q->n_counters != 2 || q->counters[1].time_ns != 5 || q->counters[0].heap_bytes != 4096 || q->n_drops != 1 ||
      q->drops[0].count != 3 || q->n_meta != 1 || q->meta[0].end_ns != UINT64_MAX || q->meta[0].tid != 100 ||
      q->n_marks != 1 || !same_string (q->marks[0].text, marks[0].text))
    return false;
  for (size_t i = 0; i < 3; i++)
    if (!same_row (&q->stack_costs[i], &stack_costs[i]) || q->owners[i] != owners[i])
      return false;
  if (!same_row (&q->thread_costs[1], &thread_costs[1]) || q->n_pairs != 1 || q->pairs[0].thread != 2 ||
      !same_row (&q->pairs[0].costs, &pairs[0].costs))
    return false;
  return memcmp (q->histogram_count, p->histogram_count, sizeof q->histogram_count) == 0 &&
         memcmp (q->histogram_bytes, p->histogram_bytes, sizeof q->histogram_bytes) == 0;
}

static void
test_round_trip (HlCostsForm  form,
                 const char  *name)
{
  HlCostsPayload p, q;
  HlCostsBuffer b = { 0 };
  HlFormatError err;
  bool all_fail = true;

  sample (&p, form);
  hl_tap_ok (hl_costs_payload_encode (&p, &b) == 0 && b.len > 0, "%s: encoded (%zu bytes)", name, b.len);
  hl_tap_ok (hl_costs_payload_decode (b.data, b.len, &q, &err) == 0 && same_payload (&p, &q),
             "%s: decodes to what was encoded", name);
  hl_costs_payload_clear (&q);
  for (size_t n = 0; n < b.len; n++)
    {
      /* a copy of the exact length: ASan sees any read past it */
      uint8_t *cut = malloc (n > 0 ? n : 1);
      memcpy (cut, b.data, n);
      if (hl_costs_payload_decode (cut, n, &q, &err) == 0 || err.offset > n || err.message[0] == '\0' ||
          q.info != NULL)
        all_fail = false;
      free (cut);
    }
  hl_tap_ok (all_fail, "%s: every cut payload is refused with where and why, nothing left allocated", name);
  {
    uint8_t *longer = malloc (b.len + 1);
    memcpy (longer, b.data, b.len);
    longer[b.len] = 0;
    hl_tap_ok (hl_costs_payload_decode (longer, b.len + 1, &q, &err) == -1 && err.code == HL_FORMAT_ERROR_CORRUPT &&
                 err.offset == b.len,
               "%s: a byte after the histogram is refused at its offset (%s)", name, err.message);
    free (longer);
  }
  hl_costs_buffer_clear (&b);
}

/* A payload whose stack map points past the stacks, and one whose stack
 * owner is not a thread. */
static void
test_checks (void)
{
  HlCostsPayload p, q;
  HlCostsBuffer b = { 0 };
  HlFormatError err;
  HlCostsStackId bad_ids[] = { { 1, 1 }, { 3, 4 } };
  uint32_t bad_owners[] = { 0, 3, 0 };

  sample (&p, HL_COSTS_FORM_INLINE);
  p.stack_ids = bad_ids;
  hl_costs_payload_encode (&p, &b);
  hl_tap_ok (hl_costs_payload_decode (b.data, b.len, &q, &err) == -1 && err.code == HL_FORMAT_ERROR_CORRUPT,
             "a stack id mapping past the stacks is refused (%s)", err.message);
  hl_costs_buffer_clear (&b);
  sample (&p, HL_COSTS_FORM_INLINE);
  p.owners = bad_owners;
  hl_costs_payload_encode (&p, &b);
  hl_tap_ok (hl_costs_payload_decode (b.data, b.len, &q, &err) == -1 && err.code == HL_FORMAT_ERROR_CORRUPT,
             "an owner that is not a thread is refused (%s)", err.message);
  hl_costs_buffer_clear (&b);
}

/* A compressed trace's header and a frame's worth of bytes, then the
 * packet of a payload: found, unpacked, and refused once a covered byte
 * changes. */
static void
test_packet (void)
{
  HlCostsPayload p;
  HlCostsBuffer payload = { 0 }, packet = { 0 };
  HlTraceFileHeader fh = { 0 };
  HlCostsPacketView v;
  HlFormatError err;
  size_t covered = HL_TRACE_FILE_HEADER_SIZE + 100, size;
  uint8_t *file, *out;

  sample (&p, HL_COSTS_FORM_INLINE);
  hl_costs_payload_encode (&p, &payload);
  hl_tap_ok (hl_costs_packet_wrap (payload.data, payload.len, NULL, 7, &packet) == 0 &&
               packet.len == HL_PACKET_HEADER_SIZE + HL_COSTS_CONTENT_HEAD + payload.len + HL_COSTS_FOOTER_SIZE,
             "the packet of a stored payload is its header, content head, payload and footer");
  memcpy (fh.magic, HL_TRACE_MAGIC, HL_TRACE_MAGIC_SIZE);
  fh.byte_order = HL_TRACE_BYTE_ORDER_MARK;
  fh.version_major = HL_TRACE_VERSION_MAJOR;
  fh.flags = HL_TRACE_FLAG_COMPRESSED;
  fh.pid = 1234;
  size = covered + packet.len;
  file = calloc (1, size);
  memcpy (file, &fh, sizeof fh);
  for (size_t i = sizeof fh; i < covered; i++)
    file[i] = (uint8_t) i;
  hl_costs_packet_seal (packet.data, packet.len, covered, hl_crc32c (0, file, covered), fh.pid);
  memcpy (file + covered, packet.data, packet.len);
  out = malloc (payload.len);
  hl_tap_ok (hl_costs_packet_find (file, size, 7, &v, &err) == 0 && v.offset == covered &&
               v.codec == HL_COSTS_CODEC_STORED && v.raw_size == payload.len &&
               hl_costs_packet_unpack (&v, NULL, out, &err) == 0 && memcmp (out, payload.data, payload.len) == 0,
             "the sealed packet is found at the file's end and gives the payload back");
  hl_tap_ok (hl_costs_packet_find (file, size, 8, &v, &err) == -1, "another model version is refused (%s)",
             err.message);
  file[HL_TRACE_FILE_HEADER_SIZE + 3] ^= 1;
  hl_tap_ok (hl_costs_packet_find (file, size, 7, &v, &err) == -1, "a changed covered byte is refused (%s)",
             err.message);
  file[HL_TRACE_FILE_HEADER_SIZE + 3] ^= 1;
  file[size - 1 - HL_COSTS_FOOTER_SIZE] ^= 1;
  hl_tap_ok (hl_costs_packet_find (file, size, 7, &v, &err) == -1, "a changed payload byte is refused (%s)",
             err.message);
  free (out);
  free (file);
  hl_costs_buffer_clear (&packet);
  hl_costs_buffer_clear (&payload);
}

int
main (void)
{
  hl_tap_plan (15);
  test_round_trip (HL_COSTS_FORM_INLINE, "inline");
  test_round_trip (HL_COSTS_FORM_BY_REFERENCE, "by reference");
  test_checks ();
  test_packet ();
  return hl_tap_finish ();
}
