/* hl-start-page.c — the start page of an empty window. */
#include "hl-config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "hl-start-page.h"

#define MAX_RECENT 8

struct _HlStartPage
{
  GtkWidget parent_instance;

  /* Template widgets */
  GtkListBox *recent_list;
  GtkLabel   *recent_label;

  /* Borrowed */
  GtkRecentManager *recent_manager;
  gulong            changed_id;

  guint n_recent;
};

G_DEFINE_FINAL_TYPE (HlStartPage, hl_start_page, GTK_TYPE_WIDGET)

static gboolean
is_trace (GtkRecentInfo *info)
{
  const char *mime = gtk_recent_info_get_mime_type (info);
  const char *uri = gtk_recent_info_get_uri (info);

  return g_strcmp0 (mime, "application/x-heaplens-trace") == 0
         || (uri != NULL && g_str_has_suffix (uri, ".hltrace"));
}

static int
compare_by_visited (gconstpointer a,
                    gconstpointer b)
{
  GDateTime *ta = gtk_recent_info_get_visited ((GtkRecentInfo *) a);
  GDateTime *tb = gtk_recent_info_get_visited ((GtkRecentInfo *) b);

  return -g_date_time_compare (ta, tb);
}

static GtkWidget *
create_row (GtkRecentInfo *info)
{
  g_autoptr(GFile) file = g_file_new_for_uri (gtk_recent_info_get_uri (info));
  g_autoptr(GFile) parent = g_file_get_parent (file);
  g_autofree char *dir = parent ? g_file_get_parse_name (parent) : NULL;
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *icon = gtk_image_new_from_icon_name ("go-next-symbolic");

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), gtk_recent_info_get_display_name (info));
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  if (dir != NULL)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), dir);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), icon);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), TRUE);
  g_object_set_data_full (G_OBJECT (row), "hl-uri",
                          g_strdup (gtk_recent_info_get_uri (info)), g_free);
  return row;
}

static void
reload_recent (HlStartPage *self)
{
  GList *items = gtk_recent_manager_get_items (self->recent_manager);
  GList *traces = NULL;
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->recent_list))) != NULL)
    gtk_list_box_remove (self->recent_list, child);

  for (GList *l = items; l; l = l->next)
    if (is_trace (l->data) && gtk_recent_info_exists (l->data))
      traces = g_list_prepend (traces, l->data);
  traces = g_list_sort (traces, compare_by_visited);

  self->n_recent = 0;
  for (GList *l = traces; l && self->n_recent < MAX_RECENT; l = l->next, self->n_recent++)
    gtk_list_box_append (self->recent_list, create_row (l->data));

  gtk_widget_set_visible (GTK_WIDGET (self->recent_list), self->n_recent > 0);
  gtk_widget_set_visible (GTK_WIDGET (self->recent_label), self->n_recent > 0);

  g_list_free (traces);
  g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);
}

static void
on_recent_row_activated (GtkListBox    *list,
                         GtkListBoxRow *row,
                         HlStartPage   *self)
{
  const char *uri = g_object_get_data (G_OBJECT (row), "hl-uri");

  if (uri != NULL)
    gtk_widget_activate_action (GTK_WIDGET (self), "app.open-uri", "s", uri);
}

guint
hl_start_page_get_n_recent (HlStartPage *self)
{
  g_return_val_if_fail (HL_IS_START_PAGE (self), 0);
  return self->n_recent;
}

static void
hl_start_page_dispose (GObject *object)
{
  HlStartPage *self = HL_START_PAGE (object);

  g_clear_signal_handler (&self->changed_id, self->recent_manager);
  gtk_widget_dispose_template (GTK_WIDGET (self), HL_TYPE_START_PAGE);
  {
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child (GTK_WIDGET (object))) != NULL)
      gtk_widget_unparent (child);
  }
  G_OBJECT_CLASS (hl_start_page_parent_class)->dispose (object);
}

static void
hl_start_page_class_init (HlStartPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = hl_start_page_dispose;

  gtk_widget_class_set_template_from_resource (widget_class, "/org/heaplens/Heaplens/ui/hl-start-page.ui");
  gtk_widget_class_bind_template_child (widget_class, HlStartPage, recent_list);
  gtk_widget_class_bind_template_child (widget_class, HlStartPage, recent_label);
  gtk_widget_class_bind_template_callback (widget_class, on_recent_row_activated);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
hl_start_page_init (HlStartPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->recent_manager = gtk_recent_manager_get_default ();
  self->changed_id = g_signal_connect_swapped (self->recent_manager, "changed",
                                               G_CALLBACK (reload_recent), self);
  reload_recent (self);
}
