/* hl-recording-sysmem.c — HlRecording's memory beside the heap: the
 * program's own anonymous mappings as an interval map (MMAP adds a
 * region, MUNMAP subtracts a range, trimming or splitting regions,
 * MREMAP subtracts both ranges and adds the new one; docs/trace-format.md
 * 5.3), the "mmap" cost of each stack, and the allocator's samples. Events
 * are applied in the order they come (the file's): a region one thread
 * maps and another unmaps may be seen in the other order when their
 * packets were written so, which only the preload's own figure in each
 * ALLOCATOR sample (mmap_bytes) does not suffer from. */
#include "hl-config.h"

#include <stdlib.h>
#include <string.h>

#include "hl-recording-private.h"
#include "hl-recording-sysmem.h"

typedef struct
{
  guint64 start, end;
  guint32 stack;                 /* trace stack id */
  guint32 piece;                 /* index into the pieces */
} Region;

typedef struct
{
  guint64 calls, bytes, live, peak;
} Site;

struct _HlSysmem
{
  GArray     *regions;           /* Region, unordered, disjoint */
  GHashTable *sites;             /* trace stack id → Site */
  GArray     *pieces;            /* HlMmapPiece, in the order applied */
  GArray     *samples;           /* HlAllocatorPoint, in time order */
  gboolean    samples_unsorted;
  guint64     calls, bytes, live, peak, peak_time_ns;
  guint64     regions_saved;     /* filled from saved costs: the regions' count */
};

void
hl_sysmem_free (HlSysmem *self)
{
  if (self == NULL)
    return;
  g_array_unref (self->regions);
  g_hash_table_unref (self->sites);
  g_array_unref (self->pieces);
  g_array_unref (self->samples);
  g_free (self);
}

static HlSysmem *
sysmem_of (HlRecording *rec)
{
  if (rec->sysmem == NULL)
    {
      HlSysmem *s = g_new0 (HlSysmem, 1);
      s->regions = g_array_new (FALSE, FALSE, sizeof (Region));
      s->sites = g_hash_table_new_full (NULL, NULL, NULL, g_free);
      s->samples = g_array_new (FALSE, FALSE, sizeof (HlAllocatorPoint));
      s->pieces = g_array_new (FALSE, FALSE, sizeof (HlMmapPiece));
      rec->sysmem = s;
    }
  return rec->sysmem;
}

static Site *
site_of (HlSysmem *s,
         guint32   stack)
{
  Site *site = g_hash_table_lookup (s->sites, GUINT_TO_POINTER (stack));
  if (site == NULL)
    {
      site = g_new0 (Site, 1);
      g_hash_table_insert (s->sites, GUINT_TO_POINTER (stack), site);
    }
  return site;
}

static void
add_live (HlSysmem *s,
          guint32   stack,
          guint64   bytes,
          guint64   time_ns)
{
  Site *site = site_of (s, stack);
  site->live += bytes;
  site->peak = MAX (site->peak, site->live);
  s->live += bytes;
  if (s->live > s->peak)
    {
      s->peak = s->live;
      s->peak_time_ns = time_ns;
    }
}

static void
sub_live (HlSysmem *s,
          guint32   stack,
          guint64   bytes)
{
  Site *site = site_of (s, stack);
  site->live -= MIN (site->live, bytes);
  s->live -= MIN (s->live, bytes);
}

/* BYTES of piece P unmapped at TIME_NS: the whole piece, or a piece of
 * those pages split off. */
static void
piece_unmap (HlSysmem *s,
             guint32   p,
             guint64   bytes,
             guint64   time_ns)
{
  HlMmapPiece *piece = &g_array_index (s->pieces, HlMmapPiece, p);
  HlMmapPiece gone;

  if (piece->unmap_time_ns != HL_TIME_NONE)
    return;
  if (bytes >= piece->bytes)
    {
      piece->unmap_time_ns = time_ns;
      return;
    }
  piece->bytes -= bytes;
  gone = *piece;
  gone.bytes = bytes;
  gone.unmap_time_ns = time_ns;
  g_array_append_val (s->pieces, gone);
}

