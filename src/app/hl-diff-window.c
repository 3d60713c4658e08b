/* hl-diff-window.c — a window comparing two recordings. */
#include "hl-config.h"

#include <glib/gi18n.h>

#include "hl-diff-window.h"

struct _HlDiffWindow
{
  AdwApplicationWindow parent_instance;

  GtkStack      *stack;
  AdwStatusPage *error_page;
  HlDiffView    *view;

  GCancellable  *cancellable;
  GFile         *files[2];
  HlRecording   *recordings[2];
  HlAnalysis    *analyses[2];
  guint          generation;  /* of compare(): late answers of an earlier one are dropped */
};

typedef struct
{
  HlDiffWindow *self;
  guint         generation;
} Pending;

static Pending *
pending_new (HlDiffWindow *self)
{
  Pending *p = g_new (Pending, 1);

  p->self = g_object_ref (self);
  p->generation = self->generation;
  return p;
}

/* Frees P and its reference (callers hold their own); returns its window
 * when the answer is still wanted, NULL when compare() was called again. */
static HlDiffWindow *
pending_finish (Pending *p)
{
  HlDiffWindow *self = p->self;
  gboolean current = p->generation == self->generation;

  g_free (p);
  g_object_unref (self);
  return current ? self : NULL;
}

G_DEFINE_FINAL_TYPE (HlDiffWindow, hl_diff_window, ADW_TYPE_APPLICATION_WINDOW)

HlDiffWindow *
hl_diff_window_new (GtkApplication *app)
{
  return g_object_new (HL_TYPE_DIFF_WINDOW, "application", app, NULL);
}

static void
show_error (HlDiffWindow *self,
            GFile        *file,
            const char   *message)
{
  g_autofree char *name = file != NULL ? g_file_get_basename (file) : NULL;
  g_autofree char *text = name != NULL ? g_strdup_printf ("%s: %s", name, message) : g_strdup (message);

  adw_status_page_set_description (self->error_page, text);
  gtk_stack_set_visible_child_name (self->stack, "error");
}

static void step (HlDiffWindow *self);

static void
on_analysis_ready (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  HlAnalysis *analysis = hl_analysis_new_finish (result, &error);
  HlDiffWindow *self = g_object_ref (((Pending *) user_data)->self);

  if (pending_finish (user_data) == NULL)
    g_clear_object (&analysis);
  else if (analysis == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        show_error (self, NULL, error->message);
    }
  else if (self->analyses[0] == NULL)
    {
      self->analyses[0] = analysis;
      step (self);
    }
  else
    {
      self->analyses[1] = analysis;
      step (self);
    }
  g_object_unref (self);
}

static void
on_loaded (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  HlRecording *recording = hl_recording_load_finish (result, &error);
  HlDiffWindow *self = g_object_ref (((Pending *) user_data)->self);
  guint side = self->recordings[0] == NULL ? 0 : 1;

  if (pending_finish (user_data) == NULL)
    g_clear_object (&recording);
  else if (recording == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        show_error (self, self->files[side], error->message);
    }
  else
    {
      self->recordings[side] = recording;
      step (self);
    }
  g_object_unref (self);
}

/* One thing at a time: load A, load B, analyse A, analyse B, show. */
static void
step (HlDiffWindow *self)
{
  g_autoptr(HlFilter) filter = NULL;

  for (guint i = 0; i < 2; i++)
    if (self->recordings[i] == NULL)
      {
        hl_recording_load_async (self->files[i], HL_LOAD_FLAGS_NONE, self->cancellable,
                                 NULL, NULL, NULL, on_loaded, pending_new (self));
        return;
      }
  filter = hl_filter_new ();
  for (guint i = 0; i < 2; i++)
    if (self->analyses[i] == NULL)
      {
        hl_analysis_new_async (self->recordings[i], filter, self->cancellable,
                               on_analysis_ready, pending_new (self));
        return;
      }
  hl_diff_view_set_analyses (self->view, self->analyses[0], self->analyses[1]);
  gtk_stack_set_visible_child_name (self->stack, "diff");
}

static char *
display_name (GFile       *file,
              const char  *fallback)
{
  return file != NULL ? g_file_get_basename (file) : g_strdup (fallback);
}

