/* hl-view-state.h — the view state of one window: the time range, the
 * filters and the chosen cost. Every view reads it; "changed" tells them to
 * recompute. The recording itself is immutable and lives in the model. */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define HL_TYPE_VIEW_STATE (hl_view_state_get_type ())
G_DECLARE_FINAL_TYPE (HlViewState, hl_view_state, HL, VIEW_STATE, GObject)

typedef enum
{
  HL_FILTER_RANGE,
  HL_FILTER_THREAD,
  HL_FILTER_METADATA,
  HL_FILTER_MODULE,
  HL_FILTER_FUNCTION,
  HL_FILTER_SIZE,
} HlFilterKind;

HlViewState  *hl_view_state_new            (void);
/* A new view state with the same filters, range and cost (Compare With…). */
HlViewState  *hl_view_state_copy           (HlViewState  *self);

void        hl_view_state_set_range      (HlViewState  *self,
                                          guint64     start_ns,
                                          guint64     end_ns);
void        hl_view_state_clear_range    (HlViewState  *self);
gboolean    hl_view_state_get_range      (HlViewState  *self,
                                          guint64    *start_ns,
                                          guint64    *end_ns);

/* Threads: only these threads (none = all). LABEL shows in the chip. */
void        hl_view_state_add_thread     (HlViewState  *self,
                                          guint       tid,
                                          const char *label);
const guint *hl_view_state_get_threads   (HlViewState  *self,
                                          guint      *n_threads);
/* Metadata: only events while KEY had VALUE (all pairs must hold). */
void        hl_view_state_add_metadata   (HlViewState  *self,
                                          const char *key,
                                          const char *value);
guint       hl_view_state_get_n_metadata (HlViewState  *self);
void        hl_view_state_get_metadata   (HlViewState  *self,
                                          guint       i,
                                          const char **key,
                                          const char **value);
/* Modules: only stacks that pass through one of these modules. */
void        hl_view_state_add_module     (HlViewState  *self,
                                          const char *module);
const char * const *hl_view_state_get_modules (HlViewState *self);

/* Functions: only stacks with a function whose name holds PATTERN
 * (REGEX: matches the regular expression PATTERN, which the caller has
 * checked: hl_filter_with_function_regex). Several must all hold. */
void        hl_view_state_add_function   (HlViewState  *self,
                                          const char   *pattern,
                                          gboolean      regex);
guint       hl_view_state_get_n_functions (HlViewState *self);
void        hl_view_state_get_function   (HlViewState  *self,
                                          guint         i,
                                          const char  **pattern,
                                          gboolean     *regex);
/* Sizes: only allocations of MIN_SIZE to MAX_SIZE bytes, both included
 * (one range: a new one replaces it; chip id "size"). */
void        hl_view_state_set_size_range (HlViewState  *self,
                                          guint64       min_size,
                                          guint64       max_size);
gboolean    hl_view_state_get_size_range (HlViewState  *self,
                                          guint64      *min_size,
                                          guint64      *max_size);

/* Every filter as (chip id, chip label), in the order they were added. */
typedef void (*HlViewStateFilterFunc) (const char   *id,
                                       const char   *label,
                                       HlFilterKind  kind,
                                       gpointer      user_data);
void        hl_view_state_foreach_filter (HlViewState           *self,
                                          HlViewStateFilterFunc  func,
                                          gpointer             user_data);
/* Removes the filter of chip ID; FALSE if there is none. */
gboolean    hl_view_state_remove_filter  (HlViewState  *self,
                                          const char *id);
void        hl_view_state_clear_filters  (HlViewState  *self);
gboolean    hl_view_state_has_filters    (HlViewState  *self);

guint       hl_view_state_get_cost       (HlViewState  *self);
void        hl_view_state_set_cost       (HlViewState  *self,
                                          guint       cost);
/* The T of the long-lived cost: the bytes of the blocks that lived at
 * least T_NS (0: every block). */
guint64     hl_view_state_get_lived_at_least (HlViewState *self);
void        hl_view_state_set_lived_at_least (HlViewState *self,
                                              guint64      t_ns);

G_END_DECLS
