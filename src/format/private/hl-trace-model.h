/* hl-trace-model.h — the predictor of model frames (codec 3,
 * docs/trace-format.md 7d): a simulation of the allocator and of the call
 * sequence, run identically by the splitter (the recorder, after the
 * program exited) and by the joiner (the reader), so that an allocation
 * whose stack and address it predicts costs one token byte.
 *
 * The state is deterministic and total: any sequence of calls with any
 * values (a hostile frame) stays in bounds. Nothing in it decides what the
 * joined bytes are beyond what the tokens say; a prediction that is wrong
 * only costs compression, never exactness (the splitter declares a hit only
 * when the canonical encoding of the predicted value is the original
 * bytes).
 *
 * Private to src/format; plain C11, libc only. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "hl-trace-encode-private.h"
#include "hl-trace-format.h"

#define HL_MODEL_SLOTS_LOG  19   /* live allocations by id: direct-mapped */
#define HL_MODEL_CLASSES    256  /* freed lists per 16-byte chunk class */
#define HL_MODEL_DEPTH      64   /* addresses per freed list */
#define HL_MODEL_SUCC_LOG   14   /* stack successor table */
#define HL_MODEL_THREADS    64   /* per-thread previous stack, direct-mapped */
#define HL_MODEL_CHILD_LOG  13   /* frame -> the frames it called last */
#define HL_MODEL_CHILD_WAYS 4    /* ... most recent first (4.0) */
#define HL_MODEL_CHILD_WAYS5 32  /* ... in 5.0 */

/* Token byte per allocation (column mtok): bit 7 set = the stack is
 * written (stack column), clear = the predicted stack; low 7 bits = where
 * the address comes from. */
#define HL_MTOK_STACK_RAW  0x80u
#define HL_MTOK_ADDR_TOP   0u    /* the most recently freed address of the class */
#define HL_MTOK_ADDR_CARVE 1u    /* the end of the last allocation not served from a freed list */
#define HL_MTOK_ADDR_NEXT  2u    /* the end of the previous allocation */
#define HL_MTOK_ADDR_RAW   3u    /* written (addr column) */
#define HL_MTOK_ADDR_FREED 4u    /* the address freed last, of any class */
#define HL_MTOK_ADDR_STEP  5u    /* the class's last address plus its last step */
#define HL_MTOK_ADDR_DEEP  6u    /* 6 + k - 1: the freed list's entry k (1..63) deep */
#define HL_MTOK_ADDR_MAX   (HL_MTOK_ADDR_DEEP + HL_MODEL_DEPTH - 2u)
#define HL_MTOK_ADDR_SITE  (HL_MTOK_ADDR_MAX + 1u) /* 5.0: the stack's last address plus its last step */
#define HL_MODEL_SITE_LOG  14    /* 5.0: per stack, its last address and step */
/* 6.0: not predicted, written (addr column) as the addrdelta of the
 * address less the class's last allocated address (not the packet's own
 * prediction): a program's unpredicted addresses lie near the ones it got
 * last of the same size (python3: the addr column 52 -> 20 KB) */
#define HL_MTOK_ADDR_LAST  (HL_MTOK_ADDR_SITE + 1u)

/* Format 5.0 (codec 4): which allocation a free refers to. A program frees
 * in patterns — the block it allocated last, or several runs of ids at
 * once, each advancing by the same step (python3 emptying a dict frees its
 * lists, strings and tuples in allocation order, five runs ten ids apart)
 * — which the model follows with a few cursors, most recently used first.
 * Token byte per free (column fid): */
#define HL_MODEL_CURSORS   4     /* free cursors */
#define HL_MODEL_NEAR      64    /* an id this close to a cursor continues it */
#define HL_FTOK_PREV       0u    /* prev_id: the id allocated or freed last */
#define HL_FTOK_CURSOR     1u    /* 1 + j: cursor j's last id plus its step */
#define HL_FTOK_RAW        (HL_FTOK_CURSOR + HL_MODEL_CURSORS) /* written (free column); 6.0: near the id freed last */
#define HL_FTOK_PLAIN      (HL_FTOK_RAW + 1u) /* 6.0: written as it was (a non-canonical svarint) */

/* A live allocation in the slots: the table has 2^slots_log entries
 * (slots_log grows from HL_MODEL_SLOTS_MIN_LOG to HL_MODEL_SLOTS_LOG, see
 * hl_trace_model_alloc), id i in entry i mod 2^slots_log, tagged
 * ((i >> slots_log) + 1) << 8 | class (0: empty). */
