/* hl-trace-compress.h — a plain trace file written compressed, in frames
 * of a codec (hl-trace-codec.h; docs/trace-format.md, compressed traces).
 * The streaming form, fed while a program runs, is
 * hl-trace-compress-stream.h. */
#pragma once

#include <stddef.h>

#include "hl-trace-codec.h"
#include "hl-trace-reader.h"

/* Writes the compressed form of the plain trace IN_PATH to OUT_PATH (which
 * may be IN_PATH: written aside, then renamed over it), frames of about
 * FRAME_RAW bytes (0: HL_ZFRAME_DEFAULT_RAW), mode 0600. 0, or -1 with ERR. */
int hl_trace_compress_file            (const char          *in_path,
                                       const char          *out_path,
                                       const HlTraceCodec  *codec,
                                       size_t               frame_raw,
                                       HlFormatError       *err);
/* hl_trace_compress_file, and the compressed image ends with a trailing
 * index (hl-trace-index.h) when the plain trace has none: the image is then
 * the plain trace with hl_trace_index_append_file's index appended, the
 * plain file unchanged (hl_trace_compress_stream_set_index()). */
int hl_trace_compress_file_indexed    (const char          *in_path,
                                       const char          *out_path,
                                       const HlTraceCodec  *codec,
                                       size_t               frame_raw,
                                       HlFormatError       *err);
