/* hl-shm-reader.c — validated, read-only access to a session segment. */
#define _DEFAULT_SOURCE /* DT_* of readdir */

#include "hl-shm-reader.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "private/hl-trace-reader-private.h" /* hl_format_error_set */
#include "private/hl-varint.h"

#define SHM_DIR "/dev/shm/"
#define SEQLOCK_TRIES 64

struct HlShmReader
{
  /* Borrowed or owned (mapping != NULL) */
  const uint8_t *base;
  size_t         size;
  void          *mapping;
  int            fd;        /* kept to re-check the size; -1 for memory */
  HlShmHeader    header;    /* validated copy */
  bool           path_final; /* header.trace_path copied after STARTING */
  /* Validated region starts */
  const uint8_t *res;
  const uint8_t *cs;
  const uint8_t *live;
  const HlShmMetadata *meta;
  const HlShmCounters *cnt;
};

/* ---- Loads: every shared field is read once, atomically ---------------- */

#define LOAD_ACQ(p) __atomic_load_n ((p), __ATOMIC_ACQUIRE)
#define LOAD(p)     __atomic_load_n ((p), __ATOMIC_RELAXED)

/* Copies N bytes (N a multiple of 8, both ends 8-aligned) with relaxed loads. */
static void
copy_words (void *dst, const void *src, size_t n)
{
  const uint64_t *s = src;
  uint64_t *d = dst;
  for (size_t i = 0; i < n / 8; i++)
    d[i] = LOAD (&s[i]);
}

static bool
region_ok (const HlShmHeader *h, const HlShmRegion *r, uint64_t min_size, const char *name,
           HlFormatError *err)
{
  if (r->offset % HL_SHM_REGION_ALIGN != 0 || r->offset < h->header_size
      || r->offset > h->segment_size || r->size > h->segment_size - r->offset
      || r->size < min_size)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_CORRUPT, 0,
                           "the %s region (offset %llu, %llu bytes) does not fit the %llu-byte segment",
                           name, (unsigned long long) r->offset, (unsigned long long) r->size,
                           (unsigned long long) h->segment_size);
      return false;
    }
  return true;
}

static bool
overlap (const HlShmRegion *a, const HlShmRegion *b)
{
  return a->offset < b->offset + b->size && b->offset < a->offset + a->size;
}

static int
validate (HlShmReader *r, uint32_t expected_uid, HlFormatError *err)
{
  if ((uintptr_t) r->base % 8 != 0)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_IO, 0, "segment memory is not 8-byte aligned");
      return -1;
    }
  /* The writer stores the magic last, with a release store: zeros there
   * are a segment still being created, not a corrupt one. */
  uint64_t magic = r->size < HL_SHM_MAGIC_SIZE ? 0 : LOAD_ACQ ((const uint64_t *) r->base);
  if (magic == 0)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_NOT_READY, 0, "session segment still being created (no magic yet)");
      return -1;
    }
  if (memcmp (&magic, HL_SHM_MAGIC, HL_SHM_MAGIC_SIZE) != 0)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_NOT_A_TRACE, 0, "not a Heaplens session segment (bad magic)");
      return -1;
    }
  if (r->size < HL_SHM_HEADER_SIZE)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_TRUNCATED, r->size,
                           "segment of %zu bytes ends inside its %u-byte header", r->size, HL_SHM_HEADER_SIZE);
      return -1;
    }
  HlShmHeader *h = &r->header;
  copy_words (h, r->base, sizeof *h);
  h->exe[HL_SHM_EXE_MAX - 1] = '\0';
  h->cmdline[HL_SHM_CMDLINE_MAX - 2] = '\0';
  h->cmdline[HL_SHM_CMDLINE_MAX - 1] = '\0';
  h->trace_path[HL_SHM_PATH_MAX - 1] = '\0';
  if (h->version != HL_SHM_VERSION)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_VERSION, 8,
                           "session layout version %u, this reader knows version %u%s", h->version,
                           HL_SHM_VERSION, h->version > HL_SHM_VERSION ? ": update Heaplens" : "");
      return -1;
    }
  if (h->header_size != HL_SHM_HEADER_SIZE)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_CORRUPT, 12, "header size %u instead of %u",
                           h->header_size, HL_SHM_HEADER_SIZE);
      return -1;
    }
  if (h->segment_size != r->size)
    {
      hl_format_error_set (err, h->segment_size > r->size ? HL_FORMAT_ERROR_TRUNCATED : HL_FORMAT_ERROR_CORRUPT,
                           16, "the header says %llu bytes, the segment has %zu",
                           (unsigned long long) h->segment_size, r->size);
      return -1;
    }
  if (h->uid != expected_uid)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_IO, 32, "session of uid %u, not of uid %u", h->uid, expected_uid);
      return -1;
    }
  if (!region_ok (h, &h->resources, sizeof (HlShmResourcesHeader), "resources", err)
      || !region_ok (h, &h->callsites, sizeof (HlShmCallsitesHeader), "call-site", err)
      || !region_ok (h, &h->live, sizeof (HlShmLiveHeader), "live", err)
      || !region_ok (h, &h->metadata, sizeof (HlShmMetadata), "metadata", err)
      || !region_ok (h, &h->counters, sizeof (HlShmCounters), "counters", err))
    return -1;
  const HlShmRegion *regions[5] = { &h->resources, &h->callsites, &h->live, &h->metadata, &h->counters };
  for (int i = 0; i < 5; i++)
    for (int j = i + 1; j < 5; j++)
      if (overlap (regions[i], regions[j]))
        {
          hl_format_error_set (err, HL_FORMAT_ERROR_CORRUPT, 0, "regions %d and %d overlap", i, j);
          return -1;
        }
  r->res = r->base + h->resources.offset;
  r->cs = r->base + h->callsites.offset;
  r->live = r->base + h->live.offset;
  r->meta = (const HlShmMetadata *) (r->base + h->metadata.offset);
  r->cnt = (const HlShmCounters *) (r->base + h->counters.offset);
  return 0;
}

