/* hl-adapter-not-freed.h — what the cards, lists and the Leaks tab call
 * memory an analysis did not free: a leak only when the program exited
 * and the range reaches its end. */
#pragma once

#include "hl-model.h"

G_BEGIN_DECLS

typedef struct
{
  char *card;     /* the summary card, e.g. "Leaked", "Not Freed by 4.6 s" */
  char *most;     /* the summary's top list, or NULL: the cost's own title */
  char *tab;      /* the allocations view's tab, e.g. "Leaks" */
  char *column;   /* its size column, e.g. "Leaked" */
  char *none;     /* its empty page's title, e.g. "No Leaks" */
} HlNotFreedTitles;

/* LIVE_STATE: a live session's state, or NULL for a saved trace;
 * DURATION_NS: the recording's. */
void hl_adapter_not_freed_titles (HlAnalysis        *analysis,
                                  guint64            duration_ns,
                                  const HlLiveState *live_state,
                                  HlNotFreedTitles  *out);
/* TRUE when RECORDING stops before its program's end, at *T_NS: its
 * trace cut by a full disk (or a file size limit, a quota), a detach, an
 * exec that replaced the program. */
gboolean hl_adapter_recording_stops_early (HlRecording *recording,
                                           guint64     *t_ns);
void hl_not_freed_titles_clear   (HlNotFreedTitles  *titles);

G_END_DECLS
