/* hl-attach-dialog.c — see hl-attach-dialog.h. */
#include "hl-config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "hl-attach-dialog.h"
#include "hl-live-window.h"
#include "hl-model.h"
#include "hl-units.h"

#define REFRESH_S 2

typedef struct
{
  /* Borrowed: the dialog's widgets */
  GtkWindow      *dialog;
  GtkListBox     *list;
  GtkEditable    *search;
  GtkWidget      *progress_box;
  GtkSpinner     *spinner;
  GtkLabel       *progress_label;
  GtkLabel       *error_label;
  GtkLabel       *others_label;
  GtkWidget      *empty_page;
  /* Owned */
  HlApplication  *app;        /* a reference */
  GHashTable     *rows;       /* "s:NAME" / "p:PID" → GtkListBoxRow (borrowed) */
  char          **lines;      /* what hl_attach_dialog_get_rows gives */
  GPtrArray      *steps;      /* the progress lines of the attach shown */
  GCancellable   *cancellable;
  guint           refresh_id;
  guint32         attach_pid; /* the process being attached to */
  gboolean        refreshing; /* a listing runs on a worker */
  gboolean        attaching;
  gboolean        closed;     /* destroyed: its widgets are gone */
} AttachDialog;

static void
attach_dialog_free (gpointer data)
{
  AttachDialog *d = data;
  g_clear_object (&d->app);
  g_hash_table_destroy (d->rows);
  g_strfreev (d->lines);
  g_ptr_array_unref (d->steps);
  g_clear_object (&d->cancellable);
  g_free (d);
}

static AttachDialog *
dialog_get (GtkWindow *dialog)
{
  return g_object_get_data (G_OBJECT (dialog), "hl-attach-dialog");
}

/* ---- What is listed ------------------------------------------------------------ */

/* One row: a session (a running one opens live) or a process (attached
 * to). */
typedef struct
{
  char     *key;      /* "s:NAME" or "p:PID" */
  char     *title;
  char     *subtitle;
  char     *session;  /* its name, for a session */
  char     *search;   /* folded: name, pid, command line */
  guint32   pid;
  guint     rank;     /* running sessions, processes, ended, stale, refused */
  guint64   order;    /* within a rank, the larger first: start time or RSS */
  gboolean  sensitive;
  gboolean  is_session;
} Entry;

static void
entry_free (gpointer data)
{
  Entry *e = data;
  g_free (e->key);
  g_free (e->title);
  g_free (e->subtitle);
  g_free (e->session);
  g_free (e->search);
  g_free (e);
}

static const char *
live_state_name (HlLiveState st)
{
  switch (st)
    {
    case HL_LIVE_STATE_RUNNING:
      return _("running");
    case HL_LIVE_STATE_ENDED:
    case HL_LIVE_STATE_RESTARTED:
      return _("ended");
    case HL_LIVE_STATE_STARTING:
    default:
      return _("starting");
    }
}

static Entry *
session_entry (const HlLiveSessionInfo *s)
{
  Entry *e = g_new0 (Entry, 1);
  e->key = g_strconcat ("s:", s->name, NULL);
  e->session = g_strdup (s->name);
  e->pid = s->pid;
  e->is_session = TRUE;
  e->sensitive = s->readable;
  e->rank = 4;
  if (!s->readable)
    {
      /* the model says why: another user's, an invalid segment... */
      e->title = g_strdup_printf (_("pid %u"), (unsigned) s->pid);
      e->subtitle = g_strdup_printf (_("Refused: %s"), s->refusal);
    }
  else
    {
      g_autoptr(GDateTime) start = g_date_time_new_from_unix_local ((gint64) (s->start_wall_ns / 1000000000u));
      g_autofree char *when = start != NULL ? g_date_time_format (start, "%X") : g_strdup ("?");
      gboolean ended = s->state == HL_LIVE_STATE_ENDED || s->state == HL_LIVE_STATE_RESTARTED;
      const char *state = !ended && !s->alive ? _("stale") : live_state_name (s->state);
      e->rank = !ended && s->alive ? 0 : ended ? 2 : 3;
      e->order = s->start_wall_ns;
      const char *base = strrchr (s->exe, '/') ? strrchr (s->exe, '/') + 1 : s->exe;
      e->title = g_strdup_printf (_("%s — pid %u"), base, (unsigned) s->pid);
      g_autofree char *rss = hl_format_size (s->totals.rss_bytes);
      /* Translators: a Heaplens session in the Attach dialog: its resident
       * memory, command line, start time and state */
      e->subtitle = g_strdup_printf (_("RSS %s · %s · started %s · %s"), rss, s->cmdline, when, state);
    }
  g_autofree char *all = g_strdup_printf ("%s %s %u", e->title, e->subtitle, (unsigned) e->pid);
  e->search = g_utf8_casefold (all, -1);
  return e;
}

