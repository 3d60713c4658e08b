/* hl-trace-columns-parse.c — the general parser of the columns split
 * (docs/trace-format.md 7c, 7d): any event cut at its field boundaries
 * into segments, and the model frame's tokens for it. The common events'
 * short paths are in hl-trace-columns-split.c. */

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

/* Moves one varint of the event to COL. */
static uint64_t
take_varint (Ev *e, HlColumn col)
{
  uint64_t v = 0;
  const uint8_t *q = e->bad ? NULL : hl_varint_get (e->p, e->end, &v);
  if (q == NULL || e->n == MAX_SEGS)
    {
      e->bad = true;
      return 0;
    }
  e->seg[e->n++] = (Seg) { col, e->p, (size_t) (q - e->p) };
  e->p = q;
  return v;
}

static void
take_addr (Ev *e)
{
  uint64_t v = take_varint (e, HL_COL_ADDR);
  if (!e->bad && (v & 1))
    {
      if (e->p >= e->end)
        e->bad = true;
      else
        {
          e->seg[e->n - 1].n++;
          e->p++;
        }
    }
}

/* Steps over a body field (kept in the body segment). */
static uint64_t
skip_varint (Ev *e)
{
  uint64_t v = 0;
  const uint8_t *q = e->bad ? NULL : hl_varint_get (e->p, e->end, &v);
  if (q == NULL)
    e->bad = true;
  else
    e->p = q;
  return v;
}

static void
skip_string (Ev *e)
{
  uint64_t n = skip_varint (e);
  if (!e->bad && n > (uint64_t) (e->end - e->p))
    e->bad = true;
  if (!e->bad)
    e->p += n;
}

/* The body of a non-allocation event: its length goes to BODYLEN. */
static void
take_body (Ev *e, uint8_t type)
{
  const uint8_t *start = e->p;
  switch (type)
    {
    case HL_EVENT_STACK:
      {
        skip_varint (e);
        skip_varint (e);
        uint64_t n_frames = skip_varint (e);
        uint64_t n_shared = skip_varint (e);
        if (n_frames > HL_TRACE_MAX_FRAMES || n_shared > n_frames)
          e->bad = true;
        for (uint64_t i = n_shared; i < n_frames && !e->bad; i++)
          skip_varint (e);
        break;
      }
    case HL_EVENT_MODULE:
      for (int i = 0; i < 4; i++)
        skip_varint (e);
      skip_string (e);
      skip_string (e);
      break;
    case HL_EVENT_THREAD:
      skip_varint (e);
      skip_varint (e);
      skip_string (e);
      break;
    case HL_EVENT_META_INT:
      skip_string (e);
      skip_varint (e);
      break;
    case HL_EVENT_META_STRING:
      skip_string (e);
      skip_string (e);
      break;
    case HL_EVENT_META_REMOVE:
    case HL_EVENT_MARK:
      skip_string (e);
      break;
    case HL_EVENT_COUNTERS:
      for (int i = 0; i < 4; i++)
        skip_varint (e);
      break;
    case HL_EVENT_DROPPED:
      skip_varint (e);
      skip_varint (e);
      break;
    case HL_EVENT_INFO:
      {
        uint64_t n = skip_varint (e);
        if (n > HL_TRACE_INFO_MAX_PAIRS)
          e->bad = true;
        for (uint64_t i = 0; i < 2 * n && !e->bad; i++)
          skip_string (e);
        break;
      }
    case HL_EVENT_END:
    case HL_EVENT_ID_SKIP:
      skip_varint (e);
      break;
    default:
      if (type >= HL_EVENT_FIRST_SKIPPABLE)
        skip_string (e); /* length + payload */
      else
        e->bad = true;
      break;
    }
  if (e->bad)
    return;
  size_t n = (size_t) (e->p - start);
  e->seg[e->n++] = (Seg) { HL_COL_BODYLEN, NULL, n };
  e->seg[e->n++] = (Seg) { type == HL_EVENT_STACK ? HL_COL_STACKDEF : HL_COL_OTHER, start, n };
}

