/* hl-frame.h — one symbolized frame of a call stack.
 *
 * Frames are interned by the recording: one HlFrame per (function, module,
 * file, line, inline) and they live as long as the recording, so views
 * compare them by pointer. An address inside an inlined function gives
 * several frames, innermost first, every one but the last is_inline.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  const char *function;    /* demangled name; "0x7f..." when unknown; never NULL */
  const char *module;      /* full path of the module, "" when unknown */
  const char *module_name; /* basename of module */
  const char *file;        /* source file, or NULL without line info */
  guint       line;        /* 0 without line info */
  guint64     address;     /* the (first) return address that gave this frame */
  gboolean    is_inline;   /* an inlined function inside its caller */
  gboolean    resolved;    /* a symbol was found (FALSE: function is the address) */
} HlFrame;

/* Key of the "same function" used to merge tree nodes: function +
 * module_name. (Diffs match frames of two recordings their own way:
 * hl-diff-tree.h.) */
gboolean hl_frame_same_function (const HlFrame *a,
                                 const HlFrame *b);

G_END_DECLS
