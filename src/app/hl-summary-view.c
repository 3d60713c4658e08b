/* hl-summary-view.c — totals and top call sites. */
#include "hl-config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "hl-summary-threads.h"
#include "hl-summary-view.h"

struct _HlSummaryView
{
  GtkWidget parent_instance;

  /* Template widgets */
  GtkFlowBox *stats_box;
  GtkFlowBox *top_box;
  GtkLabel   *saved_in_label;
  GtkLabel   *memory_label;
  GtkWidget  *threads_box;
  GtkWidget  *threads_heading;
  GtkWidget  *threads_table;  /* in threads_box */

  /* Owned */
  GHashTable *stats;  /* id → value GtkLabel (borrowed) */
  GHashTable *tops;   /* GUINT_TO_POINTER (cost + 1) → GtkListBox (borrowed) */
};

enum {
  CALL_SITE_ACTIVATED,
  THREAD_ACTIVATED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (HlSummaryView, hl_summary_view, GTK_TYPE_WIDGET)

void
hl_summary_view_set_saved_in (HlSummaryView *self,
                              const char    *folder_path,
                              const char    *shown)
{
  g_autofree char *uri = NULL;
  g_autofree char *link = NULL;
  g_autofree char *markup = NULL;

  g_return_if_fail (HL_IS_SUMMARY_VIEW (self));

  if (folder_path == NULL)
    {
      gtk_label_set_label (self->saved_in_label, "");
      gtk_widget_set_visible (GTK_WIDGET (self->saved_in_label), FALSE);
      return;
    }
  /* a link: GtkLabel's own handler opens it with gtk_show_uri */
  uri = g_filename_to_uri (folder_path, NULL, NULL);
  link = uri != NULL ? g_markup_printf_escaped ("<a href=\"%s\">%s</a>", uri, shown != NULL ? shown : folder_path)
                     : g_markup_escape_text (shown != NULL ? shown : folder_path, -1);
  /* Translators: above the summary's cards, e.g. "Saved in ~/.local/state/heaplens/demo-20261203-0900" */
  markup = g_strdup_printf (_("Saved in %s"), link);
  gtk_label_set_markup (self->saved_in_label, markup);
  gtk_widget_set_visible (GTK_WIDGET (self->saved_in_label), TRUE);
}

const char *
hl_summary_view_get_saved_in (HlSummaryView *self)
{
  g_return_val_if_fail (HL_IS_SUMMARY_VIEW (self), NULL);
  if (!gtk_widget_get_visible (GTK_WIDGET (self->saved_in_label)))
    return NULL;
  return gtk_label_get_text (self->saved_in_label);
}

void
hl_summary_view_set_memory (HlSummaryView *self,
                            const char    *sentence)
{
  g_return_if_fail (HL_IS_SUMMARY_VIEW (self));

  gtk_label_set_label (self->memory_label, sentence != NULL ? sentence : "");
  gtk_widget_set_visible (GTK_WIDGET (self->memory_label), sentence != NULL);
}

const char *
hl_summary_view_get_memory (HlSummaryView *self)
{
  g_return_val_if_fail (HL_IS_SUMMARY_VIEW (self), NULL);
  if (!gtk_widget_get_visible (GTK_WIDGET (self->memory_label)))
    return NULL;
  return gtk_label_get_text (self->memory_label);
}

void
hl_summary_view_set_stat (HlSummaryView *self,
                          const char    *id,
                          const char    *caption,
                          const char    *value,
                          const char    *detail)
{
  GtkWidget *card, *caption_label, *value_label, *detail_label;

  g_return_if_fail (HL_IS_SUMMARY_VIEW (self));

  value_label = g_hash_table_lookup (self->stats, id);
  if (value_label == NULL)
    {
      card = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
      gtk_widget_add_css_class (card, "card");
      gtk_widget_set_size_request (card, 150, -1);
      caption_label = gtk_label_new (caption);
      gtk_widget_add_css_class (caption_label, "caption-heading");
      gtk_widget_add_css_class (caption_label, "dim-label");
      gtk_label_set_xalign (GTK_LABEL (caption_label), 0);
      gtk_widget_set_margin_start (caption_label, 12);
      gtk_widget_set_margin_top (caption_label, 10);
      value_label = gtk_label_new (NULL);
      gtk_widget_add_css_class (value_label, "hl-summary-number");
      gtk_label_set_xalign (GTK_LABEL (value_label), 0);
      gtk_label_set_selectable (GTK_LABEL (value_label), TRUE);
      gtk_widget_set_margin_start (value_label, 12);
      gtk_widget_set_margin_end (value_label, 12);
      detail_label = gtk_label_new (NULL);
      gtk_widget_add_css_class (detail_label, "dim-label");
      gtk_label_set_xalign (GTK_LABEL (detail_label), 0);
      gtk_label_set_wrap (GTK_LABEL (detail_label), TRUE);
      gtk_widget_set_margin_start (detail_label, 12);
      gtk_widget_set_margin_end (detail_label, 12);
      gtk_widget_set_margin_bottom (detail_label, 10);
      gtk_box_append (GTK_BOX (card), caption_label);
      gtk_box_append (GTK_BOX (card), value_label);
      gtk_box_append (GTK_BOX (card), detail_label);
      gtk_accessible_update_relation (GTK_ACCESSIBLE (value_label),
                                      GTK_ACCESSIBLE_RELATION_LABELLED_BY, caption_label, NULL, -1);
      gtk_flow_box_append (self->stats_box, card);
      g_hash_table_insert (self->stats, g_strdup (id), value_label);
    }
  /* unchanged text is not set again: no new layout (a live view sets them
   * several times a second); the caption changes when a live program ends */
  caption_label = gtk_widget_get_prev_sibling (value_label);
  if (g_strcmp0 (gtk_label_get_label (GTK_LABEL (caption_label)), caption) != 0)
    gtk_label_set_label (GTK_LABEL (caption_label), caption);
  if (g_strcmp0 (gtk_label_get_label (GTK_LABEL (value_label)), value) != 0)
    gtk_label_set_label (GTK_LABEL (value_label), value);
  detail_label = gtk_widget_get_next_sibling (value_label);
  if (g_strcmp0 (gtk_label_get_label (GTK_LABEL (detail_label)), detail ? detail : "") != 0)
    gtk_label_set_label (GTK_LABEL (detail_label), detail ? detail : "");
  gtk_widget_set_visible (detail_label, detail != NULL && detail[0] != '\0');
}

const char *
hl_summary_view_get_stat (HlSummaryView *self,
                          const char    *id)
{
  GtkWidget *label;

  g_return_val_if_fail (HL_IS_SUMMARY_VIEW (self), NULL);
  label = g_hash_table_lookup (self->stats, id);
  return label ? gtk_label_get_label (GTK_LABEL (label)) : NULL;
}

const char *
hl_summary_view_get_stat_caption (HlSummaryView *self,
                                  const char    *id)
{
  GtkWidget *label;

  g_return_val_if_fail (HL_IS_SUMMARY_VIEW (self), NULL);
  label = g_hash_table_lookup (self->stats, id);
  return label ? gtk_label_get_label (GTK_LABEL (gtk_widget_get_prev_sibling (label))) : NULL;
}

const char *
hl_summary_view_get_stat_detail (HlSummaryView *self,
                                 const char    *id)
{
  GtkWidget *label;

  g_return_val_if_fail (HL_IS_SUMMARY_VIEW (self), NULL);
  label = g_hash_table_lookup (self->stats, id);
  return label ? gtk_label_get_label (GTK_LABEL (gtk_widget_get_next_sibling (label))) : NULL;
}

static void
on_top_row_activated (GtkListBox    *list,
                      GtkListBoxRow *row,
                      HlSummaryView *self)
{
  guint cost = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (list), "hl-cost"));
  const char *function = g_object_get_data (G_OBJECT (row), "hl-function");

  if (function != NULL)
    g_signal_emit (self, signals[CALL_SITE_ACTIVATED], 0, cost, function);
}

