/* test-site-name.c — call sites are named by their first frame with
 * source (issue 27.4): a library function without debug info is followed
 * by the first frame with source, never by a frame without a symbol, and
 * sites that would read the same are told apart by their callers, in the
 * summary's lists, the Leaks list and the timeline's By Call Site legend.
 * The recording mimics sqlite3 without debug info under a program with. */
#include "hl-config.h"

#include <string.h>

#include "hl-adapter-allocations.h"
#include "hl-adapter-timeline.h"
#include "hl-alloc-item.h"
#include "hl-call-tree-view.h"
#include "hl-adapter-call-tree.h"
#include "hl-recording-builder.h"
#include "hl-site-name.h"

#define EXE   0x400000u
#define SQL   0x7f0000000ull

/* sqlite3Malloc and its callers in libsqlite3 (no source), run_inserts
 * and main in the program (with source); SQL + 0xb786c has no symbol. */
static void
set_frame (HlRecording *rec,
           guint64      address,
           int          module,
           const char  *function,
           const char  *file,
           guint        line)
{
  HlResolvedFrame frame = { .function = function, .file = file, .line = line };

  hl_frame_table_set_address_frames (hl_recording_get_frame_table (rec), address, module, &frame, 1);
}

/* Stacks (innermost first), each allocating (stack) × 100 B, never freed:
 *   1 = sqlite3Malloc ← SQL+0xb786c ← sqlite3VdbeExec ← run_inserts:20 ← main:50
 *   2 = sqlite3Malloc ← SQL+0xb786c ← sqlite3Prepare ← run_inserts:20 ← main:50
 *   3 = sqlite3Malloc ← SQL+0xb786c ← sqlite3VdbeExec ← run_inserts:31 ← main:50
 *   4 = sqlite3Malloc ← SQL+0xb786c ← SQL+0xc0000 ← sqlite3VdbeExec ← run_inserts:20 ← main:50
 *   5 = helper (helper.c:3) ← main:51
 *   6 = sqlite3Malloc ← SQL+0xb786c ← sqlite3_exec ← __libc_start_call_main
 *       (no source but the C runtime's, which names nothing) */
static HlRecording *
sqlite_recording (void)
{
  HlRecording *rec = hl_recording_new ();
  const guint8 id[] = { 1, 2, 3, 4 };
  const guint64 s1[] = { SQL + 0x100, SQL + 0xb786c, SQL + 0x200, EXE + 0x100, EXE + 0x300 };
  const guint64 s2[] = { SQL + 0x100, SQL + 0xb786c, SQL + 0x400, EXE + 0x100, EXE + 0x300 };
  const guint64 s3[] = { SQL + 0x100, SQL + 0xb786c, SQL + 0x200, EXE + 0x110, EXE + 0x300 };
  const guint64 s4[] = { SQL + 0x100, SQL + 0xb786c, SQL + 0xc0000, SQL + 0x204, EXE + 0x100, EXE + 0x300 };
  const guint64 s5[] = { EXE + 0x200, EXE + 0x304 };
  const guint64 s6[] = { SQL + 0x100, SQL + 0xb786c, SQL + 0x500, EXE + 0x400 };
  const guint64 *stacks[] = { s1, s2, s3, s4, s5, s6 };
  const guint lengths[] = { G_N_ELEMENTS (s1), G_N_ELEMENTS (s2), G_N_ELEMENTS (s3),
                            G_N_ELEMENTS (s4), G_N_ELEMENTS (s5), G_N_ELEMENTS (s6) };
  guint64 a = 0, t = 10;

  hl_recording_append_info (rec, "exe", "/home/u/inserts");
  hl_recording_append_module (rec, "/home/u/inserts", EXE, 0x10000, 0, id, sizeof id);
  hl_recording_append_module (rec, "/usr/lib/libsqlite3.so.0", SQL, 0x100000, 0, id, sizeof id);
  set_frame (rec, EXE + 0x100, 0, "run_inserts", "/home/u/src/inserts.c", 20);
  set_frame (rec, EXE + 0x110, 0, "run_inserts", "/home/u/src/inserts.c", 31);
  set_frame (rec, EXE + 0x200, 0, "helper", "/home/u/src/helper.c", 3);
  set_frame (rec, EXE + 0x300, 0, "main", "/home/u/src/inserts.c", 50);
  set_frame (rec, EXE + 0x304, 0, "main", "/home/u/src/inserts.c", 51);
  set_frame (rec, EXE + 0x400, 0, "__libc_start_call_main", "../sysdeps/nptl/libc_start_call_main.h", 58);
  set_frame (rec, SQL + 0x100, 1, "sqlite3Malloc", NULL, 0);
  set_frame (rec, SQL + 0x200, 1, "sqlite3VdbeExec", NULL, 0);
  set_frame (rec, SQL + 0x204, 1, "sqlite3VdbeExec", NULL, 0);
  set_frame (rec, SQL + 0x400, 1, "sqlite3Prepare", NULL, 0);
  set_frame (rec, SQL + 0x500, 1, "sqlite3_exec", NULL, 0);
  for (guint s = 0; s < G_N_ELEMENTS (stacks); s++)
    hl_recording_append_stack (rec, s + 1, stacks[s], lengths[s]);
  for (guint s = 1; s <= G_N_ELEMENTS (stacks); s++)
    for (guint k = 0; k < s; k++, a++, t += 10)
      hl_recording_append_alloc (rec, a, t, 1, 100, 0x10000 + a * 0x100, s);
  hl_recording_append_end (rec, t + 100, 0);
  hl_recording_commit (rec);
  return rec;
}

