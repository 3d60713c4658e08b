/* hl-filter-dialogs.h — the filter menu's dialogs: a function filter (a
 * substring or a regular expression) and a size range, as the CLI's
 * --filter function=, function~= and size= (the model's HlFilter checks
 * and applies them). Apply adds the filter to the view state. */
#pragma once

#include <adwaita.h>

#include "hl-view-state.h"

G_BEGIN_DECLS

/* The responses of both dialogs. */
#define HL_FILTER_DIALOG_APPLY  "apply"
#define HL_FILTER_DIALOG_CANCEL "cancel"

/* A new dialog over PARENT (presented by the caller). */
AdwMessageDialog *hl_filter_dialog_function_new (GtkWindow   *parent,
                                                 HlViewState *state);
AdwMessageDialog *hl_filter_dialog_size_new     (GtkWindow   *parent,
                                                 HlViewState *state);

/* The size range of the texts LOW and HIGH ("" for an open end), parsed
 * as `--filter size=LOW..HIGH`; FALSE and ERROR when they are not one. */
gboolean          hl_filter_dialog_parse_size   (const char  *low,
                                                 const char  *high,
                                                 guint64     *min_size,
                                                 guint64     *max_size,
                                                 GError     **error);

G_END_DECLS
