/* test-filter-sizes.c — the size histogram and the filter menu's new
 * filters (issue 27.5), under Xvfb, on a recording of the demo made here:
 * the histogram's log scale and its caption, a bar's count equal to
 * `report --filter size=MIN..MAX`'s calls, a click on the bar filtering
 * the window to that range (a Size chip, the analysis' totals equal the
 * CLI's for the same filter, the chip removes it), and the Function… and
 * Size Range… dialogs: bad input keeps Apply off with the parser's
 * message, good input adds the filter the CLI's --filter gives. With
 * HL_TEST_SCREENSHOT_DIR: the Sizes page light and dark, 1400×900 and
 * 800×600, a filtered one and the dialogs. */
#include "hl-config.h"

#include <string.h>

#include <adwaita.h>
#include <json-glib/json-glib.h>

#include "hl-adapter-filter.h"
#include "hl-allocations-view.h"
#include "hl-app-test.h"
#include "hl-filter-bar.h"
#include "hl-filter-dialogs.h"
#include "hl-histogram.h"
#include "hl-units.h"

static HlApplication *app;
static char *trace;

/* `report TRACE --filter EXPR --json`'s "selection" member. */
static void
cli_selection (const char *expression,
               guint64    *allocations,
               guint64    *bytes,
               guint64    *leaked)
{
  g_autofree char *out = hl_app_test_run_cli ("report", trace, "--filter", expression, "--json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *selection;

  g_assert_true (json_parser_load_from_data (parser, out, -1, NULL));
  selection = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "selection");
  g_assert_nonnull (selection);
  *allocations = (guint64) json_object_get_int_member (selection, "allocations");
  *bytes = (guint64) json_object_get_int_member (selection, "bytes");
  *leaked = (guint64) json_object_get_int_member (selection, "leaked_bytes");
}

static HlWindow *shown_window;

static gboolean
analysis_has_size (gpointer data)
{
  HlAnalysis *a = hl_window_get_analysis (shown_window);

  return a != NULL && hl_filter_has_size_range (hl_analysis_get_filter (a)) == GPOINTER_TO_INT (data);
}

static gboolean
analysis_is (gpointer data)
{
  HlAnalysis *a = hl_window_get_analysis (shown_window);
  g_autofree char *text = a != NULL ? hl_filter_describe (hl_analysis_get_filter (a)) : NULL;

  return g_strcmp0 (text, data) == 0;
}

static gboolean
histogram_has_bars (gpointer histogram)
{
  return hl_histogram_get_n_buckets (histogram) > 0;
}

/* The analysis' totals equal report --filter EXPRESSION's selection. */
static void
check_totals (const char *expression)
{
  HlCosts c;
  guint64 allocations, bytes, leaked;

  cli_selection (expression, &allocations, &bytes, &leaked);
  hl_analysis_get_totals (hl_window_get_analysis (shown_window), &c);
  g_test_message ("%s: %" G_GUINT64_FORMAT " calls, %" G_GUINT64_FORMAT " B, %" G_GUINT64_FORMAT " B leaked",
                  expression, c.allocations, c.bytes, c.leaked_bytes);
  g_assert_cmpuint (c.allocations, >, 0);
  g_assert_cmpuint (c.allocations, ==, allocations);
  g_assert_cmpuint (c.bytes, ==, bytes);
  g_assert_cmpuint (c.leaked_bytes, ==, leaked);
}

static GtkStack *
find_stack_with (GtkWidget  *widget,
                 const char *page)
{
  if (GTK_IS_STACK (widget) && gtk_stack_get_child_by_name (GTK_STACK (widget), page) != NULL)
    return GTK_STACK (widget);
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkStack *s = find_stack_with (c, page);
      if (s != NULL)
        return s;
    }
  return NULL;
}