typedef struct
{
  uint64_t addr;
  uint64_t tag;
} HlModelSlot;

#define HL_MODEL_SLOTS_MIN_LOG 10

/* A caller and the frames it called last, most recent first. */
typedef struct
{
  uint64_t key;
  uint64_t val[HL_MODEL_CHILD_WAYS5];
  uint8_t  n; /* ways in use; the others read as 0 */
} HlModelChild;

typedef struct
{
  /* global, across the packets of a frame */
  HlModelSlot *slots;                              /* room for 1 << HL_MODEL_SLOTS_LOG, 1 << slots_log in use */
  unsigned     slots_log;
  bool         slots_any;                          /* an id was stored: slots_lo..slots_hi span them (while they grow) */
  uint64_t     slots_lo, slots_hi;
  uint64_t     freed[HL_MODEL_CLASSES][HL_MODEL_DEPTH];
  uint8_t      head[HL_MODEL_CLASSES];
  uint8_t      depth[HL_MODEL_CLASSES];
  uint64_t     last[HL_MODEL_CLASSES];             /* the class's last allocated address */
  uint64_t     step[HL_MODEL_CLASSES];             /* and its difference to the one before */
  struct
  {
    uint64_t key, val;                             /* a stack and the one allocated after it last */
  }            succ[1u << HL_MODEL_SUCC_LOG];
  uint32_t     thread_tid[HL_MODEL_THREADS];
  uint64_t     thread_stack[HL_MODEL_THREADS];
  uint16_t     thread_succ[HL_MODEL_THREADS];      /* the succ entry of thread_stack (hl_model_succ_index) */
  uint64_t     carve, next, freed_last;
  /* child entry i (docs/trace-format.md 7d) is child_pool[child_at[i] - 1]
   * once touched, in the order touched (a small frame touches a few pages
   * of the pool), and key 0 with no ways before */
  uint16_t     child_at[1u << HL_MODEL_CHILD_LOG];
  uint32_t     child_used;
  HlModelChild child_pool[1u << HL_MODEL_CHILD_LOG];
  uint64_t     stack_next;                         /* 5.0: the id a STACK is expected to define */
  bool         stack_fresh;                        /* 6.0: a STACK came after the packet's last allocation */
  struct
  {
    uint64_t key, last, step;                      /* a stack, its last address and step */
  }            site[1u << HL_MODEL_SITE_LOG];      /* 5.0 */
  uint32_t     hdr_pid, hdr_tid;                   /* 5.0: the previous packet header's */
  uint64_t     hdr_time, hdr_id;                   /* its time_end, the last nonzero alloc_id_end */
  uint64_t     pk_time;                            /* 5.0: the packet's time deltas, summed */
  uint32_t     pk_events, pk_flags;                /* its events (not ID_SKIP) and their flags */
  bool         pk_allocs;                          /* it has an allocation */
  uint64_t     cur_last[HL_MODEL_CURSORS];         /* 5.0: the free cursors, most recent first */
  uint64_t     cur_step[HL_MODEL_CURSORS];
  uint64_t     cur_next[HL_MODEL_CURSORS];         /* cur_last + cur_step: the id each predicts */
  uint32_t     n_cursors;
  bool         v4;                                 /* the model of format 4.0 (codec 3): no free cursors */
  bool         v5;                                 /* the model of format 5.0 (codec 4): no HL_MTOK_ADDR_LAST */
  uint32_t     n_frames;                           /* the packet's previous STACK (its frames) */
  uint64_t     frames[HL_TRACE_MAX_FRAMES];
  /* the packet being split or joined */
  unsigned     thread;                             /* index into thread_* */
  uint64_t     next_id, prev_id, prev_stack, prev_addr;
  uint64_t     id_end;
  HlAddrPredictor pred;                            /* the packet's own prediction (5.2) */
} HlTraceModel;

/* NULL when out of memory. The model of format 6.0 (codec 5); set v5 for
 * 5.0's (codec 4), v4 (and v5) for 4.0's (codec 3). */
HlTraceModel *hl_trace_model_new  (void);
void          hl_trace_model_free (HlTraceModel *m);

#define HL_MODEL_SLOTS_N (1u << HL_MODEL_SLOTS_LOG)
#define HL_MODEL_RING    (HL_MODEL_DEPTH - 1u) /* ring mask */

