/* hl-costs-payload-decode.c — the COSTS payload read back, every count,
 * index and length checked (hl-costs-payload.h, docs/trace-format.md
 * section 7e). */
#include "hl-costs-payload.h"

#include <stdlib.h>
#include <string.h>

#include "hl-trace-format.h" /* HL_TRACE_MAX_FRAMES */
#include "private/hl-trace-reader-private.h"
#include "private/hl-varint.h"

typedef struct
{
  const uint8_t *base, *p, *end;
  bool           bad;
  HlFormatError *err;
} Dec;

/* The first failure: what it was and where. */
static bool
fail (Dec            *d,
      HlFormatStatus  code,
      const char     *what)
{
  if (!d->bad)
    hl_format_error_set (d->err, code, (uint64_t) (d->p - d->base), "costs payload: %s at byte %zu", what,
                         (size_t) (d->p - d->base));
  d->bad = true;
  d->p = d->end;
  return false;
}

static size_t
left (const Dec *d)
{
  return (size_t) (d->end - d->p);
}

/* A varint of at most 10 bytes (the bits past 64 of a 10th byte are
 * dropped); 0 after a failure. */
static uint64_t
get (Dec        *d,
     const char *what)
{
  uint64_t v = 0;

  for (unsigned shift = 0; shift < 64 && !d->bad; shift += 7)
    {
      uint8_t byte;

      if (d->p >= d->end)
        break;
      byte = *d->p++;
      v |= (uint64_t) (byte & 0x7f) << shift;
      if ((byte & 0x80) == 0)
        return v;
    }
  fail (d, HL_FORMAT_ERROR_TRUNCATED, what);
  return 0;
}

static int64_t
get_signed (Dec        *d,
            const char *what)
{
  return hl_zigzag_decode (get (d, what));
}

/* A count of things taking at least MIN_BYTES bytes each. */
static size_t
get_count (Dec        *d,
           size_t      min_bytes,
           const char *what)
{
  uint64_t n = get (d, what);

  if (n > left (d) || n > UINT32_MAX || n * min_bytes > left (d))
    {
      fail (d, HL_FORMAT_ERROR_CORRUPT, what);
      return 0;
    }
  return (size_t) n;
}

/* A string into the payload; false (and no string) for none, or after a
 * failure. */
static bool
get_string (Dec           *d,
            HlCostsString *out,
            const char    *what)
{
  uint64_t n = get (d, what);

  out->data = NULL;
  out->len = 0;
  if (n == 0)
    return false;
  n--;
  if (n > left (d))
    return fail (d, HL_FORMAT_ERROR_TRUNCATED, what);
  out->data = (const char *) d->p;
  out->len = (size_t) n;
  d->p += n;
  return true;
}

/* A string that must be there. */
static bool
need_string (Dec           *d,
             HlCostsString *out,
             const char    *what)
{
  if (get_string (d, out, what))
    return true;
  return fail (d, HL_FORMAT_ERROR_CORRUPT, what);
}

static void
get_costs (Dec        *d,
           HlCostsRow *out)
{
  out->allocations = get (d, "a cost");
  out->bytes = get (d, "a cost");
  out->temporary = get (d, "a cost");
  out->peak_bytes = get (d, "a cost");
  out->leaked_bytes = get (d, "a cost");
  out->leaked_blocks = get (d, "a cost");
  out->live_bytes = get (d, "a cost");
}

static void
set_cost_column (HlCostsRow *c,
                 unsigned    k,
                 uint64_t    v)
{
  switch (k)
    {
    case 0: c->allocations = v; break;
    case 1: c->bytes = v; break;
    case 2: c->temporary = v; break;
    case 3: c->peak_bytes = v; break;
    case 4: c->leaked_bytes = v; break;
    default: c->leaked_blocks = v; break;
    }
}

/* N zeroed elements of SIZE into *OUT (at least one, so that a count of
 * 0 is told from a failure). */