static void
test_histogram_click (void)
{
  g_autoptr(GFile) file = g_file_new_for_path (trace);
  HlWindow *window = hl_app_test_new_window (app, 1400, 900);
  HlAllocationsView *view;
  HlHistogram *histogram;
  HlFilterBar *bar;
  AdwViewStack *views;
  const HlHistogramBucket *chosen = NULL;
  guint64 lo, hi, chosen_count = 0;
  guint chosen_i = 0;
  g_autofree char *expression = NULL, *tooltip = NULL, *from = NULL, *to = NULL, *label = NULL;

  shown_window = window;
  hl_application_open_file (app, file);
  hl_app_test_wait_for_page (window, "views");
  views = ADW_VIEW_STACK (hl_app_test_find_widget (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK));
  adw_view_stack_set_visible_child_name (views, "allocations");
  view = HL_ALLOCATIONS_VIEW (hl_app_test_find_widget (GTK_WIDGET (window), HL_TYPE_ALLOCATIONS_VIEW));
  gtk_stack_set_visible_child_name (find_stack_with (GTK_WIDGET (view), "sizes"), "sizes");
  histogram = hl_allocations_view_get_histogram (view);
  hl_app_test_spin_until (histogram_has_bars, histogram);

  /* log scale by default, and the axis says so */
  g_assert_true (hl_histogram_get_log_scale (histogram));
  {
    HlHistogramStyle style = { .log_scale = TRUE, .axis = TRUE };
    g_autofree char *caption = hl_histogram_caption (&style);

    g_assert_cmpstr (caption, ==, "Allocations (log scale)");
  }
  hl_app_test_save_window_pngs (GTK_WINDOW (window), "sizes-1400");

  /* By Call Site: every bar split into its sites' parts, which add up to
   * the bar (itself the CLI's, below), the largest site first */
  {
    GtkWidget *by_site = hl_app_test_find_text (GTK_WIDGET (view), "By Call _Site");
    guint64 totals[HL_HISTOGRAM_MAX_PARTS] = { 0 };
    guint n_parts;

    g_assert_nonnull (by_site);
    g_assert_true (gtk_widget_get_sensitive (by_site));
    gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (by_site), TRUE);
    n_parts = hl_histogram_get_n_parts (histogram);
    g_assert_cmpuint (n_parts, >=, 2);
    g_assert_cmpuint (n_parts, <=, HL_HISTOGRAM_MAX_PARTS);
    for (guint i = 0; i < hl_histogram_get_n_buckets (histogram); i++)
      {
        const HlHistogramBucket *b = hl_histogram_get_bucket (histogram, i);
        guint64 count = 0, bytes = 0;

        for (guint k = 0; k < n_parts; k++)
          {
            count += b->part_count[k];
            bytes += b->part_bytes[k];
            totals[k] += b->part_count[k];
          }
        g_assert_cmpuint (count, ==, b->count);
        g_assert_cmpuint (bytes, ==, b->bytes);
      }
    for (guint k = 1; k + 1 < n_parts; k++)
      g_assert_cmpuint (totals[k - 1], >=, totals[k]);
    {
      g_autofree char *tip = hl_histogram_describe_bar (histogram, 0);
      g_test_message ("by call site: %u parts; bar 0: %s", n_parts, tip);
      g_assert_nonnull (strchr (tip, '\n'));
    }
    hl_app_test_save_window_pngs (GTK_WINDOW (window), "sizes-by-site-1400");
    gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (by_site), FALSE);
    g_assert_cmpuint (hl_histogram_get_n_parts (histogram), ==, 0);
  }

  /* the bar with the most allocations: its count is the CLI's for its range */
  for (guint i = 0; i < hl_histogram_get_n_buckets (histogram); i++)
    {
      const HlHistogramBucket *b = hl_histogram_get_bucket (histogram, i);

      g_assert_null (b->label);
      g_assert_cmpuint (b->max_size, >=, b->min_size);
      if (b->min_size > 0)
        g_assert_cmpuint (b->max_size, ==, 2 * b->min_size - 1);
      if (b->count > chosen_count)
        {
          chosen = b;
          chosen_count = b->count;
          chosen_i = i;
        }
    }
  g_assert_nonnull (chosen);
  lo = chosen->min_size;
  hi = chosen->max_size;
  expression = g_strdup_printf ("size=%" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT, lo, hi);
  {
    guint64 allocations, bytes, leaked;

    cli_selection (expression, &allocations, &bytes, &leaked);
    g_test_message ("bar %u: %" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT " B, %" G_GUINT64_FORMAT " allocations",
                    chosen_i, lo, hi, chosen_count);
    g_assert_cmpuint (chosen->count, ==, allocations);
    g_assert_cmpuint (chosen->bytes, ==, bytes);
  }
  /* the tooltip names both ends in B/KiB */
  tooltip = hl_histogram_describe_bar (histogram, chosen_i);
  from = hl_format_size (lo);
  to = hl_format_size (hi);
  g_assert_true (g_str_has_prefix (tooltip, from));
  g_assert_nonnull (strstr (tooltip, to));

  /* the click: a Size chip, and the analysis of that range */
  g_assert_true (hl_histogram_activate_bar (histogram, chosen_i));
  bar = HL_FILTER_BAR (hl_app_test_find_widget (GTK_WIDGET (window), HL_TYPE_FILTER_BAR));
  g_assert_nonnull (hl_filter_bar_get_remove_button (bar, "size"));
  label = g_strdup_printf ("Size %s – %s", from, to);
  g_assert_nonnull (hl_app_test_find_text (GTK_WIDGET (bar), label));
  hl_app_test_spin_until (analysis_has_size, GINT_TO_POINTER (TRUE));
  check_totals (expression);
  hl_app_test_spin_until (histogram_has_bars, histogram);
  hl_app_test_spin_ms (500);
  /* the histogram of the selection: only that bar */
  g_assert_cmpuint (hl_histogram_get_n_buckets (histogram), ==, 1);
  g_assert_cmpuint (hl_histogram_get_bucket (histogram, 0)->count, ==, chosen_count);
  hl_app_test_save_window_pngs (GTK_WINDOW (window), "sizes-filtered-1400");

  /* the chip's remove button drops it */
  g_signal_emit_by_name (hl_filter_bar_get_remove_button (bar, "size"), "clicked");
  g_assert_false (hl_view_state_get_size_range (hl_window_get_view_state (window), NULL, NULL));
  hl_app_test_spin_until (analysis_has_size, GINT_TO_POINTER (FALSE));

  gtk_window_set_default_size (GTK_WINDOW (window), 800, 600);
  hl_app_test_save_window_pngs (GTK_WINDOW (window), "sizes-800");
  gtk_window_destroy (GTK_WINDOW (window));
  hl_app_test_spin_a_little ();
}