int
hl_shm_reader_open_memory (const void     *data,
                           size_t          size,
                           uint32_t        expected_uid,
                           HlShmReader   **out,
                           HlFormatError  *err)
{
  *out = NULL;
  HlShmReader *r = calloc (1, sizeof *r);
  if (r == NULL)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_IO, 0, "out of memory");
      return -1;
    }
  r->base = data;
  r->size = data != NULL ? size : 0;
  r->fd = -1;
  if (validate (r, expected_uid, err) != 0)
    {
      free (r);
      return -1;
    }
  *out = r;
  return 0;
}

static const char *
file_kind (mode_t mode)
{
  if (S_ISFIFO (mode))
    return "a FIFO";
  if (S_ISDIR (mode))
    return "a directory";
  if (S_ISSOCK (mode))
    return "a socket";
  if (S_ISCHR (mode) || S_ISBLK (mode))
    return "a device";
  if (S_ISLNK (mode))
    return "a symbolic link";
  return "not a regular file";
}

int
hl_shm_check_candidate (int            fd,
                        const char    *path,
                        struct stat   *st,
                        HlFormatError *err)
{
  if (fstat (fd, st) != 0)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_IO, 0, "cannot stat %s: %s", path, strerror (errno));
      return -1;
    }
  if (!S_ISREG (st->st_mode))
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_IO, 0, "%s is %s, not a session segment", path,
                           file_kind (st->st_mode));
      return -1;
    }
  uid_t me = getuid ();
  if (st->st_uid != me)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_IO, 0, "%s is owned by uid %u, not you (%u)", path,
                           (unsigned) st->st_uid, (unsigned) me);
      return -1;
    }
  if ((st->st_mode & 07777) != 0600)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_IO, 0, "%s has mode %04o, not 0600", path,
                           (unsigned) (st->st_mode & 07777));
      return -1;
    }
  return 0;
}

