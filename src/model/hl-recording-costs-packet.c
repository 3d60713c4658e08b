/* hl-recording-costs-packet.c — a costs-only recording written into and
 * read back from a trace's COSTS packet; see hl-recording-costs-packet.h
 * and docs/trace-format.md section 7e for the layout. */
#define _GNU_SOURCE
#include "hl-recording-costs-packet.h"
#include "hl-recording-builder-private.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hl-costs-packet.h"
#include "hl-crc32c.h"
#include "hl-model-error.h"
#include "hl-trace-codec.h"
#include "hl-trace-format.h"
#include "hl-trace-reader.h"
#ifdef HL_HAVE_ZSTD
#include "hl-trace-zstd.h"
#endif

/* zstd level of the payload: 9 packs python3's 15 % smaller than 3 for
 * about 30 ms */
#define PAYLOAD_LEVEL 9

/* the first seven are a row of the payload; LONG_LIVED and MMAP are not saved */
G_STATIC_ASSERT (sizeof (HlCosts) == 9 * sizeof (guint64));
G_STATIC_ASSERT (HL_SIZE_HISTOGRAM_BUCKETS == HL_COSTS_HISTOGRAM_BUCKETS);
G_STATIC_ASSERT ((int) HL_COSTS_STACKS_INLINE == (int) HL_COSTS_FORM_INLINE);
G_STATIC_ASSERT ((int) HL_COSTS_STACKS_BY_REFERENCE == (int) HL_COSTS_FORM_BY_REFERENCE);

/* The codec of the payload (NULL: stored), compressing at LEVEL. */
static const HlTraceCodec *
payload_codec (int level)
{
#ifdef HL_HAVE_ZSTD
  return hl_trace_codec_zstd (level);
#else
  (void) level;
  return NULL;
#endif
}

/* ---- Writing: the recording as a payload description -------------------- */

static HlCostsString
str_of (const char *s)
{
  return (HlCostsString) { s, s != NULL ? strlen (s) : 0 };
}

static HlCostsRow
row_of (const HlCosts *c)
{
  return (HlCostsRow) { c->allocations, c->bytes, c->temporary, c->peak_bytes, c->leaked_bytes, c->leaked_blocks,
                        c->live_bytes };
}

static HlCosts
costs_of (const HlCostsRow *r)
{
  return (HlCosts) { r->allocations, r->bytes, r->temporary, r->peak_bytes, r->leaked_bytes, r->leaked_blocks,
                     r->live_bytes };
}

/* The payload of SELF, its stacks in FORM, appended to OUT; FALSE when
 * out of memory. */
static int
reach_by_id (const void *a,
             const void *b)
{
  const HlReachRecord *x = a, *y = b;
  return x->id < y->id ? -1 : x->id > y->id;
}

