/* test-recording-metadata.c — a recording's metadata intervals, and a
 * live session's metadata history, follow the changes' times, not their
 * arrival order (packets of several threads reach the model out of time
 * order; so do the entries of the segment's log). */
#include "hl-model.h"

#include "hl-live-metadata.h"
#include "hl-recording-builder.h"
#include "hl-recording-tables.h"

typedef struct
{
  const char *key;
  const char *value;
  guint64     start_ns;
  guint64     end_ns;
} Want;

static void
assert_intervals (HlRecording *rec,
                  const Want  *want,
                  guint        n_want)
{
  guint n;
  const HlMetaInterval *iv;

  /* the intervals are rebuilt at the end of a batch of appends */
  hl_recording_commit (rec);
  iv = hl_recording_get_metadata_intervals (rec, &n);

  g_assert_cmpuint (n, ==, n_want);
  for (guint i = 0; i < n; i++)
    {
      g_assert_cmpstr (iv[i].key, ==, want[i].key);
      g_assert_cmpstr (iv[i].value, ==, want[i].value);
      g_assert_cmpuint (iv[i].start_ns, ==, want[i].start_ns);
      g_assert_cmpuint (iv[i].end_ns, ==, want[i].end_ns);
      g_assert_cmpuint (iv[i].start_ns, <=, iv[i].end_ns);
    }
}

/* In time order: each change ends the key's interval before it. */
static void
test_in_order (void)
{
  g_autoptr (HlRecording) rec = hl_recording_new ();
  const Want want[] = {
    { "phase", "load", 10, 20 },
    { "phase", "run", 20, 30 },
    { "user", "7", 25, 40 },   /* open: ends with the recording */
  };

  hl_recording_append_metadata (rec, 10, 1, "phase", "load");
  hl_recording_append_metadata (rec, 20, 1, "phase", "run");
  hl_recording_append_metadata (rec, 25, 2, "user", "7");
  hl_recording_append_metadata (rec, 30, 1, "phase", NULL);
  hl_recording_append_mark (rec, 40, 1, "end");
  assert_intervals (rec, want, G_N_ELEMENTS (want));
}

/* The case: the main thread's packet (its sets at 10 and 30)
 * arrives after a worker's (its set at 45): the worker's value is the
 * last one and runs to the recording's end. */
static void
test_worker_after_main (void)
{
  g_autoptr (HlRecording) rec = hl_recording_new ();
  const Want want[] = {
    { "phase", "main", 10, 20 },
    { "phase", "worker-a", 20, 30 },
    { "phase", "main-2", 30, 45 },
    { "phase", "worker-b", 45, 60 },
  };

  hl_recording_append_metadata (rec, 20, 2, "phase", "worker-a");
  hl_recording_append_metadata (rec, 45, 2, "phase", "worker-b");
  hl_recording_append_mark (rec, 60, 2, "done");
  hl_recording_append_metadata (rec, 10, 1, "phase", "main");
  hl_recording_append_metadata (rec, 30, 1, "phase", "main-2");
  assert_intervals (rec, want, G_N_ELEMENTS (want));
  g_assert_true (hl_recording_metadata_selects (rec, "phase", "worker-b", 50));
  g_assert_true (hl_recording_metadata_selects (rec, "phase", "main-2", 44));
  g_assert_false (hl_recording_metadata_selects (rec, "phase", "main-2", 45));
  g_assert_false (hl_recording_metadata_selects (rec, "phase", "main", 5));
}

/* A removal that arrives late still ends the interval it falls in, and
 * changes at the same time keep their arrival order; appends after a
 * rebuild go on from it. */
static void
test_late_removal_and_ties (void)
{
  g_autoptr (HlRecording) rec = hl_recording_new ();
  const Want before[] = {
    { "k", "a", 10, 15 },
    { "k", "c", 30, 30 },
    { "k", "d", 30, 50 },
  };
  const Want after[] = {
    { "k", "a", 10, 15 },
    { "k", "c", 30, 30 },
    { "k", "d", 30, 50 },
    { "k", "d", 50, 50 },
    { "k", "e", 60, 70 },
  };

  hl_recording_append_metadata (rec, 10, 1, "k", "a");
  hl_recording_append_metadata (rec, 30, 1, "k", "c");
  hl_recording_append_metadata (rec, 30, 2, "k", "d");
  hl_recording_append_metadata (rec, 50, 1, "k", NULL);
  hl_recording_append_metadata (rec, 15, 3, "k", NULL);
  assert_intervals (rec, before, G_N_ELEMENTS (before));
  g_assert_false (hl_recording_metadata_selects (rec, "k", "a", 20));

  hl_recording_append_metadata (rec, 60, 1, "k", "e");
  hl_recording_append_metadata (rec, 50, 2, "k", "d"); /* late, the same value again */
  hl_recording_append_mark (rec, 70, 1, "end");
  hl_recording_append_metadata (rec, 50, 1, "k", NULL);
  /* by time, ties in arrival order: d at 30, removed at 50, d again at
   * 50, removed at 50, e at 60 */
  assert_intervals (rec, after, G_N_ELEMENTS (after));
  g_assert_true (hl_recording_metadata_selects (rec, "k", "e", 65));
  g_assert_false (hl_recording_metadata_selects (rec, "k", "d", 55));
}

/* A live session's history: the log's entries in slot order, a worker's
 * change dated before the main thread's latest. */
static void
test_live_history (void)
{
  g_autoptr (HlLiveMetadata) meta = hl_live_metadata_new ();
  GPtrArray *h;
  const Want want[] = {
    { "phase", "main", 10, 20 },
    { "phase", "worker", 20, 30 },
    { "phase", "main-2", 30, 40 },
    { "user", "7", 35, G_MAXUINT64 },
    { "phase", "late", 40, G_MAXUINT64 },
  };

  hl_live_metadata_add_change (meta, 10, "phase", "main");
  hl_live_metadata_add_change (meta, 30, "phase", "main-2");
  hl_live_metadata_add_change (meta, 20, "phase", "worker");
  hl_live_metadata_add_change (meta, 35, "user", "7");
  hl_live_metadata_add_change (meta, 40, "phase", "late");
  h = hl_live_metadata_get_history (meta);
  g_assert_cmpuint (h->len, ==, G_N_ELEMENTS (want));
  for (guint i = 0; i < h->len; i++)
    {
      const HlLiveMetaInterval *m = g_ptr_array_index (h, i);
      g_assert_cmpstr (m->key, ==, want[i].key);
      g_assert_cmpstr (m->value, ==, want[i].value);
      g_assert_cmpuint (m->start_ns, ==, want[i].start_ns);
      g_assert_cmpuint (m->end_ns, ==, want[i].end_ns);
    }
  /* in order again: applied as they come, a removal ends the interval */
  hl_live_metadata_add_change (meta, 50, "phase", NULL);
  h = hl_live_metadata_get_history (meta);
  g_assert_cmpuint (h->len, ==, G_N_ELEMENTS (want));
  g_assert_cmpuint (((const HlLiveMetaInterval *) g_ptr_array_index (h, h->len - 1))->end_ns, ==, 50);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/recording-metadata/in-order", test_in_order);
  g_test_add_func ("/recording-metadata/worker-after-main", test_worker_after_main);
  g_test_add_func ("/recording-metadata/late-removal-and-ties", test_late_removal_and_ties);
  g_test_add_func ("/recording-metadata/live-history", test_live_history);
  return g_test_run ();
}
