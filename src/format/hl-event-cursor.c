/* hl-event-cursor.c — decodes the events of one packet, checking every
 * length, range and string against the packet's bounds. */

#include <string.h>

#include "private/hl-event-cursor-common.h"
#include "private/hl-trace-encode-private.h"
#include "private/hl-trace-reader-private.h"
#include "private/hl-varint.h"

void
hl_event_cursor_init (HlEventCursor      *c,
                      const HlPacketView *pkt)
{
  c->pkt = pkt;
  c->base = pkt->content;
  c->size = pkt->header.content_size;
  c->pos = 0;
  c->content_offset = pkt->offset + pkt->header.header_size;
  c->time_ns = pkt->header.time_begin_ns;
  c->next_id = pkt->header.alloc_id_begin;
  c->prev_id = 0;
  c->prev_stack = 0;
  c->prev_addr = 0;
  c->prev_n_frames = 0;
  hl_pred_reset (&c->pred);
  c->n_decoded = 0;
  c->failed = false;
  c->error.code = HL_FORMAT_OK;
  c->error.offset = 0;
  c->error.message[0] = '\0';
}

/* Decoding state of one event: P walks [P, END). */
typedef struct
{
  const uint8_t *p;
  const uint8_t *end;
  const char    *what; /* set by the failing step */
  char          *str;  /* next free byte of c->strings */
  char          *str_end;
} Dec;

static inline bool
get_u (Dec *d, uint64_t *v, const char *what)
{
  const uint8_t *q = hl_varint_get (d->p, d->end, v);
  if (q == NULL)
    {
      d->what = what;
      return false;
    }
  d->p = q;
  return true;
}

static inline bool
get_u32 (Dec *d, uint32_t *v, const char *what)
{
  uint64_t u;
  if (!get_u (d, &u, what))
    return false;
  if (u > UINT32_MAX)
    {
      d->what = what;
      return false;
    }
  *v = (uint32_t) u;
  return true;
}

static inline bool
get_s (Dec *d, int64_t *v, const char *what)
{
  const uint8_t *q = hl_svarint_get (d->p, d->end, v);
  if (q == NULL)
    {
      d->what = what;
      return false;
    }
  d->p = q;
  return true;
}

/* Decodes an allocation's address against the prediction for SIZE and
 * records the allocation (id = c->next_id, taken afterwards). */
static inline bool
get_addr (HlEventCursor *c, Dec *d, uint64_t size)
{
  uint64_t delta;
  const uint8_t *q = hl_addr_delta_get (d->p, d->end, &delta);
  if (q == NULL)
    {
      d->what = "address";
      return false;
    }
  d->p = q;
  unsigned cls = hl_pred_class (size);
  uint64_t addr = hl_pred_base (&c->pred, cls, c->prev_addr) + delta;
  hl_pred_alloc (&c->pred, cls, c->next_id, addr);
  c->prev_addr = addr;
  return true;
}

static inline bool
get_stack_id (Dec *d, uint64_t *prev, uint32_t *out)
{
  int64_t delta;
  if (!get_s (d, &delta, "stack id"))
    return false;
  uint64_t id = *prev + (uint64_t) delta;
  if (id > UINT32_MAX)
    {
      d->what = "stack id beyond 32 bits";
      return false;
    }
  *prev = id;
  *out = (uint32_t) id;
  return true;
}

/* Copies a string or byte field of at most MAX bytes, NUL-terminated. */
static bool
get_bytes (Dec *d, const char **out, uint32_t *len_out, uint64_t max, const char *what)
{
  uint64_t len;
  if (!get_u (d, &len, what))
    return false;
  if (len > max || len > (uint64_t) (d->end - d->p) || len + 1 > (uint64_t) (d->str_end - d->str))
    {
      d->what = what;
      return false;
    }
  memcpy (d->str, d->p, (size_t) len);
  d->str[len] = '\0';
  *out = d->str;
  if (len_out != NULL)
    *len_out = (uint32_t) len;
  d->str += len + 1;
  d->p += len;
  return true;
}

static inline bool
get_string (Dec *d, const char **out, const char *what)
{
  return get_bytes (d, out, NULL, HL_TRACE_STRING_MAX, what);
}

static bool
take_id (HlEventCursor *c, Dec *d, uint64_t *id)
{
  if (c->next_id >= c->pkt->header.alloc_id_end)
    {
      d->what = "allocation id beyond the packet's range";
      return false;
    }
  *id = c->next_id++;
  c->prev_id = *id;
  return true;
}

