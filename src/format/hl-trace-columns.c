/* hl-trace-columns.c — split a run of plain trace bytes into columns and
 * join them back (hl-trace-columns.h, docs/trace-format.md 7c). */

#include "private/hl-trace-columns.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "hl-crc32c.h"
#include "private/hl-trace-encode-private.h"
#include "hl-trace-format.h"
#include "private/hl-trace-model.h"
#include "private/hl-varint.h"

static const char *const names[HL_COL_COUNT] = {
  "ctrl", "header", "type", "time", "size", "stack", "addr", "free",
  "misc", "bodylen", "stackdef", "other", "len", "raw", "mtok", "ftok", "fid", "stackhdr",
};

const char *
hl_column_name (HlColumn col)
{
  return (unsigned) col < HL_COL_COUNT ? names[col] : "?";
}

void
hl_trace_columns_clear (HlColumns *c)
{
  for (int i = 0; i < HL_COL_COUNT; i++)
    free (c->data[i]);
  memset (c, 0, sizeof *c);
}

/* Room for N more bytes in COL. */
static int
grow (HlColumns *c, HlColumn col, size_t n)
{
  if (c->len[col] + n > c->cap[col])
    {
      size_t cap = c->cap[col] ? c->cap[col] : 4096;
      while (cap < c->len[col] + n)
        cap *= 2;
      uint8_t *d = realloc (c->data[col], cap);
      if (d == NULL)
        return -1;
      c->data[col] = d;
      c->cap[col] = cap;
    }
  return 0;
}

static int
put (HlColumns *c, HlColumn col, const uint8_t *p, size_t n)
{
  if (grow (c, col, n) != 0)
    return -1;
  if (n > 0)
    memcpy (c->data[col] + c->len[col], p, n);
  c->len[col] += n;
  return 0;
}

/* ---- Split ------------------------------------------------------------ */

typedef struct
{
  HlColumn       col;
  const uint8_t *p;
  size_t         n;
} Seg;

#define MAX_SEGS 9
#define SEG_DROPPED HL_COL_COUNT /* a segment the model predicts */

typedef struct
{
  Seg            seg[MAX_SEGS];
  int            n;
  const uint8_t *p, *end;
  bool           bad;
  uint8_t        tok;           /* the MTOK byte of a model frame */
  uint8_t        fid;           /* the FID byte of a 5.0 model frame */
  uint8_t        addr[HL_VARINT_MAX_BYTES + 1]; /* a 6.0 HL_MTOK_ADDR_LAST's addrdelta */
  uint8_t        freed[HL_VARINT_MAX_BYTES];     /* a 6.0 HL_FTOK_RAW's svarint */
  uint8_t        hdr[1 + 4 * HL_VARINT_MAX_BYTES]; /* a 6.0 STACK's form and counts */
  uint8_t        ftok[1 + HL_TRACE_MAX_FRAMES];          /* a STACK's FTOK bytes */
  uint8_t        body[4 * HL_VARINT_MAX_BYTES + HL_VARINT_MAX_BYTES * HL_TRACE_MAX_FRAMES];
} Ev;

/* Not a zeroing initializer: Ev holds kilobytes of scratch space. */
static inline void
ev_init (Ev *e, const uint8_t *p, const uint8_t *end)
{
  e->n = 0;
  e->p = p;
  e->end = end;
  e->bad = false;
  e->tok = 0;
}

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

static int
put_varint (HlColumns *c, HlColumn col, uint64_t v)
{
  uint8_t buf[HL_VARINT_MAX_BYTES];
  return put (c, col, buf, (size_t) (hl_varint_put (buf, v) - buf));
}

/* Room for N more bytes in every column: no column gets more bytes out
 * of a packet than the packet has (a length varint is never longer than
 * what it counts). */
static int
reserve (HlColumns *c, size_t n)
{
  for (int i = 0; i < HL_COL_COUNT; i++)
    if (grow (c, (HlColumn) i, n) != 0)
      return -1;
  return 0;
}

