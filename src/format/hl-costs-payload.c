/* hl-costs-payload.c — the COSTS payload written and read back
 * (hl-costs-payload.h, docs/trace-format.md section 7e). */
#include "hl-costs-payload.h"

#include <stdlib.h>
#include <string.h>

#include "hl-crc32c.h"
#include "hl-trace-format.h" /* HL_TRACE_MAX_FRAMES */
#include "private/hl-trace-reader-private.h"
#include "private/hl-varint.h"

void
hl_costs_buffer_clear (HlCostsBuffer *b)
{
  free (b->data);
  b->data = NULL;
  b->len = 0;
  b->cap = 0;
}

uint32_t
hl_costs_frames_crc (uint32_t        crc,
                     const uint64_t *frames,
                     size_t          n)
{
  for (size_t f = 0; f < n; f++)
    {
      uint8_t le[8];
      for (unsigned k = 0; k < 8; k++)
        le[k] = (uint8_t) (frames[f] >> (8 * k));
      crc = hl_crc32c (crc, le, 8);
    }
  return crc;
}

/* ---- Writing ------------------------------------------------------------- */

typedef struct
{
  HlCostsBuffer *b;
  bool           oom;
} Enc;

/* Room for N more bytes. */
static bool
reserve (Enc    *e,
         size_t  n)
{
  HlCostsBuffer *b = e->b;

  if (e->oom)
    return false;
  if (n <= b->cap - b->len)
    return true;
  size_t cap = b->cap > 0 ? b->cap : 64 * 1024;
  while (cap - b->len < n)
    {
      if (cap > SIZE_MAX / 2)
        {
          e->oom = true;
          return false;
        }
      cap *= 2;
    }
  uint8_t *data = realloc (b->data, cap);
  if (data == NULL)
    {
      e->oom = true;
      return false;
    }
  b->data = data;
  b->cap = cap;
  return true;
}

static void
put (Enc      *e,
     uint64_t  v)
{
  if (reserve (e, HL_VARINT_MAX_BYTES))
    e->b->len = (size_t) (hl_varint_put (e->b->data + e->b->len, v) - e->b->data);
}

static void
put_signed (Enc     *e,
            int64_t  v)
{
  put (e, hl_zigzag_encode (v));
}

/* 0 for none, else the length + 1 and the bytes. */
static void
put_string (Enc                 *e,
            const HlCostsString *s)
{
  if (s->data == NULL)
    {
      put (e, 0);
      return;
    }
  put (e, (uint64_t) s->len + 1);
  if (reserve (e, s->len))
    {
      memcpy (e->b->data + e->b->len, s->data, s->len);
      e->b->len += s->len;
    }
}

static void
put_costs (Enc              *e,
           const HlCostsRow *c)
{
  put (e, c->allocations);
  put (e, c->bytes);
  put (e, c->temporary);
  put (e, c->peak_bytes);
  put (e, c->leaked_bytes);
  put (e, c->leaked_blocks);
  put (e, c->live_bytes);
}

/* Cost K (the payload's column order) of C. */
static uint64_t
cost_column (const HlCostsRow *c,
             unsigned          k)
{
  switch (k)
    {
    case 0: return c->allocations;
    case 1: return c->bytes;
    case 2: return c->temporary;
    case 3: return c->peak_bytes;
    case 4: return c->leaked_bytes;
    default: return c->leaked_blocks;
    }
}

/* The stacks' frames as a trie from the outermost frame in: nodes
 * (parent as a backward distance, frame as a delta from the previous
 * node's), then per stack its innermost node. Stacks share most of their
 * outer frames: python3's 549,180 frames are 36,418 nodes. */