static gboolean
serialize (HlRecording    *self,
           HlCostsStacks   form,
           HlCostsBuffer  *out)
{
  HlCostsPayload p = { 0 };
  HlSummary s;
  guint n_spans = self->stack_spans->len, n_threads = self->threads->len, n_marks;
  g_autofree HlCosts *stack_costs = NULL, *thread_costs = NULL;
  g_autofree HlCostsInfo *info = NULL;
  g_autofree HlCostsString *warnings = NULL;
  g_autofree HlCostsModule *modules = NULL;
  g_autofree HlCostsThread *threads = NULL;
  g_autofree HlCostsStackId *stack_ids = NULL;
  g_autofree HlCostsSpan *spans = NULL;
  g_autofree HlCostsCounter *counters = NULL;
  g_autofree HlCostsDrop *drops = NULL;
  g_autofree HlCostsMeta *meta = NULL;
  g_autofree HlCostsMark *marks_out = NULL;
  g_autofree HlCostsRow *stack_rows = NULL, *thread_rows = NULL;
  g_autofree guint32 *owners = NULL;
  g_autofree HlCostsPair *pairs = NULL;
  g_autofree HlReachRecord *reach = NULL;
  g_autofree HlCostsAllocator *allocator = NULL;
  g_autofree HlCostsMmapSite *mmap_sites = NULL;
  const HlMark *marks;
  HlSizeHistogram histogram;

  hl_recording_get_summary (self, &s);
  p.summary = (HlCostsSummary) {
    .seq = self->seq,
    .n_allocs = self->n_allocs,
    .n_frees = self->n_frees,
    .bytes_allocated = self->bytes_allocated,
    .temporary = self->temporary,
    .frees_unknown = s.frees_unknown,
    .ids_out_of_range = self->ids_out_of_range,
    .dropped = self->dropped,
    .end_ns = self->end_ns,
    .peak_heap = self->peak_heap,
    .peak_time_ns = self->peak_time_ns,
    .peak_rss = self->peak_rss,
    .leaked_bytes = self->leaked_bytes,
    .leaked_blocks = self->leaked_blocks,
    .has_exit = self->has_exit,
    .exit_status = self->exit_status,
    .truncated = self->truncated,
    .committed_allocs = self->committed_allocs,
  };

  p.n_info = self->info_keys->len - 1;
  p.info = info = g_new0 (HlCostsInfo, p.n_info + 1);
  for (guint i = 0; i < p.n_info; i++)
    {
      info[i].key = str_of (self->info_keys->pdata[i]);
      info[i].value = str_of (g_hash_table_lookup (self->info, self->info_keys->pdata[i]));
    }
  p.n_warnings = self->warnings->len - 1;
  p.warnings = warnings = g_new0 (HlCostsString, p.n_warnings + 1);
  for (guint i = 0; i < p.n_warnings; i++)
    warnings[i] = str_of (self->warnings->pdata[i]);

  p.n_modules = self->modules->len;
  p.modules = modules = g_new0 (HlCostsModule, p.n_modules + 1);
  for (guint i = 0; i < self->modules->len; i++)
    {
      const HlModuleInfo *m = &g_array_index (self->modules, HlModuleInfo, i);
      modules[i] = (HlCostsModule) { str_of (m->path), str_of (m->name), str_of (m->build_id), m->start, m->size };
    }
  p.n_threads = n_threads;
  p.threads = threads = g_new0 (HlCostsThread, n_threads + 1);
  for (guint i = 0; i < n_threads; i++)
    {
      const HlThreadInfo *t = &g_array_index (self->threads, HlThreadInfo, i);
      threads[i] = (HlCostsThread) { t->tid, str_of (t->name), t->start_ns, t->end_ns };
    }

  /* the trace ids that map to a stack */
  p.stack_table_size = self->stack_ids->len;
  for (guint i = 0; i < self->stack_ids->len; i++)
    p.n_stack_ids += g_array_index (self->stack_ids, guint32, i) != 0;
  p.stack_ids = stack_ids = g_new0 (HlCostsStackId, p.n_stack_ids + 1);
  for (guint i = 0, k = 0; i < self->stack_ids->len; i++)
    if (g_array_index (self->stack_ids, guint32, i) != 0)
      stack_ids[k++] = (HlCostsStackId) { i, g_array_index (self->stack_ids, guint32, i) };
  p.n_stacks = n_spans;
  p.form = (HlCostsForm) form;
  p.spans = spans = g_new0 (HlCostsSpan, n_spans + 1);
  for (guint i = 0; i < n_spans; i++)
    {
      const StackSpan *span = &g_array_index (self->stack_spans, StackSpan, i);
      spans[i] = (HlCostsSpan) { span->begin, span->n, span->defined != 0 };
    }
  p.n_frames = self->stack_addrs->len;
  p.frames = (guint64 *) self->stack_addrs->data;

  p.n_counters = self->counters->len;
  p.counters = counters = g_new0 (HlCostsCounter, p.n_counters + 1);
  for (guint i = 0; i < self->counters->len; i++)
    {
      const HlCounterSample *c = &g_array_index (self->counters, HlCounterSample, i);
      counters[i] = (HlCostsCounter) { c->time_ns, c->heap_bytes, c->rss_bytes };
    }
  p.n_drops = self->drops->len;
  p.drops = drops = g_new0 (HlCostsDrop, p.n_drops + 1);
  for (guint i = 0; i < self->drops->len; i++)
    {
      const HlDropSample *d = &g_array_index (self->drops, HlDropSample, i);
      drops[i] = (HlCostsDrop) { d->time_ns, d->count };
    }
  hl_recording_sort_metadata (self);
  hl_recording_sort_allocator_samples (self);
  p.n_meta = self->meta->len;
  p.meta = meta = g_new0 (HlCostsMeta, p.n_meta + 1);
  for (guint i = 0; i < self->meta->len; i++)
    {
      const HlMetaInterval *m = &g_array_index (self->meta, HlMetaInterval, i);
      meta[i] = (HlCostsMeta) { str_of (m->key), str_of (m->value), m->start_ns, m->end_ns, m->tid };
    }
  marks = hl_recording_get_marks (self, &n_marks);
  p.n_marks = n_marks;
  p.marks = marks_out = g_new0 (HlCostsMark, n_marks + 1);
  for (guint i = 0; i < n_marks; i++)
    marks_out[i] = (HlCostsMark) { marks[i].time_ns, str_of (marks[i].text), marks[i].tid };

  stack_costs = hl_aggregate_dup_stack_costs (self->aggregate, n_spans);
  thread_costs = hl_aggregate_dup_thread_costs (self->aggregate, n_threads);
  hl_aggregate_get_histogram (self->aggregate, &histogram);
  p.stack_costs = stack_rows = g_new0 (HlCostsRow, n_spans + 1);
  p.owners = owners = g_new0 (guint32, n_spans + 1);
  for (guint i = 0; i < n_spans; i++)
    {
      stack_rows[i] = row_of (&stack_costs[i]);
      owners[i] = hl_aggregate_get_stack_owner (self->aggregate, i);
    }
  p.thread_costs = thread_rows = g_new0 (HlCostsRow, n_threads + 1);
  for (guint i = 0; i < n_threads; i++)
    thread_rows[i] = row_of (&thread_costs[i]);
  p.n_pairs = hl_aggregate_get_n_pairs (self->aggregate);
  p.pairs = pairs = g_new0 (HlCostsPair, p.n_pairs + 1);
  for (guint i = 0; i < p.n_pairs; i++)
    {
      HlCosts c;

      hl_aggregate_get_pair (self->aggregate, i, &pairs[i].stack, &pairs[i].thread, &c);
      pairs[i].costs = row_of (&c);
    }
  memcpy (p.histogram_count, histogram.count, sizeof p.histogram_count);
  memcpy (p.histogram_bytes, histogram.bytes, sizeof p.histogram_bytes);
  if (self->reach_present)
    {
      p.has_reach = true;
      p.reach.flags = (self->reach.complete ? 0u : (uint32_t) HL_REACH_FLAG_INCOMPLETE)
                      | (self->reach.on_demand ? (uint32_t) HL_REACH_FLAG_ON_DEMAND : 0u);
      p.reach.scan_ns = self->reach.scan_ns;
      p.reach.roots_bytes = self->reach.roots_bytes;
      p.reach.blocks_scanned = self->reach.blocks_scanned;
      for (guint k = 0; k < HL_REACH_KINDS; k++)
        {
          p.reach.blocks[k] = self->reach.blocks[k];
          p.reach.bytes[k] = self->reach.bytes[k];
        }
      p.n_reach = self->reach_blocks->len;
      p.reach_records = reach = g_new0 (HlReachRecord, p.n_reach + 1);
      for (guint i = 0; i < p.n_reach; i++)
        {
          const HlReachabilityBlock *b = &g_array_index (self->reach_blocks, HlReachabilityBlock, i);
          reach[i] = (HlReachRecord) { b->id, b->size, b->stack, (guint32) b->kind };
        }
      qsort (reach, p.n_reach, sizeof *reach, reach_by_id);
    }
  hl_recording_sysmem_to_payload (self, &p, &allocator, &mmap_sites);
  return hl_costs_payload_encode (&p, out) == 0;
}

