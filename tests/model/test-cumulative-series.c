/* test-cumulative-series.c — the series' cumulative counts of allocations
 * and temporary allocations (the timeline's Allocations and Temporary
 * charts), checked against the events that made the recording. */
#include "hl-config.h"

#include "hl-model-test-recording.h"
#include "hl-recording-builder.h"

/* The small recording: allocations at 10, 30, 40, 60, 70 and 90, frees
 * of temporaries (#0 and #3) at 20 and 80; ten buckets of 10. */
static void
test_small (void)
{
  g_autoptr (HlRecording) rec = hl_test_small_recording (5);
  g_autoptr (GArray) series = hl_recording_get_series (rec, 0, 100, 10);
  g_autoptr (GArray) zoomed = hl_recording_get_series (rec, 45, 85, 4);
  const guint64 allocations[] = { 0, 1, 1, 2, 3, 3, 4, 5, 5, 6 };
  const guint64 temporary[] = { 0, 0, 1, 1, 1, 1, 1, 1, 2, 2 };
  HlSummary summary;

  g_assert_cmpuint (series->len, ==, 10);
  for (guint b = 0; b < series->len; b++)
    {
      const HlSeriesBucket *bk = &g_array_index (series, HlSeriesBucket, b);
      g_assert_cmpuint (bk->allocations_total, ==, allocations[b]);
      g_assert_cmpuint (bk->temporary_total, ==, temporary[b]);
    }
  hl_recording_get_summary (rec, &summary);
  g_assert_cmpuint (g_array_index (series, HlSeriesBucket, 9).allocations_total, ==, summary.n_allocations);
  g_assert_cmpuint (g_array_index (series, HlSeriesBucket, 9).temporary_total, ==, summary.temporary);

  /* a zoomed range counts from the recording's start, not its own:
   * [45, 55) [55, 65) [65, 75) [75, 85) */
  g_assert_cmpuint (g_array_index (zoomed, HlSeriesBucket, 0).allocations_total, ==, 3);
  g_assert_cmpuint (g_array_index (zoomed, HlSeriesBucket, 1).allocations_total, ==, 4);
  g_assert_cmpuint (g_array_index (zoomed, HlSeriesBucket, 2).allocations_total, ==, 5);
  g_assert_cmpuint (g_array_index (zoomed, HlSeriesBucket, 3).temporary_total, ==, 2);
  g_assert_cmpuint (g_array_index (zoomed, HlSeriesBucket, 2).temporary_total, ==, 1);
}

/* Many events on two threads (thousands of curve points, across many
 * chunks of the count index), some freed at once (temporary), some later,
 * some never; every bucket of several ranges checked against a count of
 * the events made, and the index rebuilt when the recording grows. */
typedef struct
{
  guint64 time_ns;
  gboolean is_alloc;
  gboolean temporary_free;
} Event;

static void
append_events (HlRecording *rec,
               GArray      *events,
               guint64      first_id,
               guint64      n,
               guint64     *time_ns)
{
  GRand *rand = g_rand_new_with_seed (42 + (guint32) first_id);
  g_autoptr (GArray) pending = g_array_new (FALSE, FALSE, sizeof (guint64));

  for (guint64 id = first_id; id < first_id + n; id++)
    {
      guint32 tid = 100 + (guint32) (id % 2);
      guint choice = (guint) g_rand_int_range (rand, 0, 3);
      Event e = { ++*time_ns, TRUE, FALSE };

      hl_recording_append_alloc (rec, id, e.time_ns, tid, 16 + id % 7, 0x10000 + id * 64, 1);
      g_array_append_val (events, e);
      if (choice == 0)
        {
          /* freed before its thread's next allocation: temporary */
          Event f = { ++*time_ns, FALSE, TRUE };
          hl_recording_append_free (rec, id, 0, f.time_ns, tid);
          g_array_append_val (events, f);
        }
      else if (choice == 1)
        g_array_append_val (pending, id);
    }
  /* each thread's last allocation never freed, and the rest freed later:
   * not temporary, other allocations of their thread came since */
  for (guint32 t = 0; t < 2; t++)
    {
      Event e = { ++*time_ns, TRUE, FALSE };
      guint64 id = first_id + n + t;

      hl_recording_append_alloc (rec, id, e.time_ns, 100 + (guint32) (id % 2), 8, 0x10000 + id * 64, 1);
      g_array_append_val (events, e);
    }
  for (guint i = 0; i + 1 < pending->len; i += 2)
    {
      guint64 id = g_array_index (pending, guint64, i);
      Event f = { ++*time_ns, FALSE, FALSE };
      hl_recording_append_free (rec, id, 0, f.time_ns, 100 + (guint32) (id % 2));
      g_array_append_val (events, f);
    }
  g_rand_free (rand);
}

static void
check_series (HlRecording *rec,
              GArray      *events,
              guint64      t0,
              guint64      t1,
              guint        n_buckets)
{
  g_autoptr (GArray) series = hl_recording_get_series (rec, t0, t1, n_buckets);

  for (guint b = 0; b < series->len; b++)
    {
      const HlSeriesBucket *bk = &g_array_index (series, HlSeriesBucket, b);
      guint64 allocations = 0, temporary = 0;

      for (guint i = 0; i < events->len; i++)
        {
          const Event *e = &g_array_index (events, Event, i);
          if (e->time_ns >= bk->end_ns)
            continue;
          allocations += e->is_alloc;
          temporary += e->temporary_free;
        }
      if (bk->allocations_total != allocations || bk->temporary_total != temporary)
        g_error ("[%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ") bucket %u: %" G_GUINT64_FORMAT
                 " allocations, %" G_GUINT64_FORMAT " temporary; expected %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT,
                 t0, t1, b, bk->allocations_total, bk->temporary_total, allocations, temporary);
    }
}

static void
test_against_events (void)
{
  g_autoptr (HlRecording) rec = hl_recording_new ();
  g_autoptr (GArray) events = g_array_new (FALSE, FALSE, sizeof (Event));
  const guint64 s1[] = { 0x1000, 0x2000 };
  guint64 time_ns = 0;
  HlSummary summary;

  hl_recording_append_stack (rec, 1, s1, 2);
  append_events (rec, events, 0, 3000, &time_ns);
  hl_recording_commit (rec);
  hl_recording_get_summary (rec, &summary);
  g_assert_cmpuint (summary.temporary, >, 500);

  check_series (rec, events, 0, HL_TIME_END, 37);
  check_series (rec, events, 1234, 4321, 16);
  check_series (rec, events, time_ns / 2, time_ns / 2 + 700, 7);

  /* the recording grows (as a live one does): the counts follow */
  append_events (rec, events, 3002, 1000, &time_ns);
  hl_recording_commit (rec);
  check_series (rec, events, 0, HL_TIME_END, 23);
  check_series (rec, events, time_ns - 900, HL_TIME_END, 9);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cumulative-series/small", test_small);
  g_test_add_func ("/cumulative-series/against-events", test_against_events);
  return g_test_run ();
}
