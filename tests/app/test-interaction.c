/* test-interaction.c — what a person does with the windows, under Xvfb,
 * through the widgets' own controllers: dropping a trace file on the
 * start page and on a window showing a recording, cancelling the load of a
 * large trace, the flame graph's keys (arrows, Enter, Escape), accessible
 * names on every control, and dialogs transient for their window. */
#include "hl-config.h"
#include "hl-recording-builder.h"

#include <string.h>

#include <adwaita.h>
#include <glib/gstdio.h>

#include "hl-app-test.h"
#include "hl-application.h"
#include "hl-diff-window.h"
#include "hl-flame-view.h"
#include "hl-model-adapter.h"
#include "hl-trace-writer.h"
#include "hl-window.h"

static HlApplication *app;

static GtkEventController *
find_controller (GtkWidget *widget,
                 GType      type)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GtkEventController) c = g_list_model_get_item (controllers, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (c, type))
        return c;  /* the widget holds it */
    }
  return NULL;
}

static guint
count_windows (void)
{
  guint n = 0;

  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l; l = l->next)
    if (HL_IS_WINDOW (l->data))
      n++;
  return n;
}

/* ---- Drag and drop ---------------------------------------------------- */

static gboolean
drop (HlWindow     *window,
      const GValue *value)
{
  GtkDropTarget *target = GTK_DROP_TARGET (find_controller (GTK_WIDGET (window), GTK_TYPE_DROP_TARGET));
  gboolean accepted = FALSE;

  g_assert_nonnull (target);
  g_signal_emit_by_name (target, "drop", value, 10.0, 10.0, &accepted);
  return accepted;
}

static void
test_drop (void)
{
  g_autoptr(GFile) file = hl_app_test_fixture ("basic.hltrace");
  HlWindow *window = hl_app_test_new_window (app, 1000, 700);
  GtkDropTarget *target;
  const GType *types;
  gsize n_types;
  guint before;
  HlWindow *other = NULL;

  /* The window accepts file lists and single files. */
  target = GTK_DROP_TARGET (find_controller (GTK_WIDGET (window), GTK_TYPE_DROP_TARGET));
  types = gtk_drop_target_get_gtypes (target, &n_types);
  g_assert_cmpuint (n_types, ==, 2);
  g_assert_true (types[0] == GDK_TYPE_FILE_LIST || types[1] == GDK_TYPE_FILE_LIST);
  g_assert_true (types[0] == G_TYPE_FILE || types[1] == G_TYPE_FILE);

  /* On the start page: one GFile, as a content provider gives it; the
   * window itself opens the file. */
  g_assert_cmpstr (hl_window_get_page (window), ==, "start");
  {
    g_autoptr(GdkContentProvider) provider = gdk_content_provider_new_typed (G_TYPE_FILE, file);
    g_auto(GValue) value = G_VALUE_INIT;
    g_autoptr(GError) error = NULL;

    g_value_init (&value, G_TYPE_FILE);
    g_assert_true (gdk_content_provider_get_value (provider, &value, &error));
    g_assert_no_error (error);
    before = count_windows ();
    g_assert_true (drop (window, &value));
    g_assert_cmpuint (count_windows (), ==, before);
    hl_app_test_spin_until (hl_app_test_shows_views, window);
  }

  /* On a window showing a recording: a file list; the recording stays, a
   * new window opens the dropped file. */
  {
    GFile *files[] = { file };
    g_auto(GValue) value = G_VALUE_INIT;

    g_value_init (&value, GDK_TYPE_FILE_LIST);
    g_value_take_boxed (&value, gdk_file_list_new_from_array (files, 1));
    before = count_windows ();
    g_assert_true (drop (window, &value));
    g_assert_cmpuint (count_windows (), ==, before + 1);
    g_assert_cmpstr (hl_window_get_page (window), ==, "views");
    for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l; l = l->next)
      if (HL_IS_WINDOW (l->data) && l->data != window)
        other = l->data;
    g_assert_nonnull (other);
    hl_app_test_spin_until (hl_app_test_shows_views, other);
    gtk_window_destroy (GTK_WINDOW (other));
  }

  /* Something else (text) is refused. */
  {
    g_auto(GValue) value = G_VALUE_INIT;

    g_value_init (&value, G_TYPE_STRING);
    g_value_set_string (&value, "/tmp/x.hltrace");
    g_assert_false (drop (window, &value));
  }
  gtk_window_destroy (GTK_WINDOW (window));
}