/* Appends [FROM, TO) to COL, which has room (reserve). */
static inline void
emit (HlColumns *c, HlColumn col, const uint8_t *from, const uint8_t *to)
{
  uint8_t *d = c->data[col] + c->len[col];
  size_t k = (size_t) (to - from);
  if (k == 1)
    *d = *from;
  else
    memcpy (d, from, k);
  c->len[col] += k;
}

/* ALLOC and FREE, most of a trace, straight into their columns: the byte
 * after the event, or NULL for any other event or a malformed one, which
 * parse_event then takes (and finds malformed). */
static inline const uint8_t *
split_hot (const uint8_t *p, const uint8_t *end, HlColumns *c)
{
  uint8_t b = *p, type = b & 0x7f;
  if (type != HL_EVENT_ALLOC && type != HL_EVENT_FREE)
    return NULL;
  const uint8_t *q = p + 1, *t = q;
  uint64_t v;
  if (!(b & HL_EVENT_FLAG_NO_TIME) && (t = hl_varint_get (q, end, &v)) == NULL)
    return NULL;
  if (type == HL_EVENT_FREE)
    {
      const uint8_t *f = hl_varint_get (t, end, &v);
      if (f == NULL)
        return NULL;
      emit (c, HL_COL_TYPE, p, q);
      emit (c, HL_COL_TIME, q, t);
      emit (c, HL_COL_FREE, t, f);
      return f;
    }
  const uint8_t *z = hl_varint_get (t, end, &v);
  const uint8_t *k = z ? hl_varint_get (z, end, &v) : NULL;
  const uint8_t *a = k ? hl_varint_get (k, end, &v) : NULL;
  if (a == NULL)
    return NULL;
  if (v & 1)
    {
      if (a >= end)
        return NULL;
      a++;
    }
  emit (c, HL_COL_TYPE, p, q);
  emit (c, HL_COL_TIME, q, t);
  emit (c, HL_COL_SIZE, t, z);
  emit (c, HL_COL_STACK, z, k);
  emit (c, HL_COL_ADDR, k, a);
  return a;
}

/* Splits the packet's events; false (nothing kept) when one is malformed. */
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

/* ---- Model frames: the short paths of ALLOC, FREE and REALLOC ---------
 * Most of a trace, split as model_event would, without segments: one
 * decode of each varint, straight into the columns through write
 * pointers of its own (a byte store through a column's pointer would make
 * the compiler reload every pointer kept in memory). Only for the model of
 * 6.0 (the splitter's: hl_trace_model_new), and only for events that the
 * packet's first pass found well-formed. */

/* Room for a packet of N bytes in the short paths (beyond reserve's):
 * an address written near the class's last takes up to 11 bytes for an
 * allocation of at least 4, a freed id up to 10 for a FREE of at least
 * 2 (a REALLOC of at least 5 writes both). */
#define ADDR_ROOM(n) (3 * (n) + 16)
#define FREE_ROOM(n) (5 * (n) + 16)

/* Whether the varint [P, Q) (well-formed) is the canonical encoding of its
 * value (hl_varint_size of it bytes): a longer one ends in a 0 byte. */
static inline bool
varint_canonical (const uint8_t *p, const uint8_t *q)
{
  return q - p == 1 || q[-1] != 0;
}

/* Copies the field [FROM, TO) (1..11 bytes of the packet that ends at
 * END) to W, which has 16 bytes of room past what the packet can give it:
 * 16 bytes at once when the packet has them. */
static inline uint8_t *
copy_field (uint8_t *w, const uint8_t *from, const uint8_t *to, const uint8_t *end)
{
  size_t k = (size_t) (to - from);
  if (end - from >= 16)
    memcpy (w, from, 16);
  else
    memcpy (w, from, k);
  return w + k;
}

typedef struct
{
  uint8_t *type, *time, *size, *stack, *addr, *free, *mtok, *fid;
} Writers;

/* hl_zigzag_decode of a one-byte varint V (0..127), and the high part of
 * an addrdelta of one byte V (hl_addr_delta_get: zigzag (V >> 1) << 4),
 * as tables: one load in place of four or five operations on the short
 * paths' one-byte varints. */
