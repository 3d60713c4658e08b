/* test-leaks-loading.c — the Leaks tab never says "No Leaks" before its
 * list is built (issue 27): a spinner until the model has answered, the
 * empty page only for an empty answer, the list for rows. */
#include "hl-config.h"

#include <adwaita.h>

#include "hl-alloc-item.h"
#include "hl-allocations-view.h"
#include "hl-app-test.h"

static HlApplication *app;

/* The name of the visible page of the Leaks tab's stack (the stack that
 * holds a page named "loading"). */
static const char *
leaks_page (GtkWidget *widget)
{
  if (GTK_IS_STACK (widget) && gtk_stack_get_child_by_name (GTK_STACK (widget), "loading") != NULL)
    return gtk_stack_get_visible_child_name (GTK_STACK (widget));
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      const char *name = leaks_page (c);
      if (name != NULL)
        return name;
    }
  return NULL;
}

/* Whether a status page titled TITLE is on screen (its stack page shown). */
static gboolean
shows_status (GtkWidget  *root,
              const char *title)
{
  GtkWidget *w = hl_app_test_find_text (root, title);
  return w != NULL && gtk_widget_get_mapped (w);
}

static void
test_loading (void)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *view = g_object_new (HL_TYPE_ALLOCATIONS_VIEW, NULL);
  const char *stack[] = { "leak_here (demo.c:12)", NULL };

  gtk_window_set_application (GTK_WINDOW (window), GTK_APPLICATION (app));
  gtk_window_set_default_size (GTK_WINDOW (window), 900, 600);
  gtk_window_set_child (GTK_WINDOW (window), view);
  gtk_window_present (GTK_WINDOW (window));
  hl_app_test_spin_ms (200);

  /* new: nothing built yet */
  g_assert_cmpstr (leaks_page (view), ==, "loading");
  g_assert_true (shows_status (view, "Finding Leaks…"));
  g_assert_false (shows_status (view, "No Leaks"));
  GtkSpinner *spinner = GTK_SPINNER (hl_app_test_find_widget (view, GTK_TYPE_SPINNER));
  g_assert_nonnull (spinner);
  g_assert_true (gtk_spinner_get_spinning (spinner));
  hl_app_test_save_window_png (GTK_WINDOW (window), "leaks-loading.png");

  /* an empty answer: now it is true */
  g_autoptr(GListStore) none = g_list_store_new (HL_TYPE_ALLOC_ITEM);
  hl_allocations_view_set_leaks (HL_ALLOCATIONS_VIEW (view), G_LIST_MODEL (none));
  hl_app_test_spin_ms (100);
  g_assert_cmpstr (leaks_page (view), ==, "none");
  g_assert_true (shows_status (view, "No Leaks"));
  g_assert_false (gtk_spinner_get_spinning (spinner));

  /* rows: the list */
  g_autoptr(GListStore) some = g_list_store_new (HL_TYPE_ALLOC_ITEM);
  g_autoptr(HlAllocItem) item = hl_alloc_item_new ("leak_here", "demo", 3, 4096, 0, 1, stack);
  g_list_store_append (some, item);
  hl_allocations_view_set_leaks (HL_ALLOCATIONS_VIEW (view), G_LIST_MODEL (some));
  hl_app_test_spin_ms (100);
  g_assert_cmpstr (leaks_page (view), ==, "list");
  g_assert_false (shows_status (view, "No Leaks"));
  g_assert_cmpuint (g_list_model_get_n_items (hl_allocations_view_get_leaks (HL_ALLOCATIONS_VIEW (view))), ==, 1);

  /* back to not built (a new document): the spinner again */
  hl_allocations_view_set_leaks (HL_ALLOCATIONS_VIEW (view), NULL);
  hl_app_test_spin_ms (100);
  g_assert_cmpstr (leaks_page (view), ==, "loading");
  g_assert_true (gtk_spinner_get_spinning (spinner));

  gtk_window_destroy (GTK_WINDOW (window));
  hl_app_test_spin_a_little ();
}

int
main (int   argc,
      char *argv[])
{
  int ret;

  app = hl_app_test_init (&argc, &argv, "/leaks-loading");
  if (app == NULL)
    return g_test_run ();
  g_test_add_func ("/leaks-loading/spinner-then-list", test_loading);
  ret = g_test_run ();
  g_object_unref (app);
  return ret;
}