static Entry *
process_entry (const HlProcessInfo *p)
{
  Entry *e = g_new0 (Entry, 1);
  e->key = g_strdup_printf ("p:%u", (unsigned) p->pid);
  e->pid = p->pid;
  e->sensitive = TRUE;
  e->rank = 1;
  e->order = p->rss_bytes;
  g_autofree char *rss = hl_format_size (p->rss_bytes);
  e->title = g_strdup_printf (_("%s — pid %u"), p->name, (unsigned) p->pid);
  /* Translators: a process in the Attach dialog: its resident memory and command line */
  e->subtitle = g_strdup_printf (_("RSS %s · %s"), rss, p->cmdline);
  g_autofree char *all = g_strdup_printf ("%s %s %u", p->name, p->cmdline, (unsigned) p->pid);
  e->search = g_utf8_casefold (all, -1);
  return e;
}

typedef struct
{
  GPtrArray *entries;   /* of Entry */
  guint      n_others;  /* other users' processes, not listed */
} Listing;

static void
listing_free (gpointer data)
{
  Listing *l = data;
  g_ptr_array_unref (l->entries);
  g_free (l);
}

/* Every session (other users' and unreadable ones greyed with the
 * reason) and every process of the user without a running session. */
static Listing *
list_now (void)
{
  Listing *l = g_new0 (Listing, 1);
  l->entries = g_ptr_array_new_with_free_func (entry_free);
  g_autoptr(GHashTable) watched = g_hash_table_new (NULL, NULL);
  g_autoptr(GPtrArray) sessions = hl_live_session_list (HL_LIVE_LIST_ALL_USERS, NULL);
  for (guint i = 0; sessions != NULL && i < sessions->len; i++)
    {
      const HlLiveSessionInfo *s = g_ptr_array_index (sessions, i);
      Entry *e = session_entry (s);
      if (e->rank == 0)
        g_hash_table_add (watched, GUINT_TO_POINTER (s->pid));
      g_ptr_array_add (l->entries, e);
    }
  g_autoptr(GPtrArray) processes = hl_process_list (&l->n_others, NULL);
  for (guint i = 0; processes != NULL && i < processes->len; i++)
    {
      const HlProcessInfo *p = g_ptr_array_index (processes, i);
      if (!g_hash_table_contains (watched, GUINT_TO_POINTER (p->pid)))
        g_ptr_array_add (l->entries, process_entry (p));
    }
  return l;
}

/* ---- The rows ------------------------------------------------------------------ */

static void
row_set (GtkWidget   *row,
         const Entry *e)
{
  /* set only when changed: a refresh keeps the rows still */
  g_autofree char *t = g_markup_escape_text (e->title, -1);
  g_autofree char *st = g_markup_escape_text (e->subtitle, -1);
  if (g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), t) != 0)
    adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), t);
  if (g_strcmp0 (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)), st) != 0)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), st);
  g_object_set_data (G_OBJECT (row), "hl-rank", GUINT_TO_POINTER (e->rank));
  g_object_set_data_full (G_OBJECT (row), "hl-order", g_memdup2 (&e->order, sizeof e->order), g_free);
  g_object_set_data_full (G_OBJECT (row), "hl-search", g_strdup (e->search), g_free);
  gtk_widget_set_sensitive (row, e->sensitive);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), e->sensitive);
}

static GtkWidget *
row_new (const Entry *e)
{
  GtkWidget *row = adw_action_row_new ();
  adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row), 2);
  g_object_set_data_full (G_OBJECT (row), "hl-key", g_strdup (e->key), g_free);
  g_object_set_data (G_OBJECT (row), "hl-pid", GUINT_TO_POINTER (e->pid));
  if (e->session != NULL)
    g_object_set_data_full (G_OBJECT (row), "hl-session", g_strdup (e->session), g_free);
  if (e->is_session && e->sensitive)
    {
      GtkWidget *tag = gtk_label_new (_("Heaplens session"));
      gtk_widget_add_css_class (tag, "accent");
      gtk_widget_add_css_class (tag, "caption-heading");
      gtk_widget_set_valign (tag, GTK_ALIGN_CENTER);
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), tag);
    }
  if (e->sensitive)
    adw_action_row_add_suffix (ADW_ACTION_ROW (row), gtk_image_new_from_icon_name ("go-next-symbolic"));
  row_set (row, e);
  return row;
}