/* ---- Cancelling a load ------------------------------------------------ */

/* N_PACKETS × 4,000 allocations (three in four freed) of two threads. */
static char *
write_large_trace (const char *dir,
                   guint       n_packets)
{
  static guint8 buf[HL_PACKET_MAX_SIZE];
  g_autofree char *path = g_build_filename (dir, "large.hltrace", NULL);
  const guint64 s1[] = { 0x1000, 0x2000 }, s2[] = { 0x1100, 0x2000 };
  HlTraceFileHeader hdr;
  HlPacketWriter w;
  FILE *f = fopen (path, "wb");
  guint64 id = 0;

  g_assert_nonnull (f);
  hl_trace_file_header_init (&hdr, 4242, 1, 1, 0);
  g_assert_cmpuint (fwrite (&hdr, sizeof hdr, 1, f), ==, 1);
  for (guint p = 0; p < n_packets; p++)
    {
      guint32 tid = 100 + p % 2;
      guint64 t = (guint64) p * 100000;
      size_t n;

      hl_packet_writer_init (&w, buf, sizeof buf, 4242, tid);
      hl_packet_writer_begin (&w, t);
      if (p < 2)
        hl_packet_writer_stack (&w, t, tid == 100 ? 1 : 2, 0, tid == 100 ? s1 : s2, 2);
      for (guint i = 0; i < 4000; i++, id++)
        {
          if (hl_packet_writer_alloc (&w, t + i * 5, id, 8 + id % 100, 0, tid == 100 ? 1 : 2,
                                      0x100000 + id * 16) != HL_WRITE_OK)
            break;
          if (i % 4 != 0)
            hl_packet_writer_free (&w, t + i * 5 + 2, id);
        }
      n = hl_packet_writer_finish (&w);
      g_assert_cmpuint (n, >, 0);
      g_assert_cmpuint (fwrite (buf, n, 1, f), ==, 1);
    }
  g_assert_cmpint (fclose (f), ==, 0);
  return g_steal_pointer (&path);
}

static gboolean
shows_start (gpointer window)
{
  return g_strcmp0 (hl_window_get_page (window), "start") == 0;
}

static void
test_cancel_load (void)
{
  g_autofree char *dir = g_dir_make_tmp ("hl-cancel-XXXXXX", NULL);
  g_autofree char *path = write_large_trace (dir, 400);  /* 1.6 M allocations */
  g_autoptr(GFile) file = g_file_new_for_path (path);
  HlWindow *window = hl_app_test_new_window (app, 1000, 700);
  GtkWidget *cancel;
  GStatBuf st;

  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_test_message ("large trace: %" G_GINT64_FORMAT " bytes", (gint64) st.st_size);
  g_assert_cmpint (st.st_size, >, 4 * 1024 * 1024);

  hl_window_open (window, file);
  g_assert_cmpstr (hl_window_get_page (window), ==, "loading");
  cancel = hl_app_test_find_text (GTK_WIDGET (window), "_Cancel");
  g_assert_true (GTK_IS_BUTTON (cancel));
  g_assert_true (gtk_widget_is_drawable (cancel));
  /* Let it start, then press Cancel as a person would. */
  hl_app_test_spin_ms (50);
  g_assert_cmpstr (hl_window_get_page (window), ==, "loading");
  /* "clicked" as a pointer click gives it: gtk_widget_activate() delays
   * the click by the button's 250 ms press animation, by which time the
   * load may be over. */
  g_signal_emit_by_name (cancel, "clicked");
  /* at once: the workers stop in their own time and their result is dropped */
  g_assert_true (shows_start (window));
  g_assert_true (hl_window_is_empty (window));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "Heaplens");

  /* The window is usable afterwards: another trace opens fully. */
  {
    g_autoptr(GFile) small = hl_app_test_fixture ("basic.hltrace");

    hl_window_open (window, small);
    hl_app_test_spin_until (hl_app_test_shows_views, window);
  }
  gtk_window_destroy (GTK_WINDOW (window));
  hl_app_test_spin_ms (50);
  g_unlink (path);
  g_rmdir (dir);
}

