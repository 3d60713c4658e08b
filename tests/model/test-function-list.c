/* test-function-list.c — the flat function list of Callers/Callees
 * (hl_analysis_get_functions: self and total, a recursive function once
 * per stack) and the size filter (hl_filter_with_size_range, "size=…"),
 * on a recording whose answers are counted by hand. */
#include "hl-model.h"
#include "hl-recording-builder.h"

#include <string.h>

#define EXE_START 0x400000u

static void
set_frame (HlRecording *rec,
           guint64      address,
           const char  *function,
           guint        line)
{
  HlResolvedFrame frame = { .function = function, .file = "/src/prog.c", .line = line };

  hl_frame_table_set_address_frames (hl_recording_get_frame_table (rec), address, 0, &frame, 1);
}

/* Stacks (innermost first):
 *   1 = helper ← helper ← main   4 × 50 B, freed
 *   2 = main                     2 × 1000 B, never freed
 *   3 = leaf ← helper ← main     1 × 300 B, never freed
 * main: self 2 allocations 2000 B, total 7 and 2500 B;
 * helper: self 4 and 200 B, total 5 and 500 B (stack 1 once);
 * leaf: self = total = 1 and 300 B. */
static HlRecording *
recursive_recording (void)
{
  HlRecording *rec = hl_recording_new ();
  const guint64 s1[] = { EXE_START + 0x200, EXE_START + 0x210, EXE_START + 0x100 };
  const guint64 s2[] = { EXE_START + 0x104 };
  const guint64 s3[] = { EXE_START + 0x300, EXE_START + 0x214, EXE_START + 0x108 };
  guint64 id = 0, t = 10;

  hl_recording_append_info (rec, "exe", "/opt/prog");
  hl_recording_append_module (rec, "/opt/prog", EXE_START, 0x10000, 0, NULL, 0);
  set_frame (rec, EXE_START + 0x100, "main", 10);
  set_frame (rec, EXE_START + 0x104, "main", 11);
  set_frame (rec, EXE_START + 0x108, "main", 12);
  set_frame (rec, EXE_START + 0x200, "helper", 20);
  set_frame (rec, EXE_START + 0x210, "helper", 21);
  set_frame (rec, EXE_START + 0x214, "helper", 22);
  set_frame (rec, EXE_START + 0x300, "leaf", 30);
  hl_recording_append_stack (rec, 1, s1, G_N_ELEMENTS (s1));
  hl_recording_append_stack (rec, 2, s2, G_N_ELEMENTS (s2));
  hl_recording_append_stack (rec, 3, s3, G_N_ELEMENTS (s3));
  for (guint i = 0; i < 4; i++, id++, t += 10)
    {
      hl_recording_append_alloc (rec, id, t, 1, 50, 0x1000 + id * 0x100, 1);
      hl_recording_append_free (rec, id, 0, t + 5, 1);
    }
  for (guint i = 0; i < 2; i++, id++, t += 10)
    hl_recording_append_alloc (rec, id, t, 1, 1000, 0x1000 + id * 0x100, 2);
  hl_recording_append_alloc (rec, id, t, 1, 300, 0x1000 + id * 0x100, 3);
  hl_recording_append_end (rec, t + 100, 0);
  hl_recording_commit (rec);
  return rec;
}

static const HlFunctionCosts *
find (GArray     *functions,
      const char *name)
{
  for (guint i = 0; i < functions->len; i++)
    if (g_str_equal (g_array_index (functions, HlFunctionCosts, i).frame->function, name))
      return &g_array_index (functions, HlFunctionCosts, i);
  return NULL;
}

