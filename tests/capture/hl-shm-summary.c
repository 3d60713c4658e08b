/* hl-shm-summary — reads a session segment with the format's shm reader
 * and prints what the capture tests check, one "key=value" per line:
 *   state exit_status flags allocs frees bytes_allocated bytes_freed heap
 *   peak samples heartbeat stacks stack_frames_max threads thread_names
 *   cs_calls cs_bytes cs_frees cs_freed_bytes live live_bytes
 *   live_sizes (sorted, comma separated, at most 16) meta_keys log_entries
 *   dropped
 * Test support: never runs inside a target. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hl-shm-reader.h"

typedef struct
{
  uint64_t stacks, frames_max, threads;
  char     names[1024];
  uint64_t cs_calls, cs_bytes, cs_frees, cs_freed;
  uint64_t live, live_bytes;
  uint64_t sizes[16];
  char     keys[1024];
  uint64_t log_entries;
} Acc;

static void
on_stack (void *user_data, uint32_t stack_id, const uint64_t *frames, uint32_t n_frames)
{
  Acc *a = user_data;
  a->stacks++;
  if (n_frames > a->frames_max)
    a->frames_max = n_frames;
}

static void
on_thread (void *user_data, uint32_t tid, const char *name)
{
  Acc *a = user_data;
  a->threads++;
  if (strlen (a->names) + strlen (name) + 2 < sizeof a->names)
    {
      if (a->names[0])
        strcat (a->names, ",");
      strcat (a->names, name);
    }
}

static void
on_site (void *user_data, const HlShmCallsiteView *s)
{
  Acc *a = user_data;
  a->cs_calls += s->calls;
  a->cs_bytes += s->bytes;
  a->cs_frees += s->frees;
  a->cs_freed += s->freed_bytes;
}

static void
on_live (void *user_data, const HlShmLiveSlot *slot)
{
  Acc *a = user_data;
  if (a->live < 16)
    a->sizes[a->live] = slot->size;
  a->live++;
  a->live_bytes += slot->size;
}

static void
on_meta (void *user_data, const HlShmMetaItem *item)
{
  Acc *a = user_data;
  if (strlen (a->keys) + strlen (item->key) + 2 < sizeof a->keys)
    {
      if (a->keys[0])
        strcat (a->keys, ",");
      strcat (a->keys, item->key);
    }
}

static void
on_log (void *user_data, const HlShmMetaItem *item)
{
  ((Acc *) user_data)->log_entries++;
}

static int
cmp_u64 (const void *x, const void *y)
{
  uint64_t a = *(const uint64_t *) x, b = *(const uint64_t *) y;
  return a < b ? -1 : a > b;
}

int
main (int argc, char **argv)
{
  if (argc < 2)
    {
      fprintf (stderr, "usage: hl-shm-summary SEGMENT\n");
      return 2;
    }
  HlShmReader *r;
  HlFormatError err;
  if (hl_shm_reader_open (argv[1], &r, &err) != 0)
    {
      printf ("error=%s\n", err.message);
      return 1;
    }
  static Acc a;
  uint64_t heartbeat = 0;
  HlShmState state = hl_shm_reader_state (r, &heartbeat);
  int32_t exit_status = 0;
  uint64_t ended_ns = 0;
  uint32_t flags = 0;
  hl_shm_reader_end_info (r, &exit_status, &ended_ns, &flags);
  HlShmTotals t;
  int rc = hl_shm_reader_totals (r, &t, &err);
  uint64_t cursor = 0;
  rc |= hl_shm_reader_resources (r, &cursor, on_stack, on_thread, &a, &err);
  rc |= hl_shm_reader_callsites (r, on_site, &a, &err);
  rc |= hl_shm_reader_live (r, on_live, &a, &err);
  rc |= hl_shm_reader_metadata (r, on_meta, &a, &err);
  uint64_t log_cursor = 0;
  rc |= hl_shm_reader_metadata_log (r, &log_cursor, on_log, &a, &err);
  if (rc != 0)
    printf ("error=%s\n", err.message);
  uint64_t dropped = 0;
  for (int i = 0; i < HL_DROP_REASONS_MAX; i++)
    dropped += t.dropped[i];
  size_t n_sizes = a.live < 16 ? a.live : 16;
  qsort (a.sizes, n_sizes, sizeof a.sizes[0], cmp_u64);
  char sizes[512] = "";
  for (size_t i = 0; i < n_sizes; i++)
    snprintf (sizes + strlen (sizes), sizeof sizes - strlen (sizes), "%s%" PRIu64, i ? "," : "", a.sizes[i]);

  printf ("state=%s\n", state == HL_SHM_STATE_ENDED ? "ended" : state == HL_SHM_STATE_RUNNING ? "running" : "starting");
  printf ("exit_status=%d\nflags=%u\n", exit_status, flags);
  printf ("allocs=%" PRIu64 "\nfrees=%" PRIu64 "\nbytes_allocated=%" PRIu64 "\nbytes_freed=%" PRIu64 "\n",
          t.n_allocs, t.n_frees, t.bytes_allocated, t.bytes_freed);
  printf ("heap=%" PRIu64 "\npeak=%" PRIu64 "\nsamples=%" PRIu64 "\nheartbeat=%" PRIu64 "\n",
          t.heap_bytes, t.peak_heap_bytes, t.n_samples, heartbeat);
  printf ("stacks=%" PRIu64 "\nstack_frames_max=%" PRIu64 "\nthreads=%" PRIu64 "\nthread_names=%s\n",
          a.stacks, a.frames_max, a.threads, a.names);
  printf ("cs_calls=%" PRIu64 "\ncs_bytes=%" PRIu64 "\ncs_frees=%" PRIu64 "\ncs_freed_bytes=%" PRIu64 "\n",
          a.cs_calls, a.cs_bytes, a.cs_frees, a.cs_freed);
  printf ("live=%" PRIu64 "\nlive_bytes=%" PRIu64 "\nlive_sizes=%s\n", a.live, a.live_bytes, sizes);
  printf ("frees_unknown=%" PRIu64 "\nlive_count=%" PRIu64 "\n", t.frees_unknown, t.live_count);
  printf ("mmap_bytes=%" PRIu64 "\npeak_mmap_bytes=%" PRIu64 "\nmmap_regions=%" PRIu64 "\n", t.mmap_bytes,
          t.peak_mmap_bytes, t.mmap_regions);
  printf ("malloc=%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\nmalloc_sample_ns=%" PRIu64 "\n", t.malloc_arena_bytes,
          t.malloc_in_use_bytes, t.malloc_free_bytes, t.malloc_mmapped_bytes, t.malloc_sample_ns);
  printf ("meta_keys=%s\nlog_entries=%" PRIu64 "\ndropped=%" PRIu64 "\n", a.keys, a.log_entries, dropped);
  hl_shm_reader_free (r);
  return 0;
}
