/* hl-recording-costs-packet.c — a costs-only recording written into and
 * read back from a trace's COSTS packet; see hl-recording-costs-packet.h
 * and docs/trace-format.md section 7e for the layout. */
#define _GNU_SOURCE
#include "hl-recording-costs-packet.h"
#include "hl-recording-private.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hl-crc32c.h"
#include "hl-model-error.h"
#include "hl-trace-codec.h"
#include "hl-trace-format.h"
#include "hl-trace-reader.h"
#include "hl-varint.h"
#ifdef HL_HAVE_ZSTD
#include "hl-trace-zstd.h"
#endif

/* Content: codec:u32 raw_size:u32 covered_size:u64 covered_crc:u32
 * model_version:u32, the payload, then the footer packet_size:u64 magic[8]. */
#define CONTENT_HEAD 24u
#define CODEC_STORED 0u
#define PAYLOAD_MAX  (64u << 20)
/* zstd level of the payload: 9 packs python3's 15 % smaller than 3 for
 * about 30 ms */
#define PAYLOAD_LEVEL 9
/* frames all stacks of a payload may have (as a 64 MiB payload of
 * one-byte frames could) */
#define MAX_TOTAL_FRAMES ((guint64) 1 << 25)

G_STATIC_ASSERT (sizeof (HlCosts) == 7 * sizeof (guint64));

/* ---- Writing ------------------------------------------------------------- */

static void
put (GByteArray *b,
     guint64     v)
{
  guint8 tmp[HL_VARINT_MAX_BYTES];
  guint8 *end = hl_varint_put (tmp, v);

  g_byte_array_append (b, tmp, (guint) (end - tmp));
}

static void
put_signed (GByteArray *b,
            gint64      v)
{
  put (b, hl_zigzag_encode (v));
}

/* 0 for NULL, else the length + 1 and the bytes. */
static void
put_string (GByteArray *b,
            const char *s)
{
  gsize n;

  if (s == NULL)
    {
      put (b, 0);
      return;
    }
  n = strlen (s);
  put (b, n + 1);
  g_byte_array_append (b, (const guint8 *) s, (guint) n);
}

static void
put_costs (GByteArray    *b,
           const HlCosts *c)
{
  put (b, c->allocations);
  put (b, c->bytes);
  put (b, c->temporary);
  put (b, c->peak_bytes);
  put (b, c->leaked_bytes);
  put (b, c->leaked_blocks);
  put (b, c->live_bytes);
}

/* CRC-32C of N frames as little-endian u64s, after CRC. */
static guint32
frames_crc (guint32        crc,
            const guint64 *frames,
            guint          n)
{
  for (guint f = 0; f < n; f++)
    {
      guint64 le = GUINT64_TO_LE (frames[f]);
      crc = hl_crc32c (crc, &le, 8);
    }
  return crc;
}

/* The stacks' frames as a trie from the outermost frame in: nodes
 * (parent as a backward distance, frame as a delta from the previous
 * node's), then per stack its innermost node. Stacks share most of their
 * outer frames: python3's 549,180 frames are 36,418 nodes. */
static void
put_stack_trie (GByteArray  *b,
                HlRecording *self)
{
  guint n_spans = self->stack_spans->len;
  /* (parent, frame) → node, open addressing; nodes are 1.. */
  guint64 cap = 1024, mask;
  guint32 *slots;
  g_autoptr (GArray) parents = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr (GArray) frames = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autofree guint32 *leaf = g_new0 (guint32, n_spans);
  guint64 prev = 0;

  while (cap < (guint64) self->stack_addrs->len * 2)
    cap *= 2;
  mask = cap - 1;
  slots = g_new0 (guint32, cap);
  for (guint i = 1; i < n_spans; i++)
    {
      const StackSpan *span = &g_array_index (self->stack_spans, StackSpan, i);
      guint32 node = 0;

      for (guint f = span->n; f-- > 0;)
        {
          guint64 a = g_array_index (self->stack_addrs, guint64, span->begin + f);
          guint64 h = ((a * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) ^ (node * G_GUINT64_CONSTANT (0xC2B2AE3D27D4EB4F))) >> 17;

          for (;; h++)
            {
              guint32 *slot = &slots[h & mask];
              if (*slot == 0)
                {
                  g_array_append_val (parents, node);
                  g_array_append_val (frames, a);
                  *slot = parents->len;
                  node = *slot;
                  break;
                }
              if (g_array_index (parents, guint32, *slot - 1) == node && g_array_index (frames, guint64, *slot - 1) == a)
                {
                  node = *slot;
                  break;
                }
            }
        }
      leaf[i] = node;
    }
  g_free (slots);
  put (b, parents->len);
  for (guint k = 0; k < parents->len; k++)
    {
      guint64 a = g_array_index (frames, guint64, k);
      put (b, k + 1 - g_array_index (parents, guint32, k));
      put_signed (b, (gint64) (a - prev));
      prev = a;
    }
  for (guint i = 1; i < n_spans; i++)
    put (b, (guint64) leaf[i] << 1 | (g_array_index (self->stack_spans, StackSpan, i).defined ? 1 : 0));
}

