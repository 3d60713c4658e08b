/* hl-capture-clock.c — the time of an event: the recorder's clock word.
 *
 * Reading the clock (libc's clock_gettime, then the vDSO's coarse clock)
 * costs about 6 ns, twice per allocation: a tenth of what the preload
 * adds to python3. While `heaplens-cli record` (or the application's
 * Record) runs the program, a thread of its own
 * stores CLOCK_MONOTONIC_COARSE into the session header's clock_ns_atomic
 * every 1 to 4 ms (hl-launch-clock.c); an event then takes its time
 * from that word, one load of a line that changes a few hundred times a
 * second (hl_now_for, inline). This file is the rest: the check every
 * HL_CLOCK_BUDGET events, and the clock itself when nobody keeps the word
 * (no recorder: LD_PRELOAD alone, a forked child the recorder has not
 * found yet) or when it is stale.
 *
 * The first 50 ms of a process (HEAPLENS_FINE_CLOCK_MS) read CLOCK_MONOTONIC
 * at every event instead, word or not: a short program's events get
 * distinct times; then the coarse clock, never below the spell's end.
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
  uint64_t real = hl_clock_read (), t;
  bool fine = __atomic_load_n (&hl_g.fine_until_ns, __ATOMIC_RELAXED) != 0;
  if (fine)
    {
      /* the fine clock's spell (hl_clock_read): every event reads it,
       * the word is coarse */
      t = real;
      b->clock_budget = 0;
    }
  /* fresh: at most HL_CLOCK_STALE_NS from the clock, either way (a word
   * ahead is another clock: a recorder in another time namespace) */
  else if (word != 0 && real <= word + HL_CLOCK_STALE_NS && word <= real + HL_CLOCK_STALE_NS)
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
  /* after the fine spell, nothing before its end: the word is coarse */
  uint64_t low = fine ? hl_g.start_mono_ns : hl_g.fine_end_ns;
  if (t < low)
    t = low;
  b->clock_floor = t;
  return t - hl_g.start_mono_ns;
}

/* The process starts: its start time, and the fine clock's spell
 * (HEAPLENS_FINE_CLOCK_MS; 0: none). */
uint64_t
hl_clock_start (void)
{
  uint64_t start = hl_sys_fine_ns ();
  hl_g.fine_end_ns = start + (uint64_t) hl_g.cfg.fine_clock_ms * 1000000u;
  __atomic_store_n (&hl_g.fine_until_ns, hl_g.cfg.fine_clock_ms > 0 ? hl_g.fine_end_ns : 0, __ATOMIC_RELAXED);
  return start;
}

/* hl_clock_read during the fine spell: CLOCK_MONOTONIC rounded down to
 * HL_CLOCK_FINE_GRAIN_NS from the start (nanosecond times made every
 * event carry a delta of its own: sqlite3's trace grew from 121 to 383 KB),
 * until a reading
 * reaches the spell's end, which ends it for every thread (and gives the
 * end itself: a coarse reading after it may lag that reading). */
uint64_t
hl_clock_read_slow (void)
{
  uint64_t t = hl_sys_fine_ns ();
  if (t < hl_g.fine_end_ns)
    return t > hl_g.start_mono_ns ? t - ((t - hl_g.start_mono_ns) & (HL_CLOCK_FINE_GRAIN_NS - 1)) : t;
  __atomic_store_n (&hl_g.fine_until_ns, 0, __ATOMIC_RELAXED);
  uint64_t coarse = hl_sys_coarse_ns ();
  return coarse > hl_g.fine_end_ns ? coarse : hl_g.fine_end_ns;
}
