/* hl-trace-columns-split.c — a run of plain trace bytes split into
 * columns (hl-trace-columns.h, docs/trace-format.md 7c, 7d): the packets
 * walked, the common events' short paths, the rest through the general
 * parser (hl-trace-columns-parse.c). */

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
  hl_trace_columns_parse_event (&e);
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
      hl_trace_columns_parse_event (&e);
      if (e.bad)
        {
          memcpy (c->len, saved, sizeof saved);
          return 0;
        }
      if (m != NULL)
        hl_trace_columns_model_event (m, &e);
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