static GByteArray *
serialize (HlRecording    *self,
           HlCostsStacks   form)
{
  GByteArray *b = g_byte_array_sized_new (64 * 1024);
  HlSummary s;
  guint n_spans = self->stack_spans->len, n_threads = self->threads->len, n_ids = 0;
  g_autofree HlCosts *stack_costs = NULL, *thread_costs = NULL;
  HlSizeHistogram histogram;
  guint64 prev;

  hl_recording_get_summary (self, &s);
  put (b, self->seq);
  put (b, self->n_allocs);
  put (b, self->n_frees);
  put (b, self->bytes_allocated);
  put (b, self->temporary);
  put (b, s.frees_unknown);
  put (b, self->ids_out_of_range);
  put (b, self->dropped);
  put (b, self->end_ns);
  put (b, self->peak_heap);
  put (b, self->peak_time_ns);
  put (b, self->peak_rss);
  put (b, self->leaked_bytes);
  put (b, self->leaked_blocks);
  put (b, self->has_exit ? 1 : 0);
  put_signed (b, self->exit_status);
  put (b, self->truncated ? 1 : 0);
  put (b, self->committed_allocs);

  put (b, self->info_keys->len - 1);
  for (guint i = 0; i + 1 < self->info_keys->len; i++)
    {
      put_string (b, self->info_keys->pdata[i]);
      put_string (b, g_hash_table_lookup (self->info, self->info_keys->pdata[i]));
    }
  put (b, self->warnings->len - 1);
  for (guint i = 0; i + 1 < self->warnings->len; i++)
    put_string (b, self->warnings->pdata[i]);

  put (b, self->modules->len);
  for (guint i = 0; i < self->modules->len; i++)
    {
      const HlModuleInfo *m = &g_array_index (self->modules, HlModuleInfo, i);
      put_string (b, m->path);
      put_string (b, m->name);
      put_string (b, m->build_id);
      put (b, m->start);
      put (b, m->size);
    }
  put (b, n_threads);
  for (guint i = 0; i < n_threads; i++)
    {
      const HlThreadInfo *t = &g_array_index (self->threads, HlThreadInfo, i);
      put (b, t->tid);
      put_string (b, t->name);
      put (b, t->start_ns);
      put (b, t->end_ns);
    }

  /* Stacks: the trace ids that map to one (internal indices as deltas:
   * they mostly follow the ids), then each stack's frames. */
  for (guint i = 0; i < self->stack_ids->len; i++)
    n_ids += g_array_index (self->stack_ids, guint32, i) != 0;
  put (b, self->stack_ids->len);
  put (b, n_ids);
  prev = 0;
  {
    guint64 prev_v = 0;
    for (guint i = 0; i < self->stack_ids->len; i++)
      if (g_array_index (self->stack_ids, guint32, i) != 0)
        {
          guint64 v = g_array_index (self->stack_ids, guint32, i);
          put (b, i - prev);
          put_signed (b, (gint64) (v - prev_v));
          prev = i;
          prev_v = v;
        }
  }
  put (b, n_spans);
  put (b, form);
  if (form == HL_COSTS_STACKS_INLINE)
    put_stack_trie (b, self);
  else
    {
      guint32 crc = 0;
      for (guint i = 1; i < n_spans; i++)
        {
          const StackSpan *span = &g_array_index (self->stack_spans, StackSpan, i);
          put (b, (guint64) span->n << 1 | (span->defined ? 1 : 0));
          crc = frames_crc (crc, &g_array_index (self->stack_addrs, guint64, span->begin), span->n);
        }
      put (b, crc);
    }

  put (b, self->counters->len);
  prev = 0;
  for (guint i = 0; i < self->counters->len; i++)
    {
      const HlCounterSample *c = &g_array_index (self->counters, HlCounterSample, i);
      put_signed (b, (gint64) (c->time_ns - prev));
      put (b, c->heap_bytes);
      put (b, c->rss_bytes);
      prev = c->time_ns;
    }
  put (b, self->drops->len);
  for (guint i = 0; i < self->drops->len; i++)
    {
      const HlDropSample *d = &g_array_index (self->drops, HlDropSample, i);
      put (b, d->time_ns);
      put (b, d->count);
    }
  put (b, self->meta->len);
  for (guint i = 0; i < self->meta->len; i++)
    {
      const HlMetaInterval *m = &g_array_index (self->meta, HlMetaInterval, i);
      put_string (b, m->key);
      put_string (b, m->value);
      put (b, m->start_ns);
      put (b, m->end_ns);
      put (b, m->tid);
    }
  guint n_marks;
  const HlMark *marks = hl_recording_get_marks (self, &n_marks);
  put (b, n_marks);
  for (guint i = 0; i < n_marks; i++)
    {
      const HlMark *m = &marks[i];
      put (b, m->time_ns);
      put_string (b, m->text);
      put (b, m->tid);
    }

  stack_costs = hl_aggregate_dup_stack_costs (self->aggregate, n_spans);
  thread_costs = hl_aggregate_dup_thread_costs (self->aggregate, n_threads);
  hl_aggregate_get_histogram (self->aggregate, &histogram);
  /* per stack, a column per cost (live bytes, which are the leaked ones
   * once settled, as the difference) and the owners */
  for (guint k = 0; k < 6; k++)
    for (guint i = 0; i < n_spans; i++)
      put (b, ((const guint64 *) &stack_costs[i])[k]);
  for (guint i = 0; i < n_spans; i++)
    put_signed (b, (gint64) (stack_costs[i].live_bytes - stack_costs[i].leaked_bytes));
  for (guint i = 0; i < n_spans; i++)
    put (b, hl_aggregate_get_stack_owner (self->aggregate, i));
  for (guint i = 0; i < n_threads; i++)
    put_costs (b, &thread_costs[i]);
  put (b, hl_aggregate_get_n_pairs (self->aggregate));
  for (guint i = 0; i < hl_aggregate_get_n_pairs (self->aggregate); i++)
    {
      guint32 stack, thread;
      HlCosts c;

      hl_aggregate_get_pair (self->aggregate, i, &stack, &thread, &c);
      put (b, stack);
      put (b, thread);
      put_costs (b, &c);
    }
  for (guint i = 0; i < HL_SIZE_HISTOGRAM_BUCKETS; i++)
    {
      put (b, histogram.count[i]);
      put (b, histogram.bytes[i]);
    }
  return b;
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

/* ---- Checking ------------------------------------------------------------ */

static guint64
read_u64 (const guint8 *p)
{
  guint64 v;
  memcpy (&v, p, 8);
  return GUINT64_FROM_LE (v);
}

static guint32
read_u32 (const guint8 *p)
{
  guint32 v;
  memcpy (&v, p, 4);
  return GUINT32_FROM_LE (v);
}

static guint32
packet_crc (const guint8 *packet,
            gsize         total)
{
  static const guint8 zero[4];
  gsize at = offsetof (HlPacketHeader, crc32c);
  guint32 crc = hl_crc32c (0, packet, at);

  crc = hl_crc32c (crc, zero, 4);
  return hl_crc32c (crc, packet + at + 4, total - at - 4);
}

/* The payload of DATA's COSTS packet (a new array), or NULL when DATA
 * does not end with one that matches it (see the header). */
static GByteArray *
find_payload (const guint8 *data,
              gsize         size)
{
  HlTraceFileHeader fh;
  HlPacketHeader h;
  const guint8 *content;
  guint64 total, offset;
  guint32 codec, raw;
  gsize stored;
  GByteArray *out;

  if (size < HL_TRACE_FILE_HEADER_SIZE + HL_PACKET_HEADER_SIZE + CONTENT_HEAD + HL_COSTS_PACKET_FOOTER_SIZE ||
      memcmp (data + size - 8, HL_COSTS_PACKET_MAGIC, 8) != 0)
    return NULL;
  memcpy (&fh, data, sizeof fh);
  if (memcmp (fh.magic, HL_TRACE_MAGIC, HL_TRACE_MAGIC_SIZE) != 0 || fh.byte_order != HL_TRACE_BYTE_ORDER_MARK ||
      fh.version_major != HL_TRACE_VERSION_MAJOR || (fh.flags & HL_TRACE_FLAG_COMPRESSED) == 0)
    return NULL;
  total = read_u64 (data + size - HL_COSTS_PACKET_FOOTER_SIZE);
  if (total > size - HL_TRACE_FILE_HEADER_SIZE ||
      total < HL_PACKET_HEADER_SIZE + CONTENT_HEAD + HL_COSTS_PACKET_FOOTER_SIZE)
    return NULL;
  offset = size - total;
  memcpy (&h, data + offset, sizeof h);
  if (h.magic != HL_PACKET_MAGIC || h.kind != HL_PACKET_KIND_COSTS || h.header_size != HL_PACKET_HEADER_SIZE ||
      (guint64) h.header_size + h.content_size != total || h.pid != fh.pid ||
      packet_crc (data + offset, total) != h.crc32c)
    return NULL;
  content = data + offset + HL_PACKET_HEADER_SIZE;
  codec = read_u32 (content);
  raw = read_u32 (content + 4);
  if (read_u64 (content + 8) != offset || read_u32 (content + 20) != HL_COSTS_PACKET_MODEL_VERSION ||
      raw == 0 || raw > PAYLOAD_MAX || hl_crc32c (0, data, offset) != read_u32 (content + 16))
    return NULL;
  stored = h.content_size - CONTENT_HEAD - HL_COSTS_PACKET_FOOTER_SIZE;
  out = g_byte_array_sized_new (raw);
  g_byte_array_set_size (out, raw);
  if (codec == CODEC_STORED && stored == raw)
    {
      memcpy (out->data, content + CONTENT_HEAD, raw);
      return out;
    }
#ifdef HL_HAVE_ZSTD
  if (codec == HL_CODEC_ZSTD)
    {
      const HlTraceCodec *c = hl_trace_codec_zstd (0);
      if (c->decompress (c->user, content + CONTENT_HEAD, stored, out->data, raw) == raw)
        return out;
    }
#endif
  g_byte_array_unref (out);
  return NULL;
}

/* ---- Reading ------------------------------------------------------------- */

typedef struct
{
  const guint8 *p, *end;
  gboolean      bad;
} Cursor;

static guint64
get (Cursor *c)
{
  guint64 v = 0;

  for (guint shift = 0; shift < 64; shift += 7)
    {
      guint8 byte;

      if (c->p >= c->end)
        break;
      byte = *c->p++;
      v |= (guint64) (byte & 0x7f) << shift;
      if ((byte & 0x80) == 0)
        return v;
    }
  c->bad = TRUE;
  c->p = c->end;
  return 0;
}

static gint64
get_signed (Cursor *c)
{
  return hl_zigzag_decode (get (c));
}

/* A count of things taking at least a byte each. */
static guint64
get_count (Cursor *c)
{
  guint64 n = get (c);

  if (n > (guint64) (c->end - c->p) || n > G_MAXUINT32)
    {
      c->bad = TRUE;
      c->p = c->end;
      return 0;
    }
  return n;
}

static const char *
get_string (Cursor      *c,
            HlRecording *rec)
{
  guint64 n = get (c);
  g_autofree char *tmp = NULL;

  if (n == 0)
    return NULL;
  n--;
  if (n > (guint64) (c->end - c->p))
    {
      c->bad = TRUE;
      c->p = c->end;
      return NULL;
    }
  tmp = g_strndup ((const char *) c->p, n);
  c->p += n;
  return hl_recording_intern (rec, tmp);
}

static void
get_costs (Cursor  *c,
           HlCosts *out)
{
  out->allocations = get (c);
  out->bytes = get (c);
  out->temporary = get (c);
  out->peak_bytes = get (c);
  out->leaked_bytes = get (c);
  out->leaked_blocks = get (c);
  out->live_bytes = get (c);
}

/* The trie put_stack_trie() wrote, into SELF's N_SPANS spans. */
static gboolean
get_stack_trie (Cursor      *c,
                HlRecording *self,
                guint64      n_spans)
{
  guint64 n_nodes = get_count (c), prev = 0, total = 0;
  g_autofree guint32 *parent = NULL;
  g_autofree guint64 *frame = NULL;
  g_autofree guint16 *depth = NULL;

  if (c->bad || n_nodes > (guint64) (c->end - c->p) / 2)
    return FALSE;
  parent = g_new (guint32, n_nodes + 1);
  frame = g_new (guint64, n_nodes + 1);
  depth = g_new (guint16, n_nodes + 1);
  depth[0] = 0;
  for (guint64 k = 1; k <= n_nodes; k++)
    {
      guint64 back = get (c);

      /* the parent is an earlier node or the root */
      if (back == 0 || back > k)
        return FALSE;
      parent[k] = (guint32) (k - back);
      frame[k] = prev + (guint64) get_signed (c);
      prev = frame[k];
      depth[k] = (guint16) (depth[parent[k]] + 1);
      if (depth[k] > HL_TRACE_MAX_FRAMES)
        return FALSE;
    }
  for (guint64 i = 1; i < n_spans && !c->bad; i++)
    {
      StackSpan *span = &g_array_index (self->stack_spans, StackSpan, i);
      guint64 v = get (c), node = v >> 1;

      if (node > n_nodes || (node > 0 && (v & 1) == 0))
        return FALSE;
      span->defined = v & 1;
      span->n = depth[node];
      span->begin = (guint32) total;
      total += span->n;
      if (total > MAX_TOTAL_FRAMES)
        return FALSE;
      g_array_set_size (self->stack_addrs, (guint) total);
      /* innermost first: the node, then up to the root */
      for (guint32 f = 0; f < span->n; f++, node = parent[node])
        g_array_index (self->stack_addrs, guint64, span->begin + f) = frame[node];
    }
  return !c->bad;
}

static gboolean
deserialize (HlRecording  *self,
             const guint8 *data,
             gsize         size,
             gboolean     *by_reference,
             guint32      *frames_crc)
{
  Cursor c = { data, data + size, FALSE };
  guint64 n, n_spans, n_threads, prev, form;
  g_autofree HlCosts *stack_costs = NULL, *thread_costs = NULL;
  g_autofree guint32 *owners = NULL;
  HlSizeHistogram histogram = { { 0 } };

  self->seq = (guint32) get (&c);
  self->n_allocs = get (&c);
  self->n_frees = get (&c);
  self->bytes_allocated = get (&c);
  self->temporary = get (&c);
  self->frees_unknown = get (&c);
  self->ids_out_of_range = get (&c);
  self->dropped = get (&c);
  self->end_ns = get (&c);
  self->peak_heap = get (&c);
  self->peak_time_ns = get (&c);
  self->peak_rss = get (&c);
  self->leaked_bytes = get (&c);
  self->leaked_blocks = get (&c);
  self->has_exit = get (&c) != 0;
  self->exit_status = (int) get_signed (&c);
  self->truncated = get (&c) != 0;
  self->committed_allocs = get (&c);

  n = get_count (&c);
  for (guint64 i = 0; i < n && !c.bad; i++)
    {
      const char *key = get_string (&c, self), *value = get_string (&c, self);
      if (key == NULL || value == NULL)
        return FALSE;
      hl_recording_append_info (self, key, value);
    }
  n = get_count (&c);
  for (guint64 i = 0; i < n && !c.bad; i++)
    {
      const char *w = get_string (&c, self);
      if (w == NULL)
        return FALSE;
      hl_recording_append_warning (self, w);
    }

  n = get_count (&c);
  for (guint64 i = 0; i < n && !c.bad; i++)
    {
      HlModuleInfo m = { 0 };
      m.path = get_string (&c, self);
      m.name = get_string (&c, self);
      m.build_id = get_string (&c, self);
      m.start = get (&c);
      m.size = get (&c);
      if (m.path == NULL || m.name == NULL || m.build_id == NULL)
        return FALSE;
      g_array_append_val (self->modules, m);
    }
  n_threads = get_count (&c);
  for (guint64 i = 0; i < n_threads && !c.bad; i++)
    {
      HlThreadInfo t = { 0 };
      guint64 none = HL_ALLOC_ID_NONE;

      t.tid = (guint32) get (&c);
      t.name = get_string (&c, self);
      t.start_ns = get (&c);
      t.end_ns = get (&c);
      if (t.name == NULL || g_hash_table_contains (self->tid_to_thread, GUINT_TO_POINTER (t.tid)))
        return FALSE;
      g_array_append_val (self->threads, t);
      g_array_append_val (self->thread_last, none);
      g_hash_table_insert (self->tid_to_thread, GUINT_TO_POINTER (t.tid), GUINT_TO_POINTER (self->threads->len));
    }

  n = get (&c); /* stack_ids->len: the table is sized by its ids here */
  if (n > G_MAXINT32 || c.bad)
    return FALSE;
  {
    guint64 n_ids = get_count (&c), prev_v = 0;
    prev = 0;
    for (guint64 i = 0; i < n_ids && !c.bad; i++)
      {
        guint64 delta = get (&c), id = prev + delta, v = prev_v + (guint64) get_signed (&c);
        if ((i > 0 && delta == 0) || id >= n || v == 0 || v > G_MAXUINT32)
          return FALSE;
        if (id >= self->stack_ids->len)
          g_array_set_size (self->stack_ids, (guint) MIN (n, MAX (id + 1, (guint64) self->stack_ids->len * 2)));
        g_array_index (self->stack_ids, guint32, id) = (guint32) v;
        prev = id;
        prev_v = v;
      }
  }
  n_spans = get_count (&c);
  /* each stack takes a byte here and 8 in the costs at least */
  if (n_spans == 0 || n_spans > (guint64) (c.end - c.p) / 9)
    return FALSE;
  g_array_set_size (self->stack_spans, (guint) n_spans);
  form = get (&c);
  if (form == HL_COSTS_STACKS_INLINE)
    {
      if (!get_stack_trie (&c, self, n_spans))
        return FALSE;
    }
  else if (form == HL_COSTS_STACKS_BY_REFERENCE)
    {
      guint64 total = 0;
      for (guint64 i = 1; i < n_spans && !c.bad; i++)
        {
          StackSpan *span = &g_array_index (self->stack_spans, StackSpan, i);
          guint64 v = get (&c);

          span->defined = v & 1;
          span->n = (guint32) MIN (v >> 1, (guint64) HL_TRACE_MAX_FRAMES + 1);
          span->begin = (guint32) total;
          total += span->n;
          if (span->n > HL_TRACE_MAX_FRAMES || total > MAX_TOTAL_FRAMES || (!span->defined && span->n > 0))
            return FALSE;
        }
      *frames_crc = (guint32) get (&c);
      if (c.bad)
        return FALSE;
      /* the frames come from the trace (fill_frames_from_trace) */
      g_array_set_size (self->stack_addrs, (guint) total);
      *by_reference = TRUE;
    }
  else
    return FALSE;
  for (guint i = 0; i < self->stack_ids->len; i++)
    if (g_array_index (self->stack_ids, guint32, i) > n_spans)
      return FALSE;

  n = get_count (&c);
  prev = 0;
  for (guint64 i = 0; i < n && !c.bad; i++)
    {
      HlCounterSample s;
      s.time_ns = prev + (guint64) get_signed (&c);
      s.heap_bytes = get (&c);
      s.rss_bytes = get (&c);
      prev = s.time_ns;
      g_array_append_val (self->counters, s);
    }
  n = get_count (&c);
  for (guint64 i = 0; i < n && !c.bad; i++)
    {
      HlDropSample d;
      d.time_ns = get (&c);
      d.count = get (&c);
      g_array_append_val (self->drops, d);
    }
  n = get_count (&c);
  for (guint64 i = 0; i < n && !c.bad; i++)
    {
      HlMetaInterval m = { 0 };
      m.key = get_string (&c, self);
      m.value = get_string (&c, self);
      m.start_ns = get (&c);
      m.end_ns = get (&c);
      m.tid = (guint32) get (&c);
      if (m.key == NULL || m.value == NULL)
        return FALSE;
      g_array_append_val (self->meta, m);
      /* still set at the end (saved open): ends with the recording, as
       * hl_recording_get_metadata_intervals() gives it from the events */
      if (m.end_ns == G_MAXUINT64)
        g_hash_table_insert (self->meta_open, (char *) m.key, GUINT_TO_POINTER (self->meta->len));
    }
  n = get_count (&c);
  for (guint64 i = 0; i < n && !c.bad; i++)
    {
      HlMark m = { 0 };
      m.time_ns = get (&c);
      m.text = get_string (&c, self);
      m.tid = (guint32) get (&c);
      if (m.text == NULL)
        return FALSE;
      hl_recording_insert_mark (self, &m);
    }

  if (c.bad || (guint64) (c.end - c.p) < n_spans * 8 + n_threads * 7)
    return FALSE;
  stack_costs = g_new0 (HlCosts, n_spans);
  owners = g_new0 (guint32, n_spans);
  thread_costs = g_new0 (HlCosts, n_threads + 1);
  for (guint k = 0; k < 6; k++)
    for (guint64 i = 0; i < n_spans; i++)
      ((guint64 *) &stack_costs[i])[k] = get (&c);
  for (guint64 i = 0; i < n_spans; i++)
    stack_costs[i].live_bytes = stack_costs[i].leaked_bytes + (guint64) get_signed (&c);
  for (guint64 i = 0; i < n_spans; i++)
    {
      n = get (&c);
      if (n > n_threads)
        return FALSE;
      owners[i] = (guint32) n;
    }
  for (guint64 i = 0; i < n_threads; i++)
    get_costs (&c, &thread_costs[i]);
  self->aggregate = hl_aggregate_new_settled (stack_costs, owners, (guint) n_spans, thread_costs, (guint) n_threads,
                                              &histogram);
  n = get_count (&c);
  for (guint64 i = 0; i < n && !c.bad; i++)
    {
      guint64 stack = get (&c), thread = get (&c);
      HlCosts pc;

      get_costs (&c, &pc);
      if (stack > G_MAXUINT32 || thread > G_MAXUINT32 ||
          !hl_aggregate_add_settled_pair (self->aggregate, (guint32) stack, (guint32) thread, &pc))
        return FALSE;
    }
  for (guint i = 0; i < HL_SIZE_HISTOGRAM_BUCKETS; i++)
    {
      histogram.count[i] = get (&c);
      histogram.bytes[i] = get (&c);
    }
  hl_aggregate_set_histogram (self->aggregate, &histogram);
  return !c.bad && c.p == c.end;
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
        got = frames_crc (got, &g_array_index (rec->stack_addrs, guint64, span->begin), span->n);
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
  return g_steal_pointer (&rec);
}

HlRecording *
hl_costs_packet_load (const char *path)
{
  g_autoptr (GMappedFile) map = g_mapped_file_new (path, FALSE, NULL);
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
  return g_steal_pointer (&rec);
}

GBytes *
hl_costs_packet_prepare (const char *path,
                         GError    **error)
{
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (HlRecording) rec = NULL;

  rec = hl_recording_load (file, HL_LOAD_FLAGS_AGGREGATE | HL_LOAD_FLAGS_NO_SYMBOLS | HL_LOAD_FLAGS_NO_COSTS_PACKET,
                           NULL, NULL, NULL, error);
  if (rec == NULL)
    return NULL;
  return hl_costs_packet_payload (rec, HL_COSTS_STACKS_INLINE, error);
}

GBytes *
hl_costs_packet_payload (HlRecording   *rec,
                         HlCostsStacks  form,
                         GError       **error)
{
  GByteArray *payload;

  g_return_val_if_fail (HL_IS_RECORDING (rec) && rec->aggregate != NULL, NULL);
  payload = serialize (rec, form);
  if (payload->len > PAYLOAD_MAX)
    {
      g_byte_array_unref (payload);
      g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_UNSUPPORTED, "costs too large to save");
      return NULL;
    }
  return g_byte_array_free_to_bytes (payload);
}