#define ZZ1(v)  ((int8_t) (((v) >> 1) ^ -((v) & 1)))
#define ZZ4(v)  ZZ1 (v), ZZ1 (v + 1), ZZ1 (v + 2), ZZ1 (v + 3)
#define ZZ16(v) ZZ4 (v), ZZ4 (v + 4), ZZ4 (v + 8), ZZ4 (v + 12)
#define ZZ64(v) ZZ16 (v), ZZ16 (v + 16), ZZ16 (v + 32), ZZ16 (v + 48)
static const int8_t zigzag_byte[128] = { ZZ64 (0), ZZ64 (64) };
#define AD1(v)  ((int16_t) (ZZ1 ((v) >> 1) * 16))
#define AD4(v)  AD1 (v), AD1 (v + 1), AD1 (v + 2), AD1 (v + 3)
#define AD16(v) AD4 (v), AD4 (v + 4), AD4 (v + 8), AD4 (v + 12)
#define AD64(v) AD16 (v), AD16 (v + 16), AD16 (v + 32), AD16 (v + 48)
static const int16_t addr_delta_byte[128] = { AD64 (0), AD64 (64) };

/* The free of a FREE or REALLOC, its id delta the svarint at F, as
 * model_free does for 6.0; returns the byte after it. BYTES: the varint's
 * length when the caller knows it, 1 (canonical) or 2 (the common cases,
 * python3 and churn), else 0; the compiler makes each known length a path
 * of its own (always_inline, a constant). */
static inline __attribute__ ((always_inline)) const uint8_t *
fast_free (HlTraceModel *m, Writers *w, const uint8_t *f, const uint8_t *end, unsigned bytes)
{
  uint64_t v;
  const uint8_t *fe;
  if (bytes == 1)
    {
      v = *f;
      fe = f + 1;
    }
  else if (bytes == 2)
    {
      v = (f[0] & 0x7fu) | (uint64_t) f[1] << 7;
      fe = f + 2;
    }
  else
    fe = hl_varint_get_checked (f, &v);
  uint64_t id = m->prev_id - (uint64_t) (bytes == 1 ? zigzag_byte[v] : hl_zigzag_decode (v));
  unsigned t = hl_trace_model_fid_find (m, id);
  bool canonical = bytes == 1 || (bytes == 2 ? f[1] != 0 : varint_canonical (f, fe));
  if (t == HL_FTOK_RAW || !canonical)
    {
      if (canonical)
        {
          /* near the id freed last */
          t = HL_FTOK_RAW;
          w->free = hl_svarint_put (w->free, (int64_t) (hl_trace_model_free_ref (m) - id));
        }
      else
        {
          t = HL_FTOK_PLAIN; /* the bytes as they were */
          w->free = copy_field (w->free, f, fe, end);
        }
    }
  hl_trace_model_fid_seen (m, id, t);
  *w->fid++ = (uint8_t) t;
  hl_trace_model_free_id (m, id);
  return fe;
}

/* The allocation of an ALLOC or REALLOC (after a REALLOC's free), its
 * size, stack and address from T on, as model_event does for 6.0;
 * returns the byte after the event. SIZE_BYTES 1 or 2: the size's varint
 * is that long and the stack's and address's one byte each (canonical,
 * and an addrdelta of one byte needs no check of its length), the common
 * cases (python3: 4.2 M and 0.5 M of 5.3 M), each a path of its own as
 * in fast_free; 0: any. */
