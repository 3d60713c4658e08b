/* test-live-feed.c — HlLiveFeed, the live session's feed into its
 * recording, driven step by step on a segment built in memory
 * (hl-shm-test-writer.h): the samples and their rates, the call sites
 * and their costs, the metadata a hold defers, and the fairness between
 * holds, polls and the live table's scan. */
#include <glib.h>
#include <string.h>
#include <unistd.h>

#include "hl-live-feed.h"
#include "hl-live-segment.h"
#include "hl-recording-builder.h"
#include "hl-shm-test-writer.h"

typedef struct
{
  HlShmTestSegment  seg;
  HlLiveSegment    *segment;
  GObject          *owner;
  HlLiveFeed       *feed;
  GPtrArray        *warnings;
  guint             updates;
} Fixture;

static void
on_warn (gpointer    owner,
         const char *message)
{
  Fixture *f = g_object_get_data (owner, "fixture");
  g_ptr_array_add (f->warnings, g_strdup (message));
}

static void
on_updated (gpointer owner)
{
  Fixture *f = g_object_get_data (owner, "fixture");
  f->updates++;
}

static const HlLiveFeedEvents events = { on_warn, on_updated };

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  hl_shm_test_init (&f->seg, (uint32_t) getuid (), 4242, 64, 16384, 64, 256);
  const guint64 f1[] = { 0x401000, 0x402000, 0x403000 };
  const guint64 f2[] = { 0x401100, 0x402000 };
  hl_shm_test_add_stack (&f->seg, 1, f1, 3);
  hl_shm_test_add_stack (&f->seg, 2, f2, 2);
  hl_shm_test_add_thread (&f->seg, 4242, "main");
  hl_shm_test_live (&f->seg, 3, 0x10000, 7, 100, 1, 4242);
  GError *error = NULL;
  f->segment = hl_live_segment_open_memory (f->seg.base, f->seg.size, (guint32) getuid (), &error);
  g_assert_no_error (error);
  f->owner = g_object_new (G_TYPE_OBJECT, NULL);
  g_object_set_data (f->owner, "fixture", f);
  f->warnings = g_ptr_array_new_with_free_func (g_free);
  f->feed = hl_live_feed_new (f->segment, f->owner, &events);
}

static void
wait_idle (Fixture *f)
{
  while (hl_live_feed_is_busy (f->feed))
    g_main_context_iteration (NULL, TRUE);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  wait_idle (f);
  g_assert_cmpuint (f->warnings->len, ==, 0);
  hl_live_feed_free (f->feed);
  g_object_unref (f->owner);
  hl_live_segment_free (f->segment);
  g_ptr_array_unref (f->warnings);
  hl_shm_test_clear (&f->seg);
}

/* One poll's steps, as the session runs them. */
static gboolean
poll_once (Fixture *f,
           guint64  dropped)
{
  gboolean changed = FALSE;
  hl_live_feed_begin (f->feed);
  changed |= hl_live_feed_read_samples (f->feed, f->seg.cnt->n_samples_atomic, dropped);
  changed |= hl_live_feed_read_resources (f->feed, dropped);
  hl_live_feed_read_callsites (f->feed);
  changed |= hl_live_feed_end (f->feed, HL_LIVE_STATE_RUNNING, 0);
  return changed;
}

/* Samples carry their rate; one out of order (a rewritten ring) is
 * skipped; a poll with nothing new reads nothing. */
static void
test_samples (Fixture       *f,
              gconstpointer  data)
{
  for (guint i = 1; i <= 10; i++)
    hl_shm_test_sample (&f->seg, i * 10000000u, i * 1000u, 4u << 20);
  hl_shm_test_sample (&f->seg, 5 * 10000000u, 1, 1); /* earlier than the last */
  hl_shm_test_sample (&f->seg, 12 * 10000000u, 12000u, 4u << 20);
  g_assert_true (poll_once (f, 3));

  guint n;
  const HlLiveSample *s = hl_live_feed_get_samples (f->feed, &n);
  g_assert_cmpuint (n, ==, 11);
  g_assert_cmpfloat (s[0].rate, ==, 0);
  /* one allocation (the writer's n_allocs is the sample's index) in 10 ms */
  g_assert_cmpfloat_with_epsilon (s[1].rate, 100.0, 1e-6);
  /* the last one: two allocations in 20 ms */
  g_assert_cmpuint (s[10].time_ns, ==, 12 * 10000000u);
  g_assert_cmpfloat_with_epsilon (s[10].rate, 100.0, 1e-6);
  g_assert_cmpuint (s[10].dropped, ==, 3);

  wait_idle (f);
  g_assert_false (hl_live_feed_read_samples (f->feed, f->seg.cnt->n_samples_atomic, 3));
}

/* The call-site table, largest live bytes first, with the frames of the
 * stacks read, and the same counters per stack of the recording. */