static void
show_empty (AttachDialog *d)
{
  gboolean empty = gtk_widget_get_first_child (GTK_WIDGET (d->list)) == NULL;
  gtk_widget_set_visible (GTK_WIDGET (d->list), !empty);
  gtk_widget_set_visible (d->empty_page, empty);
}

/* The rows become LISTING's: updated in place, added, removed. */
static void
apply_listing (AttachDialog  *d,
               const Listing *l)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  GPtrArray *lines = g_ptr_array_new ();
  for (guint i = 0; i < l->entries->len; i++)
    {
      const Entry *e = g_ptr_array_index (l->entries, i);
      GtkWidget *row = g_hash_table_lookup (d->rows, e->key);
      if (row == NULL)
        {
          row = row_new (e);
          g_hash_table_insert (d->rows, g_strdup (e->key), row);
          gtk_list_box_append (d->list, row);
        }
      else
        row_set (row, e);
      g_hash_table_add (seen, e->key);
      g_ptr_array_add (lines, g_strdup_printf ("%s: %s", e->title, e->subtitle));
    }
  GHashTableIter it;
  gpointer key, row;
  g_hash_table_iter_init (&it, d->rows);
  while (g_hash_table_iter_next (&it, &key, &row))
    if (!g_hash_table_contains (seen, key))
      {
        gtk_list_box_remove (d->list, row);
        g_hash_table_iter_remove (&it);
      }
  g_ptr_array_add (lines, NULL);
  g_strfreev (d->lines);
  d->lines = (char **) g_ptr_array_free (lines, FALSE);
  gtk_list_box_invalidate_sort (d->list);
  gtk_list_box_invalidate_filter (d->list);
  if (l->n_others > 0)
    {
      g_autofree char *text = g_strdup_printf (
        ngettext ("%u process of another user is not listed: a process can be attached to only by its own "
                  "user (as that user: heaplens-cli attach PID).",
                  "%u processes of other users are not listed: a process can be attached to only by its own "
                  "user (as that user: heaplens-cli attach PID).",
                  l->n_others),
        l->n_others);
      gtk_label_set_text (d->others_label, text);
    }
  gtk_widget_set_visible (GTK_WIDGET (d->others_label), l->n_others > 0);
  show_empty (d);
}

/* Running sessions first (newest first), then processes (the most
 * resident memory first), then ended, stale and refused sessions. */
static int
compare_rows (GtkListBoxRow *a,
              GtkListBoxRow *b,
              gpointer       user_data)
{
  guint ra = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (a), "hl-rank"));
  guint rb = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (b), "hl-rank"));
  if (ra != rb)
    return ra < rb ? -1 : 1;
  guint64 oa = *(guint64 *) g_object_get_data (G_OBJECT (a), "hl-order");
  guint64 ob = *(guint64 *) g_object_get_data (G_OBJECT (b), "hl-order");
  if (oa != ob)
    return oa > ob ? -1 : 1;
  guint pa = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (a), "hl-pid"));
  guint pb = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (b), "hl-pid"));
  return pa < pb ? -1 : pa > pb;
}

static gboolean
filter_row (GtkListBoxRow *row,
            gpointer       user_data)
{
  AttachDialog *d = user_data;
  const char *text = gtk_editable_get_text (d->search);
  if (text == NULL || text[0] == '\0')
    return TRUE;
  g_autofree char *folded = g_utf8_casefold (text, -1);
  const char *search = g_object_get_data (G_OBJECT (row), "hl-search");
  return search != NULL && strstr (search, g_strstrip (folded)) != NULL;
}

static void
on_search_changed (GtkSearchEntry *entry,
                   AttachDialog   *d)
{
  gtk_list_box_invalidate_filter (d->list);
}

/* ---- Refresh while open ---------------------------------------------------------- */

