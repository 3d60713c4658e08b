/* hl-trace-columns-join.c — columns joined back into the run of plain
 * trace bytes they were split from, bounds-checked everywhere
 * (hl-trace-columns.h, docs/trace-format.md 7c, 7d). */

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "hl-crc32c.h"
#include "hl-trace-format.h"
#include "private/hl-trace-columns-private.h"
#include "private/hl-trace-encode-private.h"
#include "private/hl-trace-model.h"
#include "private/hl-varint.h"

/* ---- Join ------------------------------------------------------------- */

typedef struct
{
  const uint8_t *p[HL_COL_COUNT];
  const uint8_t *end[HL_COL_COUNT];
  const uint8_t *hp[HL_COL_COUNT];   /* planes: the continuation bytes */
  const uint8_t *hend[HL_COL_COUNT];
  bool           planes[HL_COL_COUNT];
  HlTraceModel  *model;       /* model frames (codec 3) */
} Joiner;

/* A varint of a planes column: its first byte from the first plane, the
 * others from the second. */
static bool
copy_varint_planes (Joiner *j, HlColumn col, uint8_t **d, uint8_t *limit, uint64_t *value)
{
  if (j->p[col] >= j->end[col])
    return false;
  uint8_t b = *j->p[col]++;
  uint64_t v = 0;
  for (unsigned n = 0;; n++)
    {
      if (*d >= limit)
        return false;
      *(*d)++ = b;
      v |= (uint64_t) (b & 0x7f) << (7 * n);
      if (!(b & 0x80))
        break;
      if (n + 1 == HL_VARINT_MAX_BYTES || j->hp[col] >= j->hend[col])
        return false;
      b = *j->hp[col]++;
    }
  if (value != NULL)
    *value = v;
  return true;
}

/* Copies one varint from COL to *D (before LIMIT); false when it does not fit. */
static bool
copy_varint_slow (Joiner *j, HlColumn col, uint8_t **d, uint8_t *limit, uint64_t *value)
{
  if (j->planes[col])
    return copy_varint_planes (j, col, d, limit, value);
  /* as hl_varint_get, copying as it goes */
  const uint8_t *p = j->p[col], *end = j->end[col];
  uint8_t *o = *d;
  uint64_t v = 0;
  for (unsigned shift = 0; shift < 64; shift += 7)
    {
      if (p >= end || o >= limit)
        return false;
      uint8_t b = *p++;
      if (shift == 63 && b > 1)
        return false;
      *o++ = b;
      v |= (uint64_t) (b & 0x7f) << shift;
      if (b < 0x80)
        {
          j->p[col] = p;
          *d = o;
          if (value != NULL)
            *value = v;
          return true;
        }
    }
  return false;
}

static inline bool
copy_varint (Joiner *j, HlColumn col, uint8_t **d, uint8_t *limit, uint64_t *value)
{
  /* most varints are one byte */
  if (j->p[col] < j->end[col] && *j->p[col] < 0x80 && *d < limit)
    {
      uint8_t b = *j->p[col]++;
      *(*d)++ = b;
      if (value != NULL)
        *value = b;
      return true;
    }
  return copy_varint_slow (j, col, d, limit, value);
}

static bool
copy_bytes (Joiner *j, HlColumn col, uint8_t **d, uint8_t *limit, uint64_t n)
{
  if (n > (uint64_t) (j->end[col] - j->p[col]) || n > (uint64_t) (limit - *d))
    return false;
  memcpy (*d, j->p[col], (size_t) n);
  *d += n;
  j->p[col] += n;
  return true;
}

static bool
copy_addr (Joiner *j, uint8_t **d, uint8_t *limit)
{
  uint64_t v;
  if (!copy_varint (j, HL_COL_ADDR, d, limit, &v))
    return false;
  if ((v & 1) == 0)
    return true;
  if (!j->planes[HL_COL_ADDR])
    return copy_bytes (j, HL_COL_ADDR, d, limit, 1);
  if (j->hp[HL_COL_ADDR] >= j->hend[HL_COL_ADDR] || *d >= limit)
    return false;
  *(*d)++ = *j->hp[HL_COL_ADDR]++;
  return true;
}