/* The steps below are inline: the joiner runs them for every event.
 *
 * hl_trace_model_packet: at the start of an INFO or EVENTS packet.
 * hl_trace_model_stack: the stack the model expects for the thread's next
 *   allocation.
 * hl_trace_model_addr: the address token T (HL_MTOK_ADDR_*, not RAW)
 *   stands for, for an allocation of SIZE; false when T is out of range or
 *   names an empty entry.
 * hl_trace_model_find: the token that predicts ADDR for SIZE, or
 *   HL_MTOK_ADDR_RAW.
 * hl_trace_model_alloc: after an allocation (ALLOC*, REALLOC*) of SIZE at
 *   ADDR with STACK, address token T; takes the id next_id++.
 * hl_trace_model_free_id: after the free of ID (FREE, REALLOC's old id).
 * hl_trace_model_fid_find, _fid, _fid_seen (5.0): the token that predicts a
 *   freed ID (or HL_FTOK_RAW), the id a token stands for, and the cursors'
 *   step after the free of ID with token T (before free_id). */

/* glibc's chunk size in 16-byte units, capped to the classes. */
static inline unsigned
hl_model_chunk_class (uint64_t size, uint64_t *chunk)
{
  uint64_t c = size > UINT64_MAX - 23 ? 32 : (size + 23) & ~(uint64_t) 15;
  if (c < 32)
    c = 32;
  *chunk = c;
  uint64_t cls = c >> 4;
  return cls < HL_MODEL_CLASSES ? (unsigned) cls : HL_MODEL_CLASSES - 1;
}

static inline uint64_t
hl_model_mix (uint64_t v)
{
  v *= 0x9e3779b97f4a7c15u;
  return v ^ (v >> 29);
}

/* Where an allocation of a size reads and updates the model, found once
 * for hl_trace_model_find and _alloc: glibc's chunk in 16-byte units (as
 * hl_model_chunk_class finds it), one value that gives the chunk
 * (units << 4), the class (capped) and the class in the packet's own
 * prediction (hl_pred_class: units modulo its classes), so that little
 * stays live between the two. */
typedef struct
{
  uint64_t units;
} HlModelSize;

static inline HlModelSize
hl_model_size (uint64_t size)
{
  uint64_t u = size > UINT64_MAX - 23 ? 2 : (size + 23) >> 4;
  return (HlModelSize) { u < 2 ? 2 : u };
}

static inline uint64_t
hl_model_size_chunk (HlModelSize z)
{
  return z.units << 4;
}

static inline unsigned
hl_model_size_class (HlModelSize z)
{
  return z.units < HL_MODEL_CLASSES ? (unsigned) z.units : HL_MODEL_CLASSES - 1;
}

static inline unsigned
hl_model_size_pred_class (HlModelSize z)
{
  return (unsigned) (z.units % HL_PRED_CLASSES);
}

/* The entries of STACK in succ and in site (the same hash). */
static inline unsigned
hl_model_succ_index (uint64_t stack)
{
  return (unsigned) (hl_model_mix (stack) >> (64 - HL_MODEL_SUCC_LOG));
}

static inline unsigned
hl_model_site_index (uint64_t stack)
{
  return (unsigned) (hl_model_mix (stack) >> (64 - HL_MODEL_SITE_LOG));
}

/* The succ entry of the packet's thread's previous stack: kept with the
 * stack, as the site entry of the allocation that set it (succ and site
 * hash a stack alike), so that an allocation hashes one stack, not two. */
static inline unsigned
hl_model_thread_succ (const HlTraceModel *m)
{
  return m->thread_succ[m->thread];
}

static inline void
hl_trace_model_packet (HlTraceModel *m, uint32_t tid, uint64_t alloc_id_begin)
{
  unsigned t = (unsigned) (hl_model_mix (tid) % HL_MODEL_THREADS);
  if (m->thread_tid[t] != tid)
    {
      m->thread_tid[t] = tid;
      m->thread_stack[t] = 0;
      m->thread_succ[t] = (uint16_t) hl_model_succ_index (0);
    }
  m->thread = t;
  m->next_id = alloc_id_begin;
  m->prev_id = 0;
  m->prev_stack = 0;
  m->prev_addr = 0;
  m->n_frames = 0;
  m->stack_fresh = false;
  m->pk_time = 0;
  m->pk_events = 0;
  m->pk_flags = 0;
  m->pk_allocs = false;
  hl_pred_reset (&m->pred);
}

static inline bool hl_trace_model_has_last (const HlTraceModel *m);

