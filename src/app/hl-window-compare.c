/* hl-window-compare.c — Compare With…: a diff window with this window's
 * recording as A, another trace as B, and this window's filters and cost. */
#include "hl-config.h"

#include <glib/gi18n.h>

#include "hl-cost.h"
#include "hl-window-private.h"

static void
on_compare_response (GtkNativeDialog *dialog,
                     int              response,
                     HlWindow        *self)
{
  if (response == GTK_RESPONSE_ACCEPT && hl_window_recording (self) != NULL)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));

      hl_window_compare_with (self, file);
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
}

HlDiffWindow *
hl_window_compare_with (HlWindow *self,
                        GFile    *file)
{
  HlDiffWindow *window;
  guint cost;

  g_return_val_if_fail (HL_IS_WINDOW (self), NULL);
  g_return_val_if_fail (G_IS_FILE (file), NULL);
  g_return_val_if_fail (hl_window_recording (self) != NULL, NULL);

  window = hl_diff_window_new (gtk_window_get_application (GTK_WINDOW (self)));
  /* The filters of this window, carried over to both sides, and the
   * flame graph's cost (a diff has no "live at T"). */
  hl_diff_window_set_filters (window, self->session, hl_window_recording (self));
  cost = hl_flame_view_get_cost (self->flame_view);
  if (cost < HL_N_TREE_COSTS)
    hl_diff_view_set_cost (hl_diff_window_get_view (window), cost);
  hl_diff_window_compare (window, hl_document_get_file (self->document), hl_window_recording (self), file, NULL);
  gtk_window_present (GTK_WINDOW (window));
  return window;
}

static void
action_compare (GtkWidget  *widget,
                const char *action_name,
                GVariant   *param)
{
  HlWindow *self = HL_WINDOW (widget);
  GtkFileChooserNative *dialog;

  dialog = hl_window_new_file_dialog (self, _("Compare With"), GTK_FILE_CHOOSER_ACTION_OPEN, _("_Compare"),
                                      _("Heaplens traces"), "*.hltrace");
  g_signal_connect (dialog, "response", G_CALLBACK (on_compare_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

void
hl_window_class_add_compare_action (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.compare", NULL, action_compare);
}
