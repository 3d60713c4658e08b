/* hl-cli-record-follow.h — what the two followers of a plain trace share:
 * `record`'s (hl-cli-record-stream.h, which also compresses the trace)
 * and `profiles`' (hl-cli-profiles.c, which follows a bare preload's
 * trace read-only). Both apply the trace's packets to a costs stream
 * (hl-recording-costs-stream.h) on a thread at nice 10 and, with heap
 * profiles on, write them from it (hl-profile-writer.h). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "hl-cli-record-profiles.h"
#include "hl-model.h"

/* The threads' nice values (HEAPLENS_RECORD_NICE=COMPRESS,COSTS
 * overrides) and the costs thread's lag (HEAPLENS_RECORD_COSTS_LAG=
 * RUNNING_MS[,FINISH_MS]; 0: the caller's defaults). */
typedef struct
{
  int      compress_nice;
  int      costs_nice;
  uint64_t lag_running_ns;
  uint64_t lag_finish_ns;
} HlFollowTuning;

/* The defaults (compress 0, costs 10), then the environment's. */
void           hl_follow_tuning_init (HlFollowTuning *t);

/* A costs stream for one trace, at T's nice value, with T's lag (else
 * RUNNING_NS and FINISH_NS when not 0, else the stream's defaults) and,
 * with PROFILES on, its profile writer. With profiles, unless the lag
 * was set (by T or the caller), record's: 5 s while the program runs
 * (the first profile loads the symbols), 1 s after. */
HlCostsStream *hl_follow_costs_new   (const HlFollowTuning   *t,
                                      const HlRecordProfiles *profiles,
                                      uint64_t                running_ns,
                                      uint64_t                finish_ns);
