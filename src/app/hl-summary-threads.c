/* hl-summary-threads.c — the summary's table of threads
 * (hl-summary-threads.h). */
#include "hl-config.h"

#include <glib/gi18n.h>

#include "hl-summary-threads.h"

#define N_COLUMNS 5

/* The cells of a row, in column order, are its box's children; a size
 * group per column keeps the titles over their numbers. */
typedef struct
{
  GtkSizeGroup *groups[N_COLUMNS];
} Table;

static void
table_free (gpointer p)
{
  Table *t = p;

  for (guint c = 0; c < N_COLUMNS; c++)
    g_clear_object (&t->groups[c]);
  g_free (t);
}

static GtkWidget *
cell_new (Table   *t,
          guint    column,
          gboolean title)
{
  GtkWidget *label = gtk_label_new (NULL);

  if (column == 0)
    {
      gtk_widget_set_hexpand (label, TRUE);
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
      gtk_label_set_width_chars (GTK_LABEL (label), 12);
    }
  else
    {
      gtk_label_set_xalign (GTK_LABEL (label), 1);
      /* "1023.99 MiB", "12,345,678" */
      gtk_label_set_width_chars (GTK_LABEL (label), 11);
      gtk_widget_add_css_class (label, "numeric");
    }
  if (title)
    {
      gtk_widget_add_css_class (label, "caption-heading");
      gtk_widget_add_css_class (label, "dim-label");
    }
  gtk_size_group_add_widget (t->groups[column], label);
  return label;
}

static GtkWidget *
row_new (Table   *t,
         gboolean title)
{
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 18);

  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);
  gtk_widget_set_margin_top (box, title ? 8 : 10);
  gtk_widget_set_margin_bottom (box, title ? 6 : 10);
  for (guint c = 0; c < N_COLUMNS; c++)
    gtk_box_append (GTK_BOX (box), cell_new (t, c, title));
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), !title);
  return row;
}

static GtkLabel *
row_cell (GtkWidget *row,
          guint      column)
{
  GtkWidget *cell = gtk_widget_get_first_child (gtk_list_box_row_get_child (GTK_LIST_BOX_ROW (row)));

  for (guint c = 0; c < column && cell != NULL; c++)
    cell = gtk_widget_get_next_sibling (cell);
  return GTK_LABEL (cell);
}

/* unchanged text is not set again: no new layout */
static void
set_text (GtkLabel   *label,
          const char *text)
{
  if (g_strcmp0 (gtk_label_get_label (label), text != NULL ? text : "") != 0)
    gtk_label_set_label (label, text != NULL ? text : "");
}

GtkWidget *
hl_summary_threads_new (void)
{
  GtkWidget *list = gtk_list_box_new ();
  Table *t = g_new0 (Table, 1);
  GtkWidget *titles;

  for (guint c = 0; c < N_COLUMNS; c++)
    t->groups[c] = gtk_size_group_new (GTK_SIZE_GROUP_HORIZONTAL);
  g_object_set_data_full (G_OBJECT (list), "hl-table", t, table_free);
  gtk_widget_add_css_class (list, "boxed-list");
  gtk_list_box_set_selection_mode (GTK_LIST_BOX (list), GTK_SELECTION_NONE);

  titles = row_new (t, TRUE);
  /* Translators: the summary's table of threads; "At Peak" is a thread's
   * live bytes at the heap's peak */
  set_text (row_cell (titles, 0), _("Thread"));
  set_text (row_cell (titles, 1), _("Allocations"));
  set_text (row_cell (titles, 2), _("Allocated"));
  set_text (row_cell (titles, 3), _("At Peak"));
  gtk_list_box_append (GTK_LIST_BOX (list), titles);
  return list;
}

void
hl_summary_threads_set (GtkWidget                *table,
                        const char               *not_freed_title,
                        guint                     n,
                        const HlSummaryThreadRow *rows,
                        const char               *more)
{
  Table *t = g_object_get_data (G_OBJECT (table), "hl-table");
  GtkWidget *titles = gtk_widget_get_first_child (table);
  GtkWidget *child = gtk_widget_get_next_sibling (titles);

  g_return_if_fail (t != NULL);

  set_text (row_cell (titles, 4), not_freed_title);
  for (guint i = 0; i < n; i++)
    {
      GtkWidget *row = child;
      const char *cells[N_COLUMNS] = {
        rows[i].thread, rows[i].calls, rows[i].allocated, rows[i].at_peak, rows[i].not_freed,
      };

      if (row == NULL || g_object_get_data (G_OBJECT (row), "hl-more") != NULL)
        {
          row = row_new (t, FALSE);
          if (child != NULL)
            gtk_list_box_insert (GTK_LIST_BOX (table), row, gtk_list_box_row_get_index (GTK_LIST_BOX_ROW (child)));
          else
            gtk_list_box_append (GTK_LIST_BOX (table), row);
        }
      else
        child = gtk_widget_get_next_sibling (child);
      for (guint c = 0; c < N_COLUMNS; c++)
        set_text (row_cell (row, c), cells[c]);
      g_object_set_data (G_OBJECT (row), "hl-tid", GUINT_TO_POINTER (rows[i].tid));
      if (g_strcmp0 (g_object_get_data (G_OBJECT (row), "hl-thread"), rows[i].thread) != 0)
        {
          /* Translators: a row of the summary's threads, e.g. "Show only the allocations of worker (4243)" */
          g_autofree char *tooltip = g_strdup_printf (_("Show only the allocations of %s"), rows[i].thread);
          gtk_widget_set_tooltip_text (row, tooltip);
          g_object_set_data_full (G_OBJECT (row), "hl-thread", g_strdup (rows[i].thread), g_free);
        }
    }
  /* what is left: old rows and the old "more" row */
  while (child != NULL)
    {
      GtkWidget *next = gtk_widget_get_next_sibling (child);

      gtk_list_box_remove (GTK_LIST_BOX (table), child);
      child = next;
    }
  if (more != NULL)
    {
      GtkWidget *row = gtk_list_box_row_new ();
      GtkWidget *label = gtk_label_new (more);

      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_widget_add_css_class (label, "dim-label");
      gtk_widget_set_margin_start (label, 12);
      gtk_widget_set_margin_end (label, 12);
      gtk_widget_set_margin_top (label, 8);
      gtk_widget_set_margin_bottom (label, 8);
      gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), label);
      gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);
      g_object_set_data (G_OBJECT (row), "hl-more", GINT_TO_POINTER (1));
      gtk_list_box_append (GTK_LIST_BOX (table), row);
    }
}

const char *
hl_summary_threads_get_cell (GtkWidget *table,
                             int        row,
                             guint      column,
                             guint32   *tid)
{
  GtkListBoxRow *r;

  g_return_val_if_fail (column < N_COLUMNS, NULL);
  r = gtk_list_box_get_row_at_index (GTK_LIST_BOX (table), row + 1);
  if (r == NULL || g_object_get_data (G_OBJECT (r), "hl-more") != NULL)
    return NULL;
  if (tid != NULL)
    *tid = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (r), "hl-tid"));
  return gtk_label_get_label (row_cell (GTK_WIDGET (r), column));
}

const char *
hl_summary_threads_get_more (GtkWidget *table)
{
  GtkWidget *last = gtk_widget_get_last_child (table);

  if (last == NULL || g_object_get_data (G_OBJECT (last), "hl-more") == NULL)
    return NULL;
  return gtk_label_get_label (GTK_LABEL (gtk_list_box_row_get_child (GTK_LIST_BOX_ROW (last))));
}