/* hl_trace_model_stack, SUCC the entry of the thread's previous stack in
 * succ. */
static inline uint64_t
hl_model_stack_in (const HlTraceModel *m, unsigned succ)
{
  /* 6.0: the stack just defined (an allocation follows the definition of
   * its new stack) */
  if (m->stack_fresh && hl_trace_model_has_last (m))
    return m->prev_stack;
  uint64_t prev = m->thread_stack[m->thread];
  return m->succ[succ].key == prev ? m->succ[succ].val : prev;
}

static inline uint64_t
hl_trace_model_stack (const HlTraceModel *m)
{
  return hl_model_stack_in (m, hl_model_thread_succ (m));
}

static inline bool
hl_trace_model_addr (const HlTraceModel *m, uint64_t size, unsigned t, uint64_t *addr)
{
  uint64_t chunk;
  unsigned cls = hl_model_chunk_class (size, &chunk);
  switch (t)
    {
    case HL_MTOK_ADDR_CARVE:
      *addr = m->carve;
      return true;
    case HL_MTOK_ADDR_NEXT:
      *addr = m->next;
      return true;
    case HL_MTOK_ADDR_FREED:
      *addr = m->freed_last;
      return true;
    case HL_MTOK_ADDR_STEP:
      *addr = m->last[cls] + m->step[cls];
      return true;
    case HL_MTOK_ADDR_RAW:
    case HL_MTOK_ADDR_LAST:
      return false;
    case HL_MTOK_ADDR_SITE:
      {
        unsigned i = hl_model_site_index (m->prev_stack);
        if (m->v4 || m->site[i].key != m->prev_stack)
          return false;
        *addr = m->site[i].last + m->site[i].step;
        return true;
      }
    default:
      {
        unsigned k = t == HL_MTOK_ADDR_TOP ? 0 : t - HL_MTOK_ADDR_DEEP + 1;
        if (t > HL_MTOK_ADDR_MAX || k >= m->depth[cls])
          return false;
        *addr = m->freed[cls][(m->head[cls] - k) & HL_MODEL_RING];
        return true;
      }
    }
}

/* The shallowest depth k (1 <= k < depth) at which class CLS's freed list
 * holds ADDR, or 0. Entry k is at ring position head - k (mod the ring):
 * the positions head - 1 down to 0, then the ring's last down, each run
 * indexed directly, without masking every index. */
static inline unsigned
hl_model_freed_deep (const HlTraceModel *m, unsigned cls, uint64_t addr)
{
  const uint64_t *ring = m->freed[cls];
  unsigned head = m->head[cls], depth = m->depth[cls];
  if (depth <= 1)
    return 0;
  unsigned first = head < depth - 1 ? head : depth - 1; /* entries 1..first before the wrap */
  for (unsigned k = 1; k <= first; k++)
    if (ring[head - k] == addr)
      return k;
  for (unsigned k = first + 1; k < depth; k++)
    if (ring[HL_MODEL_RING + 1 + head - k] == addr)
      return k;
  return 0;
}

/* hl_trace_model_find for class CLS, SITE the entry of prev_stack. */
static inline unsigned
hl_model_find_in (const HlTraceModel *m, unsigned cls, unsigned site, uint64_t addr)
{
  if (m->depth[cls] > 0 && m->freed[cls][m->head[cls]] == addr)
    return HL_MTOK_ADDR_TOP;
  if (addr == m->carve)
    return HL_MTOK_ADDR_CARVE;
  if (addr == m->next)
    return HL_MTOK_ADDR_NEXT;
  if (addr == m->last[cls] + m->step[cls])
    return HL_MTOK_ADDR_STEP;
  if (addr == m->freed_last)
    return HL_MTOK_ADDR_FREED;
  unsigned k = hl_model_freed_deep (m, cls, addr);
  if (k > 0)
    return HL_MTOK_ADDR_DEEP + k - 1;
  if (!m->v4 && m->site[site].key == m->prev_stack && addr == m->site[site].last + m->site[site].step)
    return HL_MTOK_ADDR_SITE;
  return HL_MTOK_ADDR_RAW;
}

static inline unsigned
hl_trace_model_find (const HlTraceModel *m, uint64_t size, uint64_t addr)
{
  return hl_model_find_in (m, hl_model_size_class (hl_model_size (size)), hl_model_site_index (m->prev_stack), addr);
}