static void
test_self_and_total (void)
{
  g_autoptr (HlRecording) rec = recursive_recording ();
  g_autoptr (HlAnalysis) a = hl_analysis_new (rec, NULL);
  g_autoptr (GArray) functions = hl_analysis_get_functions (a, HL_COST_KIND_BYTES);
  const HlFunctionCosts *main_f, *helper, *leaf;
  HlCosts via_report;

  g_assert_cmpuint (functions->len, ==, 3);
  /* the largest total first */
  g_assert_cmpstr (g_array_index (functions, HlFunctionCosts, 0).frame->function, ==, "main");
  g_assert_cmpstr (g_array_index (functions, HlFunctionCosts, 1).frame->function, ==, "helper");
  main_f = find (functions, "main");
  helper = find (functions, "helper");
  leaf = find (functions, "leaf");
  g_assert_nonnull (main_f);
  g_assert_nonnull (helper);
  g_assert_nonnull (leaf);
  g_assert_cmpuint (main_f->self.allocations, ==, 2);
  g_assert_cmpuint (main_f->self.bytes, ==, 2000);
  g_assert_cmpuint (main_f->total.allocations, ==, 7);
  g_assert_cmpuint (main_f->total.bytes, ==, 2500);
  g_assert_cmpuint (main_f->total.leaked_bytes, ==, 2300);
  g_assert_cmpuint (helper->self.allocations, ==, 4);
  g_assert_cmpuint (helper->self.bytes, ==, 200);
  g_assert_cmpuint (helper->total.allocations, ==, 5);
  g_assert_cmpuint (helper->total.bytes, ==, 500);
  g_assert_cmpuint (leaf->self.bytes, ==, 300);
  g_assert_cmpuint (leaf->total.bytes, ==, 300);
  /* report --function's total (hl_analysis_get_function_costs) agrees */
  hl_analysis_get_function_costs (a, helper->frame, &via_report);
  g_assert_cmpuint (via_report.allocations, ==, helper->total.allocations);
  g_assert_cmpuint (via_report.bytes, ==, helper->total.bytes);

  /* by leaked bytes: main 2300, helper 300 (leaf 300 too: helper first by name) */
  g_clear_pointer (&functions, g_array_unref);
  functions = hl_analysis_get_functions (a, HL_COST_KIND_LEAKED);
  g_assert_cmpstr (g_array_index (functions, HlFunctionCosts, 0).frame->function, ==, "main");
  g_assert_cmpstr (g_array_index (functions, HlFunctionCosts, 1).frame->function, ==, "helper");
  g_assert_cmpuint (g_array_index (functions, HlFunctionCosts, 1).total.leaked_bytes, ==, 300);
}

static void
on_functions (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  GArray **out = user_data;

  *out = hl_analysis_get_functions_finish (HL_ANALYSIS (source), result, NULL);
  g_assert_nonnull (*out);
}

static void
on_cancelled (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  gboolean *done = user_data;
  g_autoptr (GError) error = NULL;
  GArray *out = hl_analysis_get_functions_finish (HL_ANALYSIS (source), result, &error);

  g_assert_null (out);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  *done = TRUE;
}