/* Subtracts [A, E) from the regions at TIME_NS. */
static void
subtract (HlSysmem *s,
          guint64   a,
          guint64   e,
          guint64   time_ns)
{
  for (guint i = 0; i < s->regions->len;)
    {
      Region *r = &g_array_index (s->regions, Region, i);
      if (r->end <= a || r->start >= e)
        {
          i++;
          continue;
        }
      guint64 lo = MAX (r->start, a), hi = MIN (r->end, e);
      sub_live (s, r->stack, hi - lo);
      piece_unmap (s, r->piece, hi - lo, time_ns);
      r = &g_array_index (s->regions, Region, i);
      if (lo == r->start && hi == r->end)
        {
          g_array_remove_index_fast (s->regions, i);
          continue;
        }
      if (lo == r->start)
        r->start = hi;
      else if (hi == r->end)
        r->end = lo;
      else
        {
          Region tail = { hi, r->end, r->stack, r->piece };
          r->end = lo;
          g_array_append_val (s->regions, tail);
        }
      i++;
    }
}

static void
add_region (HlSysmem *s,
            guint64   a,
            guint64   size,
            guint32   stack,
            guint32   tid,
            guint64   time_ns)
{
  Region r = { a, a + size, stack, s->pieces->len };
  HlMmapPiece piece = { time_ns, HL_TIME_NONE, size, size, stack, tid };

  g_array_append_val (s->pieces, piece);
  g_array_append_val (s->regions, r);
  add_live (s, stack, size, time_ns);
}

void
hl_recording_append_mmap (HlRecording *self,
                          guint64      time_ns,
                          guint32      tid,
                          guint64      address,
                          guint64      size,
                          guint32      trace_stack_id)
{
  HlSysmem *s = sysmem_of (self);

  if (size == 0 || address + size < address)
    return;
  /* a region already there is replaced (a lost MUNMAP) */
  subtract (s, address, address + size, time_ns);
  add_region (s, address, size, trace_stack_id, tid, time_ns);
  Site *site = site_of (s, trace_stack_id);
  site->calls++;
  site->bytes += size;
  s->calls++;
  s->bytes += size;
}

void
hl_recording_append_munmap (HlRecording *self,
                            guint64      time_ns,
                            guint64      address,
                            guint64      size)
{
  if (address + size < address)
    return;
  subtract (sysmem_of (self), address, address + size, time_ns);
}

void
hl_recording_append_mremap (HlRecording *self,
                            guint64      time_ns,
                            guint32      tid,
                            guint64      old_address,
                            guint64      old_size,
                            guint64      address,
                            guint64      size,
                            guint32      trace_stack_id)
{
  HlSysmem *s = sysmem_of (self);

  if (old_address + old_size < old_address || address + size < address)
    return;
  subtract (s, old_address, old_address + old_size, time_ns);
  subtract (s, address, address + size, time_ns);
  if (size > 0)
    add_region (s, address, size, trace_stack_id, tid, time_ns);
}

void
hl_recording_append_allocator (HlRecording             *self,
                               guint64                  time_ns,
                               const HlAllocatorSample *a)
{
  HlSysmem *s = sysmem_of (self);
  HlAllocatorPoint p = {
    time_ns, (a->flags & HL_ALLOCATOR_FLAG_MALLINFO) != 0, a->rss_bytes, a->heap_bytes, a->mmap_bytes,
    a->arena_bytes, a->in_use_bytes, a->free_bytes, a->mmapped_chunks_bytes,
    (a->flags & HL_ALLOCATOR_FLAG_ESTIMATED) != 0,
  };

  if (s->samples->len > 0 && g_array_index (s->samples, HlAllocatorPoint, s->samples->len - 1).time_ns > time_ns)
    s->samples_unsorted = TRUE;
  g_array_append_val (s->samples, p);
}

/* ---- Readers ------------------------------------------------------------- */

static gint
compare_times (gconstpointer a,
               gconstpointer b)
{
  guint64 x = ((const HlAllocatorPoint *) a)->time_ns, y = ((const HlAllocatorPoint *) b)->time_ns;
  return x < y ? -1 : x > y;
}

void
hl_recording_sort_allocator_samples (HlRecording *self)
{
  if (self->sysmem != NULL && self->sysmem->samples_unsorted)
    {
      g_array_sort (self->sysmem->samples, compare_times);
      self->sysmem->samples_unsorted = FALSE;
    }
}