/* The slots behave as a direct-mapped table of 2^HL_MODEL_SLOTS_LOG
 * entries by id (docs/trace-format.md 7d) but are kept in 2^slots_log
 * entries while the ids stored span less than that: no two of them then
 * share an entry in either table, so both give the same answers, and a
 * small frame touches few pages. Doubling moves each entry to its id mod
 * 2^(slots_log + 1), in place (to the same entry or one in the new upper
 * half). */
static inline void
hl_model_slots_grow (HlTraceModel *m)
{
  uint64_t half = (uint64_t) 1 << m->slots_log;
  for (uint64_t i = half; i-- > 0;)
    {
      HlModelSlot *s = &m->slots[i];
      if (s->tag == 0)
        continue;
      uint64_t high = (s->tag >> 8) - 1; /* id >> slots_log */
      uint64_t tag = (((high >> 1) + 1) << 8) | (s->tag & 0xffu);
      if (high & 1)
        {
          m->slots[i + half].addr = s->addr;
          m->slots[i + half].tag = tag;
          s->tag = 0;
        }
      else
        s->tag = tag;
    }
  m->slots_log++;
}

/* Widens slots_lo..slots_hi to ID and grows the slots until they span
 * it. */
static inline void
hl_model_slots_span (HlTraceModel *m, uint64_t id)
{
  if (!m->slots_any)
    {
      m->slots_any = true;
      m->slots_lo = m->slots_hi = id;
    }
  else if (id < m->slots_lo)
    m->slots_lo = id;
  else if (id > m->slots_hi)
    m->slots_hi = id;
  while (m->slots_log < HL_MODEL_SLOTS_LOG && m->slots_hi - m->slots_lo >= (uint64_t) 1 << m->slots_log)
    hl_model_slots_grow (m);
}

/* Slot of ID = (ADDR, CLS); an id of UINT64_MAX empties its entry. */
static inline void
hl_model_slot_store (HlTraceModel *m, uint64_t id, uint64_t addr, unsigned cls)
{
  /* the span of the ids stored only decides when to grow: at full size
   * (soon, for any trace of size) it is not kept */
  if (m->slots_log < HL_MODEL_SLOTS_LOG)
    hl_model_slots_span (m, id);
  HlModelSlot *s = &m->slots[id & (((uint64_t) 1 << m->slots_log) - 1)];
  s->addr = addr;
  s->tag = id == UINT64_MAX ? 0 : ((id >> m->slots_log) + 1) << 8 | (cls & 0xffu);
}

/* hl_trace_model_alloc for an allocation of Z; SUCC the entry of the
 * thread's previous stack in succ, SITE the entry of STACK in site. */
static inline void
hl_model_alloc_in (HlTraceModel *m, HlModelSize z, unsigned succ, unsigned site, uint64_t stack, uint64_t addr,
                   unsigned t)
{
  unsigned cls = hl_model_size_class (z);
  uint64_t chunk = hl_model_size_chunk (z);
  /* the stack's successor */
  m->succ[succ].key = m->thread_stack[m->thread];
  m->succ[succ].val = stack;
  m->thread_stack[m->thread] = stack;
  m->thread_succ[m->thread] = (uint16_t) site; /* hl_model_succ_index (stack): the same hash */
  /* an address taken from a freed list leaves it: the entries above it
   * move one deeper */
  unsigned k = t == HL_MTOK_ADDR_TOP ? 0 : t >= HL_MTOK_ADDR_DEEP ? t - HL_MTOK_ADDR_DEEP + 1 : HL_MODEL_DEPTH;
  if (k < m->depth[cls] && m->freed[cls][(m->head[cls] - k) & HL_MODEL_RING] == addr)
    {
      uint64_t *ring = m->freed[cls];
      for (unsigned j = k, to = (m->head[cls] - k) & HL_MODEL_RING; j > 0; j--)
        {
          unsigned from = (to + 1) & HL_MODEL_RING;
          ring[to] = ring[from];
          to = from;
        }
      m->head[cls] = (uint8_t) ((m->head[cls] - 1u) & HL_MODEL_RING);
      m->depth[cls]--;
    }
  else
    m->carve = addr + chunk;
  m->next = addr + chunk;
  m->step[cls] = addr - m->last[cls];
  m->last[cls] = addr;
  m->site[site].step = m->site[site].key == stack ? addr - m->site[site].last : 0;
  m->site[site].key = stack;
  m->site[site].last = addr;
  /* the packet's own state */
  hl_pred_alloc (&m->pred, hl_model_size_pred_class (z), m->next_id, addr);
  m->prev_addr = addr;
  hl_model_slot_store (m, m->next_id, addr, cls);
  m->prev_id = m->next_id++;
  m->pk_allocs = true;
  m->stack_fresh = false;
}

