/* test-format-shm.c — the shared-memory reader on good, damaged and hostile
 * segments, from memory and from /dev/shm. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hl-shm-reader.h"
#include "hl-shm-test-writer.h"
#include "hl-test-util.h"

#define UID 1000u

typedef struct
{
  size_t   n_stacks, n_threads, n_sites, n_live, n_meta;
  size_t   n_live_exact;   /* live entries whose fields are as written */
  uint64_t frame_sum;
  uint32_t last_stack_id, last_n_frames;
  char     last_thread[80];
  char     last_key[40];
  int64_t  last_int;
  char     last_string[80];
} Seen;

static void
on_stack (void *u, uint32_t id, const uint64_t *frames, uint32_t n)
{
  Seen *s = u;
  s->n_stacks++;
  s->last_stack_id = id;
  s->last_n_frames = n;
  for (uint32_t i = 0; i < n; i++)
    s->frame_sum += frames[i];
}

static void
on_thread (void *u, uint32_t tid, const char *name)
{
  Seen *s = u;
  s->n_threads++;
  snprintf (s->last_thread, sizeof s->last_thread, "%u:%.60s", tid, name);
}

static void
on_site (void *u, const HlShmCallsiteView *v)
{
  ((Seen *) u)->n_sites++;
}

static void
on_live (void *u, const HlShmLiveSlot *slot)
{
  Seen *s = u;
  s->n_live++;
  /* as build () wrote them; the time in units of 2^HL_SHM_LIVE_TIME_SHIFT ns */
  uint64_t i = slot->alloc_id;
  uint64_t t = HL_SHM_TEST_LIVE_TIME (i) >> HL_SHM_LIVE_TIME_SHIFT << HL_SHM_LIVE_TIME_SHIFT;
  if (slot->address_atomic == 0x555555600000ull + i * 64 && slot->size == 100 && slot->stack_id == 1
      && slot->tid == 4242 && slot->time_ns == t)
    s->n_live_exact++;
}

typedef struct
{
  size_t   added, removed, exact;
} Diff;

static void
on_added (void *u, uint64_t index, const HlShmLiveSlot *slot)
{
  Diff *d = u;
  d->added++;
  Seen one = { 0 };
  on_live (&one, slot);
  d->exact += one.n_live_exact == 1 && index == slot->alloc_id * 7;
}

static void
on_removed (void *u, uint64_t index)
{
  ((Diff *) u)->removed++;
}

/* Live entries: fields up to 48 bits wide are kept exactly, wider ids and
 * sizes are refused, the time is rounded down and saturates. */
static void
test_live_packing (void)
{
  uint64_t w[3];
  HlShmLiveSlot v;
  bool ok = hl_shm_live_pack (HL_SHM_LIVE_LOW48, HL_SHM_LIVE_LOW48 - 1, 123456789012345ull, UINT32_MAX, 4194303u,
                              &w[0], &w[1], &w[2]);
  hl_shm_live_unpack (0x7ffff7a00010ull, w[0], w[1], w[2], &v);
  hl_tap_ok (ok && v.address_atomic == 0x7ffff7a00010ull && v.alloc_id == HL_SHM_LIVE_LOW48
             && v.size == HL_SHM_LIVE_LOW48 - 1 && v.stack_id == UINT32_MAX && v.tid == 4194303u
             && v.time_ns == (123456789012345ull >> HL_SHM_LIVE_TIME_SHIFT << HL_SHM_LIVE_TIME_SHIFT)
             && 123456789012345ull - v.time_ns < (1ull << HL_SHM_LIVE_TIME_SHIFT),
             "live entry: fields round-trip, the time rounded down to %u ns", 1u << HL_SHM_LIVE_TIME_SHIFT);
  hl_tap_ok (!hl_shm_live_pack (HL_SHM_LIVE_LOW48 + 1, 1, 0, 0, 0, &w[0], &w[1], &w[2])
             && !hl_shm_live_pack (1, 1ull << 48, 0, 0, 0, &w[0], &w[1], &w[2]),
             "live entry: an id or a size wider than 48 bits is refused");
  ok = hl_shm_live_pack (5, 6, UINT64_MAX, 7, 8, &w[0], &w[1], &w[2]);
  hl_shm_live_unpack (0x1000, w[0], w[1], w[2], &v);
  hl_tap_ok (ok && v.alloc_id == 5 && v.size == 6 && v.stack_id == 7 && v.tid == 8
             && v.time_ns == (uint64_t) UINT32_MAX << HL_SHM_LIVE_TIME_SHIFT,
             "live entry: a time beyond about 52 days saturates");
}

