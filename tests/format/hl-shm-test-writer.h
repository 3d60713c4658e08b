/* hl-shm-test-writer.h — builds session segments in memory the way the
 * preload does (hl-shm-layout.h protocols), for the shm reader's tests and
 * the fuzz corpus. Not the preload's writer (that lives in src/capture). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "hl-shm-layout.h"

typedef struct
{
  uint8_t *base;        /* 64-byte aligned, zeroed */
  size_t   size;
  HlShmHeader *h;
  uint8_t *res;
  HlShmResourcesHeader *rh;
  HlShmCallsitesHeader *ch;
  HlShmCallsite *sites;
  HlShmLiveHeader *lh;
  HlShmLiveEntry *slots;
  HlShmMetadata *meta;
  HlShmCounters *cnt;
} HlShmTestSegment;

/* Lays out a segment with N_BUCKETS resource buckets, RES_BYTES of
 * resources, N_SITES call sites and N_LIVE live slots (a power of two). */
void     hl_shm_test_init       (HlShmTestSegment *s, uint32_t uid, uint32_t pid,
                                 uint32_t n_buckets, uint64_t res_bytes,
                                 uint64_t n_sites, uint64_t n_live);
void     hl_shm_test_clear      (HlShmTestSegment *s);
/* Appends a stack node and publishes its call site; returns the node offset or 0. */
uint32_t hl_shm_test_add_stack  (HlShmTestSegment *s, uint32_t id, const uint64_t *frames, uint32_t n);
uint32_t hl_shm_test_add_thread (HlShmTestSegment *s, uint32_t tid, const char *name);
/* Publishes a live entry; its time is HL_SHM_TEST_LIVE_TIME (ID). */
#define HL_SHM_TEST_LIVE_TIME(id) ((uint64_t) (id) * 7000000u)
void     hl_shm_test_live       (HlShmTestSegment *s, uint64_t slot, uint64_t addr, uint64_t id,
                                 uint64_t size, uint32_t stack, uint32_t tid);
void     hl_shm_test_meta       (HlShmTestSegment *s, const char *key, int64_t ivalue, const char *svalue);
void     hl_shm_test_sample     (HlShmTestSegment *s, uint64_t time_ns, uint64_t heap, uint64_t rss);