static inline __attribute__ ((always_inline)) const uint8_t *
fast_alloc (HlTraceModel *m, Writers *w, const uint8_t *t, const uint8_t *end, unsigned size_bytes)
{
  /* the short form: the size in SIZE_BYTES, the stack and the address in
   * one byte each */
  bool short_form = size_bytes != 0;
  uint64_t size, zz, av;
  const uint8_t *z, *k, *a;
  if (short_form)
    {
      size = size_bytes == 1 ? t[0] : (t[0] & 0x7fu) | (uint64_t) t[1] << 7;
      for (unsigned i = 0; i < size_bytes; i++)
        *w->size++ = t[i];
      z = t + size_bytes;
      zz = z[0];
      av = z[1];
      k = z + 1;
      a = z + 2;
    }
  else
    {
      z = hl_varint_get_checked (t, &size);
      k = hl_varint_get_checked (z, &zz);
      a = hl_varint_get_checked (k, &av);
      w->size = copy_field (w->size, t, z, end);
    }
  const uint8_t *ae = a + (av & 1);
  /* the model's entries for this allocation, found once */
  HlModelSize ms = hl_model_size (size);
  unsigned succ = hl_model_thread_succ (m);
  /* the stack */
  uint64_t stack = m->prev_stack + (uint64_t) (short_form ? zigzag_byte[zz] : hl_zigzag_decode (zz));
  unsigned site = hl_model_site_index (stack);
  uint8_t tok = HL_MTOK_STACK_RAW;
  if (stack == hl_model_stack_in (m, succ) && (short_form || varint_canonical (z, k)))
    tok = 0;
  else if (short_form)
    *w->stack++ = *z;
  else
    w->stack = copy_field (w->stack, z, k, end);
  m->prev_stack = stack;
  /* the address; a bad extra byte reads as 0, and is not canonical; a
   * long varint may hold more than an addrdelta gives back */
  uint64_t d = short_form ? (uint64_t) (int64_t) addr_delta_byte[av] : (uint64_t) hl_zigzag_decode (av >> 1) << 4;
  bool canonical = short_form || varint_canonical (k, a);
  if (av & 1)
    {
      /* hl_addr_delta_get: the extra byte, 1..15 */
      if (*a >= 1 && *a <= 15)
        d |= *a;
      else
        d = 0, canonical = false;
    }
  if (!short_form && canonical && a - k >= 8)
    {
      uint8_t buf[HL_VARINT_MAX_BYTES + 1];
      size_t bn = (size_t) (hl_addr_delta_put (buf, d) - buf);
      canonical = bn == (size_t) (ae - k) && memcmp (buf, k, bn) == 0;
    }
  uint64_t addr = hl_pred_base (&m->pred, hl_model_size_pred_class (ms), m->prev_addr) + d;
  unsigned at = hl_model_find_in (m, hl_model_size_class (ms), site, addr); /* prev_stack is stack */
  if (!canonical)
    {
      at = HL_MTOK_ADDR_RAW; /* the bytes as they were */
      w->addr = copy_field (w->addr, k, ae, end);
    }
  else if (at == HL_MTOK_ADDR_RAW)
    {
      /* near the class's last address */
      at = HL_MTOK_ADDR_LAST;
      w->addr = hl_addr_delta_put (w->addr, addr - m->last[hl_model_size_class (ms)]);
    }
  hl_model_alloc_in (m, ms, succ, site, stack, addr, at);
  *w->mtok++ = (uint8_t) (tok | at);
  return ae;
}

/* Splits the ALLOC, FREE and REALLOC events from P (all well-formed) up
 * to the first other event or END; returns where it stopped. The columns
 * have room (split_events). */
