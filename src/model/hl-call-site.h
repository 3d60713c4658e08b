/* hl-call-site.h — call sites: stacks whose symbolized frames are the
 * same (different return addresses on the same lines) are one call site.
 * The key of a stack is its expanded frames (a GPtrArray of interned
 * HlFrameEntry pointers), hashed and compared by pointer. */
#pragma once

#include "hl-recording-tables.h"

G_BEGIN_DECLS

/* A new key for STACK of SELF (free with g_ptr_array_unref). */
GPtrArray     *hl_call_site_key             (HlRecording   *self,
                                             guint32        stack);
guint          hl_call_site_key_hash        (gconstpointer  key);
gboolean       hl_call_site_key_equal       (gconstpointer  a,
                                             gconstpointer  b);
/* A hash table from keys (owned) to anything. */
GHashTable    *hl_call_site_table_new       (void);
/* The first resolved frame of STACK (its innermost when none is), or NULL
 * for a stack without frames: what a list of call sites names it by. */
const HlFrame *hl_call_site_frame           (HlRecording   *self,
                                             guint32        stack);

G_END_DECLS