static void
put_stack_trie (Enc                  *e,
                const HlCostsPayload *p)
{
  /* (parent, frame) → node, open addressing; nodes are 1.. */
  uint64_t cap = 1024, mask;
  uint32_t *slots, *parents = NULL, *leaf;
  uint64_t *frames = NULL, prev = 0;
  size_t n_nodes = 0, nodes_cap = 0;

  while (cap < p->n_frames * 2)
    cap *= 2;
  mask = cap - 1;
  slots = calloc ((size_t) cap, sizeof *slots);
  leaf = calloc (p->n_stacks > 0 ? p->n_stacks : 1, sizeof *leaf);
  if (slots == NULL || leaf == NULL)
    goto oom;
  for (size_t i = 1; i < p->n_stacks; i++)
    {
      const HlCostsSpan *span = &p->spans[i];
      uint32_t node = 0;

      for (uint32_t f = span->n; f-- > 0;)
        {
          uint64_t a = p->frames[span->begin + f];
          uint64_t h = ((a * UINT64_C (0x9E3779B97F4A7C15)) ^ (node * UINT64_C (0xC2B2AE3D27D4EB4F))) >> 17;

          for (;; h++)
            {
              uint32_t *slot = &slots[h & mask];
              if (*slot == 0)
                {
                  if (n_nodes == nodes_cap)
                    {
                      size_t ncap = nodes_cap > 0 ? nodes_cap * 2 : 1024;
                      uint32_t *np = realloc (parents, ncap * sizeof *np);
                      if (np == NULL)
                        goto oom;
                      parents = np;
                      uint64_t *nf = realloc (frames, ncap * sizeof *nf);
                      if (nf == NULL)
                        goto oom;
                      frames = nf;
                      nodes_cap = ncap;
                    }
                  parents[n_nodes] = node;
                  frames[n_nodes] = a;
                  *slot = (uint32_t) ++n_nodes;
                  node = *slot;
                  break;
                }
              if (parents[*slot - 1] == node && frames[*slot - 1] == a)
                {
                  node = *slot;
                  break;
                }
            }
        }
      leaf[i] = node;
    }
  free (slots);
  slots = NULL;
  put (e, n_nodes);
  for (size_t k = 0; k < n_nodes; k++)
    {
      uint64_t a = frames[k];
      put (e, k + 1 - parents[k]);
      put_signed (e, (int64_t) (a - prev));
      prev = a;
    }
  for (size_t i = 1; i < p->n_stacks; i++)
    put (e, (uint64_t) leaf[i] << 1 | (p->spans[i].defined ? 1 : 0));
  free (parents);
  free (frames);
  free (leaf);
  return;

oom:
  e->oom = true;
  free (slots);
  free (parents);
  free (frames);
  free (leaf);
}