static gboolean
write_all (int          fd,
           const void  *data,
           gsize        n)
{
  const guint8 *p = data;

  while (n > 0)
    {
      ssize_t w = write (fd, p, n);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        return FALSE;
      p += w;
      n -= (gsize) w;
    }
  return TRUE;
}

/* ---- Reading: a payload description into the recording ----------------- */

/* The payload of DATA's COSTS packet (a new array), or NULL when DATA
 * does not end with one that matches it (see the header). */
static GByteArray *
find_payload (const guint8 *data,
              gsize         size)
{
  HlCostsPacketView view;
  HlFormatError err;
  GByteArray *out;

  if (hl_costs_packet_find (data, size, HL_COSTS_PACKET_MODEL_VERSION, &view, &err) != 0)
    return NULL;
  out = g_byte_array_sized_new (view.raw_size);
  g_byte_array_set_size (out, view.raw_size);
  if (hl_costs_packet_unpack (&view, payload_codec (0), out->data, &err) != 0)
    {
      g_byte_array_unref (out);
      return NULL;
    }
  return out;
}

static const char *
intern (HlRecording         *rec,
        const HlCostsString *s)
{
  g_autofree char *tmp = NULL;

  if (s->data == NULL)
    return NULL;
  tmp = g_strndup (s->data, s->len);
  return hl_recording_intern (rec, tmp);
}

