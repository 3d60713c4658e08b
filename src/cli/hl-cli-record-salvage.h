/* hl-cli-record-salvage.h — what only `record` knows of a session, written
 * into its trace after the program ended. The salvage of a killed
 * program's packets, shared with the application's launcher, is the
 * model's (hl_session_salvage, hl-session-salvage.h). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "hl-shm-layout.h"

/* Appends to TRACE what only `record` knows of the session whose header
 * is HEADER, as an INFO packet `report` reads (nothing when there is
 * nothing to say): for the last recorded image of a process that exec'd
 * a program which ran unrecorded (ENDED_BY_EXEC; its END says -1), how
 * the process ended, from its wait status WAIT_STATUS
 * (exec_chain_exit_status or exec_chain_signal); for a session whose
 * live table stopped growing on a full /dev/shm (SHM_FULL), the
 * LIVE_DROPPED allocations it did not track (shm_full_untracked).
 * DIED_MONO_NS: when the process ended (CLOCK_MONOTONIC). */
bool hl_record_salvage_note_session (const char        *trace,
                                     const HlShmHeader *header,
                                     uint64_t           live_dropped,
                                     uint64_t           died_mono_ns,
                                     int                wait_status);
