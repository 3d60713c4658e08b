/* hl-symbolizer-prefetch.h — opening the modules' symbols and debug info
 * while the events load.
 *
 * Making a symbolizer costs about as much as decoding a few million
 * events: libdw decompresses every compressed debug section of each module
 * (libc's alone is several MiB) and the symbol tables are read and
 * demangled. All of that depends on the module map only, which the packet
 * index points at (packets flagged HL_PACKET_FLAG_HAS_MODULES): the
 * prefetch reads those packets, replays their MODULE events into a
 * scratch recording exactly as the loader does, and builds the symbolizer
 * for that map on a thread of its own. When the load is done, finish()
 * hands it to the recording if the recording's module map is the same one
 * (path, start and build-id of every module, in order); otherwise the
 * symbolizer is dropped and hl_recording_symbolize() makes its own, so the
 * result never differs from a load without the prefetch.
 */
#pragma once

#include <glib.h>

#include "hl-recording.h"
#include "hl-trace-index.h"
#include "hl-trace-reader.h"

G_BEGIN_DECLS

typedef struct _HlSymbolizerPrefetch HlSymbolizerPrefetch;

/* Reads the module packets INDEX lists (READER and INDEX are used during
 * the call only) and starts the thread. NULL when there is nothing to
 * prefetch (no module packet, or one that does not read). */
HlSymbolizerPrefetch *hl_symbolizer_prefetch_start  (const HlTraceReader *reader,
                                                     const HlTraceIndex  *index);
/* Waits for the thread; when REC (not NULL) has the module map the
 * symbolizer was made for, REC gets it, with each module's status
 * (has_symbols, has_debug_info, debug_file, hint) filled in, as
 * hl_recording_symbolize() would. Frees PREFETCH (NULL is fine). */
void                  hl_symbolizer_prefetch_finish (HlSymbolizerPrefetch *prefetch,
                                                     HlRecording          *rec);
/* finish (PREFETCH, NULL): for error paths and g_autoptr. */
void                  hl_symbolizer_prefetch_drop   (HlSymbolizerPrefetch *prefetch);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HlSymbolizerPrefetch, hl_symbolizer_prefetch_drop)

G_END_DECLS