int
hl_shm_reader_open (const char     *name,
                    HlShmReader   **out,
                    HlFormatError  *err)
{
  *out = NULL;
  char path[4096];
  if (strchr (name, '/') != NULL && name[0] != '/')
    snprintf (path, sizeof path, "%s", name);
  else if (name[0] == '/' && strchr (name + 1, '/') == NULL)
    snprintf (path, sizeof path, SHM_DIR "%s", name + 1); /* "/heaplens-..." as given to shm_open */
  else if (name[0] == '/')
    snprintf (path, sizeof path, "%s", name);
  else
    snprintf (path, sizeof path, SHM_DIR "%s", name);

  /* /dev/shm is world-writable: a FIFO there would block a plain open
   * (and every read), a symlink would lead anywhere. Nothing is read
   * before the descriptor is known to be a regular file of ours, 0600. */
  int fd = open (path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    {
      int e = errno;
      hl_format_error_set (err, HL_FORMAT_ERROR_IO, 0, "cannot open %s: %s", path,
                           e == ELOOP ? "it is a symbolic link" : strerror (e));
      return -1;
    }
  struct stat st;
  if (hl_shm_check_candidate (fd, path, &st, err) != 0)
    {
      close (fd);
      return -1;
    }
  size_t size = (size_t) st.st_size;
  if (size < HL_SHM_HEADER_SIZE)
    {
      hl_format_error_set (err, size == 0 ? HL_FORMAT_ERROR_NOT_READY : HL_FORMAT_ERROR_TRUNCATED, size,
                           "%s has %zu bytes, less than a session header", path, size);
      close (fd);
      return -1;
    }
  void *map = mmap (NULL, size, PROT_READ, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_IO, 0, "cannot map %s: %s", path, strerror (errno));
      close (fd);
      return -1;
    }
  if (hl_shm_reader_open_memory (map, size, (uint32_t) getuid (), out, err) != 0)
    {
      munmap (map, size);
      close (fd);
      return -1;
    }
  (*out)->mapping = map;
  (*out)->fd = fd;
  return 0;
}

void
hl_shm_reader_free (HlShmReader *r)
{
  if (r == NULL)
    return;
  if (r->mapping != NULL)
    munmap (r->mapping, r->size);
  if (r->fd >= 0)
    close (r->fd);
  free (r);
}

/* The owner may have shrunk the object since it was mapped. */
static int
still_mapped (const HlShmReader *r, HlFormatError *err)
{
  struct stat st;
  if (r->fd < 0)
    return 0;
  if (fstat (r->fd, &st) != 0 || (uint64_t) st.st_size < r->size)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_TRUNCATED, 0, "the session segment shrank while mapped");
      return -1;
    }
  return 0;
}

const HlShmHeader *
hl_shm_reader_header (const HlShmReader *r)
{
  return &r->header;
}

size_t
hl_shm_reader_size (const HlShmReader *r)
{
  return r->size;
}

const char *
hl_shm_reader_trace_path (HlShmReader *r)
{
  /* The preload stores the path, then RUNNING (release): a reader that
   * opened the segment while it was STARTING copies the path once it
   * reads a later state, and keeps that copy from then on. */
  if (!r->path_final && hl_shm_reader_state (r, NULL) != HL_SHM_STATE_STARTING)
    {
      const HlShmHeader *live = (const HlShmHeader *) r->base;
      _Static_assert (offsetof (HlShmHeader, trace_path) % 8 == 0 && HL_SHM_PATH_MAX % 8 == 0,
                      "the path is copied in words");
      copy_words (r->header.trace_path, live->trace_path, HL_SHM_PATH_MAX);
      r->header.trace_path[HL_SHM_PATH_MAX - 1] = '\0';
      r->path_final = true;
    }
  return r->header.trace_path;
}

HlShmState
hl_shm_reader_state (const HlShmReader *r, uint64_t *heartbeat_ns)
{
  const HlShmHeader *live = (const HlShmHeader *) r->base;
  uint32_t state = LOAD_ACQ (&live->state_atomic);
  if (heartbeat_ns != NULL)
    *heartbeat_ns = LOAD (&live->heartbeat_ns_atomic);
  if (state > HL_SHM_STATE_ENDED)
    return HL_SHM_STATE_STARTING;
  return (HlShmState) state;
}

void
hl_shm_reader_end_info (const HlShmReader *r, int32_t *exit_status, uint64_t *ended_ns, uint32_t *flags)
{
  const HlShmHeader *live = (const HlShmHeader *) r->base;
  (void) LOAD_ACQ (&live->state_atomic);
  if (exit_status != NULL)
    *exit_status = LOAD (&live->exit_status);
  if (ended_ns != NULL)
    *ended_ns = LOAD (&live->ended_ns);
  if (flags != NULL)
    *flags = LOAD (&live->flags);
}

/* ---- Leak scan on demand ---------------------------------------------- */