static const uint8_t *
fast_run (HlTraceModel *m, HlColumns *c, const uint8_t *p, const uint8_t *end)
{
  Writers w = {
    c->data[HL_COL_TYPE] + c->len[HL_COL_TYPE],   c->data[HL_COL_TIME] + c->len[HL_COL_TIME],
    c->data[HL_COL_SIZE] + c->len[HL_COL_SIZE],   c->data[HL_COL_STACK] + c->len[HL_COL_STACK],
    c->data[HL_COL_ADDR] + c->len[HL_COL_ADDR],   c->data[HL_COL_FREE] + c->len[HL_COL_FREE],
    c->data[HL_COL_MTOK] + c->len[HL_COL_MTOK],   c->data[HL_COL_FID] + c->len[HL_COL_FID],
  };
  /* hl_trace_model_event, kept here and added once: these types set no
   * packet flag, and each is one byte of the type column */
  uint8_t *types = w.type;
  uint64_t time = 0;
  while (p < end)
    {
      uint8_t b = *p, type = b & 0x7f;
      /* the most common events (FREE and ALLOC without a time) first,
       * tested on the whole byte */
      if (b == (HL_EVENT_FREE | HL_EVENT_FLAG_NO_TIME))
        {
          *w.type++ = b;
          p = p[1] < 0x80   ? fast_free (m, &w, p + 1, end, 1)
              : p[2] < 0x80 ? fast_free (m, &w, p + 1, end, 2) /* the varint goes on: p[2] is in it */
                            : fast_free (m, &w, p + 1, end, 0);
          continue;
        }
      if (b == (HL_EVENT_ALLOC | HL_EVENT_FLAG_NO_TIME))
        {
          *w.type++ = b;
          /* (each byte read lies in the event: a varint's byte with bit 7
           * set has one after it, and three varints follow the type) */
          p = ((p[1] | p[2] | p[3]) & 0x80) == 0                     ? fast_alloc (m, &w, p + 1, end, 1)
              : p[1] >= 0x80 && ((p[2] | p[3] | p[4]) & 0x80) == 0 ? fast_alloc (m, &w, p + 1, end, 2)
                                                                     : fast_alloc (m, &w, p + 1, end, 0);
          continue;
        }
      if (type != HL_EVENT_FREE && type != HL_EVENT_ALLOC && type != HL_EVENT_REALLOC)
        break;
      const uint8_t *q = p + 1, *t = q;
      if (!(b & HL_EVENT_FLAG_NO_TIME))
        {
          uint64_t dt;
          t = hl_varint_get_checked (q, &dt);
          w.time = copy_field (w.time, q, t, end);
          time += dt;
        }
      *w.type++ = b;
      /* a FREE, a REALLOC's free, then the allocation; the varints
       * exist (well-formed events): reading their first bytes is safe */
      if (type != HL_EVENT_ALLOC)
        {
          t = fast_free (m, &w, t, end, 0);
          if (type == HL_EVENT_FREE)
            {
              p = t;
              continue;
            }
        }
      p = fast_alloc (m, &w, t, end, 0);
    }
  m->pk_time += time;
  m->pk_events += (uint32_t) (w.type - types);
  c->len[HL_COL_TYPE] = (size_t) (w.type - c->data[HL_COL_TYPE]);
  c->len[HL_COL_TIME] = (size_t) (w.time - c->data[HL_COL_TIME]);
  c->len[HL_COL_SIZE] = (size_t) (w.size - c->data[HL_COL_SIZE]);
  c->len[HL_COL_STACK] = (size_t) (w.stack - c->data[HL_COL_STACK]);
  c->len[HL_COL_ADDR] = (size_t) (w.addr - c->data[HL_COL_ADDR]);
  c->len[HL_COL_FREE] = (size_t) (w.free - c->data[HL_COL_FREE]);
  c->len[HL_COL_MTOK] = (size_t) (w.mtok - c->data[HL_COL_MTOK]);
  c->len[HL_COL_FID] = (size_t) (w.fid - c->data[HL_COL_FID]);
  return p;
}

/* The byte after the event at P when it is well-formed (as parse_event
 * finds it), else NULL, by parse_event itself (event_end checks the
 * common types without it). */
static const uint8_t *
event_end_slow (const uint8_t *p, const uint8_t *end)
{
  Ev e;
  ev_init (&e, p, end);
  parse_event (&e);
  return e.bad ? NULL : e.p;
}

/* The byte after a varint at P that hl_varint_get would accept, or NULL;
 * without its value. */
static inline const uint8_t *
varint_skip (const uint8_t *p, const uint8_t *end)
{
  if (p < end && *p < 0x80)
    return p + 1;
  uint64_t v;
  return hl_varint_get (p, end, &v);
}

/* The byte after a STACK body at P (as take_body steps over it), or
 * NULL. */
static const uint8_t *
stack_body_end (const uint8_t *p, const uint8_t *end)
{
  uint64_t v, n_frames, n_shared;
  if ((p = hl_varint_get (p, end, &v)) == NULL || (p = hl_varint_get (p, end, &v)) == NULL
      || (p = hl_varint_get (p, end, &n_frames)) == NULL || (p = hl_varint_get (p, end, &n_shared)) == NULL)
    return NULL;
  if (n_frames > HL_TRACE_MAX_FRAMES || n_shared > n_frames)
    return NULL;
  for (uint64_t i = n_shared; i < n_frames && p != NULL; i++)
    p = varint_skip (p, end);
  return p;
}

