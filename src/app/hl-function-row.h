/* hl-function-row.h — one function of the Callers/Callees lists: the flat
 * list (its self and total costs) or a caller or callee of the chosen one
 * (the costs of the stacks through that edge). */
#pragma once

#include <gio/gio.h>

#include "hl-cost.h"

G_BEGIN_DECLS

#define HL_TYPE_FUNCTION_ROW (hl_function_row_get_type ())
G_DECLARE_FINAL_TYPE (HlFunctionRow, hl_function_row, HL, FUNCTION_ROW, GObject)

/* FRAME belongs to ANALYSIS' recording, which the row keeps alive. SELF
 * NULL: a caller or callee (no self cost of its own). */
HlFunctionRow *hl_function_row_new        (HlAnalysis    *analysis,
                                           const HlFrame *frame,
                                           const HlCosts *total,
                                           const HlCosts *self);

/* The "name" property: the function's name (GtkStringFilter's key). */
const char    *hl_function_row_get_name   (HlFunctionRow *self);
const HlFrame *hl_function_row_get_frame  (HlFunctionRow *self);
gboolean       hl_function_row_has_self   (HlFunctionRow *self);
guint64        hl_function_row_get_total  (HlFunctionRow *self,
                                           HlCostKind     cost);
guint64        hl_function_row_get_self   (HlFunctionRow *self,
                                           HlCostKind     cost);
/* "file.c:42 · module", the module alone without line info. */
char          *hl_function_row_format_location (HlFunctionRow *self);
/* "function — file:line (module)", for tooltips. */
char          *hl_function_row_describe   (HlFunctionRow *self);

G_END_DECLS
