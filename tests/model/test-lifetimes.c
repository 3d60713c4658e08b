/* test-lifetimes.c — hl_analysis_get_lifetimes () on a hand-built
 * recording whose lifetimes sit on and beside every bucket edge (exact
 * nanoseconds, no clock in between), a site that grows every quarter and
 * one that does not; a time range; the async form. */
#include "hl-config.h"

#include "hl-model.h"
#include "hl-recording-builder.h"

#define G10 G_GUINT64_CONSTANT (10000000000)   /* 10 s */

/* Stack 1: 11 blocks with the lifetimes below (the last never freed),
 * allocated at t = 1, 2, ... 11.
 * Stack 2: 100 B at 0.5, 1.5, 2.5 and 3.5 × 10 s, never freed: growing
 * over the recording, which stack 3's block at 4 × 10 s ends. */
static const guint64 lives[] = {
  0, 999, 1000, 9999, 10000, 999999, 1000000, 1000000000, G10, 2 * G10, G_MAXUINT64,
};

static HlRecording *
lifetimes_recording (void)
{
  HlRecording *rec = hl_recording_new ();
  const guint64 s1[] = { 0x1000, 0x2000 };
  const guint64 s2[] = { 0x1100, 0x2000 };
  const guint64 s3[] = { 0x1200, 0x2000 };
  guint64 id = 0;

  hl_recording_append_stack (rec, 1, s1, 2);
  hl_recording_append_stack (rec, 2, s2, 2);
  hl_recording_append_stack (rec, 3, s3, 2);
  /* the first block lives 0 ns: freed before the next is made */
  hl_recording_append_alloc (rec, id, 1, 100, 10, 0xa000, 1);
  hl_recording_append_free (rec, id, 0, 1, 100);
  for (id = 1; id < G_N_ELEMENTS (lives); id++)
    hl_recording_append_alloc (rec, id, 1 + id, 100, 10, 0xa000 + id * 16, 1);
  for (guint k = 0; k < 4; k++)
    {
      guint64 t = G10 / 2 + k * G10;
      /* stack 1's frees due before T (their times increase with id) */
      for (guint64 i = 1; i < G_N_ELEMENTS (lives); i++)
        if (lives[i] != G_MAXUINT64 && 1 + i + lives[i] < t &&
            (k == 0 || 1 + i + lives[i] >= t - G10))
          hl_recording_append_free (rec, i, 0, 1 + i + lives[i], 100);
      hl_recording_append_alloc (rec, 100 + k, t, 100, 100, 0xb000 + k * 128, 2);
    }
  hl_recording_append_alloc (rec, 200, 4 * G10, 100, 7, 0xc000, 3);
  hl_recording_commit (rec);
  return rec;
}

static const HlSiteLifetimes *
site_of (const HlLifetimes *lt,
         guint64            address)
{
  for (guint i = 0; i < lt->sites->len; i++)
    {
      const HlSiteLifetimes *s = &g_array_index (lt->sites, HlSiteLifetimes, i);
      if (s->frame != NULL && s->frame->address == address)
        return s;
    }
  g_assert_not_reached ();
  return NULL;
}

static void
test_buckets (void)
{
  g_autoptr (HlRecording) rec = lifetimes_recording ();
  g_autoptr (HlFilter) filter = hl_filter_new ();
  g_autoptr (HlAnalysis) analysis = hl_analysis_new (rec, filter);
  g_autoptr (HlLifetimes) lt = hl_analysis_get_lifetimes (analysis, NULL);
  const guint64 want[HL_LIFETIME_N_BUCKETS] = { 2, 2, 1, 1, 1, 0, 0, 1, 2, 1 };
  const HlSiteLifetimes *s1, *s2, *s3;

  g_assert_nonnull (lt);
  g_assert_cmpuint (lt->sites->len, ==, 3);
  s1 = site_of (lt, 0x1000);
  s2 = site_of (lt, 0x1100);
  s3 = site_of (lt, 0x1200);
  /* most blocks first */
  g_assert_true (&g_array_index (lt->sites, HlSiteLifetimes, 0) == s1);
  for (guint b = 0; b < HL_LIFETIME_N_BUCKETS; b++)
    {
      g_assert_cmpuint (s1->blocks[b], ==, want[b]);
      g_assert_cmpuint (s1->bytes[b], ==, want[b] * 10);
    }
  g_assert_cmpuint (s1->n_blocks, ==, 11);
  /* 6 of 11 under 1 ms: short-lived; the 6th block's bucket the median */
  g_assert_true (s1->short_lived);
  g_assert_false (s1->growing);
  g_assert_cmpuint (s1->median_bucket, ==, 3);

  g_assert_cmpuint (s2->blocks[HL_LIFETIME_BUCKET_ALIVE], ==, 4);
  g_assert_cmpuint (s2->live_bytes[0], ==, 100);
  g_assert_cmpuint (s2->live_bytes[1], ==, 200);
  g_assert_cmpuint (s2->live_bytes[2], ==, 300);
  g_assert_cmpuint (s2->live_bytes[3], ==, 400);
  g_assert_true (s2->growing);
  g_assert_false (s2->short_lived);
  g_assert_cmpuint (s2->median_bucket, ==, HL_LIFETIME_BUCKET_ALIVE);

  /* 0, 0, 0, 7: live bytes that did not rise every quarter */
  g_assert_cmpuint (s3->live_bytes[3], ==, 7);
  g_assert_false (s3->growing);

  /* the whole selection */
  g_assert_cmpuint (lt->blocks[0], ==, 2);
  g_assert_cmpuint (lt->blocks[HL_LIFETIME_BUCKET_ALIVE], ==, 6);
  g_assert_cmpuint (lt->t0_ns, ==, 0);
  g_assert_cmpuint (lt->t1_ns, ==, 4 * G10);

  {
    g_autoptr (GPtrArray) short_lived = hl_lifetimes_pick (lt, FALSE, 0);
    g_autoptr (GPtrArray) growing = hl_lifetimes_pick (lt, TRUE, 0);
    g_assert_cmpuint (short_lived->len, ==, 1);
    g_assert_true (short_lived->pdata[0] == s1);
    g_assert_cmpuint (growing->len, ==, 1);
    g_assert_true (growing->pdata[0] == s2);
  }
}

