/* hl-cli-record-find.h — the sessions of the program `record` ran, found
 * once it exited: its own (one per image) and its descendants', each
 * either taken (compressed and unlinked by `record`) or, still running,
 * left to its process (the hand-over, docs/shm-layout.md §1). */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "hl-cli-session-file.h"

typedef struct
{
  char         name[256];
  HlCliSession s;
  bool         running;  /* its process still runs (it outlived the program) */
} Found;

/* The sessions of the program and of its children, as many as there were
 * (a shell script, make or a pyenv shim start dozens or hundreds): each is
 * compressed and unlinked at the end; one left out would stay a plain
 * trace and a segment in /dev/shm. */
typedef struct
{
  uint64_t since_wall_ns;
  GArray  *found;    /* Found */
  guint    running;  /* of the family, still running: left as they are */
} FindCtx;

#define FOUND(ctx, k) (&g_array_index ((ctx)->found, Found, (k)))

/* Lists the sessions that started after CTX->since_wall_ns and keeps those
 * of PID's family (hl-launch-family.h) in CTX->found; a running one is
 * left to its process (counted in CTX->running, not kept), unless it was
 * ending already and left to us. HEAPLENS_DEBUG=handover prints each. */
void  hl_record_find_sessions   (FindCtx       *ctx,
                                 uint32_t       pid);
/* The processes other than PID among the sessions found (a process that
 * exec'ed has a session per image: counted once). */
guint hl_record_count_children  (const FindCtx *ctx,
                                 uint32_t       pid);
/* Unlinks the names of the sessions found. */
void  hl_record_unlink_sessions (const FindCtx *ctx);