int
hl_shm_reader_leak_scan (HlShmReader *r, HlShmLeakScan *out, HlFormatError *err)
{
  memset (out, 0, sizeof *out);
  if (still_mapped (r, err) != 0)
    return -1;
  const HlShmLeakScan *l = &((const HlShmHeader *) r->base)->leak_scan;
  for (int attempt = 0; attempt < 8; attempt++)
    {
      uint32_t seq = LOAD_ACQ (&l->seq_atomic);
      if ((seq & 1) != 0)
        continue;
      for (int k = 0; k < 4; k++)
        {
          out->blocks[k] = LOAD (&l->blocks[k]);
          out->bytes[k] = LOAD (&l->bytes[k]);
        }
      out->time_ns = LOAD (&l->time_ns);
      out->scan_ns = LOAD (&l->scan_ns);
      out->status = LOAD (&l->status);
      out->flags = LOAD (&l->flags);
      __atomic_thread_fence (__ATOMIC_ACQUIRE);
      if (LOAD (&l->seq_atomic) == seq)
        {
          out->seq_atomic = seq;
          return 0;
        }
    }
  memset (out, 0, sizeof *out);
  hl_format_error_set (err, HL_FORMAT_ERROR_NOT_READY, 0, "a leak scan is being published");
  return -1;
}

/* ---- Counters --------------------------------------------------------- */

int
hl_shm_reader_totals (HlShmReader *r, HlShmTotals *out, HlFormatError *err)
{
  memset (out, 0, sizeof *out);
  if (still_mapped (r, err) != 0)
    return -1;
  const HlShmCounters *c = r->cnt;
  out->heap_bytes = LOAD (&c->heap_bytes_atomic);
  out->peak_heap_bytes = LOAD (&c->peak_heap_bytes_atomic);
  out->peak_heap_time_ns = LOAD (&c->peak_heap_time_ns_atomic);
  out->rss_bytes = LOAD (&c->rss_bytes_atomic);
  out->peak_rss_bytes = LOAD (&c->peak_rss_bytes_atomic);
  for (int i = 0; i < HL_DROP_REASONS_MAX; i++)
    out->dropped[i] = LOAD (&c->dropped_atomic[i]);
  out->n_allocs = LOAD (&c->exited_n_allocs_atomic);
  out->n_frees = LOAD (&c->exited_n_frees_atomic);
  out->bytes_allocated = LOAD (&c->exited_bytes_allocated_atomic);
  out->bytes_freed = LOAD (&c->exited_bytes_freed_atomic);
  out->n_samples = LOAD (&c->n_samples_atomic);
  out->fp_checks = LOAD (&c->fp_checks_atomic);
  out->fp_mismatches = LOAD (&c->fp_mismatches_atomic);
  const HlShmHeader *h = (const HlShmHeader *) r->base;
  out->mmap_bytes = LOAD (&h->mmap_bytes_atomic);
  out->peak_mmap_bytes = LOAD (&h->peak_mmap_bytes_atomic);
  out->mmap_regions = LOAD (&h->mmap_regions_atomic);
  out->malloc_sample_ns = LOAD_ACQ (&h->malloc_sample_ns_atomic);
  out->malloc_arena_bytes = LOAD (&h->malloc_arena_bytes_atomic);
  out->malloc_in_use_bytes = LOAD (&h->malloc_in_use_bytes_atomic);
  out->malloc_free_bytes = LOAD (&h->malloc_free_bytes_atomic);
  out->malloc_mmapped_bytes = LOAD (&h->malloc_mmapped_bytes_atomic);
  for (int i = 0; i < HL_SHM_THREAD_SLOTS; i++)
    {
      const HlShmThreadCounters *t = &c->threads[i];
      if (LOAD_ACQ (&t->tid_atomic) == 0)
        continue;
      out->n_threads++;
      out->n_allocs += LOAD (&t->n_allocs);
      out->n_frees += LOAD (&t->n_frees);
      out->bytes_allocated += LOAD (&t->bytes_allocated);
      out->bytes_freed += LOAD (&t->bytes_freed);
      out->frees_unknown += LOAD (&t->frees_unknown);
    }
  const HlShmResourcesHeader *rh = (const HlShmResourcesHeader *) r->res;
  out->n_stacks = LOAD (&rh->n_stacks_atomic);
  out->stacks_dropped = LOAD (&rh->n_dropped_atomic);
  const HlShmLiveHeader *lh = (const HlShmLiveHeader *) r->live;
  out->live_count = LOAD (&lh->n_live_atomic);
  out->frees_unknown += LOAD (&lh->exited_frees_unknown_atomic);
  out->live_dropped = LOAD (&lh->n_dropped_atomic);
  return 0;
}