/* SELF filled from the payload P (decoded); FALSE when it does not fit a
 * recording (two threads of one tid, a pair out of range). */
static gboolean
fill (HlRecording          *self,
      const HlCostsPayload *p)
{
  const HlCostsSummary *s = &p->summary;
  g_autofree HlCosts *stack_costs = NULL, *thread_costs = NULL;
  HlSizeHistogram histogram = { { 0 } };

  self->seq = (guint32) s->seq;
  self->n_allocs = s->n_allocs;
  self->n_frees = s->n_frees;
  self->bytes_allocated = s->bytes_allocated;
  self->temporary = s->temporary;
  self->frees_unknown = s->frees_unknown;
  self->ids_out_of_range = s->ids_out_of_range;
  self->dropped = s->dropped;
  self->end_ns = s->end_ns;
  self->peak_heap = s->peak_heap;
  self->peak_time_ns = s->peak_time_ns;
  self->peak_rss = s->peak_rss;
  self->leaked_bytes = s->leaked_bytes;
  self->leaked_blocks = s->leaked_blocks;
  self->has_exit = s->has_exit;
  self->exit_status = (int) s->exit_status;
  self->truncated = s->truncated;
  self->committed_allocs = s->committed_allocs;

  for (gsize i = 0; i < p->n_info; i++)
    hl_recording_append_info (self, intern (self, &p->info[i].key), intern (self, &p->info[i].value));
  for (gsize i = 0; i < p->n_warnings; i++)
    hl_recording_append_warning (self, intern (self, &p->warnings[i]));
  for (gsize i = 0; i < p->n_modules; i++)
    {
      HlModuleInfo m = { 0 };
      m.path = intern (self, &p->modules[i].path);
      m.name = intern (self, &p->modules[i].name);
      m.build_id = intern (self, &p->modules[i].build_id);
      m.start = p->modules[i].start;
      m.size = p->modules[i].size;
      g_array_append_val (self->modules, m);
    }
  for (gsize i = 0; i < p->n_threads; i++)
    {
      HlThreadInfo t = { 0 };

      t.tid = p->threads[i].tid;
      t.name = intern (self, &p->threads[i].name);
      t.start_ns = p->threads[i].start_ns;
      t.end_ns = p->threads[i].end_ns;
      if (hl_recording_builder_has_tid (hl_recording_get_builder (self), t.tid))
        return FALSE;
      hl_recording_builder_add_thread (self->builder, t.tid, self->threads->len);
      g_array_append_val (self->threads, t);
    }

  /* the table is sized by its ids, as it grows while a load reads them */
  for (gsize i = 0; i < p->n_stack_ids; i++)
    {
      guint64 id = p->stack_ids[i].id, n = p->stack_table_size;
      if (id >= self->stack_ids->len)
        g_array_set_size (self->stack_ids, (guint) MIN (n, MAX (id + 1, (guint64) self->stack_ids->len * 2)));
      g_array_index (self->stack_ids, guint32, id) = p->stack_ids[i].index;
    }
  g_array_set_size (self->stack_spans, (guint) p->n_stacks);
  for (gsize i = 1; i < p->n_stacks; i++)
    {
      StackSpan *span = &g_array_index (self->stack_spans, StackSpan, i);
      span->defined = p->spans[i].defined;
      span->n = p->spans[i].n;
      span->begin = (guint32) p->spans[i].begin;
    }
  /* by reference, the frames come from the trace (fill_frames_from_trace) */
  g_array_set_size (self->stack_addrs, (guint) p->n_frames);
  if (p->form == HL_COSTS_FORM_INLINE && p->n_frames > 0)
    memcpy (self->stack_addrs->data, p->frames, p->n_frames * sizeof (guint64));

  for (gsize i = 0; i < p->n_counters; i++)
    {
      HlCounterSample c = { p->counters[i].time_ns, p->counters[i].heap_bytes, p->counters[i].rss_bytes };
      g_array_append_val (self->counters, c);
    }
  for (gsize i = 0; i < p->n_drops; i++)
    {
      HlDropSample d = { p->drops[i].time_ns, p->drops[i].count };
      g_array_append_val (self->drops, d);
    }
  hl_recording_sysmem_from_payload (self, p);
  for (gsize i = 0; i < p->n_meta; i++)
    {
      HlMetaInterval m = { 0 };
      m.key = intern (self, &p->meta[i].key);
      m.value = intern (self, &p->meta[i].value);
      m.start_ns = p->meta[i].start_ns;
      m.end_ns = p->meta[i].end_ns;
      m.tid = p->meta[i].tid;
      g_array_append_val (self->meta, m);
      /* still set at the end (saved open): ends with the recording, as
       * hl_recording_get_metadata_intervals() gives it from the events */
      if (m.end_ns == G_MAXUINT64)
        g_hash_table_insert (self->meta_open, (char *) m.key, GUINT_TO_POINTER (self->meta->len));
    }
  for (gsize i = 0; i < p->n_marks; i++)
    {
      HlMark m = { 0 };
      m.time_ns = p->marks[i].time_ns;
      m.text = intern (self, &p->marks[i].text);
      m.tid = p->marks[i].tid;
      hl_recording_insert_mark (self, &m);
    }

  stack_costs = g_new0 (HlCosts, p->n_stacks);
  thread_costs = g_new0 (HlCosts, p->n_threads + 1);
  for (gsize i = 0; i < p->n_stacks; i++)
    stack_costs[i] = costs_of (&p->stack_costs[i]);
  for (gsize i = 0; i < p->n_threads; i++)
    thread_costs[i] = costs_of (&p->thread_costs[i]);
  self->aggregate = hl_aggregate_new_settled (stack_costs, p->owners, (guint) p->n_stacks, thread_costs,
                                              (guint) p->n_threads, &histogram);
  for (gsize i = 0; i < p->n_pairs; i++)
    {
      HlCosts pc = costs_of (&p->pairs[i].costs);
      if (!hl_aggregate_add_settled_pair (self->aggregate, p->pairs[i].stack, p->pairs[i].thread, &pc))
        return FALSE;
    }
  memcpy (histogram.count, p->histogram_count, sizeof histogram.count);
  memcpy (histogram.bytes, p->histogram_bytes, sizeof histogram.bytes);
  hl_aggregate_set_histogram (self->aggregate, &histogram);
  self->reach_present = p->has_reach;
  if (p->has_reach)
    {
      self->reach.complete = (p->reach.flags & HL_REACH_FLAG_INCOMPLETE) == 0;
      self->reach.on_demand = (p->reach.flags & HL_REACH_FLAG_ON_DEMAND) != 0;
      self->reach.scan_ns = p->reach.scan_ns;
      self->reach.roots_bytes = p->reach.roots_bytes;
      self->reach.blocks_scanned = p->reach.blocks_scanned;
      for (guint k = 0; k < HL_REACH_KINDS; k++)
        {
          self->reach.blocks[k] = p->reach.blocks[k];
          self->reach.bytes[k] = p->reach.bytes[k];
        }
      for (gsize i = 0; i < p->n_reach; i++)
        {
          HlReachabilityBlock b = { p->reach_records[i].id, p->reach_records[i].size, p->reach_records[i].stack_id,
                                    (HlReachabilityKind) p->reach_records[i].kind };
          g_array_append_val (self->reach_blocks, b);
        }
    }
  return TRUE;
}