static inline void
hl_trace_model_alloc (HlTraceModel *m, uint64_t size, uint64_t stack, uint64_t addr, unsigned t)
{
  hl_model_alloc_in (m, hl_model_size (size), hl_model_thread_succ (m),
                     hl_model_site_index (stack), stack, addr, t);
}

static inline void
hl_trace_model_free_id (HlTraceModel *m, uint64_t id)
{
  hl_pred_free (&m->pred, id);
  m->prev_id = id;
  if (id == UINT64_MAX)
    return;
  HlModelSlot *s = &m->slots[id & (((uint64_t) 1 << m->slots_log) - 1)];
  if ((s->tag >> 8) != (id >> m->slots_log) + 1)
    return;
  unsigned cls = (unsigned) (s->tag & 0xffu);
  s->tag = 0;
  m->freed_last = s->addr;
  m->head[cls] = (uint8_t) ((m->head[cls] + 1u) & HL_MODEL_RING);
  m->freed[cls][m->head[cls]] = s->addr;
  if (m->depth[cls] < HL_MODEL_DEPTH)
    m->depth[cls]++;
}

/* Whether the model writes unpredicted addresses as HL_MTOK_ADDR_LAST
 * (6.0). */
static inline bool
hl_trace_model_has_last (const HlTraceModel *m)
{
  return !m->v4 && !m->v5;
}

/* The ways per caller: HL_MODEL_CHILD_WAYS5, 4.0's HL_MODEL_CHILD_WAYS. */
static inline unsigned
hl_trace_model_ways (const HlTraceModel *m)
{
  return m->v4 ? HL_MODEL_CHILD_WAYS : HL_MODEL_CHILD_WAYS5;
}

/* Way W (< hl_trace_model_ways) of the frames CALLER called last (their
 * return addresses, most recent first), or 0. */
static inline uint64_t
hl_trace_model_child (const HlTraceModel *m, uint64_t caller, unsigned w)
{
  unsigned i = (unsigned) (hl_model_mix (caller) >> (64 - HL_MODEL_CHILD_LOG));
  if (m->child_at[i] == 0)
    return 0;
  unsigned at = m->child_at[i] - 1u;
  return m->child_pool[at].key == caller && w < m->child_pool[at].n ? m->child_pool[at].val[w] : 0;
}

/* 6.0: what a written frame of a STACK body is the difference to: the
 * frame CALLER called last (its way 0: another call site in the same
 * function, close by), or BASE (the previous STACK's frame at the same
 * depth) when the model knows none. */
static inline uint64_t
hl_trace_model_frame_ref (const HlTraceModel *m, uint64_t caller, uint64_t base)
{
  unsigned i = (unsigned) (hl_model_mix (caller) >> (64 - HL_MODEL_CHILD_LOG));
  if (m->child_at[i] == 0)
    return base;
  unsigned at = m->child_at[i] - 1u;
  return m->child_pool[at].key == caller && m->child_pool[at].n > 0 ? m->child_pool[at].val[0] : base;
}

/* After a modelled STACK event: learns who called whom (outermost first;
 * the outermost frame's caller is 0) and keeps its frames. */
static inline void
hl_trace_model_stack_def (HlTraceModel *m, const uint64_t *frames, uint32_t n)
{
  for (uint32_t k = n; k-- > 0;)
    {
      uint64_t caller = k + 1 < n ? frames[k + 1] : 0;
      unsigned i = (unsigned) (hl_model_mix (caller) >> (64 - HL_MODEL_CHILD_LOG));
      if (m->child_at[i] == 0)
        m->child_at[i] = (uint16_t) ++m->child_used; /* at most 2^13: one per entry */
      HlModelChild *c = &m->child_pool[m->child_at[i] - 1u];
      uint64_t *ways = c->val;
      if (c->key != caller)
        {
          c->key = caller;
          c->n = 0; /* all ways 0 */
        }
      /* the way holding the frame, else the first unused way (it holds 0),
       * else the last way, which drops out */
      unsigned w = 0, used = c->n;
      while (w < used && ways[w] != frames[k])
        w++;
      if (w == used)
        {
          if (used < hl_trace_model_ways (m))
            c->n = (uint8_t) (used + 1);
          else
            w = used - 1;
        }
      for (; w > 0; w--)
        ways[w] = ways[w - 1];
      ways[0] = frames[k];
    }
  if (n > 0)
    memcpy (m->frames, frames, n * sizeof *frames);
  m->n_frames = n;
}