int
hl_shm_reader_threads (HlShmReader *r, HlShmThreadCountersFunc func, void *user_data, HlFormatError *err)
{
  if (still_mapped (r, err) != 0)
    return -1;
  const HlShmCounters *c = r->cnt;
  for (int i = 0; i < HL_SHM_THREAD_SLOTS; i++)
    {
      const HlShmThreadCounters *t = &c->threads[i];
      HlShmThreadView v;
      v.tid = LOAD_ACQ (&t->tid_atomic);
      if (v.tid == 0)
        continue;
      v.n_allocs = LOAD (&t->n_allocs);
      v.n_frees = LOAD (&t->n_frees);
      v.bytes_allocated = LOAD (&t->bytes_allocated);
      v.bytes_freed = LOAD (&t->bytes_freed);
      func (user_data, &v);
    }
  return 0;
}

size_t
hl_shm_reader_samples (HlShmReader *r, uint64_t first, HlShmSample *out, size_t max)
{
  if (still_mapped (r, NULL) != 0 || max == 0)
    return 0;
  const HlShmCounters *c = r->cnt;
  uint64_t n = LOAD_ACQ (&c->n_samples_atomic);
  if (n > HL_SHM_SAMPLES && first < n - HL_SHM_SAMPLES)
    first = n - HL_SHM_SAMPLES;
  if (first >= n)
    return 0;
  size_t count = 0;
  for (uint64_t i = first; i < n && count < max; i++)
    copy_words (&out[count++], &c->samples[i % HL_SHM_SAMPLES], sizeof (HlShmSample));
  /* Drop the ones overwritten while they were copied. */
  uint64_t n2 = LOAD_ACQ (&c->n_samples_atomic);
  size_t lost = 0;
  if (n2 > HL_SHM_SAMPLES && n2 - HL_SHM_SAMPLES > first)
    lost = (size_t) (n2 - HL_SHM_SAMPLES - first);
  if (lost >= count)
    return 0;
  if (lost > 0)
    memmove (out, out + lost, (count - lost) * sizeof *out);
  return count - lost;
}

/* ---- Resources -------------------------------------------------------- */

int
hl_shm_reader_resources (HlShmReader    *r,
                         uint64_t       *cursor,
                         HlShmStackFunc  stack_func,
                         HlShmThreadFunc thread_func,
                         void           *user_data,
                         HlFormatError  *err)
{
  if (still_mapped (r, err) != 0)
    return -1;
  const HlShmResourcesHeader *rh = (const HlShmResourcesHeader *) r->res;
  uint64_t region = r->header.resources.size;
  uint64_t base_off = r->header.resources.offset;
  uint64_t first = LOAD (&rh->nodes_offset);
  uint64_t wm = LOAD_ACQ (&rh->watermark_atomic);
  if (wm > region)
    wm = region; /* a writer that found the table full overshoots */
  if (first < sizeof *rh || first % 8 != 0 || first > region)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_CORRUPT, base_off + 4, "resources: first node at %llu",
                           (unsigned long long) first);
      return -1;
    }
  uint64_t off = *cursor == 0 ? first : *cursor;
  if (off < first || off % 8 != 0 || off > region)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_CORRUPT, base_off, "resources: cursor %llu outside the nodes",
                           (unsigned long long) off);
      return -1;
    }
  uint64_t frames[HL_TRACE_MAX_FRAMES];
  while (off + sizeof (HlShmResourceNode) <= wm)
    {
      const HlShmResourceNode *node = (const HlShmResourceNode *) (r->res + off);
      uint16_t kind = LOAD_ACQ (&node->kind);
      if (kind == 0)
        break; /* reserved, not yet published */
      uint32_t id = LOAD (&node->id);
      uint16_t length = LOAD (&node->length);
      uint64_t need = (sizeof *node + length + 7u) & ~(uint64_t) 7u;
      if (need > region - off)
        {
          hl_format_error_set (err, HL_FORMAT_ERROR_CORRUPT, base_off + off,
                               "resources: node of %u bytes runs past the region", length);
          return -1;
        }
      /* Published payloads never change: copy once, then decode the copy. */
      uint8_t payload[UINT16_MAX + 1];
      memcpy (payload, node + 1, length);
      payload[length] = '\0';
      if (kind == HL_SHM_NODE_STACK)
        {
          uint32_t n = 0;
          uint64_t prev = 0;
          const uint8_t *p = payload, *end = payload + length;
          while (p < end)
            {
              int64_t d;
              if (n == HL_TRACE_MAX_FRAMES || (p = hl_svarint_get (p, end, &d)) == NULL)
                {
                  hl_format_error_set (err, HL_FORMAT_ERROR_CORRUPT, base_off + off,
                                       "resources: malformed frames of stack %u", id);
                  return -1;
                }
              prev += (uint64_t) d;
              frames[n++] = prev;
            }
          if (id == 0)
            {
              hl_format_error_set (err, HL_FORMAT_ERROR_CORRUPT, base_off + off, "resources: stack id 0");
              return -1;
            }
          if (stack_func != NULL)
            stack_func (user_data, id, frames, n);
        }
      else if (kind == HL_SHM_NODE_THREAD)
        {
          if (thread_func != NULL)
            thread_func (user_data, id, (const char *) payload);
        }
      /* other kinds: newer writers; skipped */
      off += need;
    }
  *cursor = off;
  return 0;
}

