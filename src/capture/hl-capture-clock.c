/* hl-capture-clock.c — the time of an event: the recorder's clock word.
 *
 * Reading the clock (libc's clock_gettime, then the vDSO's coarse clock)
 * costs about 6 ns, twice per allocation: a tenth of what the preload
 * adds to python3. While `heaplens-cli record` (or the application's
 * Record) runs the program, a thread of its own
 * stores CLOCK_MONOTONIC_COARSE into the session header's clock_ns_atomic
 * every 1 to 4 ms (hl-record-clock.c); an event then takes its time
 * from that word, one load of a line that changes a few hundred times a
 * second (hl_now_for, inline). This file is the rest: the check every
 * HL_CLOCK_BUDGET events, and the clock itself when nobody keeps the word
 * (no recorder: LD_PRELOAD alone, a forked child the recorder has not
 * found yet) or when it is stale.
 *
 * The rules (docs/shm-layout.md, "The recorder's clock"):
 * - the word is fresh while it is at most HL_CLOCK_STALE_NS from the
 *   coarse clock, either way; a stale word is set to 0 (the recorder
 *   stopped or stalls), so that every thread reads the clock itself until
 *   the recorder stores it again;
 * - once a thread has used the word, its times never go back: after a
 *   spell on the clock, which may be ahead of the word, the thread keeps
 *   its last time until the word passes it (before, a thread that never
 *   saw the word reads the clock inline, as without a recorder; its first
 *   word may be a tick of the recorder behind its last clock reading, which the
 *   writer's packets absorb: their times only go forward);
 * - a thread checks the word at least every HL_CLOCK_BUDGET events: when
 *   the recorder stalls or dies, at most that many events of a thread
 *   carry its last word, however long they take. */
#include "hl-capture-private.h"

#define HL_CLOCK_BUDGET   256u
#define HL_CLOCK_STALE_NS 10000000u /* 10 ms: five of the recorder's ticks (HZ=250) */

uint64_t hl_clock_none[1];

uint64_t
hl_now_slow (HlThreadBlock *b,
             uint64_t       word)
{
  uint64_t real = hl_sys_now_ns (), t;
  /* fresh: at most HL_CLOCK_STALE_NS from the clock, either way (a word
   * ahead is another clock: a recorder in another time namespace) */
  if (word != 0 && real <= word + HL_CLOCK_STALE_NS && word <= real + HL_CLOCK_STALE_NS)
    {
      t = word;
      /* below the thread's last time: the clock was ahead; wait for the
       * word (budget 0: checked again at the next event) */
      b->clock_budget = word >= b->clock_floor ? HL_CLOCK_BUDGET - 1 : 0;
    }
  else
    {
      /* not kept, or stale: the clock, and a stale word goes to 0 (unless
       * the recorder stored a newer one meanwhile) */
      if (word != 0)
        (void) __atomic_compare_exchange_n (hl_g.clock_word, &word, 0, false,
                                            __ATOMIC_RELAXED, __ATOMIC_RELAXED);
      t = real;
      b->clock_budget = 0;
    }
  if (t < b->clock_floor)
    t = b->clock_floor;
  if (t < hl_g.start_mono_ns)
    t = hl_g.start_mono_ns;
  b->clock_floor = t;
  return t - hl_g.start_mono_ns;
}