static GtkWidget *
nth_entry (GtkWidget *widget,
           guint     *n)
{
  if (GTK_IS_ENTRY (widget) && (*n)-- == 0)
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = nth_entry (c, n);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static GtkEditable *
entry_of (AdwMessageDialog *dialog,
          guint             i)
{
  GtkWidget *e = nth_entry (GTK_WIDGET (dialog), &i);

  g_assert_nonnull (e);
  return GTK_EDITABLE (e);
}

static gboolean
apply_enabled (AdwMessageDialog *dialog)
{
  return adw_message_dialog_get_response_enabled (dialog, HL_FILTER_DIALOG_APPLY);
}

static void
test_dialogs (void)
{
  g_autoptr(GFile) file = g_file_new_for_path (trace);
  HlWindow *window = hl_app_test_new_window (app, 1400, 900);
  HlViewState *state;
  AdwMessageDialog *dialog;
  GtkCheckButton *regex;
  HlFilterBar *bar;
  g_autoptr(GMenuModel) menu = NULL;
  gboolean has_function = FALSE, has_size = FALSE;

  shown_window = window;
  hl_application_open_file (app, file);
  hl_app_test_wait_for_page (window, "views");
  state = hl_window_get_view_state (window);
  bar = HL_FILTER_BAR (hl_app_test_find_widget (GTK_WIDGET (window), HL_TYPE_FILTER_BAR));

  /* the filter menu offers both */
  menu = hl_adapter_filter_menu (hl_window_get_recording (window));
  for (int s = 0; s < g_menu_model_get_n_items (menu); s++)
    {
      g_autoptr(GMenuModel) section = g_menu_model_get_item_link (menu, s, G_MENU_LINK_SECTION);

      for (int i = 0; section != NULL && i < g_menu_model_get_n_items (section); i++)
        {
          g_autofree char *action = NULL;

          if (g_menu_model_get_item_attribute (section, i, G_MENU_ATTRIBUTE_ACTION, "s", &action))
            {
              has_function |= g_strcmp0 (action, "win.filter-function") == 0;
              has_size |= g_strcmp0 (action, "win.filter-size") == 0;
            }
        }
    }
  g_assert_true (has_function);
  g_assert_true (has_size);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.filter-size", NULL));
  hl_app_test_spin_ms (300);

  /* Function…: a bad regular expression keeps Apply off and says why */
  dialog = hl_filter_dialog_function_new (GTK_WINDOW (window), state);
  gtk_window_present (GTK_WINDOW (dialog));
  regex = GTK_CHECK_BUTTON (hl_app_test_find_widget (GTK_WIDGET (dialog), GTK_TYPE_CHECK_BUTTON));
  g_assert_false (apply_enabled (dialog));
  gtk_check_button_set_active (regex, TRUE);
  gtk_editable_set_text (entry_of (dialog, 0), "demo_(index");
  g_assert_false (apply_enabled (dialog));
  hl_app_test_save_window_png (GTK_WINDOW (dialog), "filter-function-dialog.png");
  gtk_editable_set_text (entry_of (dialog, 0), "^demo_(index|query)_thread$");
  g_assert_true (apply_enabled (dialog));
  adw_message_dialog_response (dialog, HL_FILTER_DIALOG_APPLY);
  g_assert_cmpuint (hl_view_state_get_n_functions (state), ==, 1);
  g_assert_nonnull (hl_filter_bar_get_remove_button (bar, "function~:^demo_(index|query)_thread$"));
  hl_app_test_spin_until (analysis_is, (gpointer) "function ~ ^demo_(index|query)_thread$");
  check_totals ("function~=^demo_(index|query)_thread$");

  /* a substring too: both must hold (AND) */
  dialog = hl_filter_dialog_function_new (GTK_WINDOW (window), state);
  gtk_editable_set_text (entry_of (dialog, 0), "demo_query");
  g_assert_true (apply_enabled (dialog));
  adw_message_dialog_response (dialog, HL_FILTER_DIALOG_APPLY);
  gtk_window_destroy (GTK_WINDOW (dialog));
  hl_app_test_spin_until (analysis_is, (gpointer) "function demo_query, function ~ ^demo_(index|query)_thread$");
  /* every stack through a demo_query… function runs in demo_query_thread:
   * the AND selects what the substring alone does */
  check_totals ("function=demo_query");
  g_signal_emit_by_name (hl_filter_bar_get_remove_button (bar, "function:demo_query"), "clicked");
  g_signal_emit_by_name (hl_filter_bar_get_remove_button (bar, "function~:^demo_(index|query)_thread$"), "clicked");
  g_assert_cmpuint (hl_view_state_get_n_functions (state), ==, 0);

  /* Size Range…: the parser's checks, then a range */
  {
    static const char *bad[][2] = { { "", "" }, { "x", "" }, { "10", "5" }, { "1..2", "" }, { "-3", "" },
                                    { "", "4 XiB" } };

    for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
      {
        g_autoptr(GError) error = NULL;
        guint64 lo, hi;

        g_assert_false (hl_filter_dialog_parse_size (bad[i][0], bad[i][1], &lo, &hi, &error));
        g_assert_nonnull (error);
      }
  }
  dialog = hl_filter_dialog_size_new (GTK_WINDOW (window), state);
  gtk_window_present (GTK_WINDOW (dialog));
  g_assert_false (apply_enabled (dialog));
  gtk_editable_set_text (entry_of (dialog, 0), "10");
  gtk_editable_set_text (entry_of (dialog, 1), "5");
  g_assert_false (apply_enabled (dialog));
  hl_app_test_save_window_png (GTK_WINDOW (dialog), "filter-size-dialog.png");
  gtk_editable_set_text (entry_of (dialog, 0), "1 KiB");
  gtk_editable_set_text (entry_of (dialog, 1), "");
  g_assert_true (apply_enabled (dialog));
  adw_message_dialog_response (dialog, HL_FILTER_DIALOG_APPLY);
  {
    guint64 lo, hi;

    g_assert_true (hl_view_state_get_size_range (state, &lo, &hi));
    g_assert_cmpuint (lo, ==, 1024);
    g_assert_cmpuint (hi, ==, G_MAXUINT64);
  }
  g_assert_nonnull (hl_app_test_find_text (GTK_WIDGET (bar), "Size ≥ 1.00 KiB"));
  hl_app_test_spin_until (analysis_is, (gpointer) "size ≥ 1 KiB");
  check_totals ("size=1KiB..");
  hl_app_test_save_window_png (GTK_WINDOW (window), "filter-size-chip.png");
  gtk_window_destroy (GTK_WINDOW (window));
  hl_app_test_spin_a_little ();
}

int
main (int   argc,
      char *argv[])
{
  int ret;

  app = hl_app_test_init (&argc, &argv, "/filter-sizes");
  if (app == NULL)
    return g_test_run ();
  trace = hl_app_test_record_demo ();
  g_test_add_func ("/filter-sizes/histogram-click", test_histogram_click);
  g_test_add_func ("/filter-sizes/dialogs", test_dialogs);
  ret = g_test_run ();
  hl_app_test_remove_demo (trace);
  g_free (trace);
  g_object_unref (app);
  return ret;
}