/* SELF filled from the SIZE bytes of a payload at DATA; FALSE when they
 * are not one (or do not fit a recording). */
static gboolean
deserialize (HlRecording  *self,
             const guint8 *data,
             gsize         size,
             gboolean     *by_reference,
             guint32      *frames_crc)
{
  HlCostsPayload p;
  HlFormatError err;
  gboolean ok;

  if (hl_costs_payload_decode (data, size, &p, &err) != 0)
    return FALSE;
  ok = fill (self, &p);
  if (p.form == HL_COSTS_FORM_BY_REFERENCE)
    {
      *by_reference = TRUE;
      *frames_crc = p.frames_crc;
    }
  hl_costs_payload_clear (&p);
  return ok;
}

/* The frames of REC's stacks held by reference: every span defined in
 * the payload gets the frames of the first STACK event of its trace id,
 * as the load that made the payload did; the CRC-32C of them all must
 * be CRC. Only the packets flagged with STACK events are decoded. */
static gboolean
fill_frames_from_trace (HlRecording *rec,
                        const char  *path,
                        guint32      crc)
{
  HlTraceReader *reader = NULL;
  HlFormatError err;
  HlPacketView pkt, view;
  g_autofree HlEventCursor *cursor = g_new0 (HlEventCursor, 1);
  g_autofree guint8 *filled = g_new0 (guint8, rec->stack_spans->len);
  const HlTraceCodec *codec = NULL;
  guint32 got = 0;
  gboolean ok = TRUE;

#ifdef HL_HAVE_ZSTD
  codec = hl_trace_codec_zstd (0);
#endif
  if (hl_trace_reader_open_file_codec (path, codec, &reader, &err) != 0)
    return FALSE;
  while (ok && hl_trace_reader_next_header (reader, &pkt, &err) > 0)
    {
      HlEvent ev;
      int rc;

      if ((pkt.header.flags & HL_PACKET_FLAG_HAS_STACKS) == 0)
        continue;
      if (hl_trace_reader_packet_at (reader, pkt.offset, &view, &err) != 0)
        break; /* a damaged packet: the load skipped it, so its stacks are not ours; the crc tells */
      hl_event_cursor_init (cursor, &view);
      while ((rc = hl_event_cursor_next (cursor, &ev, &err)) > 0)
        {
          guint32 index;
          StackSpan *span;

          if (ev.type != HL_EVENT_STACK || ev.u.stack.id == 0 || ev.u.stack.id >= rec->stack_ids->len ||
              (index = g_array_index (rec->stack_ids, guint32, ev.u.stack.id)) == 0)
            continue;
          index--;
          span = &g_array_index (rec->stack_spans, StackSpan, index);
          if (filled[index] || !span->defined)
            continue;
          if (ev.u.stack.n_frames != span->n)
            {
              ok = FALSE;
              break;
            }
          memcpy (&g_array_index (rec->stack_addrs, guint64, span->begin), ev.u.stack.frames, span->n * sizeof (guint64));
          filled[index] = 1;
        }
    }
  hl_trace_reader_free (reader);
  for (guint i = 1; ok && i < rec->stack_spans->len; i++)
    {
      const StackSpan *span = &g_array_index (rec->stack_spans, StackSpan, i);
      if (span->defined && !filled[i])
        ok = FALSE;
      else
        got = hl_costs_frames_crc (got, &g_array_index (rec->stack_addrs, guint64, span->begin), span->n);
    }
  return ok && got == crc;
}

