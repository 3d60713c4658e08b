/* hl-format-test-check.h — checks several format tests make: a trace
 * split into columns and joined back, a committed golden file read to its
 * committed dump. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hl-trace-codec.h"
#include "hl-trace-columns.h"

/* Splits RAW[0..N) into columns (with the allocator model when MODEL),
 * turns the columns whose bit is set in PLANES into varint planes
 * (SPLIT_OF gets each one's first plane's length, 0 for the others) and
 * joins them back: true when the bytes come back exactly. KEEP, when not
 * NULL, gets the columns (the caller clears them). */
bool hl_check_columns_roundtrip (const uint8_t *raw, size_t n, bool model, uint32_t planes,
                                 size_t split_of[HL_COL_COUNT], HlColumns *keep);

/* The committed golden file tests/format/data/NAME.hltrace (under
 * $HL_SOURCE_ROOT), read with CODEC, dumps (hl_trace_dump, with its
 * summary) to the committed NAME.dump byte for byte. */
bool hl_check_golden_dump (const char *name, const HlTraceCodec *codec);