/* Parses one event at E->p into segments. */
static void
parse_event (Ev *e)
{
  e->n = 0;
  uint8_t b = *e->p;
  e->seg[e->n++] = (Seg) { HL_COL_TYPE, e->p, 1 };
  e->p++;
  if (!(b & HL_EVENT_FLAG_NO_TIME))
    take_varint (e, HL_COL_TIME);
  uint8_t type = b & 0x7f;
  switch (type)
    {
    case HL_EVENT_ALLOC:
      take_varint (e, HL_COL_SIZE);
      take_varint (e, HL_COL_STACK);
      take_addr (e);
      break;
    case HL_EVENT_ALLOC_ALIGNED:
      take_varint (e, HL_COL_SIZE);
      take_varint (e, HL_COL_MISC);
      take_varint (e, HL_COL_STACK);
      take_addr (e);
      break;
    case HL_EVENT_FREE:
      take_varint (e, HL_COL_FREE);
      break;
    case HL_EVENT_FREE_ADDR:
      take_varint (e, HL_COL_MISC);
      break;
    case HL_EVENT_REALLOC:
      take_varint (e, HL_COL_FREE);
      take_varint (e, HL_COL_SIZE);
      take_varint (e, HL_COL_STACK);
      take_addr (e);
      break;
    case HL_EVENT_REALLOC_ADDR:
      take_varint (e, HL_COL_MISC);
      take_varint (e, HL_COL_SIZE);
      take_varint (e, HL_COL_STACK);
      take_addr (e);
      break;
    default:
      if (!e->bad)
        take_body (e, type);
      break;
    }
}

/* ---- The model (codec 3) ----------------------------------------------- */

static Seg *
seg_of (Ev *e, HlColumn col)
{
  for (int i = 0; i < e->n; i++)
    if (e->seg[i].col == col)
      return &e->seg[i];
  return NULL;
}

static uint64_t
seg_value (const Seg *s)
{
  uint64_t v = 0;
  if (s != NULL)
    hl_varint_get (s->p, s->p + s->n, &v); /* parse_event checked it */
  return v;
}

/* A STACK body in a model frame: its four counts as they were, then the
 * svarints of the new frames that the model does not predict, outermost
 * first; FTOK gets 1 and a token per new frame (outermost first: way w of
 * the caller's callees, or the ways' count: written). A body the model
 * cannot take (counts out of range, a non-canonical frame) stays as it
 * was, with FTOK 0. In 5.0 (codec 4) a body in the model's form has no
 * BODYLEN (the join knows where it ends), and form 2 is form 1 with the
 * id left out: the one after the id defined last. */
