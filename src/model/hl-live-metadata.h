/* hl-live-metadata.h — a live session's metadata (model-internal): the
 * current items, read at every poll, and the history of intervals built
 * from the segment's metadata log; when the log's ring lost changes,
 * a backfill worker reads them from the trace the preload writes.
 *
 * Threads: everything on the session's main context (inside the poll's
 * SIGBUS guard for the reads) but the backfill, which runs on a GTask
 * worker and touches only its own copy of what it needs; its result is
 * applied by hl_live_metadata_backfill_finish() on the main context.
 */
#pragma once

#include <gio/gio.h>

#include "hl-live-types.h"
#include "hl-shm-reader.h"

G_BEGIN_DECLS

typedef struct _HlLiveMetadata HlLiveMetadata;

HlLiveMetadata *hl_live_metadata_new          (void);
void            hl_live_metadata_free         (HlLiveMetadata *meta);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HlLiveMetadata, hl_live_metadata_free)

/* The log entries after the last read: ENTRY_FUNC (the feed into the
 * recording) sees each first, then the history takes the changes (marks
 * excluded). HEARTBEAT_NS dates a gap found before the first entry.
 * *CHANGED is set when the log moved. 0, or -1 with ERR. */
int             hl_live_metadata_read_log     (HlLiveMetadata *meta,
                                               HlShmReader    *reader,
                                               guint64         heartbeat_ns,
                                               HlShmMetaFunc   entry_func,
                                               gpointer        user_data,
                                               gboolean       *changed,
                                               HlFormatError  *err);
/* One change of the history as the log gives it (VALUE NULL: KEY
 * removed), in whatever order they come: the history follows their
 * times. read_log() calls it for each entry but marks. */
void            hl_live_metadata_add_change   (HlLiveMetadata *meta,
                                               guint64         time_ns,
                                               const char     *key,
                                               const char     *value);
/* The current items, replacing the last read's. 0, or -1 with ERR. */
int             hl_live_metadata_read_current (HlLiveMetadata *meta,
                                               HlShmReader    *reader,
                                               HlFormatError  *err);

/* The log lost changes the trace at TRACE_PATH holds, and no backfill
 * runs yet. */
gboolean        hl_live_metadata_wants_backfill (HlLiveMetadata *meta,
                                                 const char     *trace_path);
/* Reads the trace's metadata changes before the gap on a worker;
 * SOURCE_OBJECT (the session) is kept alive until CALLBACK. */
void            hl_live_metadata_backfill_async (HlLiveMetadata      *meta,
                                                 const char          *trace_path,
                                                 gpointer             source_object,
                                                 GAsyncReadyCallback  callback,
                                                 gpointer             user_data);
/* Rebuilds the history from the trace's changes and the log's; FALSE
 * with ERROR when the trace could not be read. */
gboolean        hl_live_metadata_backfill_finish (HlLiveMetadata  *meta,
                                                  GAsyncResult    *result,
                                                  GError         **error);

/* HlLiveMetaInterval*, borrowed, valid until the next read. */
GPtrArray      *hl_live_metadata_get_current  (HlLiveMetadata *meta);
GPtrArray      *hl_live_metadata_get_history  (HlLiveMetadata *meta);

/* Deep copies (for snapshots), freed with hl_live_meta_interval_free. */
GPtrArray      *hl_live_meta_intervals_copy   (GPtrArray      *intervals);
void            hl_live_meta_interval_free    (gpointer        interval);

/* An item's value as text (integers in decimal), valid UTF-8. */
char           *hl_live_meta_item_value       (const HlShmMetaItem *item);

G_END_DECLS
