/* hl-allocations-view.c — leaks, largest allocations, sizes. */
#include "hl-config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "hl-allocations-view.h"
#include "hl-timeline-draw.h"
#include "hl-units.h"

struct _HlAllocationsView
{
  GtkWidget parent_instance;

  /* Template widgets */
  GtkStack      *stack;
  GtkStack      *leaks_stack;
  GtkColumnView *leaks_view;
  AdwStatusPage *leaks_none;
  GtkSpinner    *leaks_spinner;
  GtkColumnView *largest_view;
  GtkColumnView *lifetimes_view;
  GtkStack      *lifetimes_stack;
  HlHistogram   *lifetime_histogram;
  GtkDropDown   *histogram_mode;
  GtkToggleButton *histogram_by_site;
  GtkLabel      *histogram_legend;
  GStrv          part_labels;     /* the histogram's parts, by call site */
  HlHistogram   *histogram;
  GtkWidget     *stack_pane;
  GtkLabel      *stack_label;

  /* Owned */
  GtkSingleSelection *leaks_selection;
  GtkSingleSelection *largest_selection;
  GtkSingleSelection *lifetimes_selection;
  GtkColumnViewColumn *leaks_size_column;
  GtkColumnViewColumn *leaks_kind_column;
  gboolean             leaks_by_kind;   /* the rows have the leak scan's kinds */
};