static void
model_stack (HlTraceModel *m, Ev *e)
{
  Seg *bs = seg_of (e, HL_COL_STACKDEF);
  if (bs == NULL)
    return; /* not reached: parse_event gave the body */
  const uint8_t *p = bs->p, *end = bs->p + bs->n;
  uint64_t v[4], frames[HL_TRACE_MAX_FRAMES], delta[HL_TRACE_MAX_FRAMES];
  const uint8_t *at[4]; /* the end of each count */
  for (int k = 0; k < 4; k++)
    {
      p = hl_varint_get (p, end, &v[k]); /* parse_event checked them */
      at[k] = p;
    }
  const uint8_t *id_end = at[0];
  m->prev_stack += (uint64_t) hl_zigzag_decode (v[0]);
  bool id_predicted = m->prev_stack == m->stack_next && id_end != NULL
                      && (size_t) (id_end - bs->p) == hl_varint_size (v[0]);
  m->stack_next = m->prev_stack + 1;
  m->stack_fresh = true;
  const uint8_t *hdr_end = p;
  uint64_t n = v[2], shared = v[3];
  bool ok = p != NULL && n <= HL_TRACE_MAX_FRAMES && shared <= n && shared <= m->n_frames;
  /* 5.0 writes n_frames - n_shared: n_frames must be canonical */
  ok = ok && (m->v4 || (size_t) (at[2] - at[1]) == hl_varint_size (n));
  /* 6.0 writes n_frames of the previous STACK - n_shared: n_shared too */
  ok = ok && (!hl_trace_model_has_last (m) || (size_t) (at[3] - at[2]) == hl_varint_size (shared));
  uint32_t n_new = ok ? (uint32_t) (n - shared) : 0;
  for (uint32_t i = 0; ok && i < n_new; i++)
    {
      const uint8_t *q = hl_varint_get (p, end, &delta[i]);
      ok = q != NULL && (size_t) (q - p) == hl_varint_size (delta[i]);
      p = q;
      if (ok)
        frames[i] = (i < m->n_frames ? m->frames[i] : 0) + (uint64_t) hl_zigzag_decode (delta[i]);
    }
  if (!ok || p != end)
    {
      e->ftok[0] = 0;
      /* 6.0: the form byte goes with the counts */
      e->seg[e->n++] = (Seg) { hl_trace_model_has_last (m) ? HL_COL_STACKHDR : HL_COL_FTOK, e->ftok, 1 };
      m->n_frames = 0;
      return;
    }
  for (uint32_t j = 0; j < shared; j++)
    frames[n_new + j] = m->frames[m->n_frames - shared + j];
  const uint8_t *from = bs->p;
  e->ftok[0] = 1;
  if (!m->v4)
    {
      Seg *ls = seg_of (e, HL_COL_BODYLEN);
      if (ls != NULL) /* always: parse_event gave it before the body */
        ls->col = SEG_DROPPED;
      if (id_predicted)
        {
          e->ftok[0] = 2;
          from = id_end;
        }
    }
  size_t hl = (size_t) (hdr_end - from), bl = hl, nt = 1;
  memcpy (e->body, from, hl);
  if (!m->v4)
    {
      /* id? flags (n_frames - n_shared) n_shared */
      bl = (size_t) (at[1] - from);
      memcpy (e->body, from, bl);
      bl = (size_t) (hl_varint_put (e->body + bl, n - shared) - e->body);
      if (hl_trace_model_has_last (m))
        bl = (size_t) (hl_varint_put (e->body + bl, m->n_frames - shared) - e->body);
      else
        {
          memcpy (e->body + bl, at[2], (size_t) (at[3] - at[2]));
          bl += (size_t) (at[3] - at[2]);
        }
    }
  /* 6.0: the counts in their own column (with the previous STACK's frames
   * not shared in place of n_shared), and a written frame as its
   * difference to the caller's most recent callee */
  bool six = hl_trace_model_has_last (m);
  size_t counts = six ? bl : 0;
  unsigned ways = hl_trace_model_ways (m);
  for (uint32_t i = n_new; i-- > 0;)
    {
      uint64_t caller = i + 1 < n ? frames[i + 1] : 0;
      unsigned w = 0;
      while (w < ways && hl_trace_model_child (m, caller, w) != frames[i])
        w++;
      if (w < ways)
        e->ftok[nt++] = (uint8_t) w;
      else
        {
          e->ftok[nt++] = (uint8_t) ways;
          uint64_t dv = six ? hl_zigzag_encode ((int64_t) (frames[i] - hl_trace_model_frame_ref (
                                                               m, caller, i < m->n_frames ? m->frames[i] : 0)))
                            : delta[i];
          bl = (size_t) (hl_varint_put (e->body + bl, dv) - e->body);
        }
    }
  bs->p = e->body + counts;
  bs->n = bl - counts;
  if (six)
    {
      /* the form byte, then the counts */
      e->hdr[0] = e->ftok[0];
      memcpy (e->hdr + 1, e->body, counts);
      e->seg[e->n++] = (Seg) { HL_COL_STACKHDR, e->hdr, counts + 1 };
      e->seg[e->n++] = (Seg) { HL_COL_FTOK, e->ftok + 1, nt - 1 };
    }
  else
    e->seg[e->n++] = (Seg) { HL_COL_FTOK, e->ftok, nt };
  hl_trace_model_stack_def (m, frames, (uint32_t) n);
}

/* The free of a FREE or REALLOC event (its free segment FS): in a 5.0
 * model frame its id leaves the free column when the cursors predict it,
 * and the event gets a FID segment. */