/* ---- Keys on the flame graph ------------------------------------------ */

static gboolean
press (HlFlameGraph *graph,
       guint         keyval)
{
  GtkEventController *keys = find_controller (GTK_WIDGET (graph), GTK_TYPE_EVENT_CONTROLLER_KEY);
  gboolean handled = FALSE;

  g_assert_nonnull (keys);
  g_signal_emit_by_name (keys, "key-pressed", keyval, 0u, (GdkModifierType) 0, &handled);
  return handled;
}

static gboolean
graph_has_data (gpointer graph)
{
  return hl_flame_graph_get_data (graph) != NULL;
}

static void
test_flame_keys (void)
{
  g_autoptr(GFile) file = hl_app_test_fixture ("basic.hltrace");
  HlWindow *window = hl_app_test_new_window (app, 1000, 700);
  HlFlameView *view;
  HlFlameGraph *graph;
  HlFlameData *data;
  gint first, child;
  g_autofree char *crumbs = NULL;

  hl_window_open (window, file);
  hl_app_test_spin_until (hl_app_test_shows_views, window);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-view", "s", "flamegraph");
  view = HL_FLAME_VIEW (hl_app_test_find_widget (GTK_WIDGET (window), HL_TYPE_FLAME_VIEW));
  graph = hl_flame_view_get_graph (view);
  hl_app_test_spin_until (graph_has_data, graph);
  data = hl_flame_graph_get_data (graph);
  g_assert_true (gtk_widget_get_focusable (GTK_WIDGET (graph)));
  g_assert_true (gtk_widget_grab_focus (GTK_WIDGET (graph)));

  /* Nothing selected: an arrow selects a frame; Up goes towards the
   * leaves (they are drawn at the top), Down back to the parent. */
  g_assert_cmpint (hl_flame_graph_get_selected (graph), ==, -1);
  g_assert_true (press (graph, GDK_KEY_Up));
  first = hl_flame_graph_get_selected (graph);
  g_assert_cmpint (first, >=, 0);
  g_assert_true (press (graph, GDK_KEY_Up));
  child = hl_flame_graph_get_selected (graph);
  if (hl_flame_data_get_node (data, (guint) first)->end > (guint) first + 1)
    {
      g_assert_cmpint (hl_flame_data_get_node (data, (guint) child)->parent, ==, first);
      g_assert_true (press (graph, GDK_KEY_Down));
      g_assert_cmpint (hl_flame_graph_get_selected (graph), ==, first);
      g_assert_true (press (graph, GDK_KEY_Up));
    }
  /* Left and Right stay on the row. */
  press (graph, GDK_KEY_Right);
  g_assert_cmpuint (hl_flame_data_get_node (data, (guint) hl_flame_graph_get_selected (graph))->depth, ==,
                    hl_flame_data_get_node (data, (guint) child)->depth);
  press (graph, GDK_KEY_Left);

  /* Enter zooms into the selection, with its breadcrumb; Escape zooms
   * out one level at a time and is not taken at the root. */
  child = hl_flame_graph_get_selected (graph);
  g_assert_true (press (graph, GDK_KEY_Return));
  g_assert_cmpuint (hl_flame_graph_get_zoom (graph), ==, (guint) child);
  crumbs = hl_flame_view_get_breadcrumb (view);
  g_assert_true (g_str_has_suffix (crumbs, hl_flame_data_get_node (data, (guint) child)->name));
  while (hl_flame_graph_get_zoom (graph) != 0)
    g_assert_true (press (graph, GDK_KEY_Escape));
  g_assert_false (press (graph, GDK_KEY_Escape));
  /* Other keys are left to the window. */
  g_assert_false (press (graph, GDK_KEY_a));

  /* The selected frame is what a screen reader hears. */
  {
    const HlFlameNode *n = hl_flame_data_get_node (data, (guint) child);
    g_autofree char *markup = hl_flame_graph_describe_node (graph, (guint) child);
    g_autofree char *plain = NULL;
    g_auto(GStrv) lines = NULL;
    g_autofree char *expected = NULL;
    char *mismatch;

    g_assert_true (pango_parse_markup (markup, -1, 0, NULL, &plain, NULL, NULL));
    lines = g_strsplit (plain, "\n", -1);
    expected = g_strjoinv (", ", lines);
    g_assert_nonnull (strstr (expected, n->name));
    mismatch = gtk_test_accessible_check_property (GTK_ACCESSIBLE (graph),
                                                   GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, expected);
    g_assert_null (mismatch);
  }
  gtk_window_destroy (GTK_WINDOW (window));
}