enum {
  SIZE_RANGE_CHOSEN,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (HlAllocationsView, hl_allocations_view, GTK_TYPE_WIDGET)

typedef enum
{
  COL_FUNCTION,
  COL_MODULE,
  COL_COUNT,
  COL_SIZE,
  COL_TIME,
  COL_THREAD,
  COL_LIFETIME,
  COL_VERDICT,
  COL_KIND,
} Column;

static void
setup_label (GtkSignalListItemFactory *factory,
             GtkListItem              *item,
             gpointer                  column)
{
  GtkWidget *label = gtk_label_new (NULL);
  Column c = GPOINTER_TO_UINT (column);
  gboolean numeric = c == COL_COUNT || c == COL_SIZE || c == COL_TIME || c == COL_LIFETIME;

  gtk_label_set_xalign (GTK_LABEL (label), numeric ? 1.0 : 0.0);
  gtk_label_set_ellipsize (GTK_LABEL (label), numeric ? PANGO_ELLIPSIZE_NONE : PANGO_ELLIPSIZE_END);
  if (numeric)
    gtk_widget_add_css_class (label, "numeric");
  if (c == COL_MODULE)
    gtk_widget_add_css_class (label, "dim-label");
  gtk_list_item_set_child (item, label);
}

static void
bind_label (GtkSignalListItemFactory *factory,
            GtkListItem              *item,
            gpointer                  column)
{
  HlAllocItem *a = gtk_list_item_get_item (item);
  GtkLabel *label = GTK_LABEL (gtk_list_item_get_child (item));
  g_autofree char *text = NULL;

  switch ((Column) GPOINTER_TO_UINT (column))
    {
    case COL_FUNCTION:
      if (hl_alloc_item_get_caller (a) != NULL)
        {
          /* Translators: a function and, dimmed, the function that called it */
          text = g_markup_printf_escaped (_("%s <span alpha=\"55%%\">from %s</span>"),
                                          hl_alloc_item_get_function (a), hl_alloc_item_get_caller (a));
          gtk_label_set_markup (label, text);
        }
      else
        gtk_label_set_text (label, hl_alloc_item_get_function (a));
      return;
    case COL_MODULE:
      gtk_label_set_label (label, hl_alloc_item_get_module (a));
      return;
    case COL_COUNT:
      text = hl_format_count (hl_alloc_item_get_count (a));
      break;
    case COL_SIZE:
      text = hl_format_size (hl_alloc_item_get_size_bytes (a));
      break;
    case COL_TIME:
      text = hl_format_time (hl_alloc_item_get_time_ns (a));
      break;
    case COL_THREAD:
      text = g_strdup_printf ("%u", hl_alloc_item_get_tid (a));
      break;
    case COL_LIFETIME:
      gtk_label_set_label (label, hl_alloc_item_get_lifetime_text (a) ? hl_alloc_item_get_lifetime_text (a) : "");
      return;
    case COL_VERDICT:
      gtk_label_set_label (label, hl_alloc_item_get_verdict (a) ? hl_alloc_item_get_verdict (a) : "");
      return;
    case COL_KIND:
      gtk_label_set_label (label, hl_alloc_item_get_kind_text (a) ? hl_alloc_item_get_kind_text (a) : "");
      return;
    default:
      g_assert_not_reached ();
    }
  gtk_label_set_label (label, text);
}

static int
compare_column (gconstpointer a,
                gconstpointer b,
                gpointer      column)
{
  guint64 va = 0, vb = 0;

  switch ((Column) GPOINTER_TO_UINT (column))
    {
    case COL_COUNT:
      va = hl_alloc_item_get_count ((HlAllocItem *) a);
      vb = hl_alloc_item_get_count ((HlAllocItem *) b);
      break;
    case COL_SIZE:
      va = hl_alloc_item_get_size_bytes ((HlAllocItem *) a);
      vb = hl_alloc_item_get_size_bytes ((HlAllocItem *) b);
      break;
    case COL_TIME:
      va = hl_alloc_item_get_time_ns ((HlAllocItem *) a);
      vb = hl_alloc_item_get_time_ns ((HlAllocItem *) b);
      break;
    case COL_THREAD:
      va = hl_alloc_item_get_tid ((HlAllocItem *) a);
      vb = hl_alloc_item_get_tid ((HlAllocItem *) b);
      break;
    case COL_LIFETIME:
      va = hl_alloc_item_get_lifetime_ns ((HlAllocItem *) a);
      vb = hl_alloc_item_get_lifetime_ns ((HlAllocItem *) b);
      break;
    case COL_KIND:
      /* the surest kind the largest */
      va = (guint64) (hl_alloc_item_get_kind ((HlAllocItem *) a) + 1);
      vb = (guint64) (hl_alloc_item_get_kind ((HlAllocItem *) b) + 1);
      break;
    case COL_VERDICT:
      return g_strcmp0 (hl_alloc_item_get_verdict ((HlAllocItem *) a), hl_alloc_item_get_verdict ((HlAllocItem *) b));
    case COL_FUNCTION:
      return g_strcmp0 (hl_alloc_item_get_function ((HlAllocItem *) a), hl_alloc_item_get_function ((HlAllocItem *) b));
    case COL_MODULE:
      return g_strcmp0 (hl_alloc_item_get_module ((HlAllocItem *) a), hl_alloc_item_get_module ((HlAllocItem *) b));
    default:
      break;
    }
  return va < vb ? -1 : va > vb ? 1 : 0;
}

static GtkColumnViewColumn *
add_column (GtkColumnView *view,
            const char    *title,
            Column         c,
            gboolean       expand)
{
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
  GtkColumnViewColumn *column;
  g_autoptr(GtkSorter) sorter = GTK_SORTER (gtk_custom_sorter_new (compare_column, GUINT_TO_POINTER (c), NULL));

  g_signal_connect (factory, "setup", G_CALLBACK (setup_label), GUINT_TO_POINTER (c));
  g_signal_connect (factory, "bind", G_CALLBACK (bind_label), GUINT_TO_POINTER (c));
  column = gtk_column_view_column_new (title, factory);
  gtk_column_view_column_set_sorter (column, sorter);
  gtk_column_view_column_set_resizable (column, TRUE);
  gtk_column_view_column_set_expand (column, expand);
  gtk_column_view_append_column (view, column);
  return column;
}

static void
show_stack (HlAllocationsView *self,
            HlAllocItem       *item)
{
  const char * const *stack;
  GString *text;

  if (item == NULL)
    {
      gtk_label_set_label (self->stack_label, _("Select a row to see where it was allocated."));
      return;
    }
  stack = hl_alloc_item_get_stack (item);
  text = g_string_new (NULL);
  for (guint i = 0; stack[i] != NULL; i++)
    g_string_append_printf (text, "%s#%u  %s", i ? "\n" : "", i, stack[i]);
  if (text->len == 0)
    g_string_append (text, _("The stack was not recorded."));
  gtk_label_set_label (self->stack_label, text->str);
  g_string_free (text, TRUE);
}

static void
on_leak_selected (HlAllocationsView *self)
{
  show_stack (self, gtk_single_selection_get_selected_item (self->leaks_selection));
}

static void
on_largest_selected (HlAllocationsView *self)
{
  show_stack (self, gtk_single_selection_get_selected_item (self->largest_selection));
}

static void
on_lifetime_selected (HlAllocationsView *self)
{
  show_stack (self, gtk_single_selection_get_selected_item (self->lifetimes_selection));
}

static GtkSingleSelection *
make_selection (GtkColumnView *view,
                GListModel    *items)
{
  GtkSortListModel *sorted = gtk_sort_list_model_new (items, g_object_ref (gtk_column_view_get_sorter (view)));
  GtkSingleSelection *selection = gtk_single_selection_new (G_LIST_MODEL (sorted));

  gtk_single_selection_set_autoselect (selection, FALSE);
  gtk_single_selection_set_can_unselect (selection, TRUE);
  gtk_single_selection_set_selected (selection, GTK_INVALID_LIST_POSITION);
  gtk_column_view_set_model (view, GTK_SELECTION_MODEL (selection));
  return selection;
}

void
hl_allocations_view_set_leaks (HlAllocationsView *self,
                               GListModel        *leaks)
{
  g_return_if_fail (HL_IS_ALLOCATIONS_VIEW (self));

  if (self->leaks_selection != NULL)
    g_signal_handlers_disconnect_by_data (self->leaks_selection, self);
  g_clear_object (&self->leaks_selection);
  self->leaks_selection = make_selection (self->leaks_view,
                                          leaks ? g_object_ref (leaks) : G_LIST_MODEL (g_list_store_new (HL_TYPE_ALLOC_ITEM)));
  g_signal_connect_swapped (self->leaks_selection, "notify::selected", G_CALLBACK (on_leak_selected), self);
  /* the Kind column when the rows have the leak scan's kinds, sorted
   * surest first (then by bytes) when they first do */
  {
    g_autoptr(HlAllocItem) first = leaks != NULL ? g_list_model_get_item (leaks, 0) : NULL;
    gboolean by_kind = first != NULL && hl_alloc_item_get_kind (first) >= 0;

    gtk_column_view_column_set_visible (self->leaks_kind_column, by_kind);
    if (by_kind != self->leaks_by_kind && leaks != NULL)
      {
        gtk_column_view_sort_by_column (self->leaks_view, self->leaks_size_column, GTK_SORT_DESCENDING);
        if (by_kind)
          gtk_column_view_sort_by_column (self->leaks_view, self->leaks_kind_column, GTK_SORT_DESCENDING);
        self->leaks_by_kind = by_kind;
      }
  }
  /* No list yet is not an empty list: "No Leaks" before the model has
   * answered would be a lie, so it waits on a spinner. */
  if (leaks == NULL)
    gtk_stack_set_visible_child_name (self->leaks_stack, "loading");
  else
    gtk_stack_set_visible_child_name (self->leaks_stack, g_list_model_get_n_items (leaks) > 0 ? "list" : "none");
  gtk_spinner_set_spinning (self->leaks_spinner, leaks == NULL);
  show_stack (self, NULL);
}

void
hl_allocations_view_set_leak_titles (HlAllocationsView *self,
                                     const char        *tab,
                                     const char        *column,
                                     const char        *none)
{
  GtkStackPage *page;

  g_return_if_fail (HL_IS_ALLOCATIONS_VIEW (self));

  page = gtk_stack_get_page (self->stack, gtk_stack_get_child_by_name (self->stack, "leaks"));
  gtk_stack_page_set_title (page, tab);
  gtk_column_view_column_set_title (self->leaks_size_column, column);
  adw_status_page_set_title (self->leaks_none, none);
}

const char *
hl_allocations_view_get_leaks_title (HlAllocationsView *self)
{
  g_return_val_if_fail (HL_IS_ALLOCATIONS_VIEW (self), NULL);

  return gtk_stack_page_get_title (gtk_stack_get_page (self->stack,
                                                       gtk_stack_get_child_by_name (self->stack, "leaks")));
}

void
hl_allocations_view_set_largest (HlAllocationsView *self,
                                 GListModel        *largest)
{
  g_return_if_fail (HL_IS_ALLOCATIONS_VIEW (self));

  if (self->largest_selection != NULL)
    g_signal_handlers_disconnect_by_data (self->largest_selection, self);
  g_clear_object (&self->largest_selection);
  self->largest_selection = make_selection (self->largest_view,
                                            largest ? g_object_ref (largest) : G_LIST_MODEL (g_list_store_new (HL_TYPE_ALLOC_ITEM)));
  g_signal_connect_swapped (self->largest_selection, "notify::selected", G_CALLBACK (on_largest_selected), self);
}

void
hl_allocations_view_set_lifetimes (HlAllocationsView       *self,
                                   GListModel              *sites,
                                   guint                    n_buckets,
                                   const HlHistogramBucket *buckets)
{
  g_return_if_fail (HL_IS_ALLOCATIONS_VIEW (self));

  if (self->lifetimes_selection != NULL)
    g_signal_handlers_disconnect_by_data (self->lifetimes_selection, self);
  g_clear_object (&self->lifetimes_selection);
  self->lifetimes_selection = make_selection (self->lifetimes_view,
                                              sites ? g_object_ref (sites) : G_LIST_MODEL (g_list_store_new (HL_TYPE_ALLOC_ITEM)));
  g_signal_connect_swapped (self->lifetimes_selection, "notify::selected", G_CALLBACK (on_lifetime_selected), self);
  hl_histogram_set_buckets (self->lifetime_histogram, n_buckets, buckets);
  gtk_stack_set_visible_child_name (self->lifetimes_stack, n_buckets > 0 ? "chart" : "none");
}

GListModel *
hl_allocations_view_get_lifetimes (HlAllocationsView *self)
{
  g_return_val_if_fail (HL_IS_ALLOCATIONS_VIEW (self), NULL);
  return G_LIST_MODEL (self->lifetimes_selection);
}

/* By Call Site on: the histogram's bars split into their parts; off, or
 * no parts: whole bars. */
static void
show_parts (HlAllocationsView *self)
{
  gboolean on = gtk_toggle_button_get_active (self->histogram_by_site);
  guint n = self->part_labels != NULL ? g_strv_length (self->part_labels) : 0;

  gtk_widget_set_sensitive (GTK_WIDGET (self->histogram_by_site), n > 0);
  hl_histogram_set_parts (self->histogram, on ? n : 0, (const char * const *) self->part_labels);
  gtk_widget_set_visible (GTK_WIDGET (self->histogram_legend), on && n > 0);
  if (!on || n == 0)
    return;
  /* each part's colour and name, as the timeline's By Call Site legend */
  gboolean dark = adw_style_manager_get_dark (adw_style_manager_get_default ());
  GString *markup = g_string_new (NULL);
  for (guint k = 0; k < n; k++)
    {
      double rgb[3];
      g_autofree char *shown = hl_format_shortened (self->part_labels[k], 36);
      g_autofree char *escaped = g_markup_escape_text (shown, -1);

      if (k + 1 == n)
        hl_timeline_heap_color (dark, rgb);
      else
        hl_timeline_site_color (dark, k, rgb);
      g_string_append_printf (markup, "<span foreground=\"#%02x%02x%02x\"%s>■</span> %s   ", (int) (rgb[0] * 255),
                              (int) (rgb[1] * 255), (int) (rgb[2] * 255), k + 1 == n ? " alpha=\"55%\"" : "", escaped);
    }
  /* Translators: after the legend of the histogram split by call site */
  g_string_append (markup, _("(each bar split by its call sites' shares)"));
  gtk_label_set_markup (self->histogram_legend, markup->str);
  g_string_free (markup, TRUE);
}

void
hl_allocations_view_set_histogram_parts (HlAllocationsView  *self,
                                         const char * const *labels)
{
  g_return_if_fail (HL_IS_ALLOCATIONS_VIEW (self));
  g_strfreev (self->part_labels);
  self->part_labels = g_strdupv ((char **) labels);
  show_parts (self);
}

static void
on_histogram_by_site (HlAllocationsView *self)
{
  show_parts (self);
}

void
hl_allocations_view_set_histogram (HlAllocationsView       *self,
                                   guint                    n_buckets,
                                   const HlHistogramBucket *buckets)
{
  g_return_if_fail (HL_IS_ALLOCATIONS_VIEW (self));
  hl_histogram_set_buckets (self->histogram, n_buckets, buckets);
}

GListModel *
hl_allocations_view_get_leaks (HlAllocationsView *self)
{
  g_return_val_if_fail (HL_IS_ALLOCATIONS_VIEW (self), NULL);
  return G_LIST_MODEL (self->leaks_selection);
}

const char *
hl_allocations_view_select_leak (HlAllocationsView *self,
                                 guint              i)
{
  g_return_val_if_fail (HL_IS_ALLOCATIONS_VIEW (self), NULL);
  gtk_single_selection_set_selected (self->leaks_selection, i);
  return gtk_label_get_label (self->stack_label);
}

static void
on_histogram_mode (HlAllocationsView *self)
{
  hl_histogram_set_by_bytes (self->histogram, gtk_drop_down_get_selected (self->histogram_mode) == 1);
}

static void
on_size_range_activated (HlAllocationsView *self,
                         guint64            min_size,
                         guint64            max_size)
{
  g_signal_emit (self, signals[SIZE_RANGE_CHOSEN], 0, min_size, max_size);
}

HlHistogram *
hl_allocations_view_get_histogram (HlAllocationsView *self)
{
  g_return_val_if_fail (HL_IS_ALLOCATIONS_VIEW (self), NULL);
  return self->histogram;
}

static void
on_page_changed (HlAllocationsView *self)
{
  /* The histogram has no rows, so no stack to show. */
  gtk_widget_set_visible (self->stack_pane,
                          g_strcmp0 (gtk_stack_get_visible_child_name (self->stack), "sizes") != 0);
}

static void
hl_allocations_view_dispose (GObject *object)
{
  HlAllocationsView *self = HL_ALLOCATIONS_VIEW (object);
  GtkWidget *child;

  if (self->leaks_selection != NULL)
    g_signal_handlers_disconnect_by_data (self->leaks_selection, self);
  if (self->largest_selection != NULL)
    g_signal_handlers_disconnect_by_data (self->largest_selection, self);
  if (self->lifetimes_selection != NULL)
    g_signal_handlers_disconnect_by_data (self->lifetimes_selection, self);
  g_clear_object (&self->leaks_selection);
  g_clear_object (&self->largest_selection);
  g_clear_object (&self->lifetimes_selection);
  g_clear_pointer (&self->part_labels, g_strfreev);
  gtk_widget_dispose_template (GTK_WIDGET (self), HL_TYPE_ALLOCATIONS_VIEW);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (hl_allocations_view_parent_class)->dispose (object);
}

static void
hl_allocations_view_class_init (HlAllocationsViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = hl_allocations_view_dispose;

  g_type_ensure (HL_TYPE_HISTOGRAM);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/heaplens/Heaplens/ui/hl-allocations-view.ui");
  gtk_widget_class_bind_template_child (widget_class, HlAllocationsView, stack);
  gtk_widget_class_bind_template_child (widget_class, HlAllocationsView, leaks_stack);
  gtk_widget_class_bind_template_child (widget_class, HlAllocationsView, leaks_spinner);
  gtk_widget_class_bind_template_child (widget_class, HlAllocationsView, leaks_view);
  gtk_widget_class_bind_template_child (widget_class, HlAllocationsView, leaks_none);
  gtk_widget_class_bind_template_child (widget_class, HlAllocationsView, largest_view);
  gtk_widget_class_bind_template_child (widget_class, HlAllocationsView, lifetimes_view);
  gtk_widget_class_bind_template_child (widget_class, HlAllocationsView, lifetimes_stack);
  gtk_widget_class_bind_template_child (widget_class, HlAllocationsView, lifetime_histogram);
  gtk_widget_class_bind_template_child (widget_class, HlAllocationsView, histogram_mode);
  gtk_widget_class_bind_template_child (widget_class, HlAllocationsView, histogram_by_site);
  gtk_widget_class_bind_template_child (widget_class, HlAllocationsView, histogram_legend);
  gtk_widget_class_bind_template_child (widget_class, HlAllocationsView, histogram);
  gtk_widget_class_bind_template_child (widget_class, HlAllocationsView, stack_pane);
  gtk_widget_class_bind_template_child (widget_class, HlAllocationsView, stack_label);
  /* A bar of the size histogram was clicked: the window filters to its
   * sizes, MIN to MAX bytes, both included. */
  signals[SIZE_RANGE_CHOSEN] =
    g_signal_new ("size-range-chosen", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_UINT64, G_TYPE_UINT64);
  gtk_widget_class_bind_template_callback (widget_class, on_histogram_mode);
  gtk_widget_class_bind_template_callback (widget_class, on_histogram_by_site);
  gtk_widget_class_bind_template_callback (widget_class, on_size_range_activated);
  gtk_widget_class_bind_template_callback (widget_class, on_page_changed);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
hl_allocations_view_init (HlAllocationsView *self)
{
  GtkColumnViewColumn *column;

  gtk_widget_init_template (GTK_WIDGET (self));

  g_object_unref (add_column (self->leaks_view, _("Allocated In"), COL_FUNCTION, TRUE));
  g_object_unref (add_column (self->leaks_view, _("Module"), COL_MODULE, FALSE));
  /* Translators: column of the Leaks list: Definitely lost, Still reachable… (the leak scan at exit) */
  column = add_column (self->leaks_view, C_("column", "Kind"), COL_KIND, FALSE);
  gtk_column_view_column_set_visible (column, FALSE);
  self->leaks_kind_column = column;  /* the view's columns keep it */
  g_object_unref (column);
  g_object_unref (add_column (self->leaks_view, _("Blocks"), COL_COUNT, FALSE));
  column = add_column (self->leaks_view, _("Leaked"), COL_SIZE, FALSE);
  gtk_column_view_sort_by_column (self->leaks_view, column, GTK_SORT_DESCENDING);
  self->leaks_size_column = column;  /* the view's columns keep it */
  g_object_unref (column);

  column = add_column (self->largest_view, _("Size"), COL_SIZE, FALSE);
  gtk_column_view_sort_by_column (self->largest_view, column, GTK_SORT_DESCENDING);
  g_object_unref (column);
  g_object_unref (add_column (self->largest_view, _("Allocated In"), COL_FUNCTION, TRUE));
  g_object_unref (add_column (self->largest_view, _("Module"), COL_MODULE, FALSE));
  /* Translators: column of Largest Allocations: how many of that size from that call site */
  g_object_unref (add_column (self->largest_view, C_("column", "Count"), COL_COUNT, FALSE));
  g_object_unref (add_column (self->largest_view, _("Time"), COL_TIME, FALSE));
  g_object_unref (add_column (self->largest_view, _("Thread"), COL_THREAD, FALSE));
  /* Translators: how long a block lived, from its allocation to its free */
  g_object_unref (add_column (self->largest_view, _("Lifetime"), COL_LIFETIME, FALSE));

  g_object_unref (add_column (self->lifetimes_view, _("Allocated In"), COL_FUNCTION, TRUE));
  g_object_unref (add_column (self->lifetimes_view, _("Module"), COL_MODULE, FALSE));
  column = add_column (self->lifetimes_view, _("Blocks"), COL_COUNT, FALSE);
  gtk_column_view_sort_by_column (self->lifetimes_view, column, GTK_SORT_DESCENDING);
  g_object_unref (column);
  g_object_unref (add_column (self->lifetimes_view, _("Bytes"), COL_SIZE, FALSE));
  /* Translators: the lifetime bucket of a call site's median block */
  g_object_unref (add_column (self->lifetimes_view, _("Median Lifetime"), COL_LIFETIME, FALSE));
  /* Translators: Short-lived or Growing */
  g_object_unref (add_column (self->lifetimes_view, _("Verdict"), COL_VERDICT, FALSE));

  hl_allocations_view_set_leaks (self, NULL);
  hl_allocations_view_set_largest (self, NULL);
  hl_allocations_view_set_lifetimes (self, NULL, 0, NULL);
}