/* A row shows one line: the text past what a row can show is cut (long
 * C++ names cost a millisecond a layout, and a flow box lays them out many
 * times); the tooltip has the whole function. */
#define ROW_TEXT_MAX 160

static char *
shorten (const char *text)
{
  if (g_utf8_strlen (text, -1) <= ROW_TEXT_MAX)
    return g_strdup (text);
  g_autofree char *head = g_utf8_substring (text, 0, ROW_TEXT_MAX);
  return g_strconcat (head, "…", NULL);
}

void
hl_summary_view_set_top (HlSummaryView      *self,
                         guint               cost,
                         const char         *title,
                         guint               n,
                         const char * const *functions,
                         const char * const *modules,
                         const char * const *values)
{
  GtkWidget *list, *child;

  g_return_if_fail (HL_IS_SUMMARY_VIEW (self));

  list = g_hash_table_lookup (self->tops, GUINT_TO_POINTER (cost + 1));
  if (list == NULL)
    {
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
      GtkWidget *heading = gtk_label_new (title);

      gtk_widget_add_css_class (heading, "heading");
      gtk_label_set_xalign (GTK_LABEL (heading), 0);
      list = gtk_list_box_new ();
      gtk_widget_add_css_class (list, "boxed-list");
      gtk_list_box_set_selection_mode (GTK_LIST_BOX (list), GTK_SELECTION_NONE);
      g_object_set_data (G_OBJECT (list), "hl-cost", GUINT_TO_POINTER (cost));
      g_signal_connect (list, "row-activated", G_CALLBACK (on_top_row_activated), self);
      gtk_accessible_update_relation (GTK_ACCESSIBLE (list),
                                      GTK_ACCESSIBLE_RELATION_LABELLED_BY, heading, NULL, -1);
      gtk_box_append (GTK_BOX (box), heading);
      gtk_box_append (GTK_BOX (box), list);
      gtk_widget_set_valign (box, GTK_ALIGN_START);
      gtk_flow_box_append (self->top_box, box);
      g_hash_table_insert (self->tops, GUINT_TO_POINTER (cost + 1), list);
    }
  else
    {
      GtkWidget *heading = gtk_widget_get_prev_sibling (list);
      if (g_strcmp0 (gtk_label_get_label (GTK_LABEL (heading)), title) != 0)
        gtk_label_set_label (GTK_LABEL (heading), title);
    }

  /* The rows are updated in place: a live view refills the lists several
   * times a second, and new rows with long (C++) names are laid out again
   * and again by the flow box; a label whose text is unchanged is not. */
  child = gtk_widget_get_first_child (list);
  if (n == 0 || (child != NULL && g_object_get_data (G_OBJECT (child), "hl-none") != NULL))
    {
      while ((child = gtk_widget_get_first_child (list)) != NULL)
        gtk_list_box_remove (GTK_LIST_BOX (list), child);
    }
  if (n == 0)
    {
      GtkWidget *row = adw_action_row_new ();
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("None"));
      g_object_set_data (G_OBJECT (row), "hl-none", GINT_TO_POINTER (1));
      gtk_list_box_append (GTK_LIST_BOX (list), row);
      return;
    }
  child = gtk_widget_get_first_child (list);
  for (guint i = 0; i < n; i++)
    {
      GtkWidget *row = child;
      GtkWidget *value;
      const char *module = modules != NULL ? modules[i] : NULL;

      if (row == NULL)
        {
          row = adw_action_row_new ();
          value = gtk_label_new (NULL);
          adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
          adw_action_row_set_title_lines (ADW_ACTION_ROW (row), 1);
          adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row), 1);
          gtk_widget_add_css_class (value, "numeric");
          adw_action_row_add_suffix (ADW_ACTION_ROW (row), value);
          adw_action_row_add_suffix (ADW_ACTION_ROW (row), gtk_image_new_from_icon_name ("go-next-symbolic"));
          gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), TRUE);
          g_object_set_data (G_OBJECT (row), "hl-value", value);
          gtk_list_box_append (GTK_LIST_BOX (list), row);
        }
      else
        {
          value = g_object_get_data (G_OBJECT (row), "hl-value");
          child = gtk_widget_get_next_sibling (child);
        }
      if (g_strcmp0 (g_object_get_data (G_OBJECT (row), "hl-function"), functions[i]) != 0)
        {
          g_autofree char *tooltip = g_strdup_printf (_("Show %s in the flame graph"), functions[i]);
          g_autofree char *shown = shorten (functions[i]);

          adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), shown);
          gtk_widget_set_tooltip_text (row, tooltip);
          g_object_set_data_full (G_OBJECT (row), "hl-function", g_strdup (functions[i]), g_free);
        }
      if (g_strcmp0 (g_object_get_data (G_OBJECT (row), "hl-module"), module ? module : "") != 0)
        {
          g_autofree char *subtitle = shorten (module ? module : "");

          adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
          g_object_set_data_full (G_OBJECT (row), "hl-module", g_strdup (module ? module : ""), g_free);
        }
      if (g_strcmp0 (gtk_label_get_label (GTK_LABEL (value)), values[i]) != 0)
        gtk_label_set_label (GTK_LABEL (value), values[i]);
    }
  while (child != NULL)
    {
      GtkWidget *next = gtk_widget_get_next_sibling (child);

      gtk_list_box_remove (GTK_LIST_BOX (list), child);
      child = next;
    }
}