/* ---- Call sites ------------------------------------------------------- */

int
hl_shm_reader_callsites (HlShmReader *r, HlShmCallsiteFunc func, void *user_data, HlFormatError *err)
{
  if (still_mapped (r, err) != 0)
    return -1;
  const HlShmCallsitesHeader *ch = (const HlShmCallsitesHeader *) r->cs;
  uint64_t n = LOAD (&ch->n_slots);
  uint64_t room = (r->header.callsites.size - sizeof *ch) / sizeof (HlShmCallsite);
  if (n > room)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_CORRUPT, r->header.callsites.offset,
                           "call sites: %llu records do not fit the region (room for %llu)",
                           (unsigned long long) n, (unsigned long long) room);
      return -1;
    }
  if (n > (uint64_t) UINT32_MAX + 1)
    n = (uint64_t) UINT32_MAX + 1;
  const HlShmCallsite *sites = (const HlShmCallsite *) (ch + 1);
  for (uint64_t i = 0; i < n; i++)
    {
      const HlShmCallsite *s = &sites[i];
      uint32_t node = LOAD_ACQ (&s->node_offset_atomic);
      HlShmCallsiteView v;
      v.calls = LOAD (&s->calls_atomic);
      if (node == 0 && v.calls == 0)
        continue;
      v.stack_id = (uint32_t) i;
      v.flags = LOAD (&s->flags);
      v.bytes = LOAD (&s->bytes_atomic);
      v.frees = LOAD (&s->frees_atomic);
      v.freed_bytes = LOAD (&s->freed_bytes_atomic);
      func (user_data, &v);
    }
  return 0;
}

/* ---- Live allocations ------------------------------------------------- */

/* The live table's entries and their count, checked against the region:
 * 0, or -1 with ERR when the count does not fit. */
static int
live_table (HlShmReader *r, const HlShmLiveEntry **slots, uint64_t *n_slots, HlFormatError *err)
{
  const HlShmLiveHeader *lh = (const HlShmLiveHeader *) r->live;
  uint64_t n = LOAD (&lh->n_slots);
  uint64_t room = (r->header.live.size - sizeof *lh) / sizeof (HlShmLiveEntry);
  if (n > room)
    {
      hl_format_error_set (err, HL_FORMAT_ERROR_CORRUPT, r->header.live.offset,
                           "live table: %llu slots do not fit the region (room for %llu)",
                           (unsigned long long) n, (unsigned long long) room);
      return -1;
    }
  *slots = (const HlShmLiveEntry *) (lh + 1);
  *n_slots = n;
  return 0;
}

/* The fields of entry S, whose address was A (acquire); false when the
 * entry changed while it was read. */
static bool
live_read (const HlShmLiveEntry *s, uint64_t a, HlShmLiveSlot *out)
{
  uint64_t id_time = LOAD (&s->id_time);
  uint64_t size_time = LOAD (&s->size_time);
  uint64_t stack_tid = LOAD (&s->stack_tid);
  __atomic_thread_fence (__ATOMIC_ACQUIRE);
  if (LOAD (&s->address_atomic) != a)
    return false;
  hl_shm_live_unpack (a, id_time, size_time, stack_tid, out);
  return true;
}

