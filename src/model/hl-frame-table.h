/* hl-frame-table.h — the symbol and frame expansion service of one
 * recording: return addresses to interned frames (a placeholder named by
 * module and offset until the symbolizer resolves them), the recording's
 * stacks expanded into frames, the addresses still to symbolize and the
 * symbolizer kept between symbolizations of a live recording.
 *
 * It knows no recording: the owner gives it the module map (borrowed, it
 * must outlive the table) and one stack at a time. Not thread-safe: its
 * owner serializes expansions (HlRecording under its trie lock) and
 * symbolization does not overlap appends (hl-recording.h). */
#pragma once

#include <glib.h>

#include "hl-frame.h"
#include "hl-module-info.h"
#include "hl-symbolizer.h"

G_BEGIN_DECLS

/* A frame with the model's own keys. HlFrame must stay first. */
typedef struct
{
  HlFrame  pub;
  guint32  function_id;   /* same id ⇔ hl_frame_same_function */
  guint32  module;        /* index into the modules, G_MAXUINT32 when unknown */
} HlFrameEntry;

/* The internal frame of a public one (every HlFrame is an HlFrameEntry). */
static inline const HlFrameEntry *
hl_frame_entry (const HlFrame *frame)
{
  return (const HlFrameEntry *) frame;
}

/* One frame the symbolizer found for an address. */
typedef struct
{
  const char *function;
  const char *file;
  guint       line;
  gboolean    is_inline;
} HlResolvedFrame;

typedef struct _HlFrameTable HlFrameTable;

/* MODULES: the owner's GArray of HlModuleInfo, borrowed (it may grow). */
HlFrameTable *hl_frame_table_new                (GArray        *modules);
void          hl_frame_table_free               (HlFrameTable  *self);

/* The module containing ADDRESS, or -1. */
int           hl_frame_table_find_module        (const HlFrameTable *self,
                                                 guint64             address);

/* ---- Expanded stacks ----------------------------------------------------- *
 * Stack 0 ("not recorded") is always there, without frames; the owner adds
 * stacks 1, 2, ... in order. */

/* Stacks expanded so far (stack 0 included). */
guint         hl_frame_table_get_n_stacks       (const HlFrameTable *self);
/* Forgets every expanded stack but 0 (to expand them again after the
 * symbols or a stack's addresses changed). */
void          hl_frame_table_clear_stacks       (HlFrameTable  *self);
/* Expands the next stack: ADDRESSES innermost first. New addresses get a
 * placeholder frame and join the unresolved ones. */
void          hl_frame_table_add_stack          (HlFrameTable  *self,
                                                 const guint64 *addresses,
                                                 guint          n_addresses);
/* Frames of an expanded STACK, innermost first; NULL (0 frames) past the
 * expanded ones. */
const HlFrameEntry * const *hl_frame_table_get_stack (const HlFrameTable *self,
                                                      guint32             stack,
                                                      guint              *n_frames);
/* The frames of ADDRESS (innermost first, as a stack expands it): a new
 * array of borrowed frames, empty when no expanded stack holds ADDRESS. */
GPtrArray    *hl_frame_table_copy_address_frames (const HlFrameTable *self,
                                                  guint64             address);
/* Sets USED[m] for each module m that a frame of an expanded stack is in
 * (USED has one entry per module). */
void          hl_frame_table_mark_used_modules  (const HlFrameTable *self,
                                                 gboolean           *used);
guint         hl_frame_table_get_n_function_ids (const HlFrameTable *self);

/* ---- Symbols -------------------------------------------------------------- */

/* Installs the frames for ADDRESS (innermost first, N_FRAMES > 0); strings
 * are copied and interned. Stacks expanded before keep their old frames
 * until they are expanded again. */
void          hl_frame_table_set_address_frames (HlFrameTable          *self,
                                                 guint64                address,
                                                 int                    module,
                                                 const HlResolvedFrame *frames,
                                                 guint                  n_frames);
/* Addresses met outside every module get a module-less placeholder; once
 * the module map has grown to cover them (a live recording reads it after
 * its first stacks), they get a named placeholder and are symbolized
 * again. */
void          hl_frame_table_adopt_orphans      (HlFrameTable  *self);
/* Addresses of expanded stacks not symbolized yet (new array of guint64);
 * put_back gives back those a cancelled symbolization did not reach. */
GArray       *hl_frame_table_take_unresolved    (HlFrameTable  *self);
void          hl_frame_table_put_back_unresolved (HlFrameTable  *self,
                                                  const guint64 *addresses,
                                                  guint          n);
/* The kept symbolizer when it was made for N_MODULES modules, else NULL
 * (and the old one is freed). set_ takes ownership (SYM may be NULL). */
HlSymbolizer *hl_frame_table_get_symbolizer     (HlFrameTable  *self,
                                                 guint          n_modules);
void          hl_frame_table_set_symbolizer     (HlFrameTable  *self,
                                                 HlSymbolizer  *sym,
                                                 guint          n_modules);

G_END_DECLS
