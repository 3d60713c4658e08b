/* hl-shm-test-writer.c — see hl-shm-test-writer.h. */
#include "hl-shm-test-writer.h"

#include <stdlib.h>
#include <string.h>

#include "hl-varint.h"

static uint64_t
up (uint64_t v, uint64_t a)
{
  return (v + a - 1) / a * a;
}

void
hl_shm_test_init (HlShmTestSegment *s, uint32_t uid, uint32_t pid, uint32_t n_buckets,
                  uint64_t res_bytes, uint64_t n_sites, uint64_t n_live)
{
  memset (s, 0, sizeof *s);
  uint64_t off = HL_SHM_HEADER_SIZE;
  HlShmRegion res = { off, up (res_bytes, 64) };
  off += res.size;
  HlShmRegion cs = { off, up (sizeof (HlShmCallsitesHeader) + n_sites * sizeof (HlShmCallsite), 64) };
  off += cs.size;
  HlShmRegion live = { off, up (sizeof (HlShmLiveHeader) + n_live * sizeof (HlShmLiveEntry), 64) };
  off += live.size;
  HlShmRegion meta = { off, up (sizeof (HlShmMetadata), 64) };
  off += meta.size;
  HlShmRegion cnt = { off, up (sizeof (HlShmCounters), 64) };
  off += cnt.size;
  s->size = off;
  s->base = aligned_alloc (64, off);
  memset (s->base, 0, off);
  HlShmHeader *h = s->h = (HlShmHeader *) s->base;
  memcpy (h->magic, HL_SHM_MAGIC, HL_SHM_MAGIC_SIZE);
  h->version = HL_SHM_VERSION;
  h->header_size = HL_SHM_HEADER_SIZE;
  h->segment_size = off;
  h->pid = pid;
  h->ppid = 1;
  h->uid = uid;
  h->start_wall_ns = 1700000000000000000ull;
  h->start_mono_ns = 1000;
  h->resources = res;
  h->callsites = cs;
  h->live = live;
  h->metadata = meta;
  h->counters = cnt;
  strcpy (h->exe, "/usr/bin/demo");
  memcpy (h->cmdline, "demo\0--flag\0", 13);
  strcpy (h->trace_path, "/tmp/demo.hltrace");
  __atomic_store_n (&h->state_atomic, HL_SHM_STATE_RUNNING, __ATOMIC_RELEASE);

  s->res = s->base + res.offset;
  s->rh = (HlShmResourcesHeader *) s->res;
  s->rh->n_buckets = n_buckets;
  s->rh->nodes_offset = (uint32_t) up (sizeof (HlShmResourcesHeader) + n_buckets * 4u, 8);
  s->rh->watermark_atomic = s->rh->nodes_offset;
  s->ch = (HlShmCallsitesHeader *) (s->base + cs.offset);
  s->ch->n_slots = n_sites;
  s->sites = (HlShmCallsite *) (s->ch + 1);
  s->lh = (HlShmLiveHeader *) (s->base + live.offset);
  s->lh->n_slots = n_live;
  s->slots = (HlShmLiveEntry *) (s->lh + 1);
  s->meta = (HlShmMetadata *) (s->base + meta.offset);
  s->cnt = (HlShmCounters *) (s->base + cnt.offset);
}

void
hl_shm_test_clear (HlShmTestSegment *s)
{
  free (s->base);
  memset (s, 0, sizeof *s);
}

static uint32_t
add_node (HlShmTestSegment *s, uint16_t kind, uint32_t id, const void *payload, size_t len)
{
  uint64_t need = (sizeof (HlShmResourceNode) + len + 7u) & ~(uint64_t) 7u;
  uint64_t off = __atomic_fetch_add (&s->rh->watermark_atomic, need, __ATOMIC_RELAXED);
  if (off + need > s->h->resources.size)
    {
      __atomic_store_n (&s->rh->watermark_atomic, s->h->resources.size, __ATOMIC_RELAXED);
      return 0;
    }
  HlShmResourceNode *node = (HlShmResourceNode *) (s->res + off);
  node->id = id;
  node->length = (uint16_t) len;
  memcpy (node + 1, payload, len);
  __atomic_store_n (&node->kind, kind, __ATOMIC_RELEASE);
  return (uint32_t) off;
}