static const char *const expected[] = {
  [1] = "sqlite3Malloc ← sqlite3VdbeExec ← run_inserts (inserts.c:20) #1",
  [2] = "sqlite3Malloc ← sqlite3Prepare ← run_inserts (inserts.c:20)",
  [3] = "sqlite3Malloc ← … ← run_inserts (inserts.c:31)",
  [4] = "sqlite3Malloc ← sqlite3VdbeExec ← run_inserts (inserts.c:20) #2",
  [5] = "helper (helper.c:3)",
  [6] = "sqlite3Malloc ← sqlite3_exec",
};

static void
test_labels (void)
{
  g_autoptr(HlRecording) rec = sqlite_recording ();
  const HlStackId stacks[] = { 1, 2, 3, 4, 5, 6 };
  g_autoptr(GPtrArray) callers = NULL;
  g_autoptr(GPtrArray) labels = hl_site_name_labels (rec, stacks, G_N_ELEMENTS (stacks), &callers);
  g_autofree char *one = NULL, *caller = NULL, *helper_caller = NULL;
  g_autofree char *helper = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (stacks); i++)
    {
      g_test_message ("stack %u: %s (then %s)", stacks[i], (char *) labels->pdata[i],
                      callers->pdata[i] ? (char *) callers->pdata[i] : "-");
      g_assert_cmpstr (labels->pdata[i], ==, expected[stacks[i]]);
      /* never a frame without a symbol */
      g_assert_null (strstr (labels->pdata[i], "0x"));
    }
  g_assert_cmpstr (callers->pdata[0], ==, "main (inserts.c:50)");
  g_assert_cmpstr (callers->pdata[4], ==, "main (inserts.c:51)");
  g_assert_null (callers->pdata[5]);

  /* alone, a site shows the first frame with source and an ellipsis for
   * the frames left out: the summary's rows */
  one = hl_site_name_get (rec, 1, 0, &caller);
  g_assert_cmpstr (one, ==, "sqlite3Malloc ← … ← run_inserts (inserts.c:20)");
  g_assert_cmpstr (caller, ==, "main (inserts.c:50)");
  helper = hl_site_name_get (rec, 5, 0, &helper_caller);
  g_assert_cmpstr (helper, ==, "helper (helper.c:3)");
  g_assert_cmpstr (helper_caller, ==, "main (inserts.c:51)");
  g_assert_null (hl_site_name_get (rec, 0, 0, NULL));
}