static void
test_edges (void)
{
  g_assert_cmpuint (hl_lifetime_bucket_start_ns (0), ==, 0);
  g_assert_cmpuint (hl_lifetime_bucket_start_ns (1), ==, 1000);
  g_assert_cmpuint (hl_lifetime_bucket_start_ns (4), ==, 1000000);
  g_assert_cmpuint (hl_lifetime_bucket_start_ns (8), ==, G10);
  g_assert_cmpuint (hl_lifetime_bucket_start_ns (HL_LIFETIME_BUCKET_ALIVE), ==, G_MAXUINT64);
  g_assert_cmpstr (hl_lifetime_bucket_key (0), ==, "lt_1us");
  g_assert_cmpstr (hl_lifetime_bucket_key (HL_LIFETIME_BUCKET_ALIVE), ==, "alive_at_exit");
}

/* A range: only the blocks made in it, the quarters of the range, a
 * block freed after its end counted with its whole lifetime. */
static void
test_range (void)
{
  g_autoptr (HlRecording) rec = lifetimes_recording ();
  g_autoptr (HlFilter) all = hl_filter_new ();
  g_autoptr (HlFilter) filter = hl_filter_with_time_range (all, 0, 2 * G10);
  g_autoptr (HlAnalysis) analysis = hl_analysis_new (rec, filter);
  g_autoptr (HlLifetimes) lt = hl_analysis_get_lifetimes (analysis, NULL);
  const HlSiteLifetimes *s1, *s2;

  g_assert_nonnull (lt);
  g_assert_cmpuint (lt->t1_ns, ==, 2 * G10);
  g_assert_cmpuint (lt->sites->len, ==, 2);
  s1 = site_of (lt, 0x1000);
  s2 = site_of (lt, 0x1100);
  g_assert_cmpuint (s1->blocks[8], ==, 2);
  g_assert_cmpuint (s2->n_blocks, ==, 2);
  /* 100, 100, 200, 200 over the range's quarters: not growing */
  g_assert_cmpuint (s2->live_bytes[0], ==, 100);
  g_assert_cmpuint (s2->live_bytes[1], ==, 100);
  g_assert_cmpuint (s2->live_bytes[3], ==, 200);
  g_assert_false (s2->growing);
}

static void
got_lifetimes (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  HlLifetimes **out = user_data;
  g_autoptr (GError) error = NULL;

  *out = hl_analysis_get_lifetimes_finish (HL_ANALYSIS (source), result, &error);
  g_assert_no_error (error);
}

static void
test_async (void)
{
  g_autoptr (HlRecording) rec = lifetimes_recording ();
  g_autoptr (HlFilter) filter = hl_filter_new ();
  g_autoptr (HlAnalysis) analysis = hl_analysis_new (rec, filter);
  g_autoptr (HlLifetimes) sync = hl_analysis_get_lifetimes (analysis, NULL);
  HlLifetimes *async = NULL;

  hl_analysis_get_lifetimes_async (analysis, NULL, got_lifetimes, &async);
  while (async == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (async->sites->len, ==, sync->sites->len);
  g_assert_cmpmem (async->blocks, sizeof async->blocks, sync->blocks, sizeof sync->blocks);
  hl_lifetimes_free (async);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/lifetimes/edges", test_edges);
  g_test_add_func ("/lifetimes/buckets", test_buckets);
  g_test_add_func ("/lifetimes/range", test_range);
  g_test_add_func ("/lifetimes/async", test_async);
  return g_test_run ();
}