HlRecording *
hl_costs_packet_parse (const guint8 *payload,
                       gsize         len)
{
  g_autoptr (HlRecording) rec = hl_recording_new ();
  gboolean by_reference = FALSE;
  guint32 crc = 0;

  if (!deserialize (rec, payload, len, &by_reference, &crc) || by_reference)
    return NULL;
  hl_recording_commit (rec);
  hl_recording_end_filling (rec);
  return g_steal_pointer (&rec);
}

/* PATH mapped, or NULL; a FIFO (or anything but a regular file) is not
 * opened for reading, so it cannot block (the trace reader then says what
 * it is). */
static GMappedFile *
map_regular_file (const char *path)
{
  struct stat st;
  GMappedFile *map = NULL;
  int fd = open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

  if (fd < 0)
    return NULL;
  if (fstat (fd, &st) == 0 && S_ISREG (st.st_mode))
    map = g_mapped_file_new_from_fd (fd, FALSE, NULL);
  close (fd);
  return map;
}

HlRecording *
hl_costs_packet_load (const char *path)
{
  g_autoptr (GMappedFile) map = map_regular_file (path);
  g_autoptr (GByteArray) payload = NULL;
  g_autoptr (HlRecording) rec = NULL;
  gboolean by_reference = FALSE;
  guint32 crc = 0;

  if (map == NULL)
    return NULL;
  payload = find_payload ((const guint8 *) g_mapped_file_get_contents (map), g_mapped_file_get_length (map));
  if (payload == NULL)
    return NULL;
  rec = hl_recording_new ();
  if (!deserialize (rec, payload->data, payload->len, &by_reference, &crc) ||
      (by_reference && !fill_frames_from_trace (rec, path, crc)))
    return NULL;
  hl_recording_commit (rec);
  hl_recording_end_filling (rec);
  return g_steal_pointer (&rec);
}

