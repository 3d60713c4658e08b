/* hl-cli-record-follow.c — the costs stream of a followed trace, as
 * `record` and `profiles` make it (hl-cli-record-follow.h). */
#include "hl-config.h"

#include "hl-cli-record-follow.h"

#include <stdlib.h>

/* The threads' nice values. The costs thread's is lower: when the
 * program and the compression keep the cores busy, they go first, and a
 * costs thread that cannot keep up with the CPU left gives up (its lag,
 * hl-recording-costs-stream.h) instead of slowing the program down
 * (python3 in fp mode: the costs need about 0.9 of a core). The
 * compression stays at the program's level: what it leaves is waited for
 * after the exit. Only the order changes, never the numbers. */
#define HL_RECORD_COMPRESS_NICE 0
#define HL_RECORD_COSTS_NICE    10

/* The costs thread's lag allowed with heap profiles (it also symbolizes):
 * 5 s while the program runs, the default 1 s after. */
#define HL_RECORD_PROFILES_LAG_NS        ((uint64_t) 5000000000u)
#define HL_RECORD_PROFILES_FINISH_LAG_NS ((uint64_t) 1000000000u)

void
hl_follow_tuning_init (HlFollowTuning *t)
{
  t->compress_nice = HL_RECORD_COMPRESS_NICE;
  t->costs_nice = HL_RECORD_COSTS_NICE;
  t->lag_running_ns = t->lag_finish_ns = 0;
  /* HEAPLENS_RECORD_NICE=COMPRESS[,COSTS] (bench, tests) */
  const char *nice_env = getenv ("HEAPLENS_RECORD_NICE");
  if (nice_env != NULL)
    {
      char *end;
      t->compress_nice = (int) strtol (nice_env, &end, 10);
      t->costs_nice = *end == ',' ? (int) strtol (end + 1, NULL, 10) : t->compress_nice;
    }
  /* HEAPLENS_RECORD_COSTS_LAG=RUNNING_MS[,FINISH_MS] (tests): the lag
   * the costs thread may have (hl_costs_stream_set_max_lag()) */
  const char *lag_env = getenv ("HEAPLENS_RECORD_COSTS_LAG");
  if (lag_env != NULL)
    {
      char *end;
      double running = strtod (lag_env, &end);
      double finish = *end == ',' ? strtod (end + 1, NULL) : running;
      t->lag_running_ns = (uint64_t) (running * 1e6) + 1;
      t->lag_finish_ns = (uint64_t) (finish * 1e6) + 1;
    }
}

HlCostsStream *
hl_follow_costs_new (const HlFollowTuning   *t,
                     const HlRecordProfiles *profiles,
                     uint64_t                running_ns,
                     uint64_t                finish_ns)
{
  HlCostsStream *costs = hl_costs_stream_new ();
  hl_costs_stream_set_nice (costs, t->costs_nice);
  if (t->lag_running_ns != 0)
    hl_costs_stream_set_max_lag (costs, t->lag_running_ns, t->lag_finish_ns);
  else if (running_ns != 0)
    hl_costs_stream_set_max_lag (costs, running_ns, finish_ns);
  /* continuous heap profiles: written by the costs thread, whatever
   * the stacks (the costs packet may not be saved) */
  if (profiles != NULL && profiles->on)
    {
      /* the first profile loads the modules' symbols on that thread
       * (a second or more for a large program): more lag allowed
       * while the program runs, unless set by hand */
      if (t->lag_running_ns == 0 && running_ns == 0)
        hl_costs_stream_set_max_lag (costs, HL_RECORD_PROFILES_LAG_NS, HL_RECORD_PROFILES_FINISH_LAG_NS);
      hl_costs_stream_set_profiler (costs, hl_profile_writer_new (profiles->dir, profiles->every_ns, profiles->keep));
    }
  return costs;
}
