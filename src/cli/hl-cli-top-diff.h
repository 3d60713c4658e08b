/* hl-cli-top-diff.h — `top --diff-after D` (issue 30, point 4): what a
 * running program allocated after a moment and still holds D later, by
 * call site, without a restart. One read of the live table at the end is
 * enough: each entry carries its allocation's time (to 2^20 ns), so the
 * entries younger than the first moment are the blocks allocated after it
 * and live at the second. */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "hl-shm-reader.h"

typedef struct
{
  uint32_t stack_id;
  uint64_t blocks; /* weighed in sampling mode (hl-sample-weight-core.h) */
  uint64_t bytes;
} HlTopDiffSite;

/* The live entries of R allocated at or after SINCE_NS (ns since the
 * session's start; its time grain included), summed by stack, the most
 * bytes first, weighed by SAMPLE_BYTES's weights (0: each counts once).
 * Their totals in *BLOCKS and *BYTES. NULL with ERR set when the table
 * cannot be read. */
GArray  *hl_top_diff_collect        (HlShmReader   *r,
                                     uint64_t       since_ns,
                                     uint64_t       sample_bytes,
                                     uint64_t      *blocks,
                                     uint64_t      *bytes,
                                     HlFormatError *err);

/* A duration: "30s", "500ms", "2m", "1h" or seconds ("1.5"). FALSE when
 * TEXT is none of those or not positive. */
gboolean hl_top_diff_parse_duration (const char    *text,
                                     uint64_t      *ns);