static void
list_thread (GTask        *task,
             gpointer      source,
             gpointer      task_data,
             GCancellable *cancellable)
{
  g_task_return_pointer (task, list_now (), listing_free);
}

static void
on_listed (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  GtkWindow *dialog = user_data;
  AttachDialog *d = dialog_get (dialog);
  Listing *l = g_task_propagate_pointer (G_TASK (result), NULL);
  d->refreshing = FALSE;
  if (l != NULL && !d->closed && !d->attaching)
    apply_listing (d, l);
  if (l != NULL)
    listing_free (l);
  g_object_unref (dialog);
}

static gboolean
refresh_tick (gpointer user_data)
{
  AttachDialog *d = user_data;
  if (d->refreshing || d->attaching)
    return G_SOURCE_CONTINUE;
  /* off the main thread: opening every segment took seconds under ASan
   * on a loaded machine */
  d->refreshing = TRUE;
  g_autoptr(GTask) task = g_task_new (NULL, d->cancellable, on_listed, g_object_ref (d->dialog));
  g_task_run_in_thread (task, list_thread);
  return G_SOURCE_CONTINUE;
}

/* ---- Choosing a row ------------------------------------------------------------- */

static void
show_error (AttachDialog *d,
            const char   *message)
{
  gtk_label_set_text (d->error_label, message);
  gtk_widget_set_visible (GTK_WIDGET (d->error_label), message != NULL);
}

static void
set_busy (AttachDialog *d,
          gboolean      busy)
{
  d->attaching = busy;
  gtk_widget_set_visible (d->progress_box, busy);
  gtk_spinner_set_spinning (d->spinner, busy);
  gtk_widget_set_sensitive (GTK_WIDGET (d->list), !busy);
  gtk_widget_set_sensitive (GTK_WIDGET (d->search), !busy);
}

static void
on_progress (HlAttachStep  step,
             const char   *text,
             gpointer      user_data)
{
  AttachDialog *d = dialog_get (user_data);
  g_ptr_array_add (d->steps, g_strdup (text));
  if (!d->closed)
    gtk_label_set_text (d->progress_label, text);
}

static void
on_attached (GObject      *source,
             GAsyncResult *res,
             gpointer      user_data)
{
  GtkWindow *dialog = user_data;
  AttachDialog *d = dialog_get (dialog);
  g_autoptr(GError) error = NULL;
  g_autoptr(HlAttachResult) result = hl_attach_finish (res, &error);
  g_autoptr(HlLiveSession) session = result != NULL ? hl_live_session_open_name (result->session, &error) : NULL;
  if (session != NULL)
    {
      /* also when the dialog was closed meanwhile: the process records,
       * and its window is where it is stopped */
      HlLivePanel *panel = hl_live_window_new_injected (d->app, session);
      gtk_window_present (GTK_WINDOW (hl_live_window_get_window (panel)));
      if (!d->closed)
        gtk_window_destroy (dialog);
    }
  else if (result != NULL)
    /* attached, yet its session cannot be read: it is not left recording */
    (void) hl_attach_request_detach (result->session, d->attach_pid, NULL);
  if (session == NULL && !d->closed)
    {
      set_busy (d, FALSE);
      show_error (d, error->message);
      refresh_tick (d);
    }
  g_object_unref (dialog);
}

static void
on_row_activated (GtkListBox    *list,
                  GtkListBoxRow *row,
                  AttachDialog  *d)
{
  if (d->attaching)
    return;
  const char *name = g_object_get_data (G_OBJECT (row), "hl-session");
  show_error (d, NULL);
  if (name != NULL)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(HlLiveSession) session = hl_live_session_open_name (name, &error);
      if (session == NULL)
        {
          g_autofree char *msg = g_strdup_printf (_("Cannot attach: %s"), error->message);
          show_error (d, msg);
          return;
        }
      HlLivePanel *panel = hl_live_window_new_attach (d->app, session);
      gtk_window_present (GTK_WINDOW (hl_live_window_get_window (panel)));
      gtk_window_destroy (d->dialog);
      return;
    }
  guint32 pid = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (row), "hl-pid"));
  g_ptr_array_set_size (d->steps, 0);
  d->attach_pid = pid;
  set_busy (d, TRUE);
  gtk_label_set_text (d->progress_label, _("Checking the process…"));
  hl_attach_async (pid, NULL, d->cancellable, on_progress, g_object_ref (d->dialog), g_object_unref, on_attached,
                   g_object_ref (d->dialog));
}

