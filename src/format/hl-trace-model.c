/* hl-trace-model.c — the predictor of model frames (hl-trace-model.h). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */

#include "private/hl-trace-model.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>


#define SLOTS HL_MODEL_SLOTS_N

_Static_assert ((HL_MODEL_DEPTH & (HL_MODEL_DEPTH - 1)) == 0, "ring of a power of two");
_Static_assert (HL_MTOK_ADDR_LAST < HL_MTOK_STACK_RAW, "address tokens fit 7 bits");
_Static_assert (HL_MODEL_CLASSES <= 256, "a class fits a slot's tag byte");
_Static_assert (HL_MODEL_SUCC_LOG == HL_MODEL_SITE_LOG && HL_MODEL_SUCC_LOG <= 16,
                "a stack's site entry is its succ entry (thread_succ), and fits 16 bits");

/* One anonymous mapping: its pages come zeroed when first touched, so a
 * small trace pays for the few it uses (calloc would clear all 11 MiB once
 * malloc's mmap threshold has grown); the slots in use grow with the ids
 * stored (hl_model_slot_store). */
#define MAP_SIZE (((sizeof (HlTraceModel) + 4095) & ~(size_t) 4095) + SLOTS * sizeof (HlModelSlot))

HlTraceModel *
hl_trace_model_new (void)
{
  void *p = mmap (NULL, MAP_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return NULL;
  HlTraceModel *m = p;
  m->slots = (HlModelSlot *) ((uint8_t *) p + ((sizeof (HlTraceModel) + 4095) & ~(size_t) 4095));
  m->slots_log = HL_MODEL_SLOTS_MIN_LOG;
  /* a thread slot's previous stack is 0 until its first packet resets it
   * (tid 0's never does): its succ entry is 0's, whatever the hash */
  for (unsigned t = 0; t < HL_MODEL_THREADS; t++)
    m->thread_succ[t] = (uint16_t) hl_model_succ_index (0);
  return m;
}

void
hl_trace_model_free (HlTraceModel *m)
{
  if (m != NULL)
    munmap (m, MAP_SIZE);
}