/* ALLOC, FREE, REALLOC and STACK (python3: 0.5 M STACKs) checked here,
 * without parse_event's segments; the others parsed. */
static inline const uint8_t *
event_end (const uint8_t *p, const uint8_t *end)
{
  uint8_t b = *p, type = b & 0x7f;
  const uint8_t *q = p + 1;
  if (type != HL_EVENT_ALLOC && type != HL_EVENT_FREE && type != HL_EVENT_REALLOC && type != HL_EVENT_STACK)
    return event_end_slow (p, end);
  if (!(b & HL_EVENT_FLAG_NO_TIME) && (q = varint_skip (q, end)) == NULL)
    return NULL;
  if (type == HL_EVENT_FREE)
    return varint_skip (q, end);
  if (type == HL_EVENT_STACK)
    return stack_body_end (q, end);
  if (type == HL_EVENT_REALLOC && (q = varint_skip (q, end)) == NULL)
    return NULL;
  if ((q = varint_skip (q, end)) == NULL || (q = varint_skip (q, end)) == NULL)
    return NULL;
  /* the address: an extra byte when its value's low bit (the first
   * byte's) is set */
  const uint8_t *a = q;
  if ((q = varint_skip (q, end)) == NULL)
    return NULL;
  if (*a & 1)
    {
      if (q >= end)
        return NULL;
      q++;
    }
  return q;
}

/* Tests: every event through parse_event and model_event. */
static bool slow_only;

/* The 8 bytes at P as a little-endian word. */
static inline uint64_t
load_le64 (const uint8_t *p)
{
  uint64_t w;
  memcpy (&w, p, sizeof w);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  w = __builtin_bswap64 (w);
#endif
  return w;
}

/* The byte after the event at P when it is a FREE or an ALLOC without a
 * time whose varints end within WORD, its first 8 bytes (the packet has 9
 * from P on), else NULL (event_end then tells): the varints' last bytes
 * are WORD's bytes with bit 7 clear, after the type byte, so that their
 * ends come out of one mask. */
static inline const uint8_t *
common_event_end (const uint8_t *p, uint64_t word)
{
  /* most often (python3) the varints are one byte each */
  if ((word & 0x80ffu) == (HL_EVENT_FREE | HL_EVENT_FLAG_NO_TIME))
    return p + 2;
  if ((word & 0x808080ffu) == (HL_EVENT_ALLOC | HL_EVENT_FLAG_NO_TIME))
    return p + 4 + ((word >> 24) & 1); /* the address's extra byte */
  uint64_t ends = ~word & 0x8080808080808000u;
  uint8_t type = (uint8_t) word;
  if (type == (HL_EVENT_FREE | HL_EVENT_FLAG_NO_TIME))
    return ends != 0 ? p + (__builtin_ctzll (ends) >> 3) + 1 : NULL;
  if (type != (HL_EVENT_ALLOC | HL_EVENT_FLAG_NO_TIME))
    return NULL;
  ends &= ends - 1; /* past the size */
  if (ends == 0)
    return NULL;
  unsigned stack_end = (unsigned) __builtin_ctzll (ends) >> 3;
  ends &= ends - 1;
  if (ends == 0)
    return NULL;
  unsigned addr_end = (unsigned) __builtin_ctzll (ends) >> 3;
  /* the address's extra byte, when its first byte's bit 0 is set */
  unsigned extra = (unsigned) (word >> ((stack_end + 1) * 8)) & 1u;
  return p + addr_end + 1 + extra;
}

/* Whether every event of [P, END) is well-formed (as parse_event finds
 * it). Out of line: once a packet, and split_events' registers stay with
 * fast_run. */
static __attribute__ ((noinline)) bool
events_well_formed (const uint8_t *p, const uint8_t *end)
{
  /* the common events are read a word at a time while 9 bytes remain */
  const uint8_t *words_end = !slow_only && end - p >= 9 ? end - 8 : p;
  while (p < end)
    {
      const uint8_t *next;
      while (p < words_end && (next = common_event_end (p, load_le64 (p))) != NULL)
        p = next;
      if (p >= end)
        break;
      if ((p = slow_only ? event_end_slow (p, end) : event_end (p, end)) == NULL)
        return false;
    }
  return true;
}