static bool
join_event (Joiner *j, uint8_t **d, uint8_t *limit)
{
  uint8_t b;
  if (j->p[HL_COL_TYPE] >= j->end[HL_COL_TYPE] || *d >= limit)
    return false;
  b = *j->p[HL_COL_TYPE]++;
  *(*d)++ = b;
  if (!(b & HL_EVENT_FLAG_NO_TIME) && !copy_varint (j, HL_COL_TIME, d, limit, NULL))
    return false;
  uint8_t type = b & 0x7f;
  switch (type)
    {
    case HL_EVENT_ALLOC:
      return copy_varint (j, HL_COL_SIZE, d, limit, NULL) && copy_varint (j, HL_COL_STACK, d, limit, NULL)
             && copy_addr (j, d, limit);
    case HL_EVENT_ALLOC_ALIGNED:
      return copy_varint (j, HL_COL_SIZE, d, limit, NULL) && copy_varint (j, HL_COL_MISC, d, limit, NULL)
             && copy_varint (j, HL_COL_STACK, d, limit, NULL) && copy_addr (j, d, limit);
    case HL_EVENT_FREE:
      return copy_varint (j, HL_COL_FREE, d, limit, NULL);
    case HL_EVENT_FREE_ADDR:
      return copy_varint (j, HL_COL_MISC, d, limit, NULL);
    case HL_EVENT_REALLOC:
      return copy_varint (j, HL_COL_FREE, d, limit, NULL) && copy_varint (j, HL_COL_SIZE, d, limit, NULL)
             && copy_varint (j, HL_COL_STACK, d, limit, NULL) && copy_addr (j, d, limit);
    case HL_EVENT_REALLOC_ADDR:
      return copy_varint (j, HL_COL_MISC, d, limit, NULL) && copy_varint (j, HL_COL_SIZE, d, limit, NULL)
             && copy_varint (j, HL_COL_STACK, d, limit, NULL) && copy_addr (j, d, limit);
    default:
      {
        if (type == 0 || (type > HL_EVENT_ID_SKIP && type < HL_EVENT_FIRST_SKIPPABLE))
          return false;
        uint64_t n;
        const uint8_t *q = hl_varint_get (j->p[HL_COL_BODYLEN], j->end[HL_COL_BODYLEN], &n);
        if (q == NULL)
          return false;
        j->p[HL_COL_BODYLEN] = q;
        return copy_bytes (j, type == HL_EVENT_STACK ? HL_COL_STACKDEF : HL_COL_OTHER, d, limit, n);
      }
    }
}

/* ---- Join of a model frame ------------------------------------------- */

static bool
put_out (uint8_t **d, uint8_t *limit, const uint8_t *p, size_t n)
{
  if (n > (size_t) (limit - *d))
    return false;
  memcpy (*d, p, n);
  *d += n;
  return true;
}

/* The free of a FREE or REALLOC event in a model frame. */
static inline __attribute__ ((always_inline)) bool
join_model_free (Joiner *j, uint8_t **d, uint8_t *limit)
{
  HlTraceModel *m = j->model;
  uint64_t v, id;
  if (m->v4)
    {
      if (!copy_varint (j, HL_COL_FREE, d, limit, &v))
        return false;
      id = m->prev_id - (uint64_t) hl_zigzag_decode (v);
    }
  else
    {
      if (j->p[HL_COL_FID] >= j->end[HL_COL_FID])
        return false;
      unsigned t = *j->p[HL_COL_FID]++;
      bool six = hl_trace_model_has_last (m);
      if (t == (six ? HL_FTOK_PLAIN : HL_FTOK_RAW))
        {
          if (!copy_varint (j, HL_COL_FREE, d, limit, &v))
            return false;
          id = m->prev_id - (uint64_t) hl_zigzag_decode (v);
        }
      else
        {
          if (t == HL_FTOK_RAW && six)
            {
              /* 6.0: near the id freed last */
              uint8_t buf[HL_VARINT_MAX_BYTES], *bp = buf;
              if (!copy_varint (j, HL_COL_FREE, &bp, buf + sizeof buf, &v))
                return false;
              id = hl_trace_model_free_ref (m) - (uint64_t) hl_zigzag_decode (v);
            }
          else if (!hl_trace_model_fid (m, t, &id))
            return false;
          if (limit - *d >= HL_VARINT_MAX_BYTES)
            *d = hl_svarint_put (*d, (int64_t) (m->prev_id - id)); /* room for any */
          else
            {
              uint8_t buf[HL_VARINT_MAX_BYTES];
              if (!put_out (d, limit, buf, (size_t) (hl_svarint_put (buf, (int64_t) (m->prev_id - id)) - buf)))
                return false;
            }
        }
      hl_trace_model_fid_seen (m, id, t);
    }
  hl_trace_model_free_id (m, id);
  return true;
}