/* The live table of a segment still mapped whole (both readers of it). */
static int
mapped_live_table (HlShmReader *r, const HlShmLiveEntry **slots, uint64_t *n, HlFormatError *err)
{
  if (still_mapped (r, err) != 0)
    return -1;
  return live_table (r, slots, n, err);
}

int
hl_shm_reader_live (HlShmReader *r, HlShmLiveFunc func, void *user_data, HlFormatError *err)
{
  const HlShmLiveEntry *slots;
  uint64_t n;
  if (mapped_live_table (r, &slots, &n, err) != 0)
    return -1;
  for (uint64_t i = 0; i < n; i++)
    {
      const HlShmLiveEntry *s = &slots[i];
      uint64_t a = LOAD_ACQ (&s->address_atomic);
      if (a <= HL_SHM_LIVE_BUSY)
        continue;
      HlShmLiveSlot v;
      if (live_read (s, a, &v))
        func (user_data, &v);
    }
  return 0;
}

uint64_t
hl_shm_reader_live_n_slots (HlShmReader *r)
{
  const HlShmLiveEntry *slots;
  uint64_t n;
  if (r->live == NULL || r->header.live.size < sizeof (HlShmLiveHeader))
    return 0;
  return live_table (r, &slots, &n, NULL) == 0 ? n : 0;
}

static inline uint32_t
fold_id (uint64_t id)
{
  uint32_t v = (uint32_t) (id ^ (id >> 32));
  return v != 0 ? v : 1;
}

int
hl_shm_reader_live_diff (HlShmReader *r, uint32_t *shadow, uint64_t n_shadow, HlShmLiveAddedFunc added,
                         HlShmLiveRemovedFunc removed, void *user_data, HlFormatError *err)
{
  const HlShmLiveEntry *slots;
  uint64_t n;
  if (mapped_live_table (r, &slots, &n, err) != 0)
    return -1;
  if (n > n_shadow)
    n = n_shadow;
  /* Pages of the table the target never wrote are holes of the segment:
   * all slots empty. Reading them would make the kernel give the segment
   * a page for each (the whole table: hundreds of MiB charged to the
   * target's segment) and cost a pass over all of it, so a block of pages
   * not in memory (mincore) whose slots were empty last time is skipped. */
  long page_size = sysconf (_SC_PAGESIZE);
  const uint64_t block = 16384; /* slots per mincore() call */
  unsigned char vec[(16384 * sizeof (HlShmLiveEntry)) / 4096 + 2];
  for (uint64_t first = 0; first < n; first += block)
    {
      uint64_t last = first + block < n ? first + block : n;
      uintptr_t lo = (uintptr_t) &slots[first] & ~(uintptr_t) (page_size - 1);
      uintptr_t hi = (uintptr_t) &slots[last];
      size_t n_pages = (size_t) ((hi - lo + (uintptr_t) page_size - 1) / (uintptr_t) page_size);
      bool have_vec = page_size == 4096 && n_pages <= sizeof vec && mincore ((void *) lo, hi - lo, vec) == 0;
      if (have_vec)
        {
          bool any = false;
          for (size_t p = 0; p < n_pages && !any; p++)
            any = (vec[p] & 1) != 0;
          for (uint64_t i = first; i < last && !any; i++)
            any = shadow[i] != 0;
          if (!any)
            continue;
        }
      for (uint64_t i = first; i < last; i++)
        {
          const HlShmLiveEntry *s = &slots[i];
          if (have_vec && shadow[i] == 0)
            {
              /* a slot on a page not in memory is empty (and stays unread) */
              size_t p0 = (size_t) (((uintptr_t) s - lo) / (uintptr_t) page_size);
              size_t p1 = (size_t) (((uintptr_t) (s + 1) - 1 - lo) / (uintptr_t) page_size);
              if (!(vec[p0] & 1) || !(vec[p1] & 1))
                continue;
            }
          uint64_t a = LOAD_ACQ (&s->address_atomic);
          if (a == HL_SHM_LIVE_BUSY)
            continue; /* being written: next time */
          if (a <= HL_SHM_LIVE_TOMBSTONE)
            {
              if (shadow[i] != 0)
                {
                  removed (user_data, i);
                  shadow[i] = 0;
                }
              continue;
            }
          uint32_t v = fold_id (LOAD (&s->id_time) & HL_SHM_LIVE_LOW48);
          if (v == shadow[i])
            continue; /* the same allocation as last time: nothing more to read */
          HlShmLiveSlot c;
          if (!live_read (s, a, &c) || fold_id (c.alloc_id) != v)
            continue; /* changed while read: next time */
          if (shadow[i] != 0)
            removed (user_data, i);
          added (user_data, i, &c);
          shadow[i] = v;
        }
    }
  return 0;
}

