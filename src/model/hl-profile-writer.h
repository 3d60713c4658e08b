/* hl-profile-writer.h — the continuous heap profiles of one traced
 * process (`record --profile-every T --profile-dir DIR`,
 * docs/continuous-profiles.md), written by the follower that computes
 * the trace's costs while the program runs (hl-recording-costs-stream.h),
 * never by the preload.
 *
 * Every T, from the costs-only recording as the packets applied so far
 * leave it (between two polls: a consistent state), two files:
 *   heaplens-PROG-PID-YYYYMMDDTHHMMSS.mmmZ.inuse.pb.gz  the live heap
 *   heaplens-PROG-PID-YYYYMMDDTHHMMSS.mmmZ.alloc.pb.gz  allocated since the
 *                                                       previous profile
 * (hl-heap-profile.h), each written to a temporary file of mode 0600 and
 * renamed into place, so that an uploader never sees half a file. Past
 * KEEP profiles of each kind, the oldest of this process are removed. */
#pragma once

#include <glib.h>

#include "hl-recording.h"

G_BEGIN_DECLS

typedef struct _HlProfileWriter HlProfileWriter;

/* DIR must exist. EVERY_NS > 0, KEEP > 0. */
HlProfileWriter *hl_profile_writer_new     (const char      *dir,
                                            guint64          every_ns,
                                            guint            keep);
void             hl_profile_writer_free    (HlProfileWriter *self);

/* When the next profile is due (g_get_monotonic_time()'s clock). */
gint64           hl_profile_writer_due_us  (const HlProfileWriter *self);

/* Writes the two profiles of REC now: REC is a costs-only (aggregate)
 * recording no other thread appends to meanwhile; PID names the files
 * when REC has no "pid" info. Symbolizes the stacks not yet resolved.
 * FALSE with ERROR when a file could not be written (the next is tried
 * all the same). */
gboolean         hl_profile_writer_write   (HlProfileWriter *self,
                                            HlRecording     *rec,
                                            guint32          pid,
                                            GError         **error);

/* Profiles written so far (pairs). */
guint64          hl_profile_writer_n_written (const HlProfileWriter *self);

G_END_DECLS