const char *
hl_summary_view_get_top_title (HlSummaryView *self,
                               guint          cost)
{
  GtkWidget *list;

  g_return_val_if_fail (HL_IS_SUMMARY_VIEW (self), NULL);
  list = g_hash_table_lookup (self->tops, GUINT_TO_POINTER (cost + 1));
  return list ? gtk_label_get_label (GTK_LABEL (gtk_widget_get_prev_sibling (list))) : NULL;
}

const char *
hl_summary_view_get_top_row (HlSummaryView *self,
                             guint          cost,
                             guint          row,
                             const char   **value)
{
  GtkWidget *list;
  GtkListBoxRow *r;
  GtkWidget *label;

  g_return_val_if_fail (HL_IS_SUMMARY_VIEW (self), NULL);
  list = g_hash_table_lookup (self->tops, GUINT_TO_POINTER (cost + 1));
  r = list ? gtk_list_box_get_row_at_index (GTK_LIST_BOX (list), (int) row) : NULL;
  if (r == NULL || g_object_get_data (G_OBJECT (r), "hl-none") != NULL)
    return NULL;
  label = g_object_get_data (G_OBJECT (r), "hl-value");
  if (value != NULL)
    *value = label ? gtk_label_get_label (GTK_LABEL (label)) : NULL;
  return g_object_get_data (G_OBJECT (r), "hl-function");
}