static void
test_async (void)
{
  g_autoptr (HlRecording) rec = recursive_recording ();
  g_autoptr (HlAnalysis) a = hl_analysis_new (rec, NULL);
  g_autoptr (GArray) functions = NULL;
  g_autoptr (GCancellable) cancel = g_cancellable_new ();
  gboolean done = FALSE;

  hl_analysis_get_functions_async (a, HL_COST_KIND_BYTES, NULL, on_functions, &functions);
  while (functions == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (functions->len, ==, 3);

  g_cancellable_cancel (cancel);
  hl_analysis_get_functions_async (a, HL_COST_KIND_BYTES, cancel, on_cancelled, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
}

static void
test_size_filter (void)
{
  g_autoptr (HlRecording) rec = recursive_recording ();
  g_autoptr (HlFilter) f = hl_filter_new ();
  g_autoptr (HlFilter) mid = hl_filter_with_size_range (f, 100, 999);
  g_autoptr (HlFilter) small = hl_filter_parse (f, "size=..100", NULL);
  g_autoptr (HlFilter) big = hl_filter_parse (f, "size=1000", NULL);
  g_autoptr (HlFilter) both = hl_filter_and (mid, small);
  g_autoptr (HlAnalysis) a_mid = hl_analysis_new (rec, mid);
  g_autoptr (HlAnalysis) a_small = hl_analysis_new (rec, small);
  g_autoptr (HlAnalysis) a_big = hl_analysis_new (rec, big);
  g_autoptr (HlAnalysis) a_both = hl_analysis_new (rec, both);
  HlCosts c;
  HlSizeHistogram h;
  guint64 lo, hi;

  g_assert_true (hl_filter_has_size_range (mid));
  g_assert_false (hl_filter_is_empty (mid));
  g_assert_true (hl_filter_selects_by_time (mid));
  g_assert_false (hl_filter_has_size_range (f));
  hl_analysis_get_totals (a_mid, &c);
  g_assert_cmpuint (c.allocations, ==, 1);
  g_assert_cmpuint (c.bytes, ==, 300);
  hl_analysis_get_size_histogram (a_mid, &h);
  g_assert_cmpuint (h.count[9], ==, 1);   /* 256..511 */
  g_assert_cmpuint (h.count[6], ==, 0);   /* the 50 B blocks are out */
  hl_analysis_get_totals (a_small, &c);
  g_assert_cmpuint (c.allocations, ==, 4);
  g_assert_cmpuint (c.bytes, ==, 200);
  hl_analysis_get_totals (a_big, &c);
  g_assert_cmpuint (c.allocations, ==, 2);
  g_assert_cmpuint (c.leaked_bytes, ==, 2000);
  /* two ranges: their intersection, 100..100, selects nothing */
  hl_filter_get_size_range (both, &lo, &hi);
  g_assert_cmpuint (lo, ==, 100);
  g_assert_cmpuint (hi, ==, 100);
  hl_analysis_get_totals (a_both, &c);
  g_assert_cmpuint (c.allocations, ==, 0);
}

static void
test_size_parse (void)
{
  static const struct { const char *expr; guint64 lo, hi; const char *text; } good[] = {
    { "size=64..127", 64, 127, "size 64 B – 127 B" },
    { "size=4KiB..", 4096, G_MAXUINT64, "size ≥ 4 KiB" },
    { "size=..1MiB", 0, 1048576, "size 0 B – 1 MiB" },
    { "size=1.5k..2M", 1536, 2097152, "size 1536 B – 2 MiB" },
    { "size=100", 100, 100, "size 100 B" },
    { "size= 2 GiB ..", 2147483648u, G_MAXUINT64, "size ≥ 2 GiB" },
  };
  static const char *bad[] = {
    "size=", "size=..", "size=abc", "size=10..5", "size=-1..4", "size=4XB", "size=1e30..",
    "size=5..6..7",
  };
  g_autoptr (HlFilter) f = hl_filter_new ();

  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (HlFilter) g = hl_filter_parse (f, good[i].expr, &error);
      g_autofree char *text = NULL;
      guint64 lo, hi;

      g_assert_no_error (error);
      hl_filter_get_size_range (g, &lo, &hi);
      g_assert_cmpuint (lo, ==, good[i].lo);
      g_assert_cmpuint (hi, ==, good[i].hi);
      text = hl_filter_describe (g);
      g_assert_cmpstr (text, ==, good[i].text);
    }
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (HlFilter) g = hl_filter_parse (f, bad[i], &error);

      g_assert_null (g);
      g_assert_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_INVALID);
      g_assert_nonnull (strstr (error->message, "size"));
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/function-list/self-and-total", test_self_and_total);
  g_test_add_func ("/function-list/async", test_async);
  g_test_add_func ("/size-filter/analysis", test_size_filter);
  g_test_add_func ("/size-filter/parse", test_size_parse);
  return g_test_run ();
}
