/* hl-filter-dialogs.c — the filter menu's function and size dialogs. */
#include "hl-config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "hl-filter-dialogs.h"
#include "hl-model.h"

/* What a dialog's widgets are (kept on the dialog as its data). */
typedef struct
{
  HlViewState *state;
  GtkEditable *first;     /* the pattern, or the least size */
  GtkEditable *second;    /* the greatest size (NULL: function dialog) */
  GtkCheckButton *regex;  /* function dialog */
  GtkLabel    *error;
} Dialog;

static void
dialog_free (Dialog *d)
{
  g_object_unref (d->state);
  g_free (d);
}

static AdwMessageDialog *
dialog_new (GtkWindow   *parent,
            HlViewState *state,
            const char  *heading,
            const char  *body,
            GtkWidget   *extra,
            Dialog      *d)
{
  AdwMessageDialog *dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (parent, heading, body));

  d->state = g_object_ref (state);
  adw_message_dialog_add_responses (dialog, HL_FILTER_DIALOG_CANCEL, _("_Cancel"),
                                    HL_FILTER_DIALOG_APPLY, _("_Apply"), NULL);
  adw_message_dialog_set_response_appearance (dialog, HL_FILTER_DIALOG_APPLY, ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (dialog, HL_FILTER_DIALOG_APPLY);
  adw_message_dialog_set_close_response (dialog, HL_FILTER_DIALOG_CANCEL);
  adw_message_dialog_set_response_enabled (dialog, HL_FILTER_DIALOG_APPLY, FALSE);
  adw_message_dialog_set_extra_child (dialog, extra);
  g_object_set_data_full (G_OBJECT (dialog), "hl-filter-dialog", d, (GDestroyNotify) dialog_free);
  return dialog;
}

static GtkWidget *
error_label (Dialog *d)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_add_css_class (label, "error");
  gtk_widget_set_visible (label, FALSE);
  d->error = GTK_LABEL (label);
  return label;
}

/* Shows ERROR (or hides the line) and enables Apply when OK. */
static void
show_check (AdwMessageDialog *dialog,
            Dialog           *d,
            gboolean          ok,
            const char       *error)
{
  gtk_label_set_label (d->error, error != NULL ? error : "");
  gtk_widget_set_visible (GTK_WIDGET (d->error), error != NULL);
  adw_message_dialog_set_response_enabled (dialog, HL_FILTER_DIALOG_APPLY, ok);
}

static GtkWidget *
entry_new (const char *placeholder,
           const char *accessible)
{
  GtkWidget *entry = gtk_entry_new ();

  gtk_entry_set_placeholder_text (GTK_ENTRY (entry), placeholder);
  gtk_entry_set_activates_default (GTK_ENTRY (entry), TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (entry), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible, -1);
  return entry;
}

/* ---- Function ----------------------------------------------------------- */

static void
check_function (AdwMessageDialog *dialog)
{
  Dialog *d = g_object_get_data (G_OBJECT (dialog), "hl-filter-dialog");
  const char *text = gtk_editable_get_text (d->first);
  g_autoptr(GError) error = NULL;

  if (text[0] == '\0')
    {
      show_check (dialog, d, FALSE, NULL);
      return;
    }
  if (gtk_check_button_get_active (d->regex))
    {
      g_autoptr(HlFilter) none = hl_filter_new ();
      g_autoptr(HlFilter) f = hl_filter_with_function_regex (none, text, &error);

      if (f == NULL)
        {
          show_check (dialog, d, FALSE, error->message);
          return;
        }
    }
  show_check (dialog, d, TRUE, NULL);
}

static void
on_function_response (AdwMessageDialog *dialog,
                      const char       *response)
{
  Dialog *d = g_object_get_data (G_OBJECT (dialog), "hl-filter-dialog");

  if (g_strcmp0 (response, HL_FILTER_DIALOG_APPLY) != 0
      || !adw_message_dialog_get_response_enabled (dialog, HL_FILTER_DIALOG_APPLY))
    return;
  hl_view_state_add_function (d->state, gtk_editable_get_text (d->first),
                              gtk_check_button_get_active (d->regex));
}

AdwMessageDialog *
hl_filter_dialog_function_new (GtkWindow   *parent,
                               HlViewState *state)
{
  Dialog *d = g_new0 (Dialog, 1);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *entry = entry_new (_("e.g. parse_ or ^std::vector"), _("Function name"));
  GtkWidget *regex = gtk_check_button_new_with_mnemonic (_("_Regular expression"));
  AdwMessageDialog *dialog;

  g_return_val_if_fail (HL_IS_VIEW_STATE (state), NULL);
  d->first = GTK_EDITABLE (entry);
  d->regex = GTK_CHECK_BUTTON (regex);
  gtk_box_append (GTK_BOX (box), entry);
  gtk_box_append (GTK_BOX (box), regex);
  gtk_box_append (GTK_BOX (box), error_label (d));
  dialog = dialog_new (parent, state, _("Filter by Function"),
                       _("Only the allocations whose stack has a function whose name holds this text "
                         "(case-sensitive), or matches this regular expression."),
                       box, d);
  g_signal_connect_swapped (entry, "changed", G_CALLBACK (check_function), dialog);
  g_signal_connect_swapped (regex, "toggled", G_CALLBACK (check_function), dialog);
  g_signal_connect (dialog, "response", G_CALLBACK (on_function_response), NULL);
  return dialog;
}

