/* hl-session.h — the view state of one window: the time range, the
 * filters and the chosen cost. Every view reads it; "changed" tells them to
 * recompute. The recording itself is immutable and lives in the model. */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define HL_TYPE_SESSION (hl_session_get_type ())
G_DECLARE_FINAL_TYPE (HlSession, hl_session, HL, SESSION, GObject)

typedef enum
{
  HL_FILTER_RANGE,
  HL_FILTER_THREAD,
  HL_FILTER_METADATA,
  HL_FILTER_MODULE,
} HlFilterKind;

HlSession  *hl_session_new            (void);
/* A new session with the same filters, range and cost (Compare With…). */
HlSession  *hl_session_copy           (HlSession  *self);

void        hl_session_set_range      (HlSession  *self,
                                       guint64     start_ns,
                                       guint64     end_ns);
void        hl_session_clear_range    (HlSession  *self);
gboolean    hl_session_get_range      (HlSession  *self,
                                       guint64    *start_ns,
                                       guint64    *end_ns);

/* Threads: only these threads (none = all). LABEL shows in the chip. */
void        hl_session_add_thread     (HlSession  *self,
                                       guint       tid,
                                       const char *label);
const guint *hl_session_get_threads   (HlSession  *self,
                                       guint      *n_threads);
/* Metadata: only events while KEY had VALUE (all pairs must hold). */
void        hl_session_add_metadata   (HlSession  *self,
                                       const char *key,
                                       const char *value);
guint       hl_session_get_n_metadata (HlSession  *self);
void        hl_session_get_metadata   (HlSession  *self,
                                       guint       i,
                                       const char **key,
                                       const char **value);
/* Modules: only stacks that pass through one of these modules. */
void        hl_session_add_module     (HlSession  *self,
                                       const char *module);
const char * const *hl_session_get_modules (HlSession *self);

/* Every filter as (chip id, chip label), in the order they were added. */
typedef void (*HlSessionFilterFunc) (const char   *id,
                                     const char   *label,
                                     HlFilterKind  kind,
                                     gpointer      user_data);
void        hl_session_foreach_filter (HlSession           *self,
                                       HlSessionFilterFunc  func,
                                       gpointer             user_data);
/* Removes the filter of chip ID; FALSE if there is none. */
gboolean    hl_session_remove_filter  (HlSession  *self,
                                       const char *id);
void        hl_session_clear_filters  (HlSession  *self);
gboolean    hl_session_has_filters    (HlSession  *self);

guint       hl_session_get_cost       (HlSession  *self);
void        hl_session_set_cost       (HlSession  *self,
                                       guint       cost);

G_END_DECLS