/* The Leaks list names each row as above, its caller beside it. */
static void
test_leaks_list (void)
{
  g_autoptr(HlRecording) rec = sqlite_recording ();
  g_autoptr(HlAnalysis) analysis = hl_analysis_new (rec, NULL);
  g_autoptr(GArray) top = hl_analysis_get_top_stacks (analysis, HL_COST_KIND_LEAKED, 100);
  g_autoptr(GListModel) items = hl_adapter_leak_items (rec, top);
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  guint64 bytes = 0;

  g_assert_cmpuint (g_list_model_get_n_items (items), ==, 6);
  for (guint i = 0; i < 6; i++)
    {
      g_autoptr(HlAllocItem) item = g_list_model_get_item (items, i);
      const HlStackCosts *sc = &g_array_index (top, HlStackCosts, i);

      const char *name = hl_alloc_item_get_function (item);
      g_autofree char *want = g_strdup (expected[sc->stack]);

      /* the same named frames: numbered in the list's order */
      if (strchr (want, '#') != NULL)
        *strchr (want, '#') = '\0';
      g_assert_true (g_str_has_prefix (name, want));
      g_assert_false (g_hash_table_contains (seen, name));
      g_hash_table_add (seen, (gpointer) name);
      /* stack s allocated s × 100 B */
      g_assert_cmpuint (hl_alloc_item_get_size_bytes (item), ==, sc->stack * 100);
      bytes += hl_alloc_item_get_size_bytes (item);
    }
  g_assert_cmpuint (bytes, ==, 2100);
}

/* Largest Allocations: one row per call site and size, with how many
 * (issue 27.5): stack s made s allocations of 100 B. */
static void
test_largest_grouped (void)
{
  g_autoptr(HlRecording) rec = sqlite_recording ();
  g_autoptr(HlAnalysis) analysis = hl_analysis_new (rec, NULL);
  g_autoptr(GArray) largest = hl_analysis_get_largest (analysis, 100);
  g_autoptr(GListModel) items = hl_adapter_largest_items (rec, largest);
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  guint64 count = 0;

  g_assert_cmpuint (largest->len, ==, 21);
  g_assert_cmpuint (g_list_model_get_n_items (items), ==, 6);
  for (guint i = 0; i < 6; i++)
    {
      g_autoptr(HlAllocItem) item = g_list_model_get_item (items, i);
      const char *name = hl_alloc_item_get_function (item);

      g_assert_cmpuint (hl_alloc_item_get_size_bytes (item), ==, 100);
      /* the helper's stack (5) made 5, the rest as their names say */
      if (g_str_equal (name, expected[5]))
        g_assert_cmpuint (hl_alloc_item_get_count (item), ==, 5);
      g_assert_false (g_hash_table_contains (seen, name));
      g_hash_table_add (seen, (gpointer) name);
      count += hl_alloc_item_get_count (item);
    }
  g_assert_cmpuint (count, ==, 21);
}

/* The call tree's Location column: the frame's file and line, and its
 * module; the module alone without line info. */
static void
test_location (void)
{
  g_autoptr(HlRecording) rec = sqlite_recording ();
  g_autoptr(HlAnalysis) analysis = hl_analysis_new (rec, NULL);
  g_autoptr(HlCallTree) tree = hl_analysis_get_call_tree (analysis, HL_CALL_TREE_TOP_DOWN, HL_COST_KIND_BYTES);
  g_autoptr(HlTreeRow) root = hl_adapter_call_tree (tree);
  g_autoptr(GListModel) top = hl_tree_row_create_children (root);
  g_autoptr(HlTreeRow) main_row = NULL;
  g_autofree char *location = NULL;

  /* main, and sqlite3_exec called from no frame with a symbol */
  g_assert_cmpuint (g_list_model_get_n_items (top), ==, 2);
  for (guint i = 0; i < 2 && main_row == NULL; i++)
    {
      g_autoptr(HlTreeRow) row = g_list_model_get_item (top, i);

      if (g_str_equal (hl_tree_row_get_name (row), "main"))
        main_row = g_steal_pointer (&row);
      else
        {
          g_autofree char *none = hl_call_tree_format_location (row);

          g_assert_cmpstr (hl_tree_row_get_name (row), ==, "sqlite3_exec");
          g_assert_cmpstr (none, ==, "libsqlite3.so.0");
        }
    }
  g_assert_nonnull (main_row);
  location = hl_call_tree_format_location (main_row);
  g_assert_true (g_str_equal (location, "inserts.c:50 · inserts") || g_str_equal (location, "inserts.c:51 · inserts"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/site-name/labels", test_labels);
  g_test_add_func ("/site-name/leaks-list", test_leaks_list);
  g_test_add_func ("/site-name/largest-grouped", test_largest_grouped);
  g_test_add_func ("/site-name/location", test_location);
  return g_test_run ();
}