/* ---- Metadata --------------------------------------------------------- */

/* A consistent copy of a seqlocked item, or false after too many tries. */
static bool
read_item (const HlShmMetaItem *it, HlShmMetaItem *out)
{
  for (int k = 0; k < SEQLOCK_TRIES; k++)
    {
      uint32_t s1 = LOAD_ACQ (&it->seq_atomic);
      if (s1 & 1)
        continue;
      out->flags = LOAD (&it->flags);
      out->int_value = LOAD (&it->int_value);
      out->time_ns = LOAD (&it->time_ns);
      copy_words (out->key, it->key, sizeof out->key);
      copy_words (out->string_value, it->string_value, sizeof out->string_value);
      __atomic_thread_fence (__ATOMIC_ACQUIRE);
      if (LOAD (&it->seq_atomic) != s1)
        continue;
      out->seq_atomic = s1;
      out->key[HL_SHM_META_KEY_MAX - 1] = '\0';
      out->string_value[HL_SHM_META_VALUE_MAX - 1] = '\0';
      return true;
    }
  return false;
}

int
hl_shm_reader_metadata (HlShmReader *r, HlShmMetaFunc item_func, void *user_data, HlFormatError *err)
{
  if (still_mapped (r, err) != 0)
    return -1;
  uint32_t n = LOAD_ACQ (&r->meta->n_items_atomic);
  if (n > HL_SHM_META_ITEMS)
    n = HL_SHM_META_ITEMS;
  for (uint32_t i = 0; i < n; i++)
    {
      HlShmMetaItem item;
      if (read_item (&r->meta->items[i], &item) && (item.flags & HL_SHM_META_ACTIVE))
        item_func (user_data, &item);
    }
  return 0;
}

int
hl_shm_reader_metadata_log (HlShmReader *r, uint64_t *log_cursor, HlShmMetaFunc entry_func,
                            void *user_data, HlFormatError *err)
{
  if (still_mapped (r, err) != 0)
    return -1;
  uint64_t count = LOAD_ACQ (&r->meta->log_count_atomic);
  uint64_t i = *log_cursor;
  if (i > count)
    i = count; /* a cursor from another session, or a hostile count that went back */
  if (count - i > HL_SHM_META_LOG)
    i = count - HL_SHM_META_LOG;
  for (; i < count; i++)
    {
      HlShmMetaItem e;
      bool ok = read_item (&r->meta->log[i % HL_SHM_META_LOG], &e);
      uint64_t now = LOAD_ACQ (&r->meta->log_count_atomic);
      if (ok && now - i <= HL_SHM_META_LOG)
        entry_func (user_data, &e);
    }
  *log_cursor = count;
  return 0;
}

/* ---- Listing ---------------------------------------------------------- */

static bool
parse_u32 (const char **p, uint32_t *out)
{
  uint64_t v = 0;
  const char *s = *p;
  if (*s < '0' || *s > '9')
    return false;
  while (*s >= '0' && *s <= '9')
    {
      v = v * 10 + (uint64_t) (*s - '0');
      if (v > UINT32_MAX)
        return false;
      s++;
    }
  *out = (uint32_t) v;
  *p = s;
  return true;
}

int
hl_shm_list_sessions (uint32_t uid, HlShmSessionFunc func, void *user_data)
{
  DIR *d = opendir (SHM_DIR);
  if (d == NULL)
    return -1;
  int n = 0;
  struct dirent *e;
  size_t plen = strlen (HL_SHM_NAME_PREFIX);
  while ((e = readdir (d)) != NULL)
    {
      if (strncmp (e->d_name, HL_SHM_NAME_PREFIX, plen) != 0)
        continue;
      HlShmSessionName s;
      const char *p = e->d_name + plen;
      if (!parse_u32 (&p, &s.uid) || *p++ != '-' || !parse_u32 (&p, &s.pid) || *p++ != '-' || *p == '\0')
        continue;
      if (uid != UINT32_MAX && s.uid != uid)
        continue;
      snprintf (s.name, sizeof s.name, "%s", e->d_name);
      func (user_data, &s);
      n++;
    }
  closedir (d);
  return n;
}