/* The size, stack and address of an allocation event; the type byte,
 * time and the fields before the size are written. */
static bool
join_model_alloc (Joiner *j, uint8_t type, uint8_t **d, uint8_t *limit)
{
  HlTraceModel *m = j->model;
  uint64_t v, size;
  if (type == HL_EVENT_REALLOC && !join_model_free (j, d, limit))
    return false;
  if (type == HL_EVENT_REALLOC_ADDR && !copy_varint (j, HL_COL_MISC, d, limit, NULL))
    return false;
  if (!copy_varint (j, HL_COL_SIZE, d, limit, &size))
    return false;
  if (type == HL_EVENT_ALLOC_ALIGNED && !copy_varint (j, HL_COL_MISC, d, limit, NULL))
    return false;
  if (j->p[HL_COL_MTOK] >= j->end[HL_COL_MTOK])
    return false;
  uint8_t tok = *j->p[HL_COL_MTOK]++;
  uint64_t stack;
  if (tok & HL_MTOK_STACK_RAW)
    {
      if (!copy_varint (j, HL_COL_STACK, d, limit, &v))
        return false;
      stack = m->prev_stack + (uint64_t) hl_zigzag_decode (v);
    }
  else
    {
      uint8_t buf[HL_VARINT_MAX_BYTES];
      stack = hl_trace_model_stack (m);
      if (!put_out (d, limit, buf, (size_t) (hl_svarint_put (buf, (int64_t) (stack - m->prev_stack)) - buf)))
        return false;
    }
  m->prev_stack = stack;
  unsigned t = tok & 0x7fu;
  uint64_t base = hl_pred_base (&m->pred, hl_pred_class (size), m->prev_addr), addr, delta = 0;
  if (t == HL_MTOK_ADDR_RAW)
    {
      uint8_t *at = *d;
      if (!copy_addr (j, d, limit))
        return false;
      hl_addr_delta_get (at, *d, &delta); /* as the splitter read it: a bad extra byte reads as 0 */
      addr = base + delta;
    }
  else
    {
      uint8_t buf[HL_VARINT_MAX_BYTES + 1];
      if (t == HL_MTOK_ADDR_LAST && hl_trace_model_has_last (m))
        {
          /* 6.0: the class's last address plus the addr column's delta */
          uint8_t *bp = buf;
          uint64_t chunk;
          if (!copy_addr (j, &bp, buf + sizeof buf) || hl_addr_delta_get (buf, bp, &delta) != bp)
            return false;
          addr = m->last[hl_model_chunk_class (size, &chunk)] + delta;
        }
      else if (!hl_trace_model_addr (m, size, t, &addr))
        return false;
      if (!put_out (d, limit, buf, (size_t) (hl_addr_delta_put (buf, addr - base) - buf)))
        return false;
    }
  hl_trace_model_alloc (m, size, stack, addr, t);
  return true;
}

/* The length varint of an event body, from BODYLEN. */
static bool
read_bodylen (Joiner *j, uint64_t *n)
{
  const uint8_t *q = hl_varint_get (j->p[HL_COL_BODYLEN], j->end[HL_COL_BODYLEN], n);
  if (q == NULL)
    return false;
  j->p[HL_COL_BODYLEN] = q;
  return true;
}

/* A STACK body in a model frame (see model_stack): its length comes from
 * BODYLEN in 4.0, and in 5.0 for form 0 only. */
