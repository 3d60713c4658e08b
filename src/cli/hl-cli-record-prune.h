/* hl-cli-record-prune.h — what `heaplens-cli record` cleans up before it
 * starts its program: the sessions an earlier record left in /dev/shm
 * when it was killed (issue 26, point 2). */
#pragma once

/* Removes, through hl_live_session_prune, the readable sessions of this
 * user whose process and launcher are both gone (a killed record's
 * program that died too), with the TRACE.tmp-compress such a launcher
 * left; prints one line on stderr per thing removed (or that could not
 * be), nothing when there was nothing. A session whose launcher still
 * runs is left to it (another record about to salvage it), as is one
 * whose heartbeat is less than 2 s old, and anything not launched (no
 * launcher named, no trace) or unreadable: `sessions --prune` judges
 * those. */
void hl_cli_record_prune (void);
