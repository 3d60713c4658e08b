/* hl-trace-model.c — the predictor of model frames (hl-trace-model.h). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */

#include "hl-trace-model.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "hl-trace-encode-private.h"

#define SLOTS (1u << HL_MODEL_SLOTS_LOG)
#define SUCC  (1u << HL_MODEL_SUCC_LOG)
#define RING  (HL_MODEL_DEPTH - 1u) /* ring mask */

_Static_assert ((HL_MODEL_DEPTH & (HL_MODEL_DEPTH - 1)) == 0, "ring of a power of two");
_Static_assert (HL_MTOK_ADDR_MAX < HL_MTOK_STACK_RAW, "address tokens fit 7 bits");

/* One anonymous mapping: its pages come zeroed when first touched, so a
 * small trace pays for the few it uses (calloc would clear all 13 MiB once
 * malloc's mmap threshold has grown). */
#define MAP_SIZE (((sizeof (HlTraceModel) + 4095) & ~(size_t) 4095) + SLOTS * sizeof (HlModelSlot))

HlTraceModel *
hl_trace_model_new (void)
{
  void *p = mmap (NULL, MAP_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return NULL;
  HlTraceModel *m = p;
  m->slots = (HlModelSlot *) ((uint8_t *) p + ((sizeof (HlTraceModel) + 4095) & ~(size_t) 4095));
  return m;
}

void
hl_trace_model_free (HlTraceModel *m)
{
  if (m != NULL)
    munmap (m, MAP_SIZE);
}

/* glibc's chunk size in 16-byte units, capped to the classes. */
static unsigned
chunk_class (uint64_t size, uint64_t *chunk)
{
  uint64_t c = size > UINT64_MAX - 23 ? 32 : (size + 23) & ~(uint64_t) 15;
  if (c < 32)
    c = 32;
  *chunk = c;
  uint64_t cls = c >> 4;
  return cls < HL_MODEL_CLASSES ? (unsigned) cls : HL_MODEL_CLASSES - 1;
}

static uint64_t
mix (uint64_t v)
{
  v *= 0x9e3779b97f4a7c15u;
  return v ^ (v >> 29);
}

void
hl_trace_model_packet (HlTraceModel *m, uint32_t tid, uint64_t alloc_id_begin)
{
  unsigned t = (unsigned) (mix (tid) % HL_MODEL_THREADS);
  if (m->thread_tid[t] != tid)
    {
      m->thread_tid[t] = tid;
      m->thread_stack[t] = 0;
    }
  m->thread = t;
  m->next_id = alloc_id_begin;
  m->prev_id = 0;
  m->prev_stack = 0;
  m->prev_addr = 0;
  hl_pred_reset (&m->pred);
}

uint64_t
hl_trace_model_stack (const HlTraceModel *m)
{
  uint64_t prev = m->thread_stack[m->thread];
  unsigned i = (unsigned) (mix (prev) >> (64 - HL_MODEL_SUCC_LOG));
  return m->succ_key[i] == prev ? m->succ_val[i] : prev;
}

bool
hl_trace_model_addr (const HlTraceModel *m, uint64_t size, unsigned t, uint64_t *addr)
{
  uint64_t chunk;
  unsigned cls = chunk_class (size, &chunk);
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
      return false;
    default:
      {
        unsigned k = t == HL_MTOK_ADDR_TOP ? 0 : t - HL_MTOK_ADDR_DEEP + 1;
        if (t > HL_MTOK_ADDR_MAX || k >= m->depth[cls])
          return false;
        *addr = m->freed[cls][(m->head[cls] - k) & RING];
        return true;
      }
    }
}

unsigned
hl_trace_model_find (const HlTraceModel *m, uint64_t size, uint64_t addr)
{
  uint64_t chunk;
  unsigned cls = chunk_class (size, &chunk);
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
  for (unsigned k = 1; k < m->depth[cls]; k++)
    if (m->freed[cls][(m->head[cls] - k) & RING] == addr)
      return HL_MTOK_ADDR_DEEP + k - 1;
  return HL_MTOK_ADDR_RAW;
}

void
hl_trace_model_alloc (HlTraceModel *m, uint64_t size, uint64_t stack, uint64_t addr, unsigned t)
{
  uint64_t chunk;
  unsigned cls = chunk_class (size, &chunk);
  /* the stack's successor */
  uint64_t prev = m->thread_stack[m->thread];
  unsigned i = (unsigned) (mix (prev) >> (64 - HL_MODEL_SUCC_LOG));
  m->succ_key[i] = prev;
  m->succ_val[i] = stack;
  m->thread_stack[m->thread] = stack;
  /* an address taken from a freed list leaves it: the entries above it
   * move one deeper */
  unsigned k = t == HL_MTOK_ADDR_TOP ? 0 : t >= HL_MTOK_ADDR_DEEP ? t - HL_MTOK_ADDR_DEEP + 1 : HL_MODEL_DEPTH;
  if (k < m->depth[cls] && m->freed[cls][(m->head[cls] - k) & RING] == addr)
    {
      for (unsigned j = k; j > 0; j--)
        m->freed[cls][(m->head[cls] - j) & RING] = m->freed[cls][(m->head[cls] - j + 1) & RING];
      m->head[cls] = (uint8_t) ((m->head[cls] - 1u) & RING);
      m->depth[cls]--;
    }
  else
    m->carve = addr + chunk;
  m->next = addr + chunk;
  m->step[cls] = addr - m->last[cls];
  m->last[cls] = addr;
  /* the packet's own state */
  hl_pred_alloc (&m->pred, hl_pred_class (size), m->next_id, addr);
  m->prev_addr = addr;
  HlModelSlot *s = &m->slots[m->next_id & (SLOTS - 1)];
  s->id_plus1 = m->next_id + 1;
  s->addr = addr;
  s->cls = cls;
  m->prev_id = m->next_id++;
}

void
hl_trace_model_free_id (HlTraceModel *m, uint64_t id)
{
  hl_pred_free (&m->pred, id);
  m->prev_id = id;
  HlModelSlot *s = &m->slots[id & (SLOTS - 1)];
  if (s->id_plus1 != id + 1 || id == UINT64_MAX)
    return;
  s->id_plus1 = 0;
  unsigned cls = s->cls < HL_MODEL_CLASSES ? s->cls : 0;
  m->freed_last = s->addr;
  m->head[cls] = (uint8_t) ((m->head[cls] + 1u) & RING);
  m->freed[cls][m->head[cls]] = s->addr;
  if (m->depth[cls] < HL_MODEL_DEPTH)
    m->depth[cls]++;
}
