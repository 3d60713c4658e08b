/* hl-filter-bar.h — the active filters as removable chips. */
#pragma once

#include <gtk/gtk.h>

#include "hl-view-state.h"

G_BEGIN_DECLS

#define HL_TYPE_FILTER_BAR (hl_filter_bar_get_type ())
G_DECLARE_FINAL_TYPE (HlFilterBar, hl_filter_bar, HL, FILTER_BAR, GtkWidget)

GtkWidget *hl_filter_bar_new      (void);
/* Adds or relabels the chip ID. */
void       hl_filter_bar_set_chip (HlFilterBar *self,
                                   const char  *id,
                                   const char  *label);
void       hl_filter_bar_remove   (HlFilterBar *self,
                                   const char  *id);
void       hl_filter_bar_clear    (HlFilterBar *self);
/* Between begin and end, the chips set again stay (relabelled in place);
 * end removes the others. */
void       hl_filter_bar_begin_update (HlFilterBar *self);
void       hl_filter_bar_end_update   (HlFilterBar *self);
/* The chips of SESSION's filters (an update: chips set again stay, the
 * others go); none for a NULL SESSION. */
void       hl_filter_bar_show_session (HlFilterBar *self,
                                       HlViewState   *session);
guint      hl_filter_bar_get_n_chips (HlFilterBar *self);
/* The remove button of chip ID (for tests), or NULL. */
GtkWidget *hl_filter_bar_get_remove_button (HlFilterBar *self,
                                            const char  *id);

G_END_DECLS
