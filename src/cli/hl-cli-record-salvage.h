/* hl-cli-record-salvage.h — what `record` saves of a program that died
 * without ending its trace (SIGKILL, the OOM killer): the packets its
 * threads were still building, left in the session's packets region
 * (hl-shm-layout.h), are appended to the plain trace, and the death is
 * written down (docs/capture.md, "What is kept under each way of
 * dying"). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hl-shm-layout.h"

typedef struct
{
  uint64_t events;       /* events appended from the session */
  uint64_t packets;      /* packets appended */
  uint64_t lost;         /* at most this many calls counted by the session
                          * are in no packet (threads killed inside the
                          * preload) */
  bool     lost_known;   /* lost could be counted */
} HlRecordSalvage;

/* Appends to the plain trace TRACE the whole events that the process of
 * the session NAME (under /dev/shm, no leading '/') left in its packet
 * slots, once each: a packet that was being written is appended only when
 * the trace does not hold it already, and a packet cut at the trace's end
 * by the death is cut off first. N_CALLS: the allocations and frees the
 * session counted (for OUT->lost). False with a reason in ERR (at least
 * 128 bytes) when nothing could be done. */
bool hl_record_salvage (const char      *name,
                        const char      *trace,
                        uint64_t         n_calls,
                        HlRecordSalvage *out,
                        char            *err,
                        size_t           err_size);

/* Appends the record of the death of PID to TRACE: an INFO packet whose
 * keys `report` reads: ended_by_signal (when SIG > 0), and, when SALVAGE
 * (the process wrote no END), salvaged_events and lost_events (a bound,
 * or "unknown"), after an END event with status 128 + SIG (when SIG > 0).
 * START_MONO_NS: the trace's time base; DIED_MONO_NS: when the death was
 * seen (CLOCK_MONOTONIC). */
bool hl_record_salvage_note_death (const char            *trace,
                                   uint32_t               pid,
                                   uint64_t               start_mono_ns,
                                   uint64_t               died_mono_ns,
                                   int                    sig,
                                   const HlRecordSalvage *salvage);

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
/* Writes LEN bytes of BUF to FD whole (EINTR retried); false on an error
 * or a short write that made no progress. */
bool hl_record_append_all (int            fd,
                           const uint8_t *buf,
                           size_t         len);

