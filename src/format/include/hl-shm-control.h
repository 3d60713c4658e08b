/* hl-shm-control.h — requests to a running preload through its session
 * segment's control word (HlShmHeader.control_atomic, HL_SHM_CONTROL_*):
 * `heaplens-cli attach --detach` and Ctrl+C on `attach`. Plain C. */
#pragma once

#include <stdint.h>

/* ORs BITS into the control word of /dev/shm/NAME (NAME without a leading
 * '/'), after checking that it is a segment of ours (owner, magic,
 * version, size) of process PID. 0, or -1 with errno (EINVAL: not such a
 * segment). */
int hl_shm_request_control (const char *name, uint32_t pid, uint32_t bits);