/* Splits the packet's events; false (nothing kept) when one is malformed.
 * With a model M, a first pass checks every event before the model sees
 * one, so that a packet kept verbatim leaves the model as the joiner's. */
static int
split_events (const uint8_t *p, const uint8_t *end, HlColumns *c, HlTraceModel *m,
              const HlPacketHeader *h, bool *ok)
{
  size_t saved[HL_COL_COUNT];
  memcpy (saved, c->len, sizeof saved);
  *ok = false;
  if (reserve (c, (size_t) (end - p) + 16) != 0)
    return -1;
  bool fast = false;
  if (m != NULL)
    {
      if (!events_well_formed (p, end))
        return 0;
      hl_trace_model_packet (m, h->tid, h->alloc_id_begin);
      fast = hl_trace_model_has_last (m) && !slow_only;
      size_t n = (size_t) (end - p);
      if (fast && (grow (c, HL_COL_ADDR, ADDR_ROOM (n)) != 0 || grow (c, HL_COL_FREE, FREE_ROOM (n)) != 0))
        return -1;
    }
  while (p < end)
    {
      /* the model sees every event: the short path is for plain columns */
      const uint8_t *next = m == NULL ? split_hot (p, end, c) : NULL;
      if (next != NULL)
        {
          p = next;
          continue;
        }
      if (fast)
        {
          const uint8_t *stop = fast_run (m, c, p, end);
          if (stop != p)
            {
              p = stop;
              continue;
            }
        }
      Ev e;
      ev_init (&e, p, end);
      parse_event (&e);
      if (e.bad)
        {
          memcpy (c->len, saved, sizeof saved);
          return 0;
        }
      if (m != NULL)
        model_event (m, &e);
      for (int i = 0; i < e.n; i++)
        {
          if (e.seg[i].col == SEG_DROPPED)
            continue;
          int rc = e.seg[i].p == NULL ? put_varint (c, e.seg[i].col, e.seg[i].n)
                                      : put (c, e.seg[i].col, e.seg[i].p, e.seg[i].n);
          if (rc != 0)
            return -1;
        }
      p = e.p;
    }
  *ok = true;
  return 0;
}

/* The CRC-32C of a packet: H with its crc32c field 0, then CONTENT. */
static uint32_t
packet_crc (const HlPacketHeader *h, const uint8_t *content, size_t n)
{
  HlPacketHeader z = *h;
  z.crc32c = 0;
  return hl_crc32c (hl_crc32c (0, &z, sizeof z), content, n);
}

static int
put_verbatim (HlColumns *c, const uint8_t *p, size_t n)
{
  uint8_t ctrl = 0;
  if (put (c, HL_COL_CTRL, &ctrl, 1) != 0 || put_varint (c, HL_COL_LEN, n) != 0)
    return -1;
  return put (c, HL_COL_RAW, p, n);
}

static int split_any (const uint8_t *raw, size_t n, HlColumns *c, HlTraceModel *model);

int
hl_trace_columns_split (const uint8_t *raw, size_t n, HlColumns *c)
{
  return split_any (raw, n, c, NULL);
}

int
hl_trace_columns_split_with (const uint8_t *raw, size_t n, HlColumns *c, HlTraceModel *model)
{
  return split_any (raw, n, c, model);
}

int
hl_trace_columns_split_reference (const uint8_t *raw, size_t n, HlColumns *c, HlTraceModel *model)
{
  slow_only = true;
  int rc = split_any (raw, n, c, model);
  slow_only = false;
  return rc;
}

int
hl_trace_columns_split_model (const uint8_t *raw, size_t n, HlColumns *c)
{
  HlTraceModel *m = hl_trace_model_new ();
  if (m == NULL)
    return -1;
  int rc = split_any (raw, n, c, m);
  hl_trace_model_free (m);
  return rc;
}

