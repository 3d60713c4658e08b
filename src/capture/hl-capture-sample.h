/* hl-capture-sample.h — sampling mode (HEAPLENS_SAMPLE_BYTES=N): the
 * per-call tests, inline. Poisson sampling on bytes: each thread counts
 * down a number of bytes drawn from an exponential distribution of mean
 * N; the allocation that takes it to zero or below is sampled (recorded
 * with its stack), so a block of SIZE bytes is sampled with probability
 * 1 - exp (-SIZE / N), independently of every other (the distribution has
 * no memory). An unsampled allocation costs a subtraction and a branch.
 *
 * The frees of sampled blocks are recognised by a small table of counts,
 * one byte per 4 KiB page of addresses, direct-mapped (hl_sample_marks,
 * 64 Ki bytes: 256 MiB of address space, then it wraps): a free whose byte
 * is 0 is of an unsampled block and never looks into the live table. A
 * byte that reached 255 stays there (the lookups of its addresses then go
 * to the live table, which is always right). By page, not by a hash of
 * the address: a program's frees touch the bytes of the pages its heap
 * uses, which stay in the first-level cache where a hashed byte per block
 * missed it on most frees (bench/results/sample-clock-*.md); a free in
 * the page of a live sampled block looks into the live table for
 * nothing. */
#pragma once

#include "hl-capture-private.h"

#include <string.h>

typedef struct
{
  int64_t  left;        /* bytes before the next sample (0: not drawn yet) */
  uint64_t rng;         /* xorshift64* state; 0: not seeded */
  uint32_t clock_calls; /* unsampled calls before the clock is read again */
} HlSampleTls;

/* Unsampled calls of a thread between two reads of the clock for the
 * counters' tick: the clock was about a fifth of an unsampled call's cost
 * (bench/results/sample-clock-*.md); the tick then comes at most this many
 * calls late (microseconds: it runs every millisecond or more). */
#define HL_SAMPLE_CLOCK_EVERY 32u

extern __thread HlSampleTls hl_sample_tls __attribute__ ((tls_model ("initial-exec")));

#define HL_SAMPLE_MARK_BITS 16u
extern uint8_t hl_sample_marks[1u << HL_SAMPLE_MARK_BITS];

/* The countdown reached zero (or was never drawn): true when this
 * allocation of SIZE bytes is sampled; draws the next countdown. */
bool hl_sample_slow (uint64_t size);

static inline bool
hl_sampling (void)
{
  return hl_g.cfg.sample_bytes != 0;
}

/* True when an allocation of SIZE bytes is recorded (sampling mode only). */
static inline bool
hl_sample_take (uint64_t size)
{
  int64_t left = hl_sample_tls.left - (int64_t) (size > (uint64_t) INT64_MAX / 2 ? (uint64_t) INT64_MAX / 2 : size);
  if (HL_LIKELY (left > 0))
    {
      hl_sample_tls.left = left;
      return false;
    }
  return hl_sample_slow (size);
}

static inline uint8_t *
hl_sample_mark_of (const void *p)
{
  uint64_t page = (uint64_t) (uintptr_t) p >> 12;
  return &hl_sample_marks[page & ((UINT64_C (1) << HL_SAMPLE_MARK_BITS) - 1)];
}

/* False when P is certainly not a sampled block. */
static inline bool
hl_sample_maybe (const void *p)
{
  return __atomic_load_n (hl_sample_mark_of (p), __ATOMIC_RELAXED) != 0;
}

void hl_sample_mark   (const void *p);
void hl_sample_unmark (const void *p);

/* True when the real allocator is glibc's and its chunk headers give
 * malloc_usable_size's answer (hl_sample_init checked it on blocks of
 * several sizes, mmapped ones included). */
extern bool hl_sample_glibc_chunks;

/* Checks the allocator once, at start-up in sampling mode. */
void hl_sample_init (void);

/* The allocator's size of the block at P: what the heap counters count in
 * sampling mode (the requested size of an unsampled block is not kept).
 * From glibc's chunk header when it can (the size word before the block:
 * its size less one word, two for an mmapped chunk: one load, where the
 * call of malloc_usable_size was about a sixth of an unsampled call and
 * also read the next chunk's in-use bit), else the allocator's
 * malloc_usable_size. */
static inline uint64_t
hl_sample_usable (void *p)
{
  if (HL_LIKELY (hl_sample_glibc_chunks))
    {
      uint64_t head;
      memcpy (&head, (const char *) p - sizeof head, sizeof head);
      uint64_t chunk = head & ~UINT64_C (7);
      return chunk - ((head & 2) != 0 ? 2 * sizeof head : sizeof head);
    }
  return hl_real.malloc_usable_size (p);
}

/* Counters of an unsampled allocation / free (hl-capture-sample.c). */
void hl_sample_count_alloc (HlThreadBlock *b, uint64_t size, uint64_t usable);
void hl_sample_count_free  (HlThreadBlock *b, uint64_t usable);