/* ---- Accessibility ---------------------------------------------------- */

static gboolean
has_name (GtkWidget *w)
{
  GtkWidget *child;

  if (gtk_widget_get_tooltip_text (w) != NULL || gtk_widget_get_tooltip_markup (w) != NULL)
    return TRUE;
  if (gtk_test_accessible_has_property (GTK_ACCESSIBLE (w), GTK_ACCESSIBLE_PROPERTY_LABEL)
      || gtk_test_accessible_has_relation (GTK_ACCESSIBLE (w), GTK_ACCESSIBLE_RELATION_LABELLED_BY))
    return TRUE;
  if (GTK_IS_BUTTON (w) && gtk_button_get_label (GTK_BUTTON (w)) != NULL
      && gtk_button_get_label (GTK_BUTTON (w))[0] != '\0')
    return TRUE;
  if (GTK_IS_MENU_BUTTON (w) && gtk_menu_button_get_label (GTK_MENU_BUTTON (w)) != NULL)
    return TRUE;
  /* A button whose child is a label or button content with text. */
  child = GTK_IS_BUTTON (w) ? gtk_button_get_child (GTK_BUTTON (w)) : NULL;
  if (child != NULL && GTK_IS_LABEL (child) && gtk_label_get_text (GTK_LABEL (child))[0] != '\0')
    return TRUE;
  if (child != NULL && ADW_IS_BUTTON_CONTENT (child) && adw_button_content_get_label (ADW_BUTTON_CONTENT (child))[0] != '\0')
    return TRUE;
  if (child != NULL && GTK_IS_BOX (child))
    for (GtkWidget *c = gtk_widget_get_first_child (child); c; c = gtk_widget_get_next_sibling (c))
      if (GTK_IS_LABEL (c) && gtk_label_get_text (GTK_LABEL (c))[0] != '\0')
        return TRUE;
  return FALSE;
}

/* Controls inside GTK's and libadwaita's own composite widgets (window
 * buttons, list headers, popover internals) are named by the toolkit. */
static gboolean
is_toolkit_internal (GtkWidget *w)
{
  for (GtkWidget *p = gtk_widget_get_parent (w); p; p = gtk_widget_get_parent (p))
    {
      const char *type = G_OBJECT_TYPE_NAME (p);

      if (GTK_IS_WINDOW_CONTROLS (p) || strcmp (type, "GtkColumnViewTitle") == 0
          || strcmp (type, "GtkTreeExpander") == 0 || strcmp (type, "AdwTabBar") == 0
          || GTK_IS_SPIN_BUTTON (p) || GTK_IS_DROP_DOWN (p))
        return TRUE;
    }
  return FALSE;
}