/* ---- Size --------------------------------------------------------------- */

gboolean
hl_filter_dialog_parse_size (const char *low,
                             const char *high,
                             guint64    *min_size,
                             guint64    *max_size,
                             GError    **error)
{
  g_autofree char *expression = NULL;
  g_autoptr(HlFilter) none = hl_filter_new ();
  g_autoptr(HlFilter) f = NULL;

  g_return_val_if_fail (low != NULL && high != NULL, FALSE);
  /* a ".." inside a field would change the meaning of the range */
  if (strstr (low, "..") != NULL || strstr (high, "..") != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("“%s” is not a size (e.g. 64, 4 KiB, 1.5 MiB)"),
                   strstr (low, "..") != NULL ? low : high);
      return FALSE;
    }
  expression = g_strdup_printf ("size=%s..%s", low, high);
  f = hl_filter_parse (none, expression, error);
  if (f == NULL)
    return FALSE;
  hl_filter_get_size_range (f, min_size, max_size);
  return TRUE;
}

static void
check_size (AdwMessageDialog *dialog)
{
  Dialog *d = g_object_get_data (G_OBJECT (dialog), "hl-filter-dialog");
  const char *low = gtk_editable_get_text (d->first), *high = gtk_editable_get_text (d->second);
  g_autoptr(GError) error = NULL;
  guint64 lo, hi;

  if (low[0] == '\0' && high[0] == '\0')
    show_check (dialog, d, FALSE, NULL);
  else if (!hl_filter_dialog_parse_size (low, high, &lo, &hi, &error))
    show_check (dialog, d, FALSE, error->message);
  else
    show_check (dialog, d, TRUE, NULL);
}

static void
on_size_response (AdwMessageDialog *dialog,
                  const char       *response)
{
  Dialog *d = g_object_get_data (G_OBJECT (dialog), "hl-filter-dialog");
  guint64 lo, hi;

  if (g_strcmp0 (response, HL_FILTER_DIALOG_APPLY) != 0
      || !adw_message_dialog_get_response_enabled (dialog, HL_FILTER_DIALOG_APPLY))
    return;
  if (hl_filter_dialog_parse_size (gtk_editable_get_text (d->first), gtk_editable_get_text (d->second),
                                   &lo, &hi, NULL))
    hl_view_state_set_size_range (d->state, lo, hi);
}

AdwMessageDialog *
hl_filter_dialog_size_new (GtkWindow   *parent,
                           HlViewState *state)
{
  Dialog *d = g_new0 (Dialog, 1);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *low = entry_new (_("At least, e.g. 64"), _("Least size"));
  GtkWidget *high = entry_new (_("At most, e.g. 4 KiB"), _("Greatest size"));
  AdwMessageDialog *dialog;
  guint64 lo, hi;

  g_return_val_if_fail (HL_IS_VIEW_STATE (state), NULL);
  d->first = GTK_EDITABLE (low);
  d->second = GTK_EDITABLE (high);
  gtk_widget_set_hexpand (low, TRUE);
  gtk_widget_set_hexpand (high, TRUE);
  gtk_box_append (GTK_BOX (row), low);
  gtk_box_append (GTK_BOX (row), high);
  gtk_box_append (GTK_BOX (box), row);
  gtk_box_append (GTK_BOX (box), error_label (d));
  dialog = dialog_new (parent, state, _("Filter by Size"),
                       _("Only the allocations of these sizes, both ends included: bytes, or with a unit "
                         "(B, KiB, MiB, GiB). Leave an end empty for no bound."),
                       box, d);
  if (hl_view_state_get_size_range (state, &lo, &hi))
    {
      g_autofree char *lo_text = g_strdup_printf ("%" G_GUINT64_FORMAT, lo);
      g_autofree char *hi_text = g_strdup_printf ("%" G_GUINT64_FORMAT, hi);

      gtk_editable_set_text (d->first, lo_text);
      if (hi != G_MAXUINT64)
        gtk_editable_set_text (d->second, hi_text);
    }
  g_signal_connect_swapped (low, "changed", G_CALLBACK (check_size), dialog);
  g_signal_connect_swapped (high, "changed", G_CALLBACK (check_size), dialog);
  g_signal_connect (dialog, "response", G_CALLBACK (on_size_response), NULL);
  check_size (dialog);
  return dialog;
}