GBytes *
hl_costs_packet_prepare (const char *path,
                         GError    **error)
{
  return hl_costs_packet_prepare_cancellable (path, NULL, error);
}

GBytes *
hl_costs_packet_prepare_cancellable (const char    *path,
                                     GCancellable  *cancellable,
                                     GError       **error)
{
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (HlRecording) rec = NULL;

  rec = hl_recording_load (file, HL_LOAD_FLAGS_AGGREGATE | HL_LOAD_FLAGS_NO_SYMBOLS | HL_LOAD_FLAGS_NO_COSTS_PACKET,
                           cancellable, NULL, NULL, error);
  if (rec == NULL)
    return NULL;
  return hl_costs_packet_payload (rec, HL_COSTS_STACKS_INLINE, error);
}

GBytes *
hl_costs_packet_payload (HlRecording   *rec,
                         HlCostsStacks  form,
                         GError       **error)
{
  HlCostsBuffer payload = { 0 };

  g_return_val_if_fail (HL_IS_RECORDING (rec) && rec->aggregate != NULL, NULL);
  if (!serialize (rec, form, &payload) || payload.len > HL_COSTS_PAYLOAD_MAX)
    {
      hl_costs_buffer_clear (&payload);
      g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_UNSUPPORTED, "costs too large to save");
      return NULL;
    }
  return g_bytes_new_with_free_func (payload.data, payload.len, free, payload.data);
}

struct _HlCostsPacket
{
  HlCostsBuffer packet;
};

HlCostsPacket *
hl_costs_packet_build (GBytes *payload)
{
  gsize len;
  const guint8 *data = g_bytes_get_data (payload, &len);
  HlCostsPacket *p = g_new0 (HlCostsPacket, 1);

  if (hl_costs_packet_wrap (data, len, payload_codec (PAYLOAD_LEVEL), HL_COSTS_PACKET_MODEL_VERSION, &p->packet) != 0)
    g_error ("out of memory building the costs packet of %" G_GSIZE_FORMAT " bytes", len);
  return p;
}