static void
collect_unnamed (GtkWidget *widget,
                 GString   *out,
                 guint     *n_controls)
{
  if ((GTK_IS_BUTTON (widget) || GTK_IS_MENU_BUTTON (widget) || GTK_IS_DROP_DOWN (widget)
       || GTK_IS_SCALE (widget) || GTK_IS_SWITCH (widget) || GTK_IS_SEARCH_ENTRY (widget))
      && !is_toolkit_internal (widget))
    {
      /* A menu button's inner toggle and a drop-down's inner button are
       * named by the outer control. */
      GtkWidget *parent = gtk_widget_get_parent (widget);

      if (!(parent != NULL && (GTK_IS_MENU_BUTTON (parent) || GTK_IS_DROP_DOWN (parent))))
        {
          (*n_controls)++;
          if (!has_name (widget))
            g_string_append_printf (out, "%s%s(%s)", out->len ? ", " : "", G_OBJECT_TYPE_NAME (widget),
                                    gtk_widget_get_name (widget));
        }
    }
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    collect_unnamed (c, out, n_controls);
}

static void
assert_all_named (GtkWidget  *root,
                  const char *where)
{
  g_autoptr(GString) unnamed = g_string_new (NULL);
  guint n = 0;

  collect_unnamed (root, unnamed, &n);
  g_test_message ("%s: %u controls", where, n);
  g_assert_cmpuint (n, >, 3);
  if (unnamed->len > 0)
    g_test_message ("%s: without a name: %s", where, unnamed->str);
  g_assert_cmpuint (unnamed->len, ==, 0);
}

static void
test_accessible_names (void)
{
  g_autoptr(GFile) file = hl_app_test_fixture ("basic.hltrace");
  HlWindow *window = hl_app_test_new_window (app, 1000, 700);
  HlFlameGraph *graph;
  HlDiffWindow *diff;

  assert_all_named (GTK_WIDGET (window), "start page");
  hl_window_open (window, file);
  hl_app_test_spin_until (hl_app_test_shows_views, window);
  assert_all_named (GTK_WIDGET (window), "recording window");

  graph = hl_flame_view_get_graph (HL_FLAME_VIEW (hl_app_test_find_widget (GTK_WIDGET (window), HL_TYPE_FLAME_VIEW)));
  gtk_test_accessible_assert_role (graph, GTK_ACCESSIBLE_ROLE_IMG);
  gtk_test_accessible_assert_property (graph, GTK_ACCESSIBLE_PROPERTY_LABEL, "Flame graph");
  g_assert_true (gtk_test_accessible_has_property (GTK_ACCESSIBLE (graph), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION));

  diff = hl_window_compare_with (window, file);
  while (g_strcmp0 (hl_diff_window_get_page (diff), "diff") != 0)
    g_main_context_iteration (NULL, TRUE);
  assert_all_named (GTK_WIDGET (diff), "diff window");
  gtk_test_accessible_assert_property (hl_diff_view_get_graph (hl_diff_window_get_view (diff)),
                                       GTK_ACCESSIBLE_PROPERTY_LABEL, "Flame graph of the difference");
  gtk_window_destroy (GTK_WINDOW (diff));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* ---- Dialogs ---------------------------------------------------------- */

static GtkWindow *
find_toplevel (GType type)
{
  GtkWindow *found = NULL;
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) w = g_list_model_get_item (toplevels, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (w, type) && gtk_widget_get_visible (GTK_WIDGET (w)))
        found = w;
    }
  return found;
}