static bool
join_model_stack (Joiner *j, uint8_t **d, uint8_t *limit)
{
  HlTraceModel *m = j->model;
  uint64_t n = 0;
  if (m->v4 && !read_bodylen (j, &n))
    return false;
  /* 6.0: the form byte comes with the counts */
  bool six = hl_trace_model_has_last (m);
  HlColumn cc = six ? HL_COL_STACKHDR : HL_COL_STACKDEF, fc = six ? HL_COL_STACKHDR : HL_COL_FTOK;
  if (j->p[fc] >= j->end[fc])
    return false;
  uint8_t form = *j->p[fc]++;
  uint8_t *body = *d;
  uint64_t v[4];
  if (form == 0)
    {
      if ((!m->v4 && !read_bodylen (j, &n)) || !copy_bytes (j, HL_COL_STACKDEF, d, limit, n))
        return false;
      v[0] = 0;
      hl_varint_get (body, *d, &v[0]);
      m->prev_stack += (uint64_t) hl_zigzag_decode (v[0]);
      m->stack_next = m->prev_stack + 1;
      m->stack_fresh = true;
      m->n_frames = 0;
      return true;
    }
  if (form != 1 && (form != 2 || m->v4))
    return false;
  /* 6.0: the counts come from their own column */
  for (int k = 0; k < (m->v4 ? 4 : 2); k++)
    {
      if (k == 0 && form == 2)
        {
          uint8_t buf[HL_VARINT_MAX_BYTES];
          v[0] = hl_zigzag_encode ((int64_t) (m->stack_next - m->prev_stack));
          if (!put_out (d, limit, buf, (size_t) (hl_varint_put (buf, v[0]) - buf)))
            return false;
        }
      else if (!copy_varint (j, cc, d, limit, &v[k]))
        return false;
    }
  if (!m->v4)
    {
      /* n_frames - n_shared, then n_shared: n_frames is written first */
      uint8_t sh[HL_VARINT_MAX_BYTES], *shp = sh, buf[HL_VARINT_MAX_BYTES];
      uint64_t n_new;
      const uint8_t *q = hl_varint_get (j->p[cc], j->end[cc], &n_new);
      if (q == NULL)
        return false;
      j->p[cc] = q;
      if (six)
        {
          /* the previous STACK's frames not shared */
          uint64_t pop;
          if ((q = hl_varint_get (j->p[cc], j->end[cc], &pop)) == NULL || pop > m->n_frames)
            return false;
          j->p[cc] = q;
          v[3] = m->n_frames - pop;
          shp = hl_varint_put (sh, v[3]);
        }
      else if (!copy_varint (j, cc, &shp, sh + sizeof sh, &v[3]))
        return false;
      if (n_new > HL_TRACE_MAX_FRAMES || v[3] > HL_TRACE_MAX_FRAMES)
        return false;
      v[2] = n_new + v[3];
      if (!put_out (d, limit, buf, (size_t) (hl_varint_put (buf, v[2]) - buf))
          || !put_out (d, limit, sh, (size_t) (shp - sh)))
        return false;
    }
  m->prev_stack += (uint64_t) hl_zigzag_decode (v[0]);
  m->stack_next = m->prev_stack + 1;
  m->stack_fresh = true;
  uint64_t frames[HL_TRACE_MAX_FRAMES];
  uint64_t nf = v[2], shared = v[3];
  if (nf > HL_TRACE_MAX_FRAMES || shared > nf || shared > m->n_frames)
    return false;
  uint32_t n_new = (uint32_t) (nf - shared);
  for (uint32_t k = 0; k < shared; k++)
    frames[n_new + k] = m->frames[m->n_frames - shared + k];
  unsigned ways = hl_trace_model_ways (m);
  for (uint32_t i = n_new; i-- > 0;)
    {
      if (j->p[HL_COL_FTOK] >= j->end[HL_COL_FTOK])
        return false;
      uint8_t t = *j->p[HL_COL_FTOK]++;
      uint64_t caller = i + 1 < nf ? frames[i + 1] : 0;
      if (t < ways)
        frames[i] = hl_trace_model_child (m, caller, t);
      else if (t == ways)
        {
          uint64_t dv;
          const uint8_t *q = hl_varint_get (j->p[HL_COL_STACKDEF], j->end[HL_COL_STACKDEF], &dv);
          if (q == NULL)
            return false;
          j->p[HL_COL_STACKDEF] = q;
          uint64_t base = i < m->n_frames ? m->frames[i] : 0;
          frames[i] = (six ? hl_trace_model_frame_ref (m, caller, base) : base) + (uint64_t) hl_zigzag_decode (dv);
        }
      else
        return false;
    }
  for (uint32_t i = 0; i < n_new; i++)
    {
      uint8_t buf[HL_VARINT_MAX_BYTES];
      int64_t dv = (int64_t) (frames[i] - (i < m->n_frames ? m->frames[i] : 0));
      if (!put_out (d, limit, buf, (size_t) (hl_svarint_put (buf, dv) - buf)))
        return false;
    }
  if (m->v4 && (uint64_t) (*d - body) != n)
    return false;
  hl_trace_model_stack_def (m, frames, (uint32_t) nf);
  return true;
}

