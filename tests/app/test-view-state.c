/* test-session.c — the view state: range, filters as chips, change signals. */
#include "hl-config.h"

#include "hl-adapter-filter.h"
#include "hl-view-state.h"

static void
count (HlViewState *session,
       guint     *n)
{
  (*n)++;
}

static void
collect (const char   *id,
         const char   *label,
         HlFilterKind  kind,
         gpointer      user_data)
{
  g_string_append_printf (user_data, "%s[%s];", id, label);
}

static char *
chips (HlViewState *session)
{
  GString *s = g_string_new (NULL);

  hl_view_state_foreach_filter (session, collect, s);
  return g_string_free (s, FALSE);
}

static void
test_filters (void)
{
  g_autoptr(HlViewState) session = hl_view_state_new ();
  guint n_changed = 0, n_threads;
  guint64 start, end;
  const guint *threads;
  const char *key, *value;
  g_autofree char *a = NULL, *b = NULL, *c = NULL;

  g_object_add_weak_pointer (G_OBJECT (session), (gpointer *) &session);
  g_signal_connect (session, "changed", G_CALLBACK (count), &n_changed);

  g_assert_false (hl_view_state_has_filters (session));
  hl_view_state_add_thread (session, 42, "worker");
  hl_view_state_add_metadata (session, "phase", "load");
  hl_view_state_add_module (session, "libz.so.1");
  /* The range comes first, and reversed bounds are put in order. */
  hl_view_state_set_range (session, 2500000000u, 1500000000u);
  g_assert_cmpuint (n_changed, ==, 4);
  a = chips (session);
  g_assert_cmpstr (a, ==, "range[Time 1.5 s – 2.5 s];thread:42[Thread worker (42)];"
                          "meta:phase=load[phase=load];module:libz.so.1[Module libz.so.1];");
  g_assert_true (hl_view_state_get_range (session, &start, &end));
  g_assert_cmpuint (start, ==, 1500000000u);
  g_assert_cmpuint (end, ==, 2500000000u);

  /* The same range again, the same thread again: nothing changes. */
  hl_view_state_set_range (session, 1500000000u, 2500000000u);
  hl_view_state_add_thread (session, 42, "worker");
  g_assert_cmpuint (n_changed, ==, 4);

  threads = hl_view_state_get_threads (session, &n_threads);
  g_assert_cmpuint (n_threads, ==, 1);
  g_assert_cmpuint (threads[0], ==, 42);
  g_assert_cmpuint (hl_view_state_get_n_metadata (session), ==, 1);
  hl_view_state_get_metadata (session, 0, &key, &value);
  g_assert_cmpstr (key, ==, "phase");
  g_assert_cmpstr (value, ==, "load");
  g_assert_cmpstr (hl_view_state_get_modules (session)[0], ==, "libz.so.1");
  g_assert_null (hl_view_state_get_modules (session)[1]);

  /* Removing chips. */
  g_assert_true (hl_view_state_remove_filter (session, "thread:42"));
  g_assert_false (hl_view_state_remove_filter (session, "thread:42"));
  hl_view_state_get_threads (session, &n_threads);
  g_assert_cmpuint (n_threads, ==, 0);
  hl_view_state_clear_range (session);
  g_assert_false (hl_view_state_get_range (session, NULL, NULL));
  g_assert_cmpuint (n_changed, ==, 6);
  b = chips (session);
  g_assert_cmpstr (b, ==, "meta:phase=load[phase=load];module:libz.so.1[Module libz.so.1];");

  hl_view_state_clear_filters (session);
  g_assert_cmpuint (n_changed, ==, 7);
  c = chips (session);
  g_assert_cmpstr (c, ==, "");
  g_assert_null (hl_view_state_get_modules (session)[0]);

  g_clear_object (&session);
  g_assert_null (session);
}

/* Function and size filters (issue 27.5): chips, one size range that a
 * new one replaces, kept by a copy, and the model's filter from them. */
static void
test_function_and_size (void)
{
  g_autoptr(HlViewState) session = hl_view_state_new ();
  g_autoptr(HlViewState) copy = NULL;
  g_autoptr(HlFilter) filter = NULL;
  g_autofree char *a = NULL, *b = NULL, *text = NULL;
  guint n_changed = 0;
  guint64 lo, hi;
  const char *pattern;
  gboolean regex;

  g_signal_connect (session, "changed", G_CALLBACK (count), &n_changed);
  g_assert_false (hl_view_state_get_size_range (session, &lo, &hi));
  hl_view_state_add_function (session, "parse", FALSE);
  hl_view_state_add_function (session, "^std::", TRUE);
  hl_view_state_add_function (session, "parse", FALSE);   /* the same chip: no change */
  hl_view_state_set_size_range (session, 64, 127);
  hl_view_state_set_size_range (session, 64, 127);        /* the same: no change */
  g_assert_cmpuint (n_changed, ==, 3);
  a = chips (session);
  g_assert_cmpstr (a, ==, "function:parse[Function parse];function~:^std::[Function ~ ^std::];"
                          "size[Size 64 B – 127 B];");
  hl_view_state_set_size_range (session, 1024, G_MAXUINT64);
  b = chips (session);
  g_assert_cmpstr (b, ==, "function:parse[Function parse];function~:^std::[Function ~ ^std::];"
                          "size[Size ≥ 1.00 KiB];");
  g_assert_true (hl_view_state_get_size_range (session, &lo, &hi));
  g_assert_cmpuint (lo, ==, 1024);
  g_assert_cmpuint (hi, ==, G_MAXUINT64);
  g_assert_cmpuint (hl_view_state_get_n_functions (session), ==, 2);
  hl_view_state_get_function (session, 1, &pattern, &regex);
  g_assert_cmpstr (pattern, ==, "^std::");
  g_assert_true (regex);

  copy = hl_view_state_copy (session);
  g_assert_true (hl_view_state_get_size_range (copy, &lo, &hi));
  g_assert_cmpuint (lo, ==, 1024);
  g_assert_cmpuint (hl_view_state_get_n_functions (copy), ==, 2);

  filter = hl_adapter_filter (copy, HL_TIME_NONE);
  text = hl_filter_describe (filter);
  g_assert_cmpstr (text, ==, "function parse, function ~ ^std::, size ≥ 1 KiB");

  g_assert_true (hl_view_state_remove_filter (session, "size"));
  g_assert_false (hl_view_state_get_size_range (session, NULL, NULL));
  g_assert_true (hl_view_state_remove_filter (session, "function~:^std::"));
  g_assert_cmpuint (hl_view_state_get_n_functions (session), ==, 1);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/view-state/filters", test_filters);
  g_test_add_func ("/view-state/function-and-size", test_function_and_size);
  return g_test_run ();
}