static void
on_meta (void *u, const HlShmMetaItem *it)
{
  Seen *s = u;
  s->n_meta++;
  snprintf (s->last_key, sizeof s->last_key, "%s", it->key);
  s->last_int = it->int_value;
  snprintf (s->last_string, sizeof s->last_string, "%s", it->string_value);
}

static void
on_listed (void *u, const HlShmSessionName *n)
{
  Seen *s = u;
  if (n->pid == (uint32_t) getpid () && strstr (n->name, "-test1") != NULL && n->uid == (uint32_t) getuid ())
    s->n_meta++;
}

static void
build (HlShmTestSegment *s)
{
  hl_shm_test_init (s, UID, 4242, 64, 16384, 64, 256);
  uint64_t frames[40];
  for (int k = 1; k <= 20; k++)
    {
      for (int i = 0; i < 40; i++)
        frames[i] = 0x7f0000001000ull + (uint64_t) (k * 97 + i * 13);
      hl_shm_test_add_stack (s, (uint32_t) k, frames, (uint32_t) (k * 2));
    }
  hl_shm_test_add_thread (s, 4242, "main");
  hl_shm_test_add_thread (s, 4243, "worker-1");
  for (int i = 0; i < 30; i++)
    hl_shm_test_live (s, (uint64_t) i * 7, 0x555555600000ull + (uint64_t) i * 64, (uint64_t) i, 100, 1, 4242);
  hl_shm_test_meta (s, "phase", 3, NULL);
  hl_shm_test_meta (s, "user", 0, "alice");
  hl_shm_test_meta (s, "phase", 4, NULL);
  for (int i = 0; i < 10; i++)
    hl_shm_test_sample (s, (uint64_t) i * 10000000, (uint64_t) i * 4096, 1 << 20);
  s->cnt->threads[0].tid_atomic = 4242;
  s->cnt->threads[0].n_allocs = 100;
  s->cnt->threads[0].n_frees = 60;
  s->cnt->threads[0].bytes_allocated = 10000;
  s->cnt->threads[0].frees_unknown = 2;
  s->cnt->threads[5].tid_atomic = 4243;
  s->cnt->threads[5].n_allocs = 5;
  s->cnt->exited_n_allocs_atomic = 1000;
  s->cnt->dropped_atomic[HL_DROP_LIVE_TABLE] = 7;
  s->cnt->peak_heap_bytes_atomic = 123456;
  s->cnt->fp_checks_atomic = 9;
}

/* Calls every reader function; returns how many failed. Never crashes. */
static int
read_all (const void *data, size_t size, Seen *seen)
{
  HlShmReader *r;
  HlFormatError err;
  memset (seen, 0, sizeof *seen);
  if (hl_shm_reader_open_memory (data, size, UID, &r, &err) != 0)
    return 100;
  int failed = 0;
  HlShmTotals t;
  failed += hl_shm_reader_totals (r, &t, &err) != 0;
  HlShmSample samples[16];
  hl_shm_reader_samples (r, 0, samples, 16);
  uint64_t cursor = 0;
  failed += hl_shm_reader_resources (r, &cursor, on_stack, on_thread, seen, &err) != 0;
  failed += hl_shm_reader_callsites (r, on_site, seen, &err) != 0;
  failed += hl_shm_reader_live (r, on_live, seen, &err) != 0;
  failed += hl_shm_reader_metadata (r, on_meta, seen, &err) != 0;
  uint64_t log = 0;
  failed += hl_shm_reader_metadata_log (r, &log, on_meta, seen, &err) != 0;
  uint64_t hb;
  hl_shm_reader_state (r, &hb);
  hl_shm_reader_free (r);
  return failed;
}

