/* hl-cli-top-leaks.h — `top PID --leak-scan`: asks the running program
 * for a leak scan now (HL_SHM_CONTROL_LEAK_SCAN, docs/capture.md, "Leaks
 * on demand") and says what the last one found, as Valgrind memcheck's
 * kinds. */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "hl-shm-reader.h"

/* Appends the last scan on demand of R (nothing when there was none). */
void hl_top_leaks_append (HlShmReader *r,
                          GString     *out);

/* Asks session NAME (of PID, read through R) for a scan and waits until it
 * is published, at most TIMEOUT_NS (the program answers at its next
 * allocation call), or until the program ends. 0 when a new scan was
 * published; 1 with the reason on stderr. */
int  hl_top_leaks_request (HlShmReader *r,
                           const char  *name,
                           uint32_t     pid,
                           uint64_t     timeout_ns);
