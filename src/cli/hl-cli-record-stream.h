/* hl-cli-record-stream.h — `record` compresses the traces of the program it
 * runs while the program runs (hl-trace-compress-stream.h), on a thread of
 * its own beside the program, so that at exit little is left to compress
 * (the packets of the last poll, the last zstd block of each large column,
 * the small columns: hl-trace-compress-columns.h). It finds the program's sessions, and its children's, in
 * /dev/shm as `record` does at the end (a child's session names its parent
 * in ppid), and polls each session's trace file about 50 times a second. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "hl-cli-record-profiles.h"

typedef struct HlRecordStreams HlRecordStreams;

/* Starts following the sessions of PID and its descendants that started at
 * or after SINCE_WALL_NS (CLOCK_REALTIME), compressing their traces at zstd
 * LEVEL and, with COSTS, computing their saved costs from the same packets
 * (hl-recording-costs-stream.h) and, with PROFILES on (borrowed for the
 * streams' life), writing each trace's continuous heap profiles from
 * them. NULL when the thread cannot start (then compress at the end). */
HlRecordStreams *hl_record_streams_start  (pid_t                   pid,
                                           uint64_t                since_wall_ns,
                                           int                     level,
                                           bool                    costs,
                                           const HlRecordProfiles *profiles);
/* Stops following (joins the thread). */
void             hl_record_streams_stop   (HlRecordStreams *rs);
/* Finishes the stream of TRACE: true when TRACE is now compressed. False
 * when there was no stream for it or it failed (TRACE is then untouched,
 * still plain: compress it whole); a failure is printed on stderr. */
bool             hl_record_streams_finish (HlRecordStreams *rs,
                                           const char      *trace);
/* TRUE while TRACE's costs are followed and have not failed. */
bool             hl_record_streams_following_costs (HlRecordStreams *rs,
                                                    const char      *trace);
/* After a finish that returned true: the costs-only recording of TRACE
 * followed while it was written (an HlRecording to unref; its payload is
 * hl_costs_packet_payload()), or NULL with a reason in WHY (at least 256
 * bytes; "" when costs were not followed) and LAGGED true when following
 * was given up because the costs thread could not keep up. */
void            *hl_record_streams_take_costs (HlRecordStreams *rs,
                                               const char      *trace,
                                               char            *why,
                                               size_t           why_size,
                                               bool            *lagged);
void             hl_record_streams_free   (HlRecordStreams *rs);