static HlFormatStatus
open_status (HlShmTestSegment *s, char *msg, size_t len)
{
  HlShmReader *r;
  HlFormatError err;
  if (hl_shm_reader_open_memory (s->base, s->size, UID, &r, &err) == 0)
    {
      hl_shm_reader_free (r);
      return HL_FORMAT_OK;
    }
  snprintf (msg, len, "%.200s", err.message);
  return err.code;
}

int
main (void)
{
  hl_tap_plan (44);
  test_live_packing ();
  HlShmTestSegment s;
  build (&s);
  HlShmReader *r;
  HlFormatError err;
  char msg[256];

  /* ---- A good segment ---- */
  hl_tap_ok (hl_shm_reader_open_memory (s.base, s.size, UID, &r, &err) == 0, "open a valid segment");
  const HlShmHeader *h = hl_shm_reader_header (r);
  hl_tap_ok (h->pid == 4242 && strcmp (h->exe, "/usr/bin/demo") == 0 && strcmp (h->cmdline + 5, "--flag") == 0,
             "header copy: pid, exe, cmdline");
  uint64_t hb;
  hl_tap_ok (hl_shm_reader_state (r, &hb) == HL_SHM_STATE_RUNNING, "state RUNNING");
  HlShmTotals t;
  hl_tap_ok (hl_shm_reader_totals (r, &t, &err) == 0 && t.n_allocs == 1105 && t.n_frees == 60
             && t.frees_unknown == 2 && t.n_threads == 2 && t.dropped[HL_DROP_LIVE_TABLE] == 7
             && t.peak_heap_bytes == 123456 && t.fp_checks == 9 && t.n_stacks == 20 && t.live_count == 30,
             "totals sum the thread slots and the exited threads");
  HlShmSample samples[16];
  size_t ns = hl_shm_reader_samples (r, 3, samples, 16);
  hl_tap_ok (ns == 7 && samples[0].time_ns == 30000000 && samples[6].heap_bytes == 9 * 4096, "samples from index 3");
  Seen seen;
  memset (&seen, 0, sizeof seen);
  uint64_t cursor = 0;
  hl_tap_ok (hl_shm_reader_resources (r, &cursor, on_stack, on_thread, &seen, &err) == 0 && seen.n_stacks == 20
             && seen.last_stack_id == 20 && seen.last_n_frames == 40 && seen.n_threads == 2
             && strcmp (seen.last_thread, "4243:worker-1") == 0,
             "resources: 20 stacks and 2 thread names");
  uint64_t frames[3] = { 0x1000, 0x0ff0, 0x7fffffffffffull };
  hl_shm_test_add_stack (&s, 21, frames, 3);
  memset (&seen, 0, sizeof seen);
  hl_tap_ok (hl_shm_reader_resources (r, &cursor, on_stack, on_thread, &seen, &err) == 0 && seen.n_stacks == 1
             && seen.last_stack_id == 21 && seen.frame_sum == 0x1000 + 0x0ff0 + 0x7fffffffffffull,
             "resources: the cursor continues with nodes published later");
  /* A node reserved but not yet published stops the walk */
  uint64_t wm = s.rh->watermark_atomic;
  s.rh->watermark_atomic = wm + 64;
  memset (&seen, 0, sizeof seen);
  uint64_t c2 = cursor;
  hl_tap_ok (hl_shm_reader_resources (r, &c2, on_stack, on_thread, &seen, &err) == 0 && seen.n_stacks == 0 && c2 == cursor,
             "resources: an unpublished node stops the walk");
  s.rh->watermark_atomic = wm;
  memset (&seen, 0, sizeof seen);
  hl_tap_ok (hl_shm_reader_callsites (r, on_site, &seen, &err) == 0 && seen.n_sites == 21, "call sites: 21 used records");
  s.slots[7].address_atomic = HL_SHM_LIVE_BUSY;
  s.slots[14].address_atomic = HL_SHM_LIVE_TOMBSTONE;
  hl_tap_ok (hl_shm_reader_live (r, on_live, &seen, &err) == 0 && seen.n_live == 28 && seen.n_live_exact == 28,
             "live: busy and tombstone slots skipped, the others' fields as written");
  {
    uint64_t n_slots = hl_shm_reader_live_n_slots (r);
    uint32_t *shadow = calloc (n_slots, sizeof *shadow);
    Diff d1 = { 0 }, d2 = { 0 }, d3 = { 0 };
    hl_shm_reader_live_diff (r, shadow, n_slots, on_added, on_removed, &d1, &err);
    hl_shm_reader_live_diff (r, shadow, n_slots, on_added, on_removed, &d2, &err);
    s.slots[21].address_atomic = HL_SHM_LIVE_TOMBSTONE;           /* id 3 freed */
    hl_shm_test_live (&s, 35, 0x555555600000ull + 5 * 64, 5 + 64, 100, 1, 4242); /* id 5 -> 69 */
    hl_shm_test_live (&s, 14, 0x555555600000ull + 2 * 64, 2, 100, 1, 4242);      /* back */
    hl_shm_reader_live_diff (r, shadow, n_slots, on_added, on_removed, &d3, &err);
    hl_tap_ok (n_slots == 256 && d1.added == 28 && d1.exact == 28 && d1.removed == 0 && d2.added == 0
               && d2.removed == 0 && d3.added == 2 && d3.removed == 2,
               "live diff: 28 added, then nothing, then 1 freed, 1 replaced, 1 published (%zu %zu, %zu %zu)",
               d1.added, d1.exact, d3.added, d3.removed);
    free (shadow);
  }
  memset (&seen, 0, sizeof seen);
  hl_tap_ok (hl_shm_reader_metadata (r, on_meta, &seen, &err) == 0 && seen.n_meta == 2
             && strcmp (seen.last_key, "user") == 0 && strcmp (seen.last_string, "alice") == 0,
             "metadata: current items");
  memset (&seen, 0, sizeof seen);
  uint64_t log = 0;
  hl_tap_ok (hl_shm_reader_metadata_log (r, &log, on_meta, &seen, &err) == 0 && seen.n_meta == 3 && log == 3
             && seen.last_int == 4, "metadata log: three changes, cursor at 3");
  /* a writer caught mid-change: seq odd, item skipped */
  s.meta->items[0].seq_atomic |= 1;
  memset (&seen, 0, sizeof seen);
  hl_tap_ok (hl_shm_reader_metadata (r, on_meta, &seen, &err) == 0 && seen.n_meta == 1,
             "metadata: an item being written (odd sequence) is skipped, never torn");
  s.meta->items[0].seq_atomic &= ~1u;
  /* the log wrapped */
  for (int i = 0; i < 1000; i++)
    hl_shm_test_meta (&s, "k", i, NULL);
  memset (&seen, 0, sizeof seen);
  hl_tap_ok (hl_shm_reader_metadata_log (r, &log, on_meta, &seen, &err) == 0 && seen.n_meta == HL_SHM_META_LOG
             && log == 1003 && seen.last_int == 999, "metadata log: after a wrap only the ring's last %d entries",
             HL_SHM_META_LOG);
  hl_shm_reader_free (r);
  hl_shm_test_clear (&s);

  /* ---- Hostile headers ---- */
#define MUTATE(desc, expect, stmt)                                                     \
  do                                                                                   \
    {                                                                                  \
      build (&s);                                                                      \
      stmt;                                                                            \
      HlFormatStatus st_ = open_status (&s, msg, sizeof msg);                          \
      hl_tap_ok (st_ == (expect), "%s: %s (%s)", desc, hl_format_status_to_string (st_), \
                 st_ == HL_FORMAT_OK ? "" : msg);                                      \
      hl_shm_test_clear (&s);                                                          \
    }                                                                                  \
  while (0)

  MUTATE ("bad magic", HL_FORMAT_ERROR_NOT_A_TRACE, s.h->magic[2] = 'X');
  MUTATE ("newer version", HL_FORMAT_ERROR_VERSION, s.h->version = HL_SHM_VERSION + 1);
  MUTATE ("older version (40-byte live slots)", HL_FORMAT_ERROR_VERSION, s.h->version = 1);
  MUTATE ("header size", HL_FORMAT_ERROR_CORRUPT, s.h->header_size = 64);
  MUTATE ("segment size larger than the mapping", HL_FORMAT_ERROR_TRUNCATED, s.h->segment_size += 4096);
  MUTATE ("another uid", HL_FORMAT_ERROR_IO, s.h->uid = 0);
  MUTATE ("region past the end", HL_FORMAT_ERROR_CORRUPT, s.h->counters.size += 64);
  MUTATE ("region offset + size overflows", HL_FORMAT_ERROR_CORRUPT,
          (s.h->live.offset = UINT64_MAX - 63, s.h->live.size = 128));
  MUTATE ("misaligned region", HL_FORMAT_ERROR_CORRUPT, s.h->metadata.offset += 8);
  MUTATE ("region inside the header", HL_FORMAT_ERROR_CORRUPT, s.h->callsites.offset = 0);
  MUTATE ("overlapping regions", HL_FORMAT_ERROR_CORRUPT, s.h->live = s.h->callsites);
  MUTATE ("region too small", HL_FORMAT_ERROR_CORRUPT, s.h->counters.size = 64);

  /* ---- Hostile contents: errors, never a crash ---- */
  build (&s);
  s.ch->n_slots = UINT64_MAX / 2;
  s.lh->n_slots = 1ull << 40;
  s.rh->watermark_atomic = UINT64_MAX;
  s.meta->n_items_atomic = 100000;
  s.meta->log_count_atomic = UINT64_MAX;
  s.cnt->n_samples_atomic = UINT64_MAX;
  memset (s.h->exe, 'x', sizeof s.h->exe);
  hl_tap_ok (hl_shm_reader_open_memory (s.base, s.size, UID, &r, &err) == 0
             && strlen (hl_shm_reader_header (r)->exe) == HL_SHM_EXE_MAX - 1,
             "an exe without NUL is cut in the copy");
  memset (&seen, 0, sizeof seen);
  bool e1 = hl_shm_reader_callsites (r, on_site, &seen, &err) != 0 && err.code == HL_FORMAT_ERROR_CORRUPT;
  bool e2 = hl_shm_reader_live (r, on_live, &seen, &err) != 0 && err.code == HL_FORMAT_ERROR_CORRUPT;
  hl_tap_ok (e1 && e2, "huge call-site and live counts are refused: %s", err.message);
  cursor = 0;
  hl_tap_ok (hl_shm_reader_resources (r, &cursor, on_stack, on_thread, &seen, &err) == 0 && seen.n_stacks == 21 - 1,
             "a watermark beyond the region is clamped to it");
  log = 5;
  hl_tap_ok (hl_shm_reader_metadata (r, on_meta, &seen, &err) == 0
             && hl_shm_reader_metadata_log (r, &log, on_meta, &seen, &err) == 0 && log == UINT64_MAX,
             "metadata: item count clamped, an absurd log count read safely");
  hl_tap_ok (hl_shm_reader_samples (r, 0, samples, 16) == 16, "samples: an absurd count reads the ring only");
  hl_shm_reader_free (r);
  hl_shm_test_clear (&s);

  build (&s);
  HlShmResourceNode *first = (HlShmResourceNode *) (s.res + s.rh->nodes_offset);
  first->length = 65535;
  read_all (s.base, s.size, &seen);
  hl_shm_reader_open_memory (s.base, s.size, UID, &r, &err);
  cursor = 0;
  hl_tap_ok (hl_shm_reader_resources (r, &cursor, on_stack, on_thread, &seen, &err) != 0
             && err.code == HL_FORMAT_ERROR_CORRUPT, "a node longer than the region: %s", err.message);
  first->length = 12;
  memset (first + 1, 0xff, 12);
  cursor = 0;
  hl_tap_ok (hl_shm_reader_resources (r, &cursor, on_stack, on_thread, &seen, &err) != 0,
             "a node with a malformed varint: %s", err.message);
  s.rh->nodes_offset = 3;
  cursor = 0;
  hl_tap_ok (hl_shm_reader_resources (r, &cursor, on_stack, on_thread, &seen, &err) != 0,
             "a misaligned first node: %s", err.message);
  s.rh->nodes_offset = 1024;
  cursor = 12345;
  hl_tap_ok (hl_shm_reader_resources (r, &cursor, on_stack, on_thread, &seen, &err) != 0,
             "a cursor outside the nodes: %s", err.message);
  hl_shm_reader_free (r);
  hl_shm_test_clear (&s);

  /* Random damage anywhere: never a crash (ASan/UBSan watch the reads) */
  build (&s);
  uint8_t *copy = aligned_alloc (64, s.size);
  uint32_t seed = 1;
  size_t opened = 0;
  for (int k = 0; k < 3000; k++)
    {
      memcpy (copy, s.base, s.size);
      for (int m = 0; m < 8; m++)
        {
          seed = seed * 1103515245u + 12345u;
          size_t at = (k % 2 == 0 ? (seed >> 4) % HL_SHM_HEADER_SIZE : (seed >> 4) % s.size);
          seed = seed * 1103515245u + 12345u;
          copy[at] = (uint8_t) (seed >> 16);
        }
      opened += read_all (copy, s.size, &seen) < 100;
    }
  hl_tap_ok (opened > 0, "3000 randomly damaged segments read without a crash (%zu opened)", opened);
  free (copy);

  /* ---- From /dev/shm ---- */
  char name[128], path[160];
  snprintf (name, sizeof name, "heaplens-%u-%u-test%d", (unsigned) getuid (), (unsigned) getpid (), 1);
  snprintf (path, sizeof path, "/dev/shm/%s", name);
  s.h->uid = (uint32_t) getuid ();
  int fd = open (path, O_CREAT | O_EXCL | O_WRONLY, 0600);
  bool wrote = fd >= 0 && write (fd, s.base, s.size) == (ssize_t) s.size;
  if (fd >= 0)
    close (fd);
  hl_tap_ok (wrote && hl_shm_reader_open (name, &r, &err) == 0 && hl_shm_reader_size (r) == s.size,
             "open by name from /dev/shm");
  if (wrote)
    hl_shm_reader_free (r);
  memset (&seen, 0, sizeof seen);
  int n_listed = hl_shm_list_sessions ((uint32_t) getuid (), on_listed, &seen);
  hl_tap_ok (n_listed >= 1 && seen.n_meta == 1, "list sessions finds it (%d listed)", n_listed);
  if (truncate (path, 100) != 0)
    hl_tap_diag ("truncate failed");
  hl_tap_ok (hl_shm_reader_open (name, &r, &err) != 0 && err.code == HL_FORMAT_ERROR_TRUNCATED,
             "a segment shorter than its header: %s", err.message);
  unlink (path);
  hl_tap_ok (hl_shm_reader_open ("heaplens-0-1-none", &r, &err) != 0 && err.code == HL_FORMAT_ERROR_IO,
             "a missing segment: %s", err.message);
  hl_shm_test_clear (&s);
  return hl_tap_finish ();
}