static bool
alloc_array (Dec    *d,
             void   *out,
             size_t  n,
             size_t  size)
{
  void *a = calloc (n > 0 ? n : 1, size);

  *(void **) out = a;
  if (a == NULL)
    return fail (d, HL_FORMAT_ERROR_IO, "out of memory");
  return true;
}

/* The trie of frames (form INLINE) into P's spans and frames. */
static bool
get_stack_trie (Dec            *d,
                HlCostsPayload *p)
{
  size_t n_nodes = get_count (d, 2, "the trie's node count");
  uint64_t prev = 0, total = 0, cap = 0;
  uint32_t *parent = NULL;
  uint64_t *frame = NULL;
  uint16_t *depth = NULL;
  bool ok = false;

  if (d->bad)
    return false;
  parent = malloc ((n_nodes + 1) * sizeof *parent);
  frame = malloc ((n_nodes + 1) * sizeof *frame);
  depth = malloc ((n_nodes + 1) * sizeof *depth);
  if (parent == NULL || frame == NULL || depth == NULL)
    {
      fail (d, HL_FORMAT_ERROR_IO, "out of memory");
      goto out;
    }
  depth[0] = 0;
  for (size_t k = 1; k <= n_nodes; k++)
    {
      uint64_t back = get (d, "a trie node");

      /* the parent is an earlier node or the root */
      if (d->bad || back == 0 || back > k)
        {
          fail (d, HL_FORMAT_ERROR_CORRUPT, "a trie node's parent");
          goto out;
        }
      parent[k] = (uint32_t) (k - back);
      frame[k] = prev + (uint64_t) get_signed (d, "a trie node's frame");
      prev = frame[k];
      depth[k] = (uint16_t) (depth[parent[k]] + 1);
      if (depth[k] > HL_TRACE_MAX_FRAMES)
        {
          fail (d, HL_FORMAT_ERROR_CORRUPT, "a stack deeper than the frames allowed");
          goto out;
        }
    }
  for (size_t i = 1; i < p->n_stacks && !d->bad; i++)
    {
      HlCostsSpan *span = &p->spans[i];
      uint64_t v = get (d, "a stack's leaf"), node = v >> 1;

      if (d->bad)
        goto out;
      if (node > n_nodes || (node > 0 && (v & 1) == 0))
        {
          fail (d, HL_FORMAT_ERROR_CORRUPT, "a stack's leaf");
          goto out;
        }
      span->defined = v & 1;
      span->n = depth[node];
      span->begin = total;
      total += span->n;
      if (total > HL_COSTS_MAX_TOTAL_FRAMES)
        {
          fail (d, HL_FORMAT_ERROR_CORRUPT, "more frames than a payload may hold");
          goto out;
        }
      if (total > cap)
        {
          uint64_t ncap = cap > 0 ? cap : 1024;
          while (ncap < total)
            ncap *= 2;
          uint64_t *nf = realloc (p->frames, (size_t) ncap * sizeof *nf);
          if (nf == NULL)
            {
              fail (d, HL_FORMAT_ERROR_IO, "out of memory");
              goto out;
            }
          p->frames = nf;
          cap = ncap;
        }
      /* innermost first: the node, then up to the root */
      for (uint32_t f = 0; f < span->n; f++, node = parent[node])
        p->frames[span->begin + f] = frame[node];
    }
  p->n_frames = total;
  ok = !d->bad;
out:
  free (parent);
  free (frame);
  free (depth);
  return ok;
}

