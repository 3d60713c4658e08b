/* fuzz-shm-reader.c — libFuzzer target for the shared-memory reader.
 *
 * A valid segment is ~400 KiB, too big for a fuzzer to mutate usefully, so
 * the input is a program of patches applied to a small valid segment built
 * once: input[0] selects the mode, then records of
 *   where:u8 (header / resources / call sites / live / metadata / counters)
 *   offset:u16 (little-endian, within that part, wrapped)   len:u8 (1..16)
 *   bytes[len]
 * Mode 1 uses the input itself as the segment (when it holds a header). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hl-shm-reader.h"
#include "hl-shm-test-writer.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

#define UID 1000u

static HlShmTestSegment template_seg;
static uint8_t *work;

static void
build_template (void)
{
  HlShmTestSegment *s = &template_seg;
  hl_shm_test_init (s, UID, 4242, 16, 4096, 16, 64);
  uint64_t frames[8];
  for (uint32_t k = 1; k < 10; k++)
    {
      for (int i = 0; i < 8; i++)
        frames[i] = 0x400000u + k * 64u + (uint64_t) i * 4096u;
      hl_shm_test_add_stack (s, k, frames, k % 8 + 1);
    }
  hl_shm_test_add_thread (s, 4242, "main");
  for (int i = 0; i < 10; i++)
    hl_shm_test_live (s, (uint64_t) i * 3, 0x10000u + (uint64_t) i * 32u, (uint64_t) i, 32, 1, 4242);
  hl_shm_test_meta (s, "phase", 1, NULL);
  hl_shm_test_meta (s, "name", 0, "x");
  for (int i = 0; i < 5; i++)
    hl_shm_test_sample (s, (uint64_t) i, (uint64_t) i * 10, 100);
  s->cnt->threads[0].tid_atomic = 4242;
  work = aligned_alloc (64, s->size);
}

static void stack_cb (void *u, uint32_t id, const uint64_t *f, uint32_t n) { if (n > 0) *(volatile uint64_t *) u = f[n - 1] + id; }
static void thread_cb (void *u, uint32_t tid, const char *name) { *(volatile uint64_t *) u = tid + (uint64_t) strlen (name); }
static void site_cb (void *u, const HlShmCallsiteView *v) { *(volatile uint64_t *) u = v->calls; }
static void live_cb (void *u, const HlShmLiveSlot *s) { *(volatile uint64_t *) u = s->size; }
static void added_cb (void *u, uint64_t i, const HlShmLiveSlot *s) { *(volatile uint64_t *) u = i + s->size; }
static void removed_cb (void *u, uint64_t i) { *(volatile uint64_t *) u = i; }
static void meta_cb (void *u, const HlShmMetaItem *it) { *(volatile uint64_t *) u = strlen (it->key) + strlen (it->string_value); }

static void
read_all (const uint8_t *seg, size_t size)
{
  HlShmReader *r;
  HlFormatError err;
  if (hl_shm_reader_open_memory (seg, size, UID, &r, &err) != 0)
    return;
  volatile uint64_t sink = 0;
  uint64_t *u = (uint64_t *) &sink;
  HlShmTotals t;
  hl_shm_reader_totals (r, &t, &err);
  HlShmLeakScan scan;
  if (hl_shm_reader_leak_scan (r, &scan, &err) == 0)
    sink += scan.blocks[3] + scan.bytes[0] + scan.status;
  HlShmSample samples[32];
  hl_shm_reader_samples (r, 0, samples, 32);
  hl_shm_reader_samples (r, UINT64_MAX - 3, samples, 32);
  uint64_t cursor = 0;
  hl_shm_reader_resources (r, &cursor, stack_cb, thread_cb, u, &err);
  hl_shm_reader_resources (r, &cursor, stack_cb, thread_cb, u, &err);
  hl_shm_reader_callsites (r, site_cb, u, &err);
  hl_shm_reader_live (r, live_cb, u, &err);
  /* the live view's incremental snapshot: a shadow as long as the reader
   * says the table is, twice (the second pass diffs against the first) */
  uint64_t n_slots = hl_shm_reader_live_n_slots (r);
  if (n_slots <= 1u << 16)
    {
      uint32_t *shadow = calloc (n_slots ? n_slots : 1, sizeof *shadow);
      if (shadow != NULL)
        {
          hl_shm_reader_live_diff (r, shadow, n_slots, added_cb, removed_cb, u, &err);
          hl_shm_reader_live_diff (r, shadow, n_slots, added_cb, removed_cb, u, &err);
          hl_shm_reader_live_diff (r, shadow, n_slots / 2, added_cb, removed_cb, u, &err); /* too short */
          free (shadow);
        }
    }
  hl_shm_reader_metadata (r, meta_cb, u, &err);
  uint64_t log = 0;
  hl_shm_reader_metadata_log (r, &log, meta_cb, u, &err);
  uint64_t hb;
  hl_shm_reader_state (r, &hb);
  int32_t status;
  uint64_t ended;
  uint32_t flags;
  hl_shm_reader_end_info (r, &status, &ended, &flags);
  /* a NUL-terminated path, whatever the segment holds */
  if (strlen (hl_shm_reader_trace_path (r)) >= HL_SHM_PATH_MAX)
    __builtin_trap ();
  hl_shm_reader_free (r);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (work == NULL)
    build_template ();
  if (size == 0)
    return 0;
  if (data[0] == 1)
    {
      /* raw: the segment is the input (8-aligned copy) */
      uint8_t *copy = aligned_alloc (64, (size + 63) / 64 * 64);
      memcpy (copy, data + 1, size - 1);
      read_all (copy, size - 1);
      free (copy);
      return 0;
    }
  HlShmTestSegment *s = &template_seg;
  memcpy (work, s->base, s->size);
  const HlShmRegion *regions[5] = { &s->h->resources, &s->h->callsites, &s->h->live, &s->h->metadata, &s->h->counters };
  size_t i = 1;
  while (i + 4 <= size)
    {
      uint8_t where = data[i] % 6;
      uint16_t off = (uint16_t) (data[i + 1] | (data[i + 2] << 8));
      uint8_t len = (uint8_t) (data[i + 3] % 16 + 1);
      i += 4;
      uint64_t base = where == 0 ? 0 : regions[where - 1]->offset;
      uint64_t span = where == 0 ? HL_SHM_HEADER_SIZE : regions[where - 1]->size;
      uint64_t at = base + off % span;
      for (uint8_t k = 0; k < len && i < size && at + k < s->size; k++, i++)
        work[at + k] = data[i];
    }
  read_all (work, s->size);
  return 0;
}