void
hl_summary_view_activate_top (HlSummaryView *self,
                              guint          cost,
                              guint          row)
{
  GtkWidget *list;
  GtkListBoxRow *r;

  g_return_if_fail (HL_IS_SUMMARY_VIEW (self));
  list = g_hash_table_lookup (self->tops, GUINT_TO_POINTER (cost + 1));
  g_return_if_fail (list != NULL);
  r = gtk_list_box_get_row_at_index (GTK_LIST_BOX (list), (int) row);
  g_return_if_fail (r != NULL);
  g_signal_emit_by_name (list, "row-activated", r);
}

static void
on_thread_row_activated (GtkListBox    *list,
                         GtkListBoxRow *row,
                         HlSummaryView *self)
{
  /* the titles and the last "more" row are not threads */
  if (g_object_get_data (G_OBJECT (row), "hl-thread") != NULL)
    g_signal_emit (self, signals[THREAD_ACTIVATED], 0,
                   GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (row), "hl-tid")));
}

void
hl_summary_view_set_threads (HlSummaryView            *self,
                             const char               *not_freed_title,
                             guint                     n,
                             const HlSummaryThreadRow *rows,
                             const char               *more)
{
  g_return_if_fail (HL_IS_SUMMARY_VIEW (self));

  gtk_widget_set_visible (self->threads_box, n > 0);
  hl_summary_threads_set (self->threads_table, not_freed_title, n, rows, more);
}

GtkWidget *
hl_summary_view_get_threads (HlSummaryView *self)
{
  g_return_val_if_fail (HL_IS_SUMMARY_VIEW (self), NULL);
  if (!gtk_widget_get_visible (self->threads_box))
    return NULL;
  return self->threads_table;
}

void
hl_summary_view_clear (HlSummaryView *self)
{
  GtkWidget *child;

  g_return_if_fail (HL_IS_SUMMARY_VIEW (self));
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->stats_box))) != NULL)
    gtk_flow_box_remove (self->stats_box, child);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->top_box))) != NULL)
    gtk_flow_box_remove (self->top_box, child);
  g_hash_table_remove_all (self->stats);
  g_hash_table_remove_all (self->tops);
  hl_summary_view_set_threads (self, NULL, 0, NULL, NULL);
}

static void
hl_summary_view_dispose (GObject *object)
{
  HlSummaryView *self = HL_SUMMARY_VIEW (object);
  GtkWidget *child;

  g_clear_pointer (&self->stats, g_hash_table_unref);
  g_clear_pointer (&self->tops, g_hash_table_unref);
  gtk_widget_dispose_template (GTK_WIDGET (self), HL_TYPE_SUMMARY_VIEW);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (hl_summary_view_parent_class)->dispose (object);
}

static void
hl_summary_view_class_init (HlSummaryViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = hl_summary_view_dispose;

  /* A top call site was clicked: (cost index, function name). */
  signals[CALL_SITE_ACTIVATED] =
    g_signal_new ("call-site-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_UINT, G_TYPE_STRING);
  /* A thread's row was clicked: (thread id). */
  signals[THREAD_ACTIVATED] =
    g_signal_new ("thread-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/heaplens/Heaplens/ui/hl-summary-view.ui");
  gtk_widget_class_bind_template_child (widget_class, HlSummaryView, stats_box);
  gtk_widget_class_bind_template_child (widget_class, HlSummaryView, top_box);
  gtk_widget_class_bind_template_child (widget_class, HlSummaryView, saved_in_label);
  gtk_widget_class_bind_template_child (widget_class, HlSummaryView, memory_label);
  gtk_widget_class_bind_template_child (widget_class, HlSummaryView, threads_box);
  gtk_widget_class_bind_template_child (widget_class, HlSummaryView, threads_heading);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
hl_summary_view_init (HlSummaryView *self)
{
  self->stats = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->tops = g_hash_table_new (NULL, NULL);
  gtk_widget_init_template (GTK_WIDGET (self));
  self->threads_table = hl_summary_threads_new ();
  g_signal_connect (self->threads_table, "row-activated", G_CALLBACK (on_thread_row_activated), self);
  gtk_accessible_update_relation (GTK_ACCESSIBLE (self->threads_table),
                                  GTK_ACCESSIBLE_RELATION_LABELLED_BY, self->threads_heading, NULL, -1);
  gtk_box_append (GTK_BOX (self->threads_box), self->threads_table);
}