/* The stacks: their map from trace ids, count, form and frames. */
static bool
get_stacks (Dec            *d,
            HlCostsPayload *p)
{
  uint64_t n = get (d, "the stack map's length"); /* the table is sized by its ids */

  if (d->bad)
    return false;
  if (n > INT32_MAX)
    return fail (d, HL_FORMAT_ERROR_CORRUPT, "the stack map's length");
  p->stack_table_size = n;
  p->n_stack_ids = get_count (d, 2, "the stack map's count");
  if (!alloc_array (d, &p->stack_ids, p->n_stack_ids, sizeof *p->stack_ids))
    return false;
  {
    uint64_t prev = 0, prev_v = 0;
    for (size_t i = 0; i < p->n_stack_ids && !d->bad; i++)
      {
        uint64_t delta = get (d, "a stack id"), id = prev + delta;
        uint64_t v = prev_v + (uint64_t) get_signed (d, "a stack index");
        if (d->bad)
          return false;
        if ((i > 0 && delta == 0) || id >= n || v == 0 || v > UINT32_MAX)
          return fail (d, HL_FORMAT_ERROR_CORRUPT, "a stack id");
        p->stack_ids[i].id = id;
        p->stack_ids[i].index = (uint32_t) v;
        prev = id;
        prev_v = v;
      }
  }
  p->n_stacks = get_count (d, 1, "the stack count");
  /* each stack takes a byte here and 8 in the costs at least */
  if (d->bad || p->n_stacks == 0 || p->n_stacks > left (d) / 9)
    return fail (d, HL_FORMAT_ERROR_CORRUPT, "the stack count");
  if (!alloc_array (d, &p->spans, p->n_stacks, sizeof *p->spans))
    return false;
  uint64_t form = get (d, "the stacks' form");
  if (d->bad)
    return false;
  if (form == HL_COSTS_FORM_INLINE)
    {
      p->form = HL_COSTS_FORM_INLINE;
      if (!get_stack_trie (d, p))
        return false;
    }
  else if (form == HL_COSTS_FORM_BY_REFERENCE)
    {
      uint64_t total = 0;

      p->form = HL_COSTS_FORM_BY_REFERENCE;
      for (size_t i = 1; i < p->n_stacks && !d->bad; i++)
        {
          HlCostsSpan *span = &p->spans[i];
          uint64_t v = get (d, "a stack's frame count");

          if (d->bad)
            return false;
          span->defined = v & 1;
          span->n = (uint32_t) ((v >> 1) < (uint64_t) HL_TRACE_MAX_FRAMES + 1 ? v >> 1 : HL_TRACE_MAX_FRAMES + 1);
          span->begin = total;
          total += span->n;
          if (span->n > HL_TRACE_MAX_FRAMES || total > HL_COSTS_MAX_TOTAL_FRAMES || (!span->defined && span->n > 0))
            return fail (d, HL_FORMAT_ERROR_CORRUPT, "a stack's frame count");
        }
      p->frames_crc = (uint32_t) get (d, "the frames' crc");
      if (d->bad)
        return false;
      p->n_frames = total;
    }
  else
    return fail (d, HL_FORMAT_ERROR_CORRUPT, "the stacks' form");
  for (size_t i = 0; i < p->n_stack_ids; i++)
    if (p->stack_ids[i].index > p->n_stacks)
      return fail (d, HL_FORMAT_ERROR_CORRUPT, "a stack id's index");
  return true;
}

