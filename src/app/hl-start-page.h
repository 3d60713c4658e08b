/* hl-start-page.h — what an empty window shows: open, record, attach, recent traces. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define HL_TYPE_START_PAGE (hl_start_page_get_type ())
G_DECLARE_FINAL_TYPE (HlStartPage, hl_start_page, HL, START_PAGE, GtkWidget)

/* Number of recent traces listed (for tests). */
guint hl_start_page_get_n_recent (HlStartPage *self);

G_END_DECLS