/* ---- Free cursors (5.0) ---------------------------------------------- */

/* The first of the first N cursors that predicts ID, or N. Called with N
 * a constant HL_MODEL_CURSORS once all HL_MODEL_CURSORS cursors are in
 * use: a loop the compiler unrolls. */
static inline unsigned
hl_model_cursor_at (const HlTraceModel *m, uint64_t id, unsigned n)
{
  unsigned j = 0;
  while (j < n && m->cur_next[j] != id)
    j++;
  return j;
}

static inline unsigned
hl_trace_model_fid_find (const HlTraceModel *m, uint64_t id)
{
  if (id == m->prev_id)
    return HL_FTOK_PREV;
  unsigned n = m->n_cursors;
  unsigned j = n == HL_MODEL_CURSORS ? hl_model_cursor_at (m, id, HL_MODEL_CURSORS) : hl_model_cursor_at (m, id, n);
  return j < n ? HL_FTOK_CURSOR + j : HL_FTOK_RAW;
}

static inline bool
hl_trace_model_fid (const HlTraceModel *m, unsigned t, uint64_t *id)
{
  if (t == HL_FTOK_PREV)
    {
      *id = m->prev_id;
      return true;
    }
  if (t < HL_FTOK_CURSOR || t - HL_FTOK_CURSOR >= m->n_cursors)
    return false;
  *id = m->cur_next[t - HL_FTOK_CURSOR];
  return true;
}

/* 6.0: what a written freed id is the difference to: the id freed last
 * (cursor 0's), or prev_id before the frame's first free. */
static inline uint64_t
hl_trace_model_free_ref (const HlTraceModel *m)
{
  return m->n_cursors > 0 ? m->cur_last[0] : m->prev_id;
}

static inline uint64_t
hl_model_distance (uint64_t a, uint64_t b)
{
  uint64_t d = a - b;
  return (int64_t) d < 0 ? (uint64_t) 0 - d : d;
}

/* Whether ID is within HL_MODEL_NEAR of LAST, either way: one unsigned
 * comparison. */
static inline bool
hl_model_near (uint64_t id, uint64_t last)
{
  return id - last + (HL_MODEL_NEAR - 1) < 2 * HL_MODEL_NEAR - 1;
}

/* The cursor (of the first N) nearest to ID, within HL_MODEL_NEAR, the
 * first on ties; else N. An id is mostly near one cursor or none: the
 * distance is taken only to the cursors near it. Called with N a constant
 * HL_MODEL_CURSORS once all HL_MODEL_CURSORS cursors are in use (a loop
 * the compiler unrolls). */
static inline unsigned
hl_model_cursor_near (const HlTraceModel *m, uint64_t id, unsigned n)
{
  unsigned best = n;
  uint64_t best_d = HL_MODEL_NEAR;
  for (unsigned j = 0; j < n; j++)
    if (hl_model_near (id, m->cur_last[j]))
      {
        uint64_t d = hl_model_distance (id, m->cur_last[j]);
        if (d < best_d)
          {
            best = j;
            best_d = d;
          }
      }
  return best;
}

/* The cursor that predicted ID moves to the front with its step; else the
 * cursor nearest to ID (within HL_MODEL_NEAR; for HL_FTOK_PREV only the
 * front one, and not at distance 0) continues with step ID - its last id;
 * else a new cursor of step 1 comes in front (the last one drops out). */
static inline void
hl_trace_model_fid_seen (HlTraceModel *m, uint64_t id, unsigned t)
{
  unsigned n = m->n_cursors, from = n;
  uint64_t step = 1;
  if (t >= HL_FTOK_CURSOR && t - HL_FTOK_CURSOR < n)
    {
      from = t - HL_FTOK_CURSOR;
      step = m->cur_step[from];
    }
  else if (t == HL_FTOK_PREV)
    {
      uint64_t d = n > 0 ? hl_model_distance (id, m->cur_last[0]) : 0;
      if (d > 0 && d < HL_MODEL_NEAR)
        {
          from = 0;
          step = id - m->cur_last[0];
        }
    }
  else
    {
      from = n == HL_MODEL_CURSORS ? hl_model_cursor_near (m, id, HL_MODEL_CURSORS) : hl_model_cursor_near (m, id, n);
      if (from < n)
        step = id - m->cur_last[from];
    }
  if (from == n)
    {
      if (n < HL_MODEL_CURSORS)
        m->n_cursors = ++n;
      from = n - 1;
    }
  for (unsigned j = from; j > 0; j--)
    {
      m->cur_last[j] = m->cur_last[j - 1];
      m->cur_step[j] = m->cur_step[j - 1];
      m->cur_next[j] = m->cur_next[j - 1];
    }
  m->cur_last[0] = id;
  m->cur_step[0] = step;
  m->cur_next[0] = id + step;
}