/* The summary, info, warnings, modules and threads. */
static bool
get_head (Dec            *d,
          HlCostsPayload *p)
{
  HlCostsSummary *s = &p->summary;

  s->seq = get (d, "the summary");
  s->n_allocs = get (d, "the summary");
  s->n_frees = get (d, "the summary");
  s->bytes_allocated = get (d, "the summary");
  s->temporary = get (d, "the summary");
  s->frees_unknown = get (d, "the summary");
  s->ids_out_of_range = get (d, "the summary");
  s->dropped = get (d, "the summary");
  s->end_ns = get (d, "the summary");
  s->peak_heap = get (d, "the summary");
  s->peak_time_ns = get (d, "the summary");
  s->peak_rss = get (d, "the summary");
  s->leaked_bytes = get (d, "the summary");
  s->leaked_blocks = get (d, "the summary");
  s->has_exit = get (d, "the summary") != 0;
  s->exit_status = get_signed (d, "the summary");
  s->truncated = get (d, "the summary") != 0;
  s->committed_allocs = get (d, "the summary");

  p->n_info = get_count (d, 2, "the info count");
  if (!alloc_array (d, &p->info, p->n_info, sizeof *p->info))
    return false;
  for (size_t i = 0; i < p->n_info && !d->bad; i++)
    if (!need_string (d, &p->info[i].key, "an info key") || !need_string (d, &p->info[i].value, "an info value"))
      return false;
  p->n_warnings = get_count (d, 1, "the warning count");
  if (!alloc_array (d, &p->warnings, p->n_warnings, sizeof *p->warnings))
    return false;
  for (size_t i = 0; i < p->n_warnings && !d->bad; i++)
    if (!need_string (d, &p->warnings[i], "a warning"))
      return false;

  p->n_modules = get_count (d, 5, "the module count");
  if (!alloc_array (d, &p->modules, p->n_modules, sizeof *p->modules))
    return false;
  for (size_t i = 0; i < p->n_modules && !d->bad; i++)
    {
      HlCostsModule *m = &p->modules[i];
      bool path = get_string (d, &m->path, "a module's path");
      bool name = get_string (d, &m->name, "a module's name");
      bool build_id = get_string (d, &m->build_id, "a module's build-id");
      m->start = get (d, "a module's start");
      m->size = get (d, "a module's size");
      if (!path || !name || !build_id)
        return fail (d, HL_FORMAT_ERROR_CORRUPT, "a module's strings");
    }
  p->n_threads = get_count (d, 4, "the thread count");
  if (!alloc_array (d, &p->threads, p->n_threads, sizeof *p->threads))
    return false;
  for (size_t i = 0; i < p->n_threads && !d->bad; i++)
    {
      HlCostsThread *t = &p->threads[i];
      t->tid = (uint32_t) get (d, "a thread's tid");
      bool name = get_string (d, &t->name, "a thread's name");
      t->start_ns = get (d, "a thread's start");
      t->end_ns = get (d, "a thread's end");
      if (!name)
        return fail (d, HL_FORMAT_ERROR_CORRUPT, "a thread's name");
    }
  return !d->bad;
}

/* The counters, drops, metadata and marks. */
static bool
get_series (Dec            *d,
            HlCostsPayload *p)
{
  uint64_t prev = 0;

  p->n_counters = get_count (d, 3, "the counter count");
  if (!alloc_array (d, &p->counters, p->n_counters, sizeof *p->counters))
    return false;
  for (size_t i = 0; i < p->n_counters && !d->bad; i++)
    {
      HlCostsCounter *c = &p->counters[i];
      c->time_ns = prev + (uint64_t) get_signed (d, "a counter sample");
      c->heap_bytes = get (d, "a counter sample");
      c->rss_bytes = get (d, "a counter sample");
      prev = c->time_ns;
    }
  p->n_drops = get_count (d, 2, "the drop count");
  if (!alloc_array (d, &p->drops, p->n_drops, sizeof *p->drops))
    return false;
  for (size_t i = 0; i < p->n_drops && !d->bad; i++)
    {
      p->drops[i].time_ns = get (d, "a drop sample");
      p->drops[i].count = get (d, "a drop sample");
    }
  p->n_meta = get_count (d, 5, "the metadata count");
  if (!alloc_array (d, &p->meta, p->n_meta, sizeof *p->meta))
    return false;
  for (size_t i = 0; i < p->n_meta && !d->bad; i++)
    {
      HlCostsMeta *m = &p->meta[i];
      bool key = get_string (d, &m->key, "a metadata key");
      bool value = get_string (d, &m->value, "a metadata value");
      m->start_ns = get (d, "a metadata interval");
      m->end_ns = get (d, "a metadata interval");
      m->tid = (uint32_t) get (d, "a metadata interval");
      if (!key || !value)
        return fail (d, HL_FORMAT_ERROR_CORRUPT, "a metadata interval's strings");
    }
  p->n_marks = get_count (d, 3, "the mark count");
  if (!alloc_array (d, &p->marks, p->n_marks, sizeof *p->marks))
    return false;
  for (size_t i = 0; i < p->n_marks && !d->bad; i++)
    {
      HlCostsMark *m = &p->marks[i];
      m->time_ns = get (d, "a mark");
      bool text = get_string (d, &m->text, "a mark's text");
      m->tid = (uint32_t) get (d, "a mark");
      if (!text)
        return fail (d, HL_FORMAT_ERROR_CORRUPT, "a mark's text");
    }
  return !d->bad;
}