static bool
decode_stack (HlEventCursor *c, Dec *d, HlEvent *ev)
{
  uint32_t flags, n, shared;
  if (!get_stack_id (d, &c->prev_stack, &ev->u.stack.id)
      || !get_u32 (d, &flags, "stack flags")
      || !get_u32 (d, &n, "frame count")
      || !get_u32 (d, &shared, "shared frame count"))
    return false;
  if (ev->u.stack.id == HL_STACK_ID_UNKNOWN)
    {
      d->what = "stack id 0";
      return false;
    }
  if (n > HL_TRACE_MAX_FRAMES || shared > n || shared > c->prev_n_frames)
    {
      d->what = "frame counts";
      return false;
    }
  uint32_t n_new = n - shared;
  uint64_t head[HL_TRACE_MAX_FRAMES];
  for (uint32_t i = 0; i < n_new; i++)
    {
      int64_t delta;
      if (!get_s (d, &delta, "frame"))
        return false;
      head[i] = (i < c->prev_n_frames ? c->frames[i] : 0) + (uint64_t) delta;
    }
  if (shared > 0 && c->prev_n_frames != n)
    memmove (c->frames + n_new, c->frames + (c->prev_n_frames - shared),
             shared * sizeof (uint64_t));
  memcpy (c->frames, head, n_new * sizeof (uint64_t));
  c->prev_n_frames = n;
  ev->u.stack.flags = flags;
  ev->u.stack.n_frames = n;
  ev->u.stack.frames = c->frames;
  return true;
}

static bool
decode_info (HlEventCursor *c, Dec *d, HlEvent *ev)
{
  uint64_t n;
  if (!get_u (d, &n, "info count"))
    return false;
  if (n > HL_TRACE_INFO_MAX_PAIRS)
    {
      d->what = "info count";
      return false;
    }
  d->str_end = c->strings + HL_TRACE_INFO_MAX_BYTES;
  for (uint64_t i = 0; i < n; i++)
    if (!get_string (d, &c->info_keys[i], "info key")
        || !get_string (d, &c->info_values[i], "info value"))
      return false;
  ev->u.info.n = (uint32_t) n;
  ev->u.info.keys = c->info_keys;
  ev->u.info.values = c->info_values;
  return true;
}

/* A skippable event this reader knows (MMAP, MUNMAP, MREMAP, ALLOCATOR):
 * its fields are read inside its LEN bytes, the rest (fields of a newer
 * minor version) stepped over. */
static bool
decode_skippable (HlEventCursor *c, Dec *d, uint8_t type, HlEvent *ev)
{
  uint64_t len;
  if (!get_u (d, &len, "event length"))
    return false;
  if (len > (uint64_t) (d->end - d->p))
    {
      d->what = "event length";
      return false;
    }
  const uint8_t *next = d->p + len;
  Dec in = *d;
  in.end = next;
  uint64_t v[9];
  size_t k = type == HL_EVENT_MMAP ? 5 : type == HL_EVENT_MUNMAP ? 2 : type == HL_EVENT_MREMAP ? 6 : 9;
  for (size_t i = 0; i < k; i++)
    if (!get_u (&in, &v[i], "field"))
      {
        d->what = "field beyond the event's length";
        d->p = next;
        return false;
      }
  switch (type)
    {
    case HL_EVENT_MMAP:
      if (v[2] > UINT32_MAX || v[3] > UINT32_MAX || v[4] > UINT32_MAX || v[0] + v[1] < v[0])
        {
          d->what = "mmap fields";
          return false;
        }
      ev->u.mmap.address = v[0];
      ev->u.mmap.size = v[1];
      ev->u.mmap.stack_id = (uint32_t) v[2];
      ev->u.mmap.prot = (uint32_t) v[3];
      ev->u.mmap.flags = (uint32_t) v[4];
      break;
    case HL_EVENT_MUNMAP:
      if (v[0] + v[1] < v[0])
        {
          d->what = "munmap range";
          return false;
        }
      ev->u.munmap.address = v[0];
      ev->u.munmap.size = v[1];
      break;
    case HL_EVENT_MREMAP:
      if (v[4] > UINT32_MAX || v[5] > UINT32_MAX || v[0] + v[1] < v[0] || v[2] + v[3] < v[2])
        {
          d->what = "mremap fields";
          return false;
        }
      ev->u.mremap.old_address = v[0];
      ev->u.mremap.old_size = v[1];
      ev->u.mremap.address = v[2];
      ev->u.mremap.size = v[3];
      ev->u.mremap.stack_id = (uint32_t) v[4];
      ev->u.mremap.flags = (uint32_t) v[5];
      break;
    default:
      if (v[0] > UINT32_MAX)
        {
          d->what = "allocator flags";
          return false;
        }
      c->allocator = (HlAllocatorSample) { (uint32_t) v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8] };
      ev->u.allocator = &c->allocator;
      break;
    }
  d->p = next;
  return true;
}

