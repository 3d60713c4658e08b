/* hl-launch-clock.h — the recorder (`heaplens-cli record`, the
 * application's Record) keeps the clock of the program it runs:
 * a thread of its own stores CLOCK_MONOTONIC_COARSE into the clock word of each
 * session of the program and its descendants every 1 to 4 ms, and the
 * preload stamps events with it instead of reading the clock itself
 * (hl-capture-clock.c; the rules: docs/shm-layout.md, "The recorder's
 * clock"). */
#pragma once

#include <stdint.h>
#include <sys/types.h>

typedef struct HlLaunchClock HlLaunchClock;

/* Starts keeping the clock of the sessions of PID and its descendants that
 * started at or after SINCE_WALL_NS (CLOCK_REALTIME). NULL when the thread
 * cannot start (the preload then reads the clock itself). */
HlLaunchClock *hl_launch_clock_start (pid_t    pid,
                                      uint64_t since_wall_ns);
/* Stops (joins the thread), sets every kept word to 0 (a descendant that
 * outlives the program reads the clock itself at once) and frees. NULL is
 * allowed. */
void           hl_launch_clock_stop  (HlLaunchClock *clock);