static bool
join_model_event (Joiner *j, uint8_t **d, uint8_t *limit)
{
  HlTraceModel *m = j->model;
  if (j->p[HL_COL_TYPE] >= j->end[HL_COL_TYPE] || *d >= limit)
    return false;
  uint8_t b = *j->p[HL_COL_TYPE]++;
  *(*d)++ = b;
  /* the tallies of hl_trace_model_event: the events are counted by the
   * caller (type bytes read, less the ID_SKIPs), flags below */
  if (!(b & HL_EVENT_FLAG_NO_TIME))
    {
      uint64_t dt;
      if (!copy_varint (j, HL_COL_TIME, d, limit, &dt))
        return false;
      m->pk_time += dt;
    }
  uint8_t type = b & 0x7f;
  uint64_t v;
  switch (type)
    {
    case HL_EVENT_ALLOC:
    case HL_EVENT_ALLOC_ALIGNED:
    case HL_EVENT_REALLOC:
    case HL_EVENT_REALLOC_ADDR:
      return join_model_alloc (j, type, d, limit);
    case HL_EVENT_FREE:
      return join_model_free (j, d, limit);
    case HL_EVENT_FREE_ADDR:
      return copy_varint (j, HL_COL_MISC, d, limit, NULL);
    default:
      {
        if (type == 0 || (type > HL_EVENT_ID_SKIP && type < HL_EVENT_FIRST_SKIPPABLE))
          return false;
        m->pk_flags |= hl_model_event_flag (type);
        m->pk_events -= type == HL_EVENT_ID_SKIP;
        if (type == HL_EVENT_STACK)
          return join_model_stack (j, d, limit);
        uint64_t n;
        if (!read_bodylen (j, &n))
          return false;
        uint8_t *body = *d;
        if (!copy_bytes (j, HL_COL_OTHER, d, limit, n))
          return false;
        /* ID_SKIP: the body's varint, as the splitter read it (0 when it
         * is not one: such a packet was not split with the model anyway) */
        v = 0;
        if (type == HL_EVENT_ID_SKIP)
          {
            hl_varint_get (body, *d, &v);
            m->next_id += v;
          }
        return true;
      }
    }
}

int
hl_trace_columns_join (const uint8_t *const data[HL_COL_COUNT],
                       const size_t         len[HL_COL_COUNT],
                       uint8_t             *dst,
                       size_t               dst_size)
{
  static const size_t none[HL_COL_COUNT];
  return hl_trace_columns_join_planes (data, len, none, dst, dst_size);
}

int
hl_trace_columns_join_planes (const uint8_t *const data[HL_COL_COUNT],
                              const size_t         len[HL_COL_COUNT],
                              const size_t         split[HL_COL_COUNT],
                              uint8_t             *dst,
                              size_t               dst_size)
{
  return hl_trace_columns_join_any (data, len, split, HL_JOIN_COLUMNS, dst, dst_size);
}

