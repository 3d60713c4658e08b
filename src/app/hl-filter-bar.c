/* hl-filter-bar.c — the active filters as removable chips.
 *
 * The bar only shows; the session owns the filters. Pressing a chip's
 * remove button emits "chip-removed" with the chip's id and the session
 * drops that filter (which removes the chip in turn). */
#include "hl-config.h"

#include <glib/gi18n.h>

#include "hl-filter-bar.h"

struct _HlFilterBar
{
  GtkWidget parent_instance;

  /* Owned */
  GtkWidget  *box;
  GHashTable *chips;  /* id → chip widget (borrowed, children of box) */
  GHashTable *unset;  /* between begin and end update: ids not set again */
};

enum {
  CHIP_REMOVED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (HlFilterBar, hl_filter_bar, GTK_TYPE_WIDGET)

GtkWidget *
hl_filter_bar_new (void)
{
  return g_object_new (HL_TYPE_FILTER_BAR, NULL);
}

static void
on_remove_clicked (GtkButton   *button,
                   HlFilterBar *self)
{
  g_autofree char *id = g_strdup (g_object_get_data (G_OBJECT (button), "hl-chip-id"));

  g_signal_emit (self, signals[CHIP_REMOVED], 0, id);
}

static void
update_visibility (HlFilterBar *self)
{
  gtk_widget_set_visible (GTK_WIDGET (self), g_hash_table_size (self->chips) > 0);
}

void
hl_filter_bar_set_chip (HlFilterBar *self,
                        const char  *id,
                        const char  *label)
{
  GtkWidget *chip, *text, *button;
  g_autofree char *remove_label = NULL;

  g_return_if_fail (HL_IS_FILTER_BAR (self));
  g_return_if_fail (id != NULL && label != NULL);

  if (self->unset != NULL)
    g_hash_table_remove (self->unset, id);
  chip = g_hash_table_lookup (self->chips, id);
  if (chip != NULL)
    {
      GtkLabel *shown = GTK_LABEL (gtk_widget_get_first_child (chip));

      if (g_strcmp0 (gtk_label_get_label (shown), label) != 0)
        gtk_label_set_label (shown, label);
      return;
    }

  chip = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);
  gtk_widget_add_css_class (chip, "hl-chip");
  gtk_widget_set_valign (chip, GTK_ALIGN_CENTER);
  text = gtk_label_new (label);
  gtk_label_set_ellipsize (GTK_LABEL (text), PANGO_ELLIPSIZE_END);
  gtk_label_set_max_width_chars (GTK_LABEL (text), 40);
  gtk_box_append (GTK_BOX (chip), text);

  button = gtk_button_new_from_icon_name ("window-close-symbolic");
  gtk_widget_add_css_class (button, "flat");
  gtk_widget_add_css_class (button, "circular");
  /* Translators: accessible name of a chip's remove button, %s is the filter */
  remove_label = g_strdup_printf (_("Remove filter %s"), label);
  gtk_widget_set_tooltip_text (button, _("Remove This Filter"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, remove_label, -1);
  g_object_set_data_full (G_OBJECT (button), "hl-chip-id", g_strdup (id), g_free);
  g_signal_connect (button, "clicked", G_CALLBACK (on_remove_clicked), self);
  gtk_box_append (GTK_BOX (chip), button);

  gtk_box_append (GTK_BOX (self->box), chip);
  g_hash_table_insert (self->chips, g_strdup (id), chip);
  update_visibility (self);
}

void
hl_filter_bar_remove (HlFilterBar *self,
                      const char  *id)
{
  GtkWidget *chip;

  g_return_if_fail (HL_IS_FILTER_BAR (self));
  chip = g_hash_table_lookup (self->chips, id);
  if (chip == NULL)
    return;
  gtk_box_remove (GTK_BOX (self->box), chip);
  g_hash_table_remove (self->chips, id);
  update_visibility (self);
}

void
hl_filter_bar_clear (HlFilterBar *self)
{
  GHashTableIter iter;
  gpointer chip;

  g_return_if_fail (HL_IS_FILTER_BAR (self));
  g_hash_table_iter_init (&iter, self->chips);
  while (g_hash_table_iter_next (&iter, NULL, &chip))
    gtk_box_remove (GTK_BOX (self->box), chip);
  g_hash_table_remove_all (self->chips);
  update_visibility (self);
}

void
hl_filter_bar_begin_update (HlFilterBar *self)
{
  GHashTableIter iter;
  gpointer id;

  g_return_if_fail (HL_IS_FILTER_BAR (self));
  g_clear_pointer (&self->unset, g_hash_table_unref);
  self->unset = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_hash_table_iter_init (&iter, self->chips);
  while (g_hash_table_iter_next (&iter, &id, NULL))
    g_hash_table_add (self->unset, g_strdup (id));
}

void
hl_filter_bar_end_update (HlFilterBar *self)
{
  g_autoptr(GHashTable) unset = NULL;
  GHashTableIter iter;
  gpointer id;

  g_return_if_fail (HL_IS_FILTER_BAR (self));
  unset = g_steal_pointer (&self->unset);
  if (unset == NULL)
    return;
  g_hash_table_iter_init (&iter, unset);
  while (g_hash_table_iter_next (&iter, &id, NULL))
    hl_filter_bar_remove (self, id);
}

static void
set_session_chip (const char   *id,
                  const char   *label,
                  HlFilterKind  kind,
                  gpointer      user_data)
{
  hl_filter_bar_set_chip (user_data, id, label);
}

void
hl_filter_bar_show_session (HlFilterBar *self,
                            HlViewState   *session)
{
  g_return_if_fail (HL_IS_FILTER_BAR (self));
  hl_filter_bar_begin_update (self);
  if (session != NULL)
    hl_view_state_foreach_filter (session, set_session_chip, self);
  hl_filter_bar_end_update (self);
}

guint
hl_filter_bar_get_n_chips (HlFilterBar *self)
{
  g_return_val_if_fail (HL_IS_FILTER_BAR (self), 0);
  return g_hash_table_size (self->chips);
}

GtkWidget *
hl_filter_bar_get_remove_button (HlFilterBar *self,
                                 const char  *id)
{
  GtkWidget *chip;

  g_return_val_if_fail (HL_IS_FILTER_BAR (self), NULL);
  chip = g_hash_table_lookup (self->chips, id);
  return chip ? gtk_widget_get_last_child (chip) : NULL;
}

static void
hl_filter_bar_dispose (GObject *object)
{
  HlFilterBar *self = HL_FILTER_BAR (object);

  g_clear_pointer (&self->box, gtk_widget_unparent);
  g_clear_pointer (&self->chips, g_hash_table_unref);
  g_clear_pointer (&self->unset, g_hash_table_unref);
  G_OBJECT_CLASS (hl_filter_bar_parent_class)->dispose (object);
}

static void
hl_filter_bar_class_init (HlFilterBarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = hl_filter_bar_dispose;

  signals[CHIP_REMOVED] =
    g_signal_new ("chip-removed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "filterbar");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_TOOLBAR);
}

static void
hl_filter_bar_init (HlFilterBar *self)
{
  GtkWidget *label;

  self->chips = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_widget_set_margin_start (self->box, 6);
  gtk_widget_set_margin_end (self->box, 6);
  gtk_widget_set_margin_top (self->box, 4);
  gtk_widget_set_margin_bottom (self->box, 4);
  label = gtk_label_new (_("Filters:"));
  gtk_widget_add_css_class (label, "dim-label");
  gtk_box_append (GTK_BOX (self->box), label);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Active filters"), -1);
  update_visibility (self);
}