const HlAllocatorPoint *
hl_recording_get_allocator_samples (HlRecording *self,
                                    guint       *n_samples)
{
  g_return_val_if_fail (HL_IS_RECORDING (self) && n_samples != NULL, NULL);

  if (self->sysmem == NULL)
    {
      *n_samples = 0;
      return NULL;
    }
  *n_samples = self->sysmem->samples->len;
  return (const HlAllocatorPoint *) (gpointer) self->sysmem->samples->data;
}

const HlMmapPiece *
hl_recording_get_mmap_pieces (HlRecording *self,
                              guint       *n_pieces)
{
  g_return_val_if_fail (HL_IS_RECORDING (self) && n_pieces != NULL, NULL);

  if (self->sysmem == NULL)
    {
      *n_pieces = 0;
      return NULL;
    }
  *n_pieces = self->sysmem->pieces->len;
  return (const HlMmapPiece *) (gpointer) self->sysmem->pieces->data;
}

void
hl_recording_get_mmap_totals (HlRecording  *self,
                              HlMmapTotals *out)
{
  g_return_if_fail (HL_IS_RECORDING (self) && out != NULL);

  memset (out, 0, sizeof *out);
  if (self->sysmem == NULL)
    return;
  out->calls = self->sysmem->calls;
  out->bytes = self->sysmem->bytes;
  out->live_bytes = self->sysmem->live;
  out->peak_bytes = self->sysmem->peak;
  out->peak_time_ns = self->sysmem->peak_time_ns;
  out->regions = self->sysmem->regions->len + self->sysmem->regions_saved;
}

static gint
compare_sites (gconstpointer a,
               gconstpointer b)
{
  const HlMmapSite *x = a, *y = b;
  if (x->live_bytes != y->live_bytes)
    return x->live_bytes > y->live_bytes ? -1 : 1;
  if (x->peak_bytes != y->peak_bytes)
    return x->peak_bytes > y->peak_bytes ? -1 : 1;
  return x->stack < y->stack ? -1 : x->stack > y->stack;
}

GArray *
hl_recording_get_mmap_sites (HlRecording *self,
                             guint        top)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (HlMmapSite));
  GHashTableIter it;
  gpointer key, value;

  g_return_val_if_fail (HL_IS_RECORDING (self), out);

  if (self->sysmem == NULL)
    return out;
  g_hash_table_iter_init (&it, self->sysmem->sites);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      const Site *site = value;
      HlMmapSite m = {
        hl_recording_lookup_stack (self, GPOINTER_TO_UINT (key)), site->calls, site->bytes, site->live, site->peak,
      };
      if (m.calls > 0)
        g_array_append_val (out, m);
    }
  g_array_sort (out, compare_sites);
  if (top > 0 && out->len > top)
    g_array_set_size (out, top);
  return out;
}

gboolean
hl_recording_get_memory_split (HlRecording   *self,
                               HlMemorySplit *out)
{
  guint n;
  const HlAllocatorPoint *pts;
  const HlAllocatorPoint *best = NULL;

  g_return_val_if_fail (HL_IS_RECORDING (self) && out != NULL, FALSE);

  memset (out, 0, sizeof *out);
  pts = hl_recording_get_allocator_samples (self, &n);
  for (guint i = 0; i < n; i++)
    {
      if (pts[i].have_mallinfo && (best == NULL || pts[i].rss_bytes > best->rss_bytes))
        best = &pts[i];
      if (pts[i].have_mallinfo && pts[i].estimated && out->estimated_samples++ == 0)
        out->estimated_since_ns = pts[i].time_ns;
    }
  if (best == NULL)
    return FALSE;
  out->estimated = best->estimated;
  out->time_ns = best->time_ns;
  out->rss_bytes = best->rss_bytes;
  out->heap_bytes = best->heap_bytes;
  guint64 held = best->in_use_bytes + best->mmapped_chunks_bytes;
  out->overhead_bytes = held > best->heap_bytes ? held - best->heap_bytes : 0;
  out->free_bytes = best->free_bytes;
  out->mmap_bytes = best->mmap_bytes;
  out->arena_bytes = best->arena_bytes;
  guint64 parts = out->heap_bytes + out->overhead_bytes + out->free_bytes + out->mmap_bytes;
  out->other_bytes = best->rss_bytes > parts ? best->rss_bytes - parts : 0;
  return TRUE;
}