gsize
hl_costs_packet_built_size (const HlCostsPacket *packet)
{
  return packet->packet.len;
}

void
hl_costs_packet_free (HlCostsPacket *packet)
{
  if (packet == NULL)
    return;
  hl_costs_buffer_clear (&packet->packet);
  g_free (packet);
}

gsize
hl_costs_packet_size (GBytes *payload)
{
  HlCostsPacket *p = hl_costs_packet_build (payload);
  gsize n = hl_costs_packet_built_size (p);

  hl_costs_packet_free (p);
  return n;
}

gboolean
hl_costs_packet_write (GBytes     *payload,
                       const char *path,
                       GError    **error)
{
  HlCostsPacket *p = hl_costs_packet_build (payload);
  gboolean ok = hl_costs_packet_write_built (p, path, error);

  hl_costs_packet_free (p);
  return ok;
}

gboolean
hl_costs_packet_write_built (HlCostsPacket *built,
                             const char    *path,
                             GError       **error)
{
  g_autoptr (GMappedFile) map = NULL;
  HlCostsBuffer *packet = &built->packet;
  const guint8 *data;
  gsize size;
  HlTraceFileHeader fh;
  struct stat st;
  int fd;
  gboolean ok;

  map = g_mapped_file_new (path, FALSE, error);
  if (map == NULL)
    return FALSE;
  data = (const guint8 *) g_mapped_file_get_contents (map);
  size = g_mapped_file_get_length (map);
  if (size < HL_TRACE_FILE_HEADER_SIZE)
    {
      g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_NOT_A_TRACE, "%s: not a trace", path);
      return FALSE;
    }
  memcpy (&fh, data, sizeof fh);
  if ((fh.flags & HL_TRACE_FLAG_COMPRESSED) == 0)
    {
      /* A plain trace ends with its index (section 7). */
      g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_UNSUPPORTED,
                   "%s: costs are saved in compressed traces only", path);
      return FALSE;
    }
  hl_costs_packet_seal (packet->data, packet->len, size, hl_crc32c (0, data, size), fh.pid);

  fd = open (path, O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0)
    {
      int e = errno;
      g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_IO, "%s: %s", path, g_strerror (e));
      return FALSE;
    }
  /* The checksum is of the bytes read: the file must not have grown. */
  ok = fstat (fd, &st) == 0 && (guint64) st.st_size == size && write_all (fd, packet->data, packet->len);
  if (close (fd) != 0)
    ok = FALSE;
  if (!ok)
    {
      g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_IO, "%s: could not append the costs", path);
      return FALSE;
    }
  return TRUE;
}

gboolean
hl_costs_packet_append (const char *path,
                        GError    **error)
{
  g_autoptr (GMappedFile) map = g_mapped_file_new (path, FALSE, error);
  g_autoptr (GByteArray) found = NULL;
  g_autoptr (GBytes) payload = NULL;
  HlTraceFileHeader fh;

  if (map == NULL)
    return FALSE;
  found = find_payload ((const guint8 *) g_mapped_file_get_contents (map), g_mapped_file_get_length (map));
  if (found != NULL)
    return TRUE;
  if (g_mapped_file_get_length (map) < HL_TRACE_FILE_HEADER_SIZE)
    {
      g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_NOT_A_TRACE, "%s: not a trace", path);
      return FALSE;
    }
  memcpy (&fh, g_mapped_file_get_contents (map), sizeof fh);
  if ((fh.flags & HL_TRACE_FLAG_COMPRESSED) == 0)
    {
      g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_UNSUPPORTED,
                   "%s: costs are saved in compressed traces only", path);
      return FALSE;
    }
  payload = hl_costs_packet_prepare (path, error);
  return payload != NULL && hl_costs_packet_write (payload, path, error);
}