static void
on_destroy (GtkWidget    *dialog,
            AttachDialog *d)
{
  d->closed = TRUE;
  g_clear_handle_id (&d->refresh_id, g_source_remove);
  g_cancellable_cancel (d->cancellable);
}

/* Escape closes the dialog. */
static void
close_on_escape (GtkWindow *dialog)
{
  GtkEventController *sc = gtk_shortcut_controller_new ();
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (sc),
                                        gtk_shortcut_new (gtk_shortcut_trigger_parse_string ("Escape"),
                                                          gtk_named_action_new ("window.close")));
  gtk_widget_add_controller (GTK_WIDGET (dialog), sc);
}

GtkWindow *
hl_attach_dialog_new (HlApplication *app,
                      GtkWindow     *parent)
{
  g_autoptr(GtkBuilder) builder = gtk_builder_new_from_resource ("/org/heaplens/Heaplens/ui/hl-attach-dialog.ui");
  AttachDialog *d = g_new0 (AttachDialog, 1);
  d->dialog = GTK_WINDOW (gtk_builder_get_object (builder, "dialog"));
  d->list = GTK_LIST_BOX (gtk_builder_get_object (builder, "session_list"));
  d->search = GTK_EDITABLE (gtk_builder_get_object (builder, "search_entry"));
  d->progress_box = GTK_WIDGET (gtk_builder_get_object (builder, "progress_box"));
  d->spinner = GTK_SPINNER (gtk_builder_get_object (builder, "spinner"));
  d->progress_label = GTK_LABEL (gtk_builder_get_object (builder, "progress_label"));
  d->error_label = GTK_LABEL (gtk_builder_get_object (builder, "error_label"));
  d->others_label = GTK_LABEL (gtk_builder_get_object (builder, "others_label"));
  d->empty_page = GTK_WIDGET (gtk_builder_get_object (builder, "empty_page"));
  d->app = g_object_ref ((gpointer) app);
  d->rows = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  d->steps = g_ptr_array_new_with_free_func (g_free);
  d->cancellable = g_cancellable_new ();
  g_object_set_data_full (G_OBJECT (d->dialog), "hl-attach-dialog", d, attach_dialog_free);
  gtk_window_set_modal (d->dialog, parent != NULL);
  gtk_window_set_transient_for (d->dialog, parent);
  gtk_list_box_set_sort_func (d->list, compare_rows, NULL, NULL);
  gtk_list_box_set_filter_func (d->list, filter_row, d, NULL);
  g_signal_connect (d->list, "row-activated", G_CALLBACK (on_row_activated), d);
  g_signal_connect (d->search, "search-changed", G_CALLBACK (on_search_changed), d);
  g_signal_connect (d->dialog, "destroy", G_CALLBACK (on_destroy), d);
  /* the first listing at once (tests read the rows of a new dialog) */
  Listing *l = list_now ();
  apply_listing (d, l);
  listing_free (l);
  d->refresh_id = g_timeout_add_seconds (REFRESH_S, refresh_tick, d);
  close_on_escape (d->dialog);
  return d->dialog;
}

GStrv
hl_attach_dialog_get_rows (GtkWindow *dialog)
{
  return g_strdupv (dialog_get (dialog)->lines);
}

const char *
hl_attach_dialog_get_message (GtkWindow *dialog)
{
  AttachDialog *d = dialog_get (dialog);
  if (gtk_widget_get_visible (GTK_WIDGET (d->error_label)))
    return gtk_label_get_text (d->error_label);
  return gtk_widget_get_visible (d->progress_box) ? gtk_label_get_text (d->progress_label) : NULL;
}

GStrv
hl_attach_dialog_get_steps (GtkWindow *dialog)
{
  AttachDialog *d = dialog_get (dialog);
  GStrvBuilder *b = g_strv_builder_new ();
  for (guint i = 0; i < d->steps->len; i++)
    g_strv_builder_add (b, g_ptr_array_index (d->steps, i));
  GStrv out = g_strv_builder_end (b);
  g_strv_builder_unref (b);
  return out;
}

gboolean
hl_attach_dialog_is_busy (GtkWindow *dialog)
{
  return dialog_get (dialog)->attaching;
}

void
hl_attach_dialog_refresh (GtkWindow *dialog)
{
  refresh_tick (dialog_get (dialog));
}