static void
model_free (HlTraceModel *m, Ev *e, Seg *fs)
{
  uint64_t v = seg_value (fs);
  uint64_t id = m->prev_id - (uint64_t) hl_zigzag_decode (v);
  if (!m->v4 && fs != NULL)
    {
      unsigned t = hl_trace_model_fid_find (m, id);
      bool canonical = fs->n == hl_varint_size (v);
      if (t != HL_FTOK_RAW && canonical)
        fs->col = SEG_DROPPED;
      else if (hl_trace_model_has_last (m))
        {
          /* 6.0: near the id freed last, or the bytes as they were */
          t = canonical ? HL_FTOK_RAW : HL_FTOK_PLAIN;
          if (canonical)
            {
              fs->p = e->freed;
              fs->n = (size_t) (hl_svarint_put (e->freed, (int64_t) (hl_trace_model_free_ref (m) - id)) - e->freed);
            }
        }
      else
        t = HL_FTOK_RAW;
      hl_trace_model_fid_seen (m, id, t);
      e->fid = (uint8_t) t;
      e->seg[e->n++] = (Seg) { HL_COL_FID, &e->fid, 1 };
    }
  hl_trace_model_free_id (m, id);
}

/* Runs the model over one parsed event: drops the stack and address
 * segments it predicts (when their bytes are the canonical encoding of the
 * prediction) and adds the MTOK segment. */
static void
model_event (HlTraceModel *m, Ev *e)
{
  uint8_t b = *e->seg[0].p, type = b & 0x7f;
  hl_trace_model_event (m, type, b & HL_EVENT_FLAG_NO_TIME ? 0 : seg_value (seg_of (e, HL_COL_TIME)));
  switch (type)
    {
    case HL_EVENT_FREE:
      model_free (m, e, seg_of (e, HL_COL_FREE));
      return;
    case HL_EVENT_STACK:
      model_stack (m, e);
      return;
    case HL_EVENT_ID_SKIP:
      m->next_id += seg_value (seg_of (e, HL_COL_OTHER));
      return;
    case HL_EVENT_ALLOC:
    case HL_EVENT_ALLOC_ALIGNED:
    case HL_EVENT_REALLOC:
    case HL_EVENT_REALLOC_ADDR:
      break;
    default:
      return;
    }
  if (type == HL_EVENT_REALLOC)
    model_free (m, e, seg_of (e, HL_COL_FREE));
  uint64_t size = seg_value (seg_of (e, HL_COL_SIZE));
  Seg *ss = seg_of (e, HL_COL_STACK), *as = seg_of (e, HL_COL_ADDR);
  if (ss == NULL || as == NULL)
    return; /* not reached: parse_event gave every allocation both */
  uint64_t zz = seg_value (ss);
  uint64_t stack = m->prev_stack + (uint64_t) hl_zigzag_decode (zz);
  uint8_t tok = HL_MTOK_STACK_RAW;
  if (stack == hl_trace_model_stack (m) && ss->n == hl_varint_size (zz))
    {
      tok = 0;
      ss->col = SEG_DROPPED;
    }
  m->prev_stack = stack;
  uint64_t d = 0;
  hl_addr_delta_get (as->p, as->p + as->n, &d); /* parse_event checked the varint; a bad extra byte reads as 0 */
  uint64_t base = hl_pred_base (&m->pred, hl_pred_class (size), m->prev_addr);
  uint64_t addr = base + d;
  unsigned t = hl_trace_model_find (m, size, addr);
  uint8_t buf[HL_VARINT_MAX_BYTES + 1];
  size_t n = (size_t) (hl_addr_delta_put (buf, d) - buf);
  bool canonical = n == as->n && memcmp (buf, as->p, n) == 0;
  if (!canonical)
    t = HL_MTOK_ADDR_RAW; /* the bytes as they were */
  else if (t != HL_MTOK_ADDR_RAW)
    as->col = SEG_DROPPED;
  else if (hl_trace_model_has_last (m))
    {
      /* 6.0: near the class's last address */
      uint64_t chunk;
      unsigned cls = hl_model_chunk_class (size, &chunk);
      t = HL_MTOK_ADDR_LAST;
      as->p = e->addr;
      as->n = (size_t) (hl_addr_delta_put (e->addr, addr - m->last[cls]) - e->addr);
    }
  hl_trace_model_alloc (m, size, stack, addr, t);
  e->tok = (uint8_t) (tok | t);
  e->seg[e->n++] = (Seg) { HL_COL_MTOK, &e->tok, 1 };
}

void
hl_trace_columns_parse_event (Ev *e)
{
  parse_event (e);
}

void
hl_trace_columns_model_event (HlTraceModel *m,
                              Ev           *e)
{
  model_event (m, e);
}
