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

#include "hl-trace-format.h"

#define HL_MODEL_SLOTS_LOG  19   /* live allocations by id: direct-mapped */
#define HL_MODEL_CLASSES    256  /* freed lists per 16-byte chunk class */
#define HL_MODEL_DEPTH      64   /* addresses per freed list */
#define HL_MODEL_SUCC_LOG   14   /* stack successor table */
#define HL_MODEL_THREADS    64   /* per-thread previous stack, direct-mapped */

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

typedef struct
{
  uint64_t id_plus1;   /* 0: empty */
  uint64_t addr;
  uint32_t cls;
} HlModelSlot;

typedef struct
{
  /* global, across the packets of a frame */
  HlModelSlot *slots;                              /* 1 << HL_MODEL_SLOTS_LOG */
  uint64_t     freed[HL_MODEL_CLASSES][HL_MODEL_DEPTH];
  uint8_t      head[HL_MODEL_CLASSES];
  uint8_t      depth[HL_MODEL_CLASSES];
  uint64_t     last[HL_MODEL_CLASSES];             /* the class's last allocated address */
  uint64_t     step[HL_MODEL_CLASSES];             /* and its difference to the one before */
  uint64_t     succ_key[1u << HL_MODEL_SUCC_LOG];
  uint64_t     succ_val[1u << HL_MODEL_SUCC_LOG];
  uint32_t     thread_tid[HL_MODEL_THREADS];
  uint64_t     thread_stack[HL_MODEL_THREADS];
  uint64_t     carve, next, freed_last;
  /* the packet being split or joined */
  unsigned     thread;                             /* index into thread_* */
  uint64_t     next_id, prev_id, prev_stack, prev_addr;
  uint64_t     id_end;
  HlAddrPredictor pred;                            /* the packet's own prediction (5.2) */
} HlTraceModel;

/* NULL when out of memory. */
HlTraceModel *hl_trace_model_new  (void);
void          hl_trace_model_free (HlTraceModel *m);

/* At the start of an INFO or EVENTS packet. */
void     hl_trace_model_packet   (HlTraceModel *m, uint32_t tid, uint64_t alloc_id_begin);
/* The stack the model expects for the thread's next allocation. */
uint64_t hl_trace_model_stack    (const HlTraceModel *m);
/* The address token T (HL_MTOK_ADDR_*, not RAW) stands for, for an
 * allocation of SIZE; false when T is out of range or names an empty
 * entry. */
bool     hl_trace_model_addr     (const HlTraceModel *m, uint64_t size, unsigned t, uint64_t *addr);
/* The token that predicts ADDR for SIZE, or HL_MTOK_ADDR_RAW. */
unsigned hl_trace_model_find     (const HlTraceModel *m, uint64_t size, uint64_t addr);
/* After an allocation (ALLOC*, REALLOC*) of SIZE at ADDR with STACK,
 * address token T: takes the id next_id++. */
void     hl_trace_model_alloc    (HlTraceModel *m, uint64_t size, uint64_t stack, uint64_t addr, unsigned t);
/* After the free of ID (FREE, REALLOC's old id). */
void     hl_trace_model_free_id  (HlTraceModel *m, uint64_t id);