static int
fail (HlEventCursor *c, HlFormatError *err, HlFormatStatus code, uint64_t offset,
      const char *what, unsigned type)
{
  c->failed = true;
  hl_format_error_set (&c->error, code, offset, "%s in event type %u of the packet at %llu",
                       what, type, (unsigned long long) c->pkt->offset);
  if (err != NULL)
    *err = c->error;
  return -1;
}

/* Any event, the cursor's end and its failure (hl-event-cursor-common.h):
 * out of line, so that the common events' path saves no registers for it. */
int __attribute__ ((noinline))
hl_event_cursor_next_general (HlEventCursor *c,
                              HlEvent       *ev,
                              HlFormatError *err)
{
  if (c->failed)
    {
      if (err != NULL)
        *err = c->error;
      return -1;
    }
  for (;;)
    {
      if (c->pos >= c->size)
        return 0;

      Dec d = { c->base + c->pos, c->base + c->size, NULL, c->strings,
                c->strings + sizeof c->strings };
      uint64_t ev_offset = c->content_offset + c->pos;
      uint8_t type = *d.p++;
      uint64_t dt = 0;
      if (type & HL_EVENT_FLAG_NO_TIME)
        type &= (uint8_t) ~HL_EVENT_FLAG_NO_TIME;
      else if (!get_u (&d, &dt, "time"))
        return fail (c, err, HL_FORMAT_ERROR_CORRUPT, ev_offset, "bad time delta", type);
      uint64_t t = c->time_ns + dt;
      if (t < c->time_ns || t > c->pkt->header.time_end_ns)
        return fail (c, err, HL_FORMAT_ERROR_CORRUPT, ev_offset, "time beyond the packet's end", type);
      c->time_ns = t;
      ev->type = (HlEventType) type;
      ev->time_ns = t;
      ev->tid = c->pkt->header.tid;
      ev->offset = ev_offset;

      bool ok = true;
      switch (type)
        {
        case HL_EVENT_ALLOC:
        case HL_EVENT_ALLOC_ALIGNED:
          ev->u.alloc.alignment = 0;
          ok = get_u (&d, &ev->u.alloc.size, "size")
               && (type == HL_EVENT_ALLOC || get_u (&d, &ev->u.alloc.alignment, "alignment"))
               && get_stack_id (&d, &c->prev_stack, &ev->u.alloc.stack_id)
               && get_addr (c, &d, ev->u.alloc.size)
               && take_id (c, &d, &ev->u.alloc.id);
          ev->u.alloc.address = c->prev_addr;
          break;
        case HL_EVENT_FREE:
          {
            int64_t delta = 0;
            ok = get_s (&d, &delta, "id");
            c->prev_id -= (uint64_t) delta;
            ev->u.free.id = c->prev_id;
            if (ok)
              hl_pred_free (&c->pred, c->prev_id);
            ev->u.free.address = 0;
            break;
          }
        case HL_EVENT_FREE_ADDR:
          ok = get_u (&d, &ev->u.free.address, "address");
          ev->u.free.id = HL_ID_NONE;
          break;
        case HL_EVENT_REALLOC:
          {
            int64_t delta = 0;
            ok = get_s (&d, &delta, "old id");
            ev->u.realloc.old_id = c->prev_id - (uint64_t) delta;
            ev->u.realloc.old_address = 0;
            if (ok)
              hl_pred_free (&c->pred, ev->u.realloc.old_id);
            ok = ok && get_u (&d, &ev->u.realloc.size, "size")
                 && get_stack_id (&d, &c->prev_stack, &ev->u.realloc.stack_id)
                 && get_addr (c, &d, ev->u.realloc.size)
                 && take_id (c, &d, &ev->u.realloc.id);
            ev->u.realloc.address = c->prev_addr;
            break;
          }
        case HL_EVENT_REALLOC_ADDR:
          ev->u.realloc.old_id = HL_ID_NONE;
          ok = get_u (&d, &ev->u.realloc.old_address, "old address")
               && get_u (&d, &ev->u.realloc.size, "size")
               && get_stack_id (&d, &c->prev_stack, &ev->u.realloc.stack_id)
               && get_addr (c, &d, ev->u.realloc.size)
               && take_id (c, &d, &ev->u.realloc.id);
          ev->u.realloc.address = c->prev_addr;
          break;
        case HL_EVENT_ID_SKIP:
          {
            uint64_t gap;
            ok = get_u (&d, &gap, "id gap");
            if (ok && (gap > c->pkt->header.alloc_id_end - c->next_id))
              {
                d.what = "id gap beyond the packet's range";
                ok = false;
              }
            if (ok)
              {
                c->next_id += gap;
                c->pos = (size_t) (d.p - c->base);
                continue;
              }
            break;
          }
        case HL_EVENT_STACK:
          ok = decode_stack (c, &d, ev);
          break;
        case HL_EVENT_MODULE:
          {
            const char *bid;
            ok = get_u32 (&d, &ev->u.module.flags, "module flags")
                 && get_u (&d, &ev->u.module.start, "module start")
                 && get_u (&d, &ev->u.module.size, "module size")
                 && get_u (&d, &ev->u.module.file_offset, "module file offset")
                 && get_bytes (&d, &bid, &ev->u.module.build_id_len, HL_TRACE_BUILD_ID_MAX, "build-id")
                 && get_string (&d, &ev->u.module.path, "module path");
            if (ok)
              ev->u.module.build_id = (const uint8_t *) bid;
            break;
          }
        case HL_EVENT_THREAD:
          ok = get_u32 (&d, &ev->u.thread.tid, "tid")
               && get_u32 (&d, &ev->u.thread.flags, "thread flags")
               && get_string (&d, &ev->u.thread.name, "thread name");
          break;
        case HL_EVENT_META_INT:
        case HL_EVENT_META_STRING:
        case HL_EVENT_META_REMOVE:
          ev->u.meta.is_string = type == HL_EVENT_META_STRING;
          ev->u.meta.int_value = 0;
          ev->u.meta.string_value = NULL;
          ok = get_string (&d, &ev->u.meta.key, "metadata key");
          if (ok && type == HL_EVENT_META_INT)
            ok = get_s (&d, &ev->u.meta.int_value, "metadata value");
          else if (ok && type == HL_EVENT_META_STRING)
            ok = get_string (&d, &ev->u.meta.string_value, "metadata value");
          break;
        case HL_EVENT_MARK:
          ok = get_string (&d, &ev->u.mark.text, "mark text");
          break;
        case HL_EVENT_COUNTERS:
          ok = get_u (&d, &ev->u.counters.heap_bytes, "heap bytes")
               && get_u (&d, &ev->u.counters.rss_bytes, "rss bytes")
               && get_u (&d, &ev->u.counters.n_allocs, "allocation count")
               && get_u (&d, &ev->u.counters.n_frees, "free count");
          break;
        case HL_EVENT_DROPPED:
          ok = get_u (&d, &ev->u.dropped.count, "dropped count")
               && get_u32 (&d, &ev->u.dropped.reason, "drop reason");
          break;
        case HL_EVENT_INFO:
          ok = decode_info (c, &d, ev);
          break;
        case HL_EVENT_END:
          {
            int64_t status = 0;
            ok = get_s (&d, &status, "exit status");
            if (ok && (status < INT32_MIN || status > INT32_MAX))
              {
                d.what = "exit status";
                ok = false;
              }
            ev->u.end.exit_status = (int32_t) status;
            break;
          }
        case HL_EVENT_REACHABILITY:
          {
            uint64_t len;
            HlReachTotals totals;
            HlReachReader rr;
            HlReachRecord rec;
            ok = get_u (&d, &len, "event length");
            if (ok && len > (uint64_t) (d.end - d.p))
              {
                d.what = "event length";
                ok = false;
              }
            if (ok && !hl_reach_read (d.p, (size_t) len, &totals, &rr))
              {
                d.what = "reachability totals";
                ok = false;
              }
            while (ok && hl_reach_next (&rr, &rec))
              ;
            if (ok && (rr.left != 0 || rr.p != rr.end))
              {
                d.what = "reachability records";
                ok = false;
              }
            if (ok)
              {
                ev->u.reach.size = (uint32_t) len;
                ev->u.reach.data = d.p;
                d.p += len;
              }
            break;
          }
        case HL_EVENT_MMAP:
        case HL_EVENT_MUNMAP:
        case HL_EVENT_MREMAP:
        case HL_EVENT_ALLOCATOR:
          ok = decode_skippable (c, &d, type, ev);
          break;
        default:
          if (type < HL_EVENT_FIRST_SKIPPABLE)
            return fail (c, err, HL_FORMAT_ERROR_UNSUPPORTED, ev_offset,
                         "unknown event type (needs a newer reader)", type);
          {
            uint64_t len;
            ok = get_u (&d, &len, "event length");
            if (ok && len > (uint64_t) (d.end - d.p))
              {
                d.what = "event length";
                ok = false;
              }
            if (ok)
              {
                ev->u.unknown.size = (uint32_t) len;
                ev->u.unknown.data = d.p;
                d.p += len;
              }
          }
          break;
        }
      if (!ok)
        return fail (c, err, d.p >= d.end ? HL_FORMAT_ERROR_TRUNCATED : HL_FORMAT_ERROR_CORRUPT,
                     ev_offset, d.what != NULL ? d.what : "malformed field", type);
      c->pos = (size_t) (d.p - c->base);
      c->n_decoded++;
      return 1;
    }
}