/* ---- Packet headers (5.0) -------------------------------------------- */

/* The packet flag an event of TYPE sets (hl-trace-writer.c): a table,
 * not a switch, on the joiner's path of every event. */
static inline uint32_t
hl_model_event_flag (uint8_t type)
{
  static const uint8_t flag[HL_EVENT_ID_SKIP + 1] = {
    [HL_EVENT_STACK] = HL_PACKET_FLAG_HAS_STACKS,       [HL_EVENT_MODULE] = HL_PACKET_FLAG_HAS_MODULES,
    [HL_EVENT_THREAD] = HL_PACKET_FLAG_HAS_THREADS,     [HL_EVENT_META_INT] = HL_PACKET_FLAG_HAS_META,
    [HL_EVENT_META_STRING] = HL_PACKET_FLAG_HAS_META,   [HL_EVENT_META_REMOVE] = HL_PACKET_FLAG_HAS_META,
    [HL_EVENT_MARK] = HL_PACKET_FLAG_HAS_META,          [HL_EVENT_END] = HL_PACKET_FLAG_HAS_END,
  };
  return type <= HL_EVENT_ID_SKIP ? flag[type] : 0;
}

/* Every event of a packet (after hl_trace_model_packet): its type and
 * time delta DT (0 without one). The joiner keeps the same tallies
 * without a call on its hot path. */
static inline void
hl_trace_model_event (HlTraceModel *m, uint8_t type, uint64_t dt)
{
  m->pk_time += dt;
  m->pk_events += type != HL_EVENT_ID_SKIP;
  m->pk_flags |= hl_model_event_flag (type);
}

/* A packet header in a 5.0 model frame is written as the difference to
 * what the model expects (docs/trace-format.md 7d): SIGN 1 turns the
 * header H into that form, -1 back. _pre covers the fields a joiner needs
 * before the events (all but content_size, which stays as it is and
 * crc32c), _post the ones the events tell (after them, with the packet's
 * TIME_BEGIN); the crc32c field is xored with the packet's CRC-32C
 * (computed with the field 0) by the caller. _done keeps the header for
 * the next packet. */
static inline void
hl_trace_model_header_pre (const HlTraceModel *m, HlPacketHeader *h, int sign)
{
  uint32_t s32 = (uint32_t) sign;
  uint16_t s16 = (uint16_t) sign;
  uint64_t s64 = (uint64_t) (int64_t) sign;
  h->magic -= s32 * HL_PACKET_MAGIC;
  h->header_size = (uint16_t) (h->header_size - s16 * HL_PACKET_HEADER_SIZE);
  h->kind = (uint16_t) (h->kind - s16 * HL_PACKET_KIND_EVENTS);
  h->pid -= s32 * m->hdr_pid;
  h->tid -= s32 * m->hdr_tid;
  h->time_begin_ns -= s64 * m->hdr_time;
  h->alloc_id_begin -= s64 * m->hdr_id;
}

static inline void
hl_trace_model_header_post (const HlTraceModel *m, HlPacketHeader *h, int sign, uint64_t time_begin)
{
  uint32_t s32 = (uint32_t) sign;
  uint64_t s64 = (uint64_t) (int64_t) sign;
  h->time_end_ns -= s64 * (time_begin + m->pk_time);
  h->alloc_id_end -= s64 * (m->pk_allocs ? m->next_id : 0);
  h->n_events -= s32 * m->pk_events;
  h->flags ^= m->pk_flags;
}

static inline void
hl_trace_model_header_done (HlTraceModel *m, const HlPacketHeader *h)
{
  m->hdr_pid = h->pid;
  m->hdr_tid = h->tid;
  m->hdr_time = h->time_end_ns;
  if (h->alloc_id_end != 0)
    m->hdr_id = h->alloc_id_end;
}
