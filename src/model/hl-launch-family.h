/* hl-launch-family.h — which sessions belong to the program a recorder
 * runs: its own (its pid, a new session after each exec) and its
 * descendants' (a session's ppid is its parent when it started: the root,
 * which counts from the start, whether its own session is seen or not, or
 * a process whose session was found first; an image whose pid was found
 * with an earlier image, whatever its ppid; a session that names this
 * process as its launcher, HEAPLENS_LAUNCHER, which every descendant
 * inherits: the one rule that still holds when a process between the
 * root and a grandchild ended and removed its own session first), among
 * those that started after the recorder did. The one rule of `heaplens-cli record`'s streams and its
 * end-of-run search, and of the recorder's clock (hl-launch-clock.h). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

typedef struct HlLaunchFamily HlLaunchFamily;

typedef enum
{
  HL_LAUNCH_FAMILY_BEFORE, /* started before the recorder: never ours */
  HL_LAUNCH_FAMILY_OTHER,  /* not ours yet: another program's, or a descendant whose parent is not found yet */
  HL_LAUNCH_FAMILY_OURS,   /* ours: its pid is now a parent of ours too */
} HlLaunchFamilyVerdict;

/* The family of ROOT_PID, for sessions that started at or after
 * SINCE_WALL_NS (CLOCK_REALTIME). */
HlLaunchFamily       *hl_launch_family_new   (uint32_t root_pid,
                                              uint64_t since_wall_ns);
void                  hl_launch_family_free  (HlLaunchFamily *family);
/* The verdict on a session (its header's pid, ppid, start_wall_ns and
 * launcher_pid, 0 when it names none); OURS adds PID to the family. The
 * launcher is the calling process: the one that started ROOT_PID. */
HlLaunchFamilyVerdict hl_launch_family_judge (HlLaunchFamily *family,
                                              uint32_t        pid,
                                              uint32_t        ppid,
                                              uint64_t        start_wall_ns,
                                              uint32_t        launcher_pid);
/* Whether PID is the root or a descendant found so far. */
bool                  hl_launch_family_has   (const HlLaunchFamily *family,
                                              uint32_t              pid);