static int join_columns (Joiner *j, uint8_t *dst, size_t dst_size);

int
hl_trace_columns_join_any (const uint8_t *const data[HL_COL_COUNT],
                           const size_t         len[HL_COL_COUNT],
                           const size_t         split[HL_COL_COUNT],
                           HlJoinKind           kind,
                           uint8_t             *dst,
                           size_t               dst_size)
{
  Joiner j;
  j.model = NULL;
  for (int i = 0; i < HL_COL_COUNT; i++)
    {
      static const uint8_t empty[1];
      /* an empty column may have no buffer (no arithmetic on NULL) */
      const uint8_t *base = data[i] != NULL ? data[i] : empty;
      size_t n = data[i] != NULL ? len[i] : 0;
      if (split[i] > n)
        return -1;
      j.planes[i] = split[i] > 0;
      j.p[i] = base;
      j.end[i] = base + (j.planes[i] ? split[i] : n);
      j.hp[i] = j.end[i];
      j.hend[i] = base + n;
      if (j.planes[i] && i != HL_COL_TIME && i != HL_COL_SIZE && i != HL_COL_STACK && i != HL_COL_ADDR
          && i != HL_COL_FREE && i != HL_COL_MISC)
        return -1;
    }
  if (kind != HL_JOIN_COLUMNS)
    {
      if ((j.model = hl_trace_model_new ()) == NULL)
        return -1;
      j.model->v4 = kind == HL_JOIN_MODEL_4;
      j.model->v5 = kind == HL_JOIN_MODEL_4 || kind == HL_JOIN_MODEL_5;
    }
  int rc = join_columns (&j, dst, dst_size);
  hl_trace_model_free (j.model);
  return rc;
}

static int
join_columns (Joiner *jp, uint8_t *dst, size_t dst_size)
{
  Joiner j = *jp;
  uint8_t *d = dst, *dend = dst + dst_size;
  while (j.p[HL_COL_CTRL] < j.end[HL_COL_CTRL])
    {
      uint8_t ctrl = *j.p[HL_COL_CTRL]++;
      if (ctrl == 0)
        {
          uint64_t n;
          const uint8_t *q = hl_varint_get (j.p[HL_COL_LEN], j.end[HL_COL_LEN], &n);
          if (q == NULL)
            return -1;
          j.p[HL_COL_LEN] = q;
          if (!copy_bytes (&j, HL_COL_RAW, &d, dend, n))
            return -1;
          continue;
        }
      if (ctrl != 1)
        return -1;
      uint8_t *hdr = d;
      if (!copy_bytes (&j, HL_COL_HEADER, &d, dend, HL_PACKET_HEADER_SIZE))
        return -1;
      uint32_t content_size;
      memcpy (&content_size, hdr + offsetof (HlPacketHeader, content_size), 4);
      if (content_size > (size_t) (dend - d))
        return -1;
      uint8_t *limit = d + content_size;
      if (j.model != NULL)
        {
          HlPacketHeader h;
          memcpy (&h, hdr, sizeof h);
          bool v5 = !j.model->v4;
          if (v5)
            hl_trace_model_header_pre (j.model, &h, -1);
          hl_trace_model_packet (j.model, h.tid, h.alloc_id_begin);
          const uint8_t *types = j.p[HL_COL_TYPE];
          while (d < limit)
            if (!join_model_event (&j, &d, limit))
              return -1;
          j.model->pk_events += (uint32_t) (j.p[HL_COL_TYPE] - types);
          if (v5)
            {
              hl_trace_model_header_post (j.model, &h, -1, h.time_begin_ns);
              h.crc32c ^= packet_crc (&h, hdr + HL_PACKET_HEADER_SIZE, content_size);
              memcpy (hdr, &h, sizeof h);
              hl_trace_model_header_done (j.model, &h);
            }
          continue;
        }
      while (d < limit)
        if (!join_event (&j, &d, limit))
          return -1;
    }
  for (int i = 0; i < HL_COL_COUNT; i++)
    if (j.p[i] != j.end[i] || j.hp[i] != j.hend[i])
      return -1;
  return d == dend ? 0 : -1;
}