int
hl_event_cursor_next (HlEventCursor *c,
                      HlEvent       *ev,
                      HlFormatError *err)
{
  return hl_event_cursor_next_inline (c, ev, err);
}

int
hl_event_cursor_next_batch (HlEventCursor *c,
                            HlEvent       *evs,
                            size_t         cap,
                            HlFormatError *err)
{
  size_t n = 0;

  while (n < cap)
    {
      HlEvent *ev = &evs[n];

      if (!c->failed && c->pos < c->size && hl_event_cursor_next_common (c, ev))
        {
          n++;
          continue;
        }
      /* the end or a failure after events: those first, the end or the
       * failure again at the next call */
      int rc = hl_event_cursor_next_general (c, ev, err);
      if (rc <= 0)
        return n > 0 ? (int) n : rc;
      n++;
      if (!hl_event_type_is_plain (ev->type))
        break;
    }
  return (int) n;
}

/* ---- REACHABILITY payloads -------------------------------------------- */

bool
hl_reach_read (const uint8_t *data,
               size_t         size,
               HlReachTotals *totals,
               HlReachReader *records)
{
  const uint8_t *p = data, *end = data + size;
  uint64_t v[4 + 2 * HL_REACH_KINDS + 1];
  memset (totals, 0, sizeof *totals);
  records->p = records->end = end;
  records->left = 0;
  records->prev_id = 0;
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
    if ((p = hl_varint_get (p, end, &v[i])) == NULL)
      return false;
  if (v[0] > UINT32_MAX)
    return false;
  totals->flags = (uint32_t) v[0];
  totals->scan_ns = v[1];
  totals->roots_bytes = v[2];
  totals->blocks_scanned = v[3];
  for (int k = 0; k < HL_REACH_KINDS; k++)
    {
      totals->blocks[k] = v[4 + 2 * k];
      totals->bytes[k] = v[5 + 2 * k];
    }
  uint64_t n = v[4 + 2 * HL_REACH_KINDS];
  /* a record takes 4 bytes at least */
  if (n > (uint64_t) (end - p) / 4)
    return false;
  records->p = p;
  records->left = n;
  return true;
}

bool
hl_reach_next (HlReachReader *r,
               HlReachRecord *out)
{
  uint64_t delta, kind, stack, size;
  const uint8_t *p = r->p;
  if (r->left == 0)
    return false;
  if ((p = hl_varint_get (p, r->end, &delta)) == NULL || (p = hl_varint_get (p, r->end, &kind)) == NULL
      || (p = hl_varint_get (p, r->end, &stack)) == NULL || (p = hl_varint_get (p, r->end, &size)) == NULL
      || kind < HL_REACH_POSSIBLY_LOST || kind > HL_REACH_DEFINITELY_LOST || stack > UINT32_MAX
      || (delta == 0 && r->prev_id != 0) || r->prev_id + delta < r->prev_id)
    {
      r->left = UINT64_MAX; /* damaged: never 0, so a check of left fails */
      return false;
    }
  r->p = p;
  r->left--;
  r->prev_id += delta;
  out->id = r->prev_id;
  out->kind = (uint32_t) kind;
  out->stack_id = (uint32_t) stack;
  out->size = size;
  return true;
}
