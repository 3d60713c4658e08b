/* hl-live-scan.h — the feed of a live session's live-allocations table
 * into its recording (model-internal).
 *
 * A worker compares the live table with the shadow of the last scan (one
 * 32-bit value per slot, owned by the scans, which run one at a time)
 * and hands back only what changed; hl_live_scan_finish() appends those
 * to the recording on the session's main context: the allocations gone
 * since the last scan (freed at this poll's time), then the ones seen for
 * the first time. A steady table of a million allocations costs one
 * sequential pass.
 *
 * Threads: hl_live_scan_async and _finish on the main context; the diff
 * on a GTask worker, inside the SIGBUS guard.
 */
#pragma once

#include <gio/gio.h>

#include "hl-recording.h"
#include "hl-shm-reader.h"

G_BEGIN_DECLS

typedef struct _HlLiveScan HlLiveScan;

HlLiveScan *hl_live_scan_new        (void);
void        hl_live_scan_free       (HlLiveScan          *scan);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HlLiveScan, hl_live_scan_free)

/* A worker scans READER's live table; SOURCE_OBJECT (the session, which
 * owns READER and, through its feed, SCAN) is kept alive until CALLBACK. */
void        hl_live_scan_async      (HlLiveScan          *scan,
                                     HlShmReader         *reader,
                                     gpointer             source_object,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data);
/* Appends what changed to RECORDING (frees dated TIME_NS) and commits;
 * FALSE with ERROR when the scan failed (the segment shrank, a malformed
 * table). */
gboolean    hl_live_scan_finish     (HlLiveScan          *scan,
                                     GAsyncResult        *result,
                                     HlRecording         *recording,
                                     guint64              time_ns,
                                     GError             **error);
/* A worker is scanning. */
gboolean    hl_live_scan_is_running (HlLiveScan          *scan);

G_END_DECLS