static int
split_any (const uint8_t *raw, size_t n, HlColumns *c, HlTraceModel *model)
{
  size_t pos = 0;
  while (pos < n)
    {
      HlPacketHeader h;
      bool plausible = false;
      if (n - pos >= HL_PACKET_HEADER_SIZE)
        {
          memcpy (&h, raw + pos, sizeof h);
          plausible = h.magic == HL_PACKET_MAGIC && h.content_size <= n - pos - HL_PACKET_HEADER_SIZE;
        }
      if (plausible && h.header_size == HL_PACKET_HEADER_SIZE
          && (h.kind == HL_PACKET_KIND_INFO || h.kind == HL_PACKET_KIND_EVENTS))
        {
          const uint8_t *content = raw + pos + HL_PACKET_HEADER_SIZE;
          size_t ctrl_len = c->len[HL_COL_CTRL], hdr_len = c->len[HL_COL_HEADER];
          uint8_t ctrl = 1;
          if (put (c, HL_COL_CTRL, &ctrl, 1) != 0 || put (c, HL_COL_HEADER, raw + pos, HL_PACKET_HEADER_SIZE) != 0)
            return -1;
          bool ok;
          if (split_events (content, content + h.content_size, c, model, &h, &ok) != 0)
            return -1;
          if (ok)
            {
              if (model != NULL && !model->v4)
                {
                  /* 5.0: the header as its difference to the model's expectation */
                  HlPacketHeader r = h;
                  hl_trace_model_header_post (model, &r, 1, h.time_begin_ns);
                  hl_trace_model_header_pre (model, &r, 1);
                  r.crc32c ^= packet_crc (&h, content, h.content_size);
                  memcpy (c->data[HL_COL_HEADER] + hdr_len, &r, sizeof r);
                  hl_trace_model_header_done (model, &h);
                }
              pos += HL_PACKET_HEADER_SIZE + h.content_size;
              continue;
            }
          c->len[HL_COL_CTRL] = ctrl_len;
          c->len[HL_COL_HEADER] = hdr_len;
        }
      size_t len;
      if (plausible)
        len = HL_PACKET_HEADER_SIZE + (size_t) h.content_size;
      else
        {
          /* up to the next packet magic */
          len = 1;
          while (pos + len + 4 <= n)
            {
              uint32_t m;
              memcpy (&m, raw + pos + len, 4);
              if (m == HL_PACKET_MAGIC)
                break;
              len++;
            }
          if (pos + len + 4 > n)
            len = n - pos;
        }
      if (put_verbatim (c, raw + pos, len) != 0)
        return -1;
      pos += len;
    }
  return 0;
}

/* ---- Join ------------------------------------------------------------- */

/* ---- Varint planes ---------------------------------------------------- */

size_t
hl_trace_columns_to_planes (HlColumns *c, HlColumn col)
{
  size_t n = c->len[col];
  if (n == 0 || (col != HL_COL_TIME && col != HL_COL_SIZE && col != HL_COL_STACK && col != HL_COL_ADDR
                 && col != HL_COL_FREE && col != HL_COL_MISC))
    return 0;
  uint8_t *out = malloc (n);
  if (out == NULL)
    return 0;
  const uint8_t *src = c->data[col];
  size_t lo = 0;
  /* first pass: the first bytes */
  for (size_t i = 0; i < n;)
    {
      uint64_t v;
      const uint8_t *q = hl_varint_get (src + i, src + n, &v);
      if (q == NULL || (col == HL_COL_ADDR && (v & 1) && q >= src + n))
        {
          free (out);
          return 0;
        }
      out[lo++] = src[i];
      i = (size_t) (q - src) + (col == HL_COL_ADDR && (v & 1) ? 1 : 0);
    }
  /* second pass: the rest, in order */
  size_t hi = lo;
  for (size_t i = 0; i < n;)
    {
      uint64_t v = 0;
      const uint8_t *q = hl_varint_get (src + i, src + n, &v);
      if (q == NULL)
        break; /* not reached: the first pass checked every varint */
      size_t end = (size_t) (q - src) + (col == HL_COL_ADDR && (v & 1) ? 1 : 0);
      memcpy (out + hi, src + i + 1, end - i - 1);
      hi += end - i - 1;
      i = end;
    }
  free (c->data[col]);
  c->data[col] = out;
  c->cap[col] = n;
  return lo;
}

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