void
hl_diff_window_compare (HlDiffWindow *self,
                        GFile        *a_file,
                        HlRecording  *a_recording,
                        GFile        *b_file,
                        HlRecording  *b_recording)
{
  g_autofree char *a_name = NULL, *b_name = NULL, *title = NULL;

  g_return_if_fail (HL_IS_DIFF_WINDOW (self));
  g_return_if_fail (a_file != NULL || a_recording != NULL);
  g_return_if_fail (b_file != NULL || b_recording != NULL);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  self->generation++;
  for (guint i = 0; i < 2; i++)
    {
      g_clear_object (&self->files[i]);
      g_clear_object (&self->recordings[i]);
      g_clear_object (&self->analyses[i]);
    }
  if (a_file != NULL)
    self->files[0] = g_object_ref (a_file);
  if (b_file != NULL)
    self->files[1] = g_object_ref (b_file);
  if (a_recording != NULL)
    self->recordings[0] = g_object_ref (a_recording);
  if (b_recording != NULL)
    self->recordings[1] = g_object_ref (b_recording);

  a_name = display_name (a_file, "A");
  b_name = display_name (b_file, "B");
  /* Translators: window title, "a.hltrace → b.hltrace" */
  title = g_strdup_printf (_("%s → %s"), a_name, b_name);
  gtk_window_set_title (GTK_WINDOW (self), title);
  gtk_stack_set_visible_child_name (self->stack, "loading");
  step (self);
}

HlDiffView *
hl_diff_window_get_view (HlDiffWindow *self)
{
  g_return_val_if_fail (HL_IS_DIFF_WINDOW (self), NULL);
  return self->view;
}

const char *
hl_diff_window_get_page (HlDiffWindow *self)
{
  g_return_val_if_fail (HL_IS_DIFF_WINDOW (self), NULL);
  return gtk_stack_get_visible_child_name (self->stack);
}

const char *
hl_diff_window_get_error (HlDiffWindow *self)
{
  g_return_val_if_fail (HL_IS_DIFF_WINDOW (self), NULL);
  return adw_status_page_get_description (self->error_page);
}

static void
hl_diff_window_dispose (GObject *object)
{
  HlDiffWindow *self = HL_DIFF_WINDOW (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  for (guint i = 0; i < 2; i++)
    {
      g_clear_object (&self->files[i]);
      g_clear_object (&self->recordings[i]);
      g_clear_object (&self->analyses[i]);
    }
  G_OBJECT_CLASS (hl_diff_window_parent_class)->dispose (object);
}

static void
hl_diff_window_class_init (HlDiffWindowClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = hl_diff_window_dispose;
}

static void
hl_diff_window_init (HlDiffWindow *self)
{
  GtkWidget *toolbar = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *header = adw_header_bar_new ();
  GtkWidget *loading = adw_status_page_new ();
  GtkWidget *spinner = gtk_spinner_new ();

  gtk_window_set_default_size (GTK_WINDOW (self), 1200, 800);
  gtk_window_set_title (GTK_WINDOW (self), _("Compare Recordings"));
  gtk_box_append (GTK_BOX (toolbar), header);

  self->stack = GTK_STACK (gtk_stack_new ());
  gtk_widget_set_vexpand (GTK_WIDGET (self->stack), TRUE);
  adw_status_page_set_title (ADW_STATUS_PAGE (loading), _("Comparing Recordings…"));
  gtk_spinner_start (GTK_SPINNER (spinner));
  gtk_widget_set_halign (spinner, GTK_ALIGN_CENTER);
  adw_status_page_set_child (ADW_STATUS_PAGE (loading), spinner);
  gtk_stack_add_named (self->stack, loading, "loading");

  self->error_page = ADW_STATUS_PAGE (adw_status_page_new ());
  adw_status_page_set_icon_name (self->error_page, "dialog-error-symbolic");
  adw_status_page_set_title (self->error_page, _("Could Not Compare"));
  gtk_stack_add_named (self->stack, GTK_WIDGET (self->error_page), "error");

  self->view = HL_DIFF_VIEW (hl_diff_view_new ());
  gtk_stack_add_named (self->stack, GTK_WIDGET (self->view), "diff");
  gtk_box_append (GTK_BOX (toolbar), GTK_WIDGET (self->stack));
  gtk_stack_set_visible_child_name (self->stack, "loading");
  adw_application_window_set_content (ADW_APPLICATION_WINDOW (self), toolbar);
}