/* The whole COSTS packet of PAYLOAD, its file's fields (the size and
 * crc it covers, the pid, the packet's crc) left for finish_packet(). */
static GByteArray *
build_packet (const guint8 *payload,
              gsize         payload_len)
{
  GByteArray *packet;
  guint32 codec = CODEC_STORED;
  HlPacketHeader h = { 0 };
  guint64 total;

  packet = g_byte_array_sized_new (HL_PACKET_HEADER_SIZE + CONTENT_HEAD + payload_len + HL_COSTS_PACKET_FOOTER_SIZE);
  g_byte_array_set_size (packet, HL_PACKET_HEADER_SIZE + CONTENT_HEAD);
#ifdef HL_HAVE_ZSTD
  {
    const HlTraceCodec *c = hl_trace_codec_zstd (PAYLOAD_LEVEL);
    gsize bound = c->compress_bound (c->user, payload_len), n;

    g_byte_array_set_size (packet, HL_PACKET_HEADER_SIZE + CONTENT_HEAD + bound);
    n = c->compress (c->user, payload, payload_len, packet->data + HL_PACKET_HEADER_SIZE + CONTENT_HEAD, bound);
    if (n > 0 && n < payload_len)
      {
        codec = HL_CODEC_ZSTD;
        g_byte_array_set_size (packet, HL_PACKET_HEADER_SIZE + CONTENT_HEAD + n);
      }
    else
      g_byte_array_set_size (packet, HL_PACKET_HEADER_SIZE + CONTENT_HEAD);
  }
#endif
  if (codec == CODEC_STORED)
    g_byte_array_append (packet, payload, payload_len);
  total = packet->len + HL_COSTS_PACKET_FOOTER_SIZE;
  {
    guint64 total_le = GUINT64_TO_LE (total);
    g_byte_array_append (packet, (const guint8 *) &total_le, 8);
    g_byte_array_append (packet, (const guint8 *) HL_COSTS_PACKET_MAGIC, 8);
  }
  {
    guint8 *content = packet->data + HL_PACKET_HEADER_SIZE;
    guint32 raw = GUINT32_TO_LE ((guint32) payload_len), codec_le = GUINT32_TO_LE (codec);
    guint32 version = GUINT32_TO_LE (HL_COSTS_PACKET_MODEL_VERSION);

    memcpy (content, &codec_le, 4);
    memcpy (content + 4, &raw, 4);
    memset (content + 8, 0, 12);
    memcpy (content + 20, &version, 4);
  }
  h.magic = HL_PACKET_MAGIC;
  h.content_size = (guint32) (total - HL_PACKET_HEADER_SIZE);
  h.header_size = HL_PACKET_HEADER_SIZE;
  h.kind = HL_PACKET_KIND_COSTS;
  memcpy (packet->data, &h, sizeof h);
  return packet;
}