static void
test_dialogs_transient (void)
{
  HlWindow *window = hl_app_test_new_window (app, 1000, 700);
  GtkWindow *dialog;

  gtk_window_present (GTK_WINDOW (window));
  g_action_group_activate_action (G_ACTION_GROUP (app), "about", NULL);
  hl_app_test_spin_ms (100);
  dialog = find_toplevel (ADW_TYPE_ABOUT_WINDOW);
  g_assert_nonnull (dialog);
  g_assert_true (gtk_window_get_transient_for (dialog) == GTK_WINDOW (window));
  g_assert_true (gtk_window_get_modal (dialog));
  gtk_window_destroy (dialog);

  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-help-overlay", NULL);
  hl_app_test_spin_ms (100);
  dialog = find_toplevel (GTK_TYPE_SHORTCUTS_WINDOW);
  g_assert_nonnull (dialog);
  g_assert_true (gtk_window_get_transient_for (dialog) == GTK_WINDOW (window));
  g_assert_true (gtk_window_get_modal (dialog));
  gtk_window_close (dialog);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* ---- A small window ------------------------------------------------- */

static void
wait_frames (GtkWidget *widget,
             guint      n)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (widget);
  gint64 counter = clock != NULL ? gdk_frame_clock_get_frame_counter (clock) : 0;
  gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;

  while (clock != NULL && gdk_frame_clock_get_frame_counter (clock) < counter + n
         && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, FALSE);
  hl_app_test_spin_ms (100);
}

static gboolean
is_allocated (gpointer widget)
{
  return gtk_widget_get_height (widget) > 0;
}

/* At 800×600 every view gets at least the height it needs (a view below
 * its minimum is clipped: the flame graph lost its status line and root),
 * and the flame graph shows its root. */