/* ---- Saved costs --------------------------------------------------------- */

static int
compare_site_ids (const void *a,
                  const void *b)
{
  guint64 x = ((const HlCostsMmapSite *) a)->stack_id, y = ((const HlCostsMmapSite *) b)->stack_id;
  return x < y ? -1 : x > y;
}

void
hl_recording_sysmem_to_payload (HlRecording       *self,
                                HlCostsPayload    *p,
                                HlCostsAllocator **allocator,
                                HlCostsMmapSite  **sites)
{
  guint n;
  const HlAllocatorPoint *pts = hl_recording_get_allocator_samples (self, &n);
  HlSysmem *s = self->sysmem;
  GHashTableIter it;
  gpointer key, value;
  gsize k = 0;

  *allocator = g_new0 (HlCostsAllocator, n + 1);
  for (guint i = 0; i < n; i++)
    (*allocator)[i] = (HlCostsAllocator) {
      pts[i].time_ns,
      (pts[i].have_mallinfo ? HL_ALLOCATOR_FLAG_MALLINFO : 0) | (pts[i].estimated ? HL_ALLOCATOR_FLAG_ESTIMATED : 0),
      pts[i].rss_bytes,
      pts[i].heap_bytes, pts[i].mmap_bytes, pts[i].arena_bytes, pts[i].in_use_bytes, pts[i].free_bytes,
      pts[i].mmapped_chunks_bytes,
    };
  p->n_allocator = n;
  p->allocator = *allocator;
  *sites = g_new0 (HlCostsMmapSite, (s != NULL ? g_hash_table_size (s->sites) : 0) + 1);
  p->mmap_sites = *sites;
  p->n_mmap_sites = 0;
  memset (&p->mmap, 0, sizeof p->mmap);
  if (s == NULL)
    return;
  p->mmap = (HlCostsMmapTotals) { s->calls, s->bytes, s->live, s->peak, s->peak_time_ns,
                                  s->regions->len + s->regions_saved };
  g_hash_table_iter_init (&it, s->sites);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      const Site *site = value;
      (*sites)[k++] = (HlCostsMmapSite) { GPOINTER_TO_UINT (key), site->calls, site->bytes, site->live, site->peak };
    }
  /* in stack id order: the same bytes for the same recording */
  qsort (*sites, k, sizeof **sites, compare_site_ids);
  p->n_mmap_sites = k;
}

void
hl_recording_sysmem_from_payload (HlRecording          *self,
                                  const HlCostsPayload *p)
{
  HlSysmem *s;

  if (p->n_allocator == 0 && p->n_mmap_sites == 0 && p->mmap.calls == 0)
    return;
  s = sysmem_of (self);
  for (gsize i = 0; i < p->n_allocator; i++)
    {
      const HlCostsAllocator *a = &p->allocator[i];
      HlAllocatorSample as = {
        (guint32) (a->flags & (HL_ALLOCATOR_FLAG_MALLINFO | HL_ALLOCATOR_FLAG_ESTIMATED)), a->rss_bytes, a->heap_bytes, a->mmap_bytes,
        a->arena_bytes, a->in_use_bytes, a->free_bytes, a->mmapped_chunks_bytes, 0,
      };
      hl_recording_append_allocator (self, a->time_ns, &as);
    }
  s->calls = p->mmap.calls;
  s->bytes = p->mmap.bytes;
  s->live = p->mmap.live_bytes;
  s->peak = p->mmap.peak_bytes;
  s->peak_time_ns = p->mmap.peak_time_ns;
  s->regions_saved = p->mmap.regions;
  for (gsize i = 0; i < p->n_mmap_sites; i++)
    {
      const HlCostsMmapSite *m = &p->mmap_sites[i];
      Site *site = site_of (s, (guint32) m->stack_id);
      site->calls = m->calls;
      site->bytes = m->bytes;
      site->live = m->live_bytes;
      site->peak = m->peak_bytes;
    }
}