/* PACKET (build_packet()) for a file of SIZE bytes whose CRC-32C is
 * COVERED_CRC and whose pid is PID. */
static void
finish_packet (GByteArray *packet,
               guint64     size,
               guint32     covered_crc,
               guint32     pid)
{
  guint8 *content = packet->data + HL_PACKET_HEADER_SIZE;
  guint32 crc_le = GUINT32_TO_LE (covered_crc);
  guint64 covered = GUINT64_TO_LE (size);
  HlPacketHeader h;

  memcpy (content + 8, &covered, 8);
  memcpy (content + 16, &crc_le, 4);
  memcpy (&h, packet->data, sizeof h);
  h.pid = pid;
  h.crc32c = 0;
  memcpy (packet->data, &h, sizeof h);
  h.crc32c = packet_crc (packet->data, packet->len);
  memcpy (packet->data, &h, sizeof h);
}

struct _HlCostsPacket
{
  GByteArray *packet;
};

HlCostsPacket *
hl_costs_packet_build (GBytes *payload)
{
  gsize len;
  const guint8 *data = g_bytes_get_data (payload, &len);
  HlCostsPacket *p = g_new0 (HlCostsPacket, 1);

  p->packet = build_packet (data, len);
  return p;
}

gsize
hl_costs_packet_built_size (const HlCostsPacket *packet)
{
  return packet->packet->len;
}

void
hl_costs_packet_free (HlCostsPacket *packet)
{
  if (packet == NULL)
    return;
  g_byte_array_unref (packet->packet);
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
  GByteArray *packet = built->packet;
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
  finish_packet (packet, size, hl_crc32c (0, data, size), fh.pid);

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