/* The costs of the stacks, threads and pairs, and the histogram. */
static bool
get_costs_all (Dec            *d,
               HlCostsPayload *p)
{
  size_t n_stacks = p->n_stacks, n_threads = p->n_threads;

  if (left (d) < n_stacks * 8 + n_threads * 7)
    return fail (d, HL_FORMAT_ERROR_TRUNCATED, "the costs");
  if (!alloc_array (d, &p->stack_costs, n_stacks, sizeof *p->stack_costs) ||
      !alloc_array (d, &p->owners, n_stacks, sizeof *p->owners) ||
      !alloc_array (d, &p->thread_costs, n_threads, sizeof *p->thread_costs))
    return false;
  for (unsigned k = 0; k < 6; k++)
    for (size_t i = 0; i < n_stacks; i++)
      set_cost_column (&p->stack_costs[i], k, get (d, "a stack's costs"));
  for (size_t i = 0; i < n_stacks; i++)
    p->stack_costs[i].live_bytes = p->stack_costs[i].leaked_bytes + (uint64_t) get_signed (d, "a stack's live bytes");
  for (size_t i = 0; i < n_stacks && !d->bad; i++)
    {
      uint64_t owner = get (d, "a stack's owner");
      if (owner > n_threads)
        return fail (d, HL_FORMAT_ERROR_CORRUPT, "a stack's owner");
      p->owners[i] = (uint32_t) owner;
    }
  for (size_t i = 0; i < n_threads; i++)
    get_costs (d, &p->thread_costs[i]);
  p->n_pairs = get_count (d, 9, "the pair count");
  if (!alloc_array (d, &p->pairs, p->n_pairs, sizeof *p->pairs))
    return false;
  for (size_t i = 0; i < p->n_pairs && !d->bad; i++)
    {
      uint64_t stack = get (d, "a pair's stack"), thread = get (d, "a pair's thread");

      get_costs (d, &p->pairs[i].costs);
      if (stack > UINT32_MAX || thread > UINT32_MAX)
        return fail (d, HL_FORMAT_ERROR_CORRUPT, "a pair's stack or thread");
      p->pairs[i].stack = (uint32_t) stack;
      p->pairs[i].thread = (uint32_t) thread;
    }
  for (unsigned i = 0; i < HL_COSTS_HISTOGRAM_BUCKETS; i++)
    {
      p->histogram_count[i] = get (d, "the histogram");
      p->histogram_bytes[i] = get (d, "the histogram");
    }
  return !d->bad;
}

/* The leak scan: a flag, then its totals and records. */
static bool
get_reach (Dec            *d,
           HlCostsPayload *p)
{
  uint64_t has = get (d, "the leak scan's flag"), prev = 0;

  if (has > 1)
    return fail (d, HL_FORMAT_ERROR_CORRUPT, "the leak scan's flag");
  p->has_reach = has == 1;
  if (!p->has_reach)
    return !d->bad;
  uint64_t flags = get (d, "the leak scan's flags");
  if (flags > UINT32_MAX)
    return fail (d, HL_FORMAT_ERROR_CORRUPT, "the leak scan's flags");
  p->reach.flags = (uint32_t) flags;
  p->reach.scan_ns = get (d, "the leak scan's time");
  p->reach.roots_bytes = get (d, "the leak scan's roots");
  p->reach.blocks_scanned = get (d, "the leak scan's blocks");
  for (unsigned k = 0; k < HL_REACH_KINDS; k++)
    {
      p->reach.blocks[k] = get (d, "the leak scan's totals");
      p->reach.bytes[k] = get (d, "the leak scan's totals");
    }
  p->n_reach = get_count (d, 4, "the leak scan's record count");
  if (d->bad || !alloc_array (d, &p->reach_records, p->n_reach, sizeof *p->reach_records))
    return false;
  for (size_t i = 0; i < p->n_reach && !d->bad; i++)
    {
      uint64_t delta = get (d, "a leak scan record"), kind = get (d, "a leak scan record");
      uint64_t stack = get (d, "a leak scan record"), size = get (d, "a leak scan record");

      if ((delta == 0 && i > 0) || prev + delta < prev || kind < HL_REACH_POSSIBLY_LOST
          || kind > HL_REACH_DEFINITELY_LOST || stack >= p->n_stacks)
        return fail (d, HL_FORMAT_ERROR_CORRUPT, "a leak scan record");
      prev += delta;
      p->reach_records[i] = (HlReachRecord) { prev, size, (uint32_t) stack, (uint32_t) kind };
    }
  return !d->bad;
}

