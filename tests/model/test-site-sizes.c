/* test-site-sizes.c — hl_analysis_get_sizes_by_site () on a hand-built
 * recording: three call sites with known sizes (exact buckets per site,
 * the rest together, the parts adding up to the whole histogram), a time
 * range, a costs-only recording, and the async form. */
#include "hl-config.h"

#include "hl-model.h"
#include "hl-recording-builder.h"

/* Stack 1: 6 blocks of 1000 B at t = 1..6 (bucket 10: 512..1023).
 * Stack 2: 4 of 20 B and 1 of 5000 B at t = 11..15 (buckets 5 and 13).
 * Stack 3: 2 of 64 B at t = 21, 22 (bucket 7). */
static HlRecording *
sizes_recording (void)
{
  HlRecording *rec = hl_recording_new ();
  const guint64 s1[] = { 0x1000, 0x2000 };
  const guint64 s2[] = { 0x1100, 0x2000 };
  const guint64 s3[] = { 0x1200, 0x2000 };
  guint64 id = 0;

  hl_recording_append_stack (rec, 1, s1, 2);
  hl_recording_append_stack (rec, 2, s2, 2);
  hl_recording_append_stack (rec, 3, s3, 2);
  for (guint i = 0; i < 6; i++, id++)
    hl_recording_append_alloc (rec, id, 1 + i, 10, 1000, 0xa000 + id * 0x1000, 1);
  for (guint i = 0; i < 5; i++, id++)
    hl_recording_append_alloc (rec, id, 11 + i, 10, i < 4 ? 20 : 5000, 0xa000 + id * 0x1000, 2);
  for (guint i = 0; i < 2; i++, id++)
    hl_recording_append_alloc (rec, id, 21 + i, 10, 64, 0xa000 + id * 0x1000, 3);
  hl_recording_commit (rec);
  return rec;
}

static const HlSiteSizes *
site (const HlSizesBySite *s,
      guint                k)
{
  g_assert_cmpuint (k, <, s->sites->len);
  return &g_array_index (s->sites, HlSiteSizes, k);
}

static void
test_split (void)
{
  g_autoptr (HlRecording) rec = sizes_recording ();
  g_autoptr (HlFilter) filter = hl_filter_new ();
  g_autoptr (HlAnalysis) analysis = hl_analysis_new (rec, filter);
  g_autoptr (HlSizesBySite) s = hl_analysis_get_sizes_by_site (analysis, 2, NULL);
  HlSizeHistogram whole;

  g_assert_nonnull (s);
  g_assert_cmpuint (s->sites->len, ==, 2);
  /* most allocations first: stack 1 (6), then stack 2 (5); stack 3 is the rest */
  g_assert_cmpuint (site (s, 0)->frame->address, ==, 0x1000);
  g_assert_cmpuint (site (s, 0)->n_blocks, ==, 6);
  g_assert_cmpuint (site (s, 0)->histogram.count[10], ==, 6);
  g_assert_cmpuint (site (s, 0)->histogram.bytes[10], ==, 6000);
  g_assert_cmpuint (site (s, 1)->frame->address, ==, 0x1100);
  g_assert_cmpuint (site (s, 1)->histogram.count[5], ==, 4);
  g_assert_cmpuint (site (s, 1)->histogram.count[13], ==, 1);
  g_assert_cmpuint (site (s, 1)->histogram.bytes[13], ==, 5000);
  g_assert_cmpuint (s->other.count[7], ==, 2);
  g_assert_cmpuint (s->other.bytes[7], ==, 128);
  /* the parts add up to the whole */
  hl_analysis_get_size_histogram (analysis, &whole);
  for (guint b = 0; b < HL_SIZE_HISTOGRAM_BUCKETS; b++)
    {
      guint64 count = s->other.count[b], bytes = s->other.bytes[b];
      for (guint k = 0; k < s->sites->len; k++)
        {
          count += site (s, k)->histogram.count[b];
          bytes += site (s, k)->histogram.bytes[b];
        }
      g_assert_cmpuint (count, ==, whole.count[b]);
      g_assert_cmpuint (bytes, ==, whole.bytes[b]);
    }
}

static void
test_range (void)
{
  g_autoptr (HlRecording) rec = sizes_recording ();
  g_autoptr (HlFilter) all = hl_filter_new ();
  g_autoptr (HlFilter) filter = hl_filter_with_time_range (all, 11, 30);
  g_autoptr (HlAnalysis) analysis = hl_analysis_new (rec, filter);
  g_autoptr (HlSizesBySite) s = hl_analysis_get_sizes_by_site (analysis, 8, NULL);

  /* stack 1's blocks are before the range: two sites */
  g_assert_cmpuint (s->sites->len, ==, 2);
  g_assert_cmpuint (site (s, 0)->frame->address, ==, 0x1100);
  g_assert_cmpuint (site (s, 1)->frame->address, ==, 0x1200);
  g_assert_cmpuint (site (s, 1)->histogram.count[7], ==, 2);
  for (guint b = 0; b < HL_SIZE_HISTOGRAM_BUCKETS; b++)
    g_assert_cmpuint (s->other.count[b], ==, 0);
}

static void
on_sizes (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  HlSizesBySite **out = user_data;
  g_autoptr (GError) error = NULL;

  *out = hl_analysis_get_sizes_by_site_finish (HL_ANALYSIS (source), result, &error);
  g_assert_no_error (error);
}

static void
test_async (void)
{
  g_autoptr (HlRecording) rec = sizes_recording ();
  g_autoptr (HlFilter) filter = hl_filter_new ();
  g_autoptr (HlAnalysis) analysis = hl_analysis_new (rec, filter);
  HlSizesBySite *s = NULL;

  hl_analysis_get_sizes_by_site_async (analysis, 1, NULL, on_sizes, &s);
  while (s == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (s->sites->len, ==, 1);
  g_assert_cmpuint (site (s, 0)->frame->address, ==, 0x1000);
  g_assert_cmpuint (s->other.count[5] + s->other.count[13] + s->other.count[7], ==, 7);
  hl_sizes_by_site_free (s);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/site-sizes/split", test_split);
  g_test_add_func ("/site-sizes/range", test_range);
  g_test_add_func ("/site-sizes/async", test_async);
  return g_test_run ();
}