static void
test_callsites (Fixture       *f,
                gconstpointer  data)
{
  poll_once (f, 0);
  guint n;
  const HlLiveCallsite *sites = hl_live_feed_get_callsites (f->feed, &n);
  g_assert_cmpuint (n, ==, 2);
  /* the writer: calls = id * 10, bytes = id * 1000, half of both freed */
  g_assert_cmpuint (sites[0].stack_id, ==, 2);
  g_assert_cmpuint (sites[0].live_bytes, ==, 1000);
  g_assert_cmpuint (sites[0].live_count, ==, 10);
  g_assert_cmpuint (sites[0].n_frames, ==, 2);
  g_assert_cmpuint (sites[0].frames[0], ==, 0x401100);
  g_assert_cmpuint (sites[1].stack_id, ==, 1);
  g_assert_cmpuint (sites[1].n_frames, ==, 3);

  HlRecording *rec = hl_live_feed_get_recording (f->feed);
  guint n_stacks;
  g_autofree HlCosts *costs = hl_live_feed_get_stack_costs (f->feed, &n_stacks);
  g_assert_cmpuint (n_stacks, ==, hl_recording_get_n_stacks (rec));
  HlStackId two = hl_recording_lookup_stack (rec, 2);
  g_assert_cmpuint (two, >, 0);
  g_assert_cmpuint (two, <, n_stacks);
  g_assert_cmpuint (costs[two].allocations, ==, 20);
  g_assert_cmpuint (costs[two].bytes, ==, 2000);
  g_assert_cmpuint (costs[two].leaked_bytes, ==, 1000);
  g_assert_cmpuint (costs[two].leaked_blocks, ==, 10);
}

static HlShmMetaItem
meta_entry (const char *key,
            const char *value,
            guint64     time_ns)
{
  HlShmMetaItem e;
  memset (&e, 0, sizeof e);
  e.flags = HL_SHM_META_ACTIVE | HL_SHM_META_IS_STRING;
  e.time_ns = time_ns;
  g_strlcpy (e.key, key, sizeof e.key);
  g_strlcpy (e.string_value, value, sizeof e.string_value);
  return e;
}

/* A hold defers every append: the poll reads nothing into the recording,
 * queues the metadata, and refuses new holds until a poll has fed; the
 * poll after the release feeds what waited and says so. */
static void
test_hold_defers (Fixture       *f,
                  gconstpointer  data)
{
  HlRecording *rec = hl_live_feed_get_recording (f->feed);
  hl_shm_test_sample (&f->seg, 10000000u, 1000u, 4u << 20);
  g_assert_true (hl_live_feed_hold (f->feed));
  g_assert_true (hl_live_feed_is_held (f->feed));
  g_assert_true (hl_live_feed_hold (f->feed)); /* counted */

  hl_live_feed_begin (f->feed);
  g_assert_false (hl_live_feed_read_samples (f->feed, 1, 0));
  g_assert_false (hl_live_feed_read_resources (f->feed, 0));
  HlShmMetaItem e = meta_entry ("phase", "load", 5000000u);
  hl_live_feed_meta_entry (f->feed, &e);
  g_assert_false (hl_live_feed_end (f->feed, HL_LIVE_STATE_RUNNING, 0));
  g_assert_false (hl_live_feed_is_busy (f->feed)); /* no worker under a hold */
  g_assert_true (hl_live_feed_is_waiting (f->feed));
  guint n;
  hl_live_feed_get_samples (f->feed, &n);
  g_assert_cmpuint (n, ==, 0);
  g_assert_cmpuint (hl_recording_get_n_stacks (rec), <=, 1);

  /* a poll waits to feed: no new hold */
  g_assert_false (hl_live_feed_hold (f->feed));
  hl_live_feed_release (f->feed);
  hl_live_feed_release (f->feed);
  g_assert_false (hl_live_feed_is_held (f->feed));

  g_assert_true (poll_once (f, 0));
  g_assert_false (hl_live_feed_is_waiting (f->feed));
  hl_live_feed_get_samples (f->feed, &n);
  g_assert_cmpuint (n, ==, 1);
  guint n_meta;
  const HlMetaInterval *meta = hl_recording_get_metadata_intervals (rec, &n_meta);
  g_assert_cmpuint (n_meta, ==, 1);
  g_assert_cmpstr (meta[0].key, ==, "phase");
  g_assert_cmpstr (meta[0].value, ==, "load");
  g_assert_cmpuint (meta[0].start_ns, ==, 5000000u);
  g_assert_cmpuint (hl_recording_get_n_stacks (rec), >, 2);
}

/* A hold refused while the scan ran goes before the next scan: the next
 * feeding poll skips its scan, so the hold gets in; the poll after it
 * scans again. */
static void
test_fairness (Fixture       *f,
               gconstpointer  data)
{
  poll_once (f, 0);
  /* the poll started the live table's scan: it appends when it lands */
  g_assert_true (hl_live_feed_is_busy (f->feed));
  g_assert_false (hl_live_feed_hold (f->feed));
  wait_idle (f);
  g_assert_cmpuint (f->updates, >, 0);

  poll_once (f, 0);
  g_assert_true (hl_live_feed_hold (f->feed));
  hl_live_feed_release (f->feed);

  poll_once (f, 0);
  g_assert_false (hl_live_feed_hold (f->feed));
  wait_idle (f);
  g_assert_true (hl_live_feed_hold (f->feed));
  hl_live_feed_release (f->feed);

  /* the scan fed the live table's allocation */
  HlSummary sum = { 0 };
  hl_recording_get_summary (hl_live_feed_get_recording (f->feed), &sum);
  g_assert_cmpuint (sum.n_allocations, ==, 1);
  g_assert_cmpuint (sum.bytes_allocated, ==, 100);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/live-feed/samples", Fixture, NULL, fixture_set_up, test_samples, fixture_tear_down);
  g_test_add ("/live-feed/callsites", Fixture, NULL, fixture_set_up, test_callsites, fixture_tear_down);
  g_test_add ("/live-feed/hold-defers", Fixture, NULL, fixture_set_up, test_hold_defers, fixture_tear_down);
  g_test_add ("/live-feed/fairness", Fixture, NULL, fixture_set_up, test_fairness, fixture_tear_down);
  return g_test_run ();
}