/* Memory beside the heap: allocator samples, the mappings' totals and
 * sites (each stack id within 32 bits, as the trace's). */
static bool
get_sysmem (Dec            *d,
            HlCostsPayload *p)
{
  p->n_allocator = get_count (d, 9, "the allocator sample count");
  if (!alloc_array (d, &p->allocator, p->n_allocator, sizeof *p->allocator))
    return false;
  for (size_t i = 0; i < p->n_allocator && !d->bad; i++)
    {
      HlCostsAllocator *a = &p->allocator[i];
      uint64_t *v[] = { &a->time_ns, &a->flags, &a->rss_bytes, &a->heap_bytes, &a->mmap_bytes,
                        &a->arena_bytes, &a->in_use_bytes, &a->free_bytes, &a->mmapped_chunks_bytes };
      for (unsigned k = 0; k < 9; k++)
        *v[k] = get (d, "an allocator sample");
    }
  p->mmap.calls = get (d, "the mappings' totals");
  p->mmap.bytes = get (d, "the mappings' totals");
  p->mmap.live_bytes = get (d, "the mappings' totals");
  p->mmap.peak_bytes = get (d, "the mappings' totals");
  p->mmap.peak_time_ns = get (d, "the mappings' totals");
  p->mmap.regions = get (d, "the mappings' totals");
  p->n_mmap_sites = get_count (d, 5, "the mapping site count");
  if (!alloc_array (d, &p->mmap_sites, p->n_mmap_sites, sizeof *p->mmap_sites))
    return false;
  for (size_t i = 0; i < p->n_mmap_sites && !d->bad; i++)
    {
      HlCostsMmapSite *m = &p->mmap_sites[i];
      m->stack_id = get (d, "a mapping site");
      m->calls = get (d, "a mapping site");
      m->bytes = get (d, "a mapping site");
      m->live_bytes = get (d, "a mapping site");
      m->peak_bytes = get (d, "a mapping site");
      if (m->stack_id > UINT32_MAX)
        return fail (d, HL_FORMAT_ERROR_CORRUPT, "a mapping site's stack id");
    }
  return !d->bad;
}

int
hl_costs_payload_decode (const uint8_t  *data,
                         size_t          len,
                         HlCostsPayload *out,
                         HlFormatError  *err)
{
  Dec d = { data, data, data + len, false, err };

  memset (out, 0, sizeof *out);
  if (get_head (&d, out) && get_stacks (&d, out) && get_series (&d, out) && get_costs_all (&d, out)
      && get_reach (&d, out) && get_sysmem (&d, out))
    {
      if (d.p == d.end)
        return 0;
      fail (&d, HL_FORMAT_ERROR_CORRUPT, "bytes after the mapping sites");
    }
  hl_costs_payload_clear (out);
  return -1;
}

void
hl_costs_payload_clear (HlCostsPayload *p)
{
  free (p->info);
  free (p->warnings);
  free (p->modules);
  free (p->threads);
  free (p->stack_ids);
  free (p->spans);
  free (p->frames);
  free (p->counters);
  free (p->drops);
  free (p->meta);
  free (p->marks);
  free (p->stack_costs);
  free (p->owners);
  free (p->thread_costs);
  free (p->pairs);
  free (p->reach_records);
  free (p->allocator);
  free (p->mmap_sites);
  memset (p, 0, sizeof *p);
}
