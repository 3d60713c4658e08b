/* hl-trace-zstd.h — an HlTraceCodec for libzstd (hl_format_zstd_dep; not
 * part of the libc-only format library: the model and the CLI link it). */
#pragma once

#include "hl-trace-codec.h"

/* A codec compressing at LEVEL (1..19; 0 = 3). The returned struct is
 * static per level and thread-safe to use (no shared context). */
const HlTraceCodec *hl_trace_codec_zstd (int level);