static void
test_narrow_window (void)
{
  g_autoptr(GFile) file = hl_app_test_fixture ("basic.hltrace");
  HlWindow *window = hl_window_new (app);
  const char *views[] = { "summary", "flamegraph", "calltree", "allocations" };
  AdwViewStack *stack;

  gtk_window_set_default_size (GTK_WINDOW (window), 800, 600);
  gtk_window_present (GTK_WINDOW (window));
  hl_window_open (window, file);
  hl_app_test_spin_until (hl_app_test_shows_views, window);
  stack = ADW_VIEW_STACK (hl_app_test_find_widget (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK));
  g_assert_nonnull (stack);
  for (guint i = 0; i < G_N_ELEMENTS (views); i++)
    {
      GtkWidget *page;
      int min;

      gtk_widget_activate_action (GTK_WIDGET (window), "win.show-view", "s", views[i]);
      page = adw_view_stack_get_visible_child (stack);
      /* Allocated (slow under ASan), then settled. */
      hl_app_test_spin_until (is_allocated, page);
      wait_frames (GTK_WIDGET (window), 3);
      gtk_widget_measure (page, GTK_ORIENTATION_VERTICAL, gtk_widget_get_width (page), &min, NULL, NULL, NULL);
      g_test_message ("%s: %d px tall, needs %d", views[i], gtk_widget_get_height (page), min);
      g_assert_cmpint (gtk_widget_get_height (page), >=, min);
      g_assert_cmpint (gtk_widget_get_height (GTK_WIDGET (window)), <=, 600);
    }
  /* The flame graph again: scrolled to its root. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-view", "s", "flamegraph");
  wait_frames (GTK_WIDGET (window), 3);
  {
    GtkWidget *graph = GTK_WIDGET (hl_flame_view_get_graph (HL_FLAME_VIEW (hl_app_test_find_widget (GTK_WIDGET (window),
                                                                                         HL_TYPE_FLAME_VIEW))));
    GtkWidget *scroller = gtk_widget_get_ancestor (graph, GTK_TYPE_SCROLLED_WINDOW);
    GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));

    g_test_message ("flame graph: value %.0f, upper %.0f, page %.0f", gtk_adjustment_get_value (adj),
                    gtk_adjustment_get_upper (adj), gtk_adjustment_get_page_size (adj));
    g_assert_cmpfloat (gtk_adjustment_get_value (adj), >=,
                       gtk_adjustment_get_upper (adj) - gtk_adjustment_get_page_size (adj) - 1);
  }
  gtk_window_destroy (GTK_WINDOW (window));
}

/* ---- The filter menu -------------------------------------------------- */

static GMenuModel *
section_named (GMenuModel *menu,
               const char *label)
{
  for (int i = 0; i < g_menu_model_get_n_items (menu); i++)
    {
      g_autofree char *text = NULL;

      if (g_menu_model_get_item_attribute (menu, i, G_MENU_ATTRIBUTE_LABEL, "s", &text)
          && g_strcmp0 (text, label) == 0)
        return g_menu_model_get_item_link (menu, i, G_MENU_LINK_SECTION);
    }
  return NULL;
}

/* A key with a few values lists them; one with many gets a submenu, so the
 * menu stays short (the demo's document=0…239 filled the screen). */
static void
test_filter_menu (void)
{
  g_autoptr(HlRecording) rec = hl_recording_new ();
  const guint64 s1[] = { 0x1000, 0x2000 };
  g_autoptr(GMenuModel) menu = NULL;
  g_autoptr(GMenuModel) metadata = NULL;
  g_autoptr(GMenuModel) submenu = NULL;
  g_autofree char *label = NULL;

  hl_recording_append_stack (rec, 1, s1, 2);
  hl_recording_append_thread (rec, 0, 100, "main", FALSE);
  hl_recording_append_metadata (rec, 0, 100, "phase", "load");
  for (guint i = 0; i < 60; i++)
    {
      g_autofree char *value = g_strdup_printf ("%u", i);

      hl_recording_append_metadata (rec, 10 + i, 100, "request", value);
      hl_recording_append_alloc (rec, i, 10 + i, 100, 16, 0x100 + i * 16, 1);
    }
  hl_recording_append_metadata (rec, 80, 100, "phase", "query");
  hl_recording_append_end (rec, 100, 0);
  hl_recording_commit (rec);

  menu = hl_adapter_filter_menu (rec);
  metadata = section_named (menu, "Metadata");
  g_assert_nonnull (metadata);
  /* phase=load, phase=query, then "request" as a submenu of 40 values. */
  g_assert_cmpint (g_menu_model_get_n_items (metadata), ==, 3);
  g_assert_true (g_menu_model_get_item_attribute (metadata, 0, G_MENU_ATTRIBUTE_LABEL, "s", &label));
  g_assert_cmpstr (label, ==, "phase=load");
  g_clear_pointer (&label, g_free);
  g_assert_true (g_menu_model_get_item_attribute (metadata, 2, G_MENU_ATTRIBUTE_LABEL, "s", &label));
  g_assert_cmpstr (label, ==, "request");
  submenu = g_menu_model_get_item_link (metadata, 2, G_MENU_LINK_SUBMENU);
  g_assert_nonnull (submenu);
  g_assert_cmpint (g_menu_model_get_n_items (submenu), ==, 40);
  g_assert_nonnull (section_named (menu, "Threads"));
}

int
main (int   argc,
      char *argv[])
{
  int ret;

  /* GTK's test accessibility backend keeps every accessible property
   * (with "none" there is no context to ask), needs no D-Bus. */
  g_setenv ("GTK_A11Y", "test", TRUE);
  app = hl_app_test_init (&argc, &argv, "/interaction");
  if (app == NULL)
    return g_test_run ();
  g_test_add_func ("/interaction/drop", test_drop);
  g_test_add_func ("/interaction/cancel-load", test_cancel_load);
  g_test_add_func ("/interaction/flame-keys", test_flame_keys);
  g_test_add_func ("/interaction/accessible-names", test_accessible_names);
  g_test_add_func ("/interaction/dialogs-transient", test_dialogs_transient);
  g_test_add_func ("/interaction/filter-menu", test_filter_menu);
  g_test_add_func ("/interaction/narrow-window", test_narrow_window);
  ret = g_test_run ();
  g_object_unref (app);
  return ret;
}
