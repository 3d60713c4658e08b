/* hl-window.c — the window of one recording: a thin shell around the views. */
#include "hl-config.h"

#include <glib/gi18n.h>

#include "hl-start-page.h"
#include "hl-window.h"

struct _HlWindow
{
  AdwApplicationWindow parent_instance;

  /* Template widgets */
  AdwToastOverlay    *toast_overlay;
  GtkStack           *main_stack;
  AdwViewStack       *view_stack;
  AdwStatusPage      *loading_page;
  GtkProgressBar     *loading_progress;
  AdwStatusPage      *error_page;
  GtkRevealer        *banner_revealer;
  GtkLabel           *banner_label;

  /* Owned */
  GFile              *file;
  GCancellable       *cancellable;
  char               *banner_details;
};

G_DEFINE_FINAL_TYPE (HlWindow, hl_window, ADW_TYPE_APPLICATION_WINDOW)

HlWindow *
hl_window_new (HlApplication *app)
{
  return g_object_new (HL_TYPE_WINDOW, "application", app, NULL);
}

gboolean
hl_window_is_empty (HlWindow *self)
{
  g_return_val_if_fail (HL_IS_WINDOW (self), FALSE);
  return self->file == NULL;
}

const char *
hl_window_get_page (HlWindow *self)
{
  g_return_val_if_fail (HL_IS_WINDOW (self), NULL);
  return gtk_stack_get_visible_child_name (self->main_stack);
}

void
hl_window_show_toast (HlWindow   *self,
                      const char *message)
{
  g_return_if_fail (HL_IS_WINDOW (self));
  adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new (message));
}

static void
show_error (HlWindow   *self,
            const char *message)
{
  adw_status_page_set_description (self->error_page, message);
  gtk_stack_set_visible_child_name (self->main_stack, "error");
}

void
hl_window_open (HlWindow *self,
                GFile    *file)
{
  g_autofree char *name = NULL;
  HlApplication *app;

  g_return_if_fail (HL_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  g_set_object (&self->file, file);
  name = g_file_get_basename (file);
  gtk_window_set_title (GTK_WINDOW (self), name);
  adw_status_page_set_description (self->loading_page, name);

  app = HL_APPLICATION (gtk_window_get_application (GTK_WINDOW (self)));
  if (app != NULL)
    hl_application_add_recent (app, file);

  /* The model (issue 6) loads the recording; see hl_window_load below. */
  show_error (self, _("Loading is not available in this build"));
}

/* ---- Banner ----------------------------------------------------------- */

static void
on_banner_details_clicked (HlWindow *self)
{
  GtkWidget *dialog;

  dialog = adw_message_dialog_new (GTK_WINDOW (self), _("Modules Without Debug Information"),
                                   self->banner_details);
  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
on_banner_close_clicked (HlWindow *self)
{
  gtk_revealer_set_reveal_child (self->banner_revealer, FALSE);
}

static void
on_cancel_clicked (HlWindow *self)
{
  g_cancellable_cancel (self->cancellable);
}

/* ---- Drag and drop ---------------------------------------------------- */

static gboolean
on_drop (GtkDropTarget *target,
         const GValue  *value,
         double         x,
         double         y,
         HlWindow      *self)
{
  GdkFileList *list;
  GSList *files;
  HlApplication *app = HL_APPLICATION (gtk_window_get_application (GTK_WINDOW (self)));

  if (!G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST) || app == NULL)
    return FALSE;
  list = g_value_get_boxed (value);
  files = gdk_file_list_get_files (list);
  for (GSList *l = files; l; l = l->next)
    {
      if (hl_window_is_empty (self))
        hl_window_open (self, l->data);
      else
        hl_application_open_file (app, l->data);
    }
  g_slist_free (files);
  return TRUE;
}

/* ---- Window state ----------------------------------------------------- */

static void
load_window_state (HlWindow *self)
{
  HlApplication *app = HL_APPLICATION (gtk_window_get_application (GTK_WINDOW (self)));
  GSettings *settings = app ? hl_application_get_settings (app) : NULL;

  if (settings == NULL)
    {
      gtk_window_set_default_size (GTK_WINDOW (self), 1100, 760);
      return;
    }
  gtk_window_set_default_size (GTK_WINDOW (self),
                               g_settings_get_int (settings, "window-width"),
                               g_settings_get_int (settings, "window-height"));
  if (g_settings_get_boolean (settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));
}

static gboolean
hl_window_close_request (GtkWindow *window)
{
  HlWindow *self = HL_WINDOW (window);
  HlApplication *app = HL_APPLICATION (gtk_window_get_application (window));
  GSettings *settings = app ? hl_application_get_settings (app) : NULL;

  if (settings != NULL)
    {
      int width, height;

      gtk_window_get_default_size (window, &width, &height);
      g_settings_delay (settings);
      g_settings_set_boolean (settings, "window-maximized", gtk_window_is_maximized (window));
      if (!gtk_window_is_maximized (window))
        {
          g_settings_set_int (settings, "window-width", width);
          g_settings_set_int (settings, "window-height", height);
        }
      g_settings_apply (settings);
    }
  g_cancellable_cancel (self->cancellable);
  return GTK_WINDOW_CLASS (hl_window_parent_class)->close_request (window);
}

/* ---- GObject ---------------------------------------------------------- */

static void
hl_window_constructed (GObject *object)
{
  G_OBJECT_CLASS (hl_window_parent_class)->constructed (object);
  load_window_state (HL_WINDOW (object));
}

static void
hl_window_dispose (GObject *object)
{
  HlWindow *self = HL_WINDOW (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->file);
  g_clear_pointer (&self->banner_details, g_free);
  gtk_widget_dispose_template (GTK_WIDGET (self), HL_TYPE_WINDOW);
  G_OBJECT_CLASS (hl_window_parent_class)->dispose (object);
}

static void
hl_window_class_init (HlWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->constructed = hl_window_constructed;
  object_class->dispose = hl_window_dispose;
  window_class->close_request = hl_window_close_request;

  g_type_ensure (HL_TYPE_START_PAGE);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/heaplens/Heaplens/ui/hl-window.ui");
  gtk_widget_class_bind_template_child (widget_class, HlWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, main_stack);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, view_stack);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, loading_page);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, loading_progress);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, error_page);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, banner_revealer);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, banner_label);
  gtk_widget_class_bind_template_callback (widget_class, on_banner_details_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_banner_close_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_cancel_clicked);
}

static void
hl_window_init (HlWindow *self)
{
  GtkDropTarget *drop;

  gtk_widget_init_template (GTK_WIDGET (self));

  drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
  g_signal_connect (drop, "drop", G_CALLBACK (on_drop), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));
}