uint32_t
hl_shm_test_add_stack (HlShmTestSegment *s, uint32_t id, const uint64_t *frames, uint32_t n)
{
  uint8_t payload[HL_TRACE_MAX_FRAMES * HL_VARINT_MAX_BYTES], *p = payload;
  uint64_t prev = 0;
  for (uint32_t i = 0; i < n; i++)
    {
      p = hl_svarint_put (p, (int64_t) (frames[i] - prev));
      prev = frames[i];
    }
  uint32_t off = add_node (s, HL_SHM_NODE_STACK, id, payload, (size_t) (p - payload));
  if (off != 0 && id < s->ch->n_slots)
    {
      __atomic_store_n (&s->rh->n_stacks_atomic, id, __ATOMIC_RELAXED);
      s->sites[id].calls_atomic = id * 10;
      s->sites[id].bytes_atomic = id * 1000;
      s->sites[id].frees_atomic = id * 5;
      s->sites[id].freed_bytes_atomic = id * 500;
      __atomic_store_n (&s->sites[id].node_offset_atomic, off, __ATOMIC_RELEASE);
    }
  return off;
}

uint32_t
hl_shm_test_add_thread (HlShmTestSegment *s, uint32_t tid, const char *name)
{
  return add_node (s, HL_SHM_NODE_THREAD, tid, name, strlen (name));
}

void
hl_shm_test_live (HlShmTestSegment *s, uint64_t slot, uint64_t addr, uint64_t id,
                  uint64_t size, uint32_t stack, uint32_t tid)
{
  HlShmLiveEntry *l = &s->slots[slot];
  __atomic_store_n (&l->address_atomic, HL_SHM_LIVE_BUSY, __ATOMIC_RELAXED);
  (void) hl_shm_live_pack (id, size, HL_SHM_TEST_LIVE_TIME (id), stack, tid, &l->id_time, &l->size_time,
                           &l->stack_tid);
  __atomic_store_n (&l->address_atomic, addr, __ATOMIC_RELEASE);
  __atomic_fetch_add (&s->lh->n_live_atomic, 1, __ATOMIC_RELAXED);
}

static void
write_item (HlShmMetaItem *it, uint32_t flags, const char *key, int64_t iv, const char *sv)
{
  uint32_t seq = it->seq_atomic;
  __atomic_store_n (&it->seq_atomic, seq + 1, __ATOMIC_RELAXED);
  __atomic_thread_fence (__ATOMIC_RELEASE);
  it->flags = flags;
  it->int_value = iv;
  it->time_ns = 42;
  memset (it->key, 0, sizeof it->key);
  strncpy (it->key, key, sizeof it->key - 1);
  memset (it->string_value, 0, sizeof it->string_value);
  if (sv != NULL)
    strncpy (it->string_value, sv, sizeof it->string_value - 1);
  __atomic_store_n (&it->seq_atomic, seq + 2, __ATOMIC_RELEASE);
}

void
hl_shm_test_meta (HlShmTestSegment *s, const char *key, int64_t ivalue, const char *svalue)
{
  HlShmMetadata *m = s->meta;
  uint32_t flags = HL_SHM_META_ACTIVE | (svalue != NULL ? HL_SHM_META_IS_STRING : 0);
  uint32_t n = m->n_items_atomic, i;
  for (i = 0; i < n; i++)
    if (strcmp (m->items[i].key, key) == 0)
      break;
  if (i < HL_SHM_META_ITEMS)
    {
      write_item (&m->items[i], flags, key, ivalue, svalue);
      if (i == n)
        __atomic_store_n (&m->n_items_atomic, n + 1, __ATOMIC_RELEASE);
    }
  uint64_t idx = m->log_count_atomic;
  write_item (&m->log[idx % HL_SHM_META_LOG], flags, key, ivalue, svalue);
  __atomic_store_n (&m->log_count_atomic, idx + 1, __ATOMIC_RELEASE);
}

void
hl_shm_test_sample (HlShmTestSegment *s, uint64_t time_ns, uint64_t heap, uint64_t rss)
{
  uint64_t i = s->cnt->n_samples_atomic;
  HlShmSample *x = &s->cnt->samples[i % HL_SHM_SAMPLES];
  x->time_ns = time_ns;
  x->heap_bytes = heap;
  x->rss_bytes = rss;
  x->n_allocs = i;
  __atomic_store_n (&s->cnt->n_samples_atomic, i + 1, __ATOMIC_RELEASE);
}