int
hl_costs_payload_encode (const HlCostsPayload *p,
                         HlCostsBuffer        *out)
{
  Enc enc = { out, false }, *e = &enc;
  const HlCostsSummary *s = &p->summary;
  uint64_t prev;

  put (e, s->seq);
  put (e, s->n_allocs);
  put (e, s->n_frees);
  put (e, s->bytes_allocated);
  put (e, s->temporary);
  put (e, s->frees_unknown);
  put (e, s->ids_out_of_range);
  put (e, s->dropped);
  put (e, s->end_ns);
  put (e, s->peak_heap);
  put (e, s->peak_time_ns);
  put (e, s->peak_rss);
  put (e, s->leaked_bytes);
  put (e, s->leaked_blocks);
  put (e, s->has_exit ? 1 : 0);
  put_signed (e, s->exit_status);
  put (e, s->truncated ? 1 : 0);
  put (e, s->committed_allocs);

  put (e, p->n_info);
  for (size_t i = 0; i < p->n_info; i++)
    {
      put_string (e, &p->info[i].key);
      put_string (e, &p->info[i].value);
    }
  put (e, p->n_warnings);
  for (size_t i = 0; i < p->n_warnings; i++)
    put_string (e, &p->warnings[i]);

  put (e, p->n_modules);
  for (size_t i = 0; i < p->n_modules; i++)
    {
      const HlCostsModule *m = &p->modules[i];
      put_string (e, &m->path);
      put_string (e, &m->name);
      put_string (e, &m->build_id);
      put (e, m->start);
      put (e, m->size);
    }
  put (e, p->n_threads);
  for (size_t i = 0; i < p->n_threads; i++)
    {
      const HlCostsThread *t = &p->threads[i];
      put (e, t->tid);
      put_string (e, &t->name);
      put (e, t->start_ns);
      put (e, t->end_ns);
    }

  /* Stacks: the trace ids that map to one (internal indices as deltas:
   * they mostly follow the ids), then each stack's frames. */
  put (e, p->stack_table_size);
  put (e, p->n_stack_ids);
  {
    uint64_t prev_id = 0, prev_v = 0;
    for (size_t i = 0; i < p->n_stack_ids; i++)
      {
        put (e, p->stack_ids[i].id - prev_id);
        put_signed (e, (int64_t) (p->stack_ids[i].index - prev_v));
        prev_id = p->stack_ids[i].id;
        prev_v = p->stack_ids[i].index;
      }
  }
  put (e, p->n_stacks);
  put (e, p->form);
  if (p->form == HL_COSTS_FORM_INLINE)
    put_stack_trie (e, p);
  else
    {
      uint32_t crc = 0;
      for (size_t i = 1; i < p->n_stacks; i++)
        {
          const HlCostsSpan *span = &p->spans[i];
          put (e, (uint64_t) span->n << 1 | (span->defined ? 1 : 0));
          crc = hl_costs_frames_crc (crc, p->frames + span->begin, span->n);
        }
      put (e, crc);
    }

  put (e, p->n_counters);
  prev = 0;
  for (size_t i = 0; i < p->n_counters; i++)
    {
      const HlCostsCounter *c = &p->counters[i];
      put_signed (e, (int64_t) (c->time_ns - prev));
      put (e, c->heap_bytes);
      put (e, c->rss_bytes);
      prev = c->time_ns;
    }
  put (e, p->n_drops);
  for (size_t i = 0; i < p->n_drops; i++)
    {
      put (e, p->drops[i].time_ns);
      put (e, p->drops[i].count);
    }
  put (e, p->n_meta);
  for (size_t i = 0; i < p->n_meta; i++)
    {
      const HlCostsMeta *m = &p->meta[i];
      put_string (e, &m->key);
      put_string (e, &m->value);
      put (e, m->start_ns);
      put (e, m->end_ns);
      put (e, m->tid);
    }
  put (e, p->n_marks);
  for (size_t i = 0; i < p->n_marks; i++)
    {
      const HlCostsMark *m = &p->marks[i];
      put (e, m->time_ns);
      put_string (e, &m->text);
      put (e, m->tid);
    }

  /* per stack, a column per cost (live bytes, which are the leaked ones
   * once settled, as the difference) and the owners */
  for (unsigned k = 0; k < 6; k++)
    for (size_t i = 0; i < p->n_stacks; i++)
      put (e, cost_column (&p->stack_costs[i], k));
  for (size_t i = 0; i < p->n_stacks; i++)
    put_signed (e, (int64_t) (p->stack_costs[i].live_bytes - p->stack_costs[i].leaked_bytes));
  for (size_t i = 0; i < p->n_stacks; i++)
    put (e, p->owners[i]);
  for (size_t i = 0; i < p->n_threads; i++)
    put_costs (e, &p->thread_costs[i]);
  put (e, p->n_pairs);
  for (size_t i = 0; i < p->n_pairs; i++)
    {
      put (e, p->pairs[i].stack);
      put (e, p->pairs[i].thread);
      put_costs (e, &p->pairs[i].costs);
    }
  for (unsigned i = 0; i < HL_COSTS_HISTOGRAM_BUCKETS; i++)
    {
      put (e, p->histogram_count[i]);
      put (e, p->histogram_bytes[i]);
    }
  put (e, p->has_reach ? 1 : 0);
  if (p->has_reach)
    {
      uint64_t prev_id = 0;
      put (e, p->reach.flags);
      put (e, p->reach.scan_ns);
      put (e, p->reach.roots_bytes);
      put (e, p->reach.blocks_scanned);
      for (unsigned k = 0; k < HL_REACH_KINDS; k++)
        {
          put (e, p->reach.blocks[k]);
          put (e, p->reach.bytes[k]);
        }
      put (e, p->n_reach);
      for (size_t i = 0; i < p->n_reach; i++)
        {
          put (e, p->reach_records[i].id - prev_id);
          put (e, p->reach_records[i].kind);
          put (e, p->reach_records[i].stack_id);
          put (e, p->reach_records[i].size);
          prev_id = p->reach_records[i].id;
        }
    }
  /* memory beside the heap: allocator samples, the mappings' totals and sites */
  put (e, p->n_allocator);
  for (size_t i = 0; i < p->n_allocator; i++)
    {
      const HlCostsAllocator *a = &p->allocator[i];
      const uint64_t v[] = { a->time_ns, a->flags, a->rss_bytes, a->heap_bytes, a->mmap_bytes,
                             a->arena_bytes, a->in_use_bytes, a->free_bytes, a->mmapped_chunks_bytes };
      for (unsigned k = 0; k < 9; k++)
        put (e, v[k]);
    }
  put (e, p->mmap.calls);
  put (e, p->mmap.bytes);
  put (e, p->mmap.live_bytes);
  put (e, p->mmap.peak_bytes);
  put (e, p->mmap.peak_time_ns);
  put (e, p->mmap.regions);
  put (e, p->n_mmap_sites);
  for (size_t i = 0; i < p->n_mmap_sites; i++)
    {
      const HlCostsMmapSite *m = &p->mmap_sites[i];
      put (e, m->stack_id);
      put (e, m->calls);
      put (e, m->bytes);
      put (e, m->live_bytes);
      put (e, m->peak_bytes);
    }
  return e->oom ? -1 : 0;
}
