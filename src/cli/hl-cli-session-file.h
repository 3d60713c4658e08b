/* hl-cli-session-file.h — what `record` reads from a session
 * segment (through hl-shm-reader.h): a validated copy of its header, with
 * the changing fields (state, heartbeat, exit status, flags) as they are
 * now, and its totals. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hl-shm-layout.h"

typedef struct
{
  HlShmHeader header;        /* strings NUL-terminated */
  uint64_t    n_allocs;
  uint64_t    n_frees;
  uint64_t    bytes_allocated;
  uint64_t    bytes_freed;
  uint64_t    frees_unknown;  /* frees of blocks the live table did not hold */
  uint64_t    heap_bytes;
  uint64_t    peak_heap_bytes;
  uint64_t    peak_rss_bytes;
  uint64_t    dropped;
  uint64_t    live_dropped;   /* of dropped, allocations the live table could not hold */
} HlCliSession;

/* Reads /dev/shm/NAME (NAME without a leading '/'); false with a reason in
 * ERR (at least 128 bytes) when it is not a valid segment of ours. */
bool hl_cli_session_read (const char *name, HlCliSession *out, char *err, size_t err_size);

/* Calls FUNC for every heaplens segment name of the current user
 * (hl_live_session_list). */
typedef void (*HlCliSessionFunc) (const char *name, void *user_data);
void hl_cli_session_foreach (HlCliSessionFunc func, void *user_data);

bool hl_cli_pid_alive (uint32_t pid);
