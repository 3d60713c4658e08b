/* hl-trace-compress-stream.h — the compressed form of a plain trace written
 * while the plain trace still grows.
 *
 * `heaplens-cli record` compresses the program's trace (docs/trace-format.md
 * 7b, 7c). Done after the program exits, the compression adds its whole cost
 * to the time the user waits: splitting 33 MB of python3 events into
 * columns takes 0.45 s of CPU. A stream takes the packets in as the preload
 * appends them (one poll every few tens of milliseconds, on a thread of the
 * recorder, beside the program), writes every frame as soon as it is full,
 * and leaves only the last frame's compression for the end.
 *
 * The plain file only ever grows by whole packets appended (O_APPEND, one
 * write(2) each: hl-capture-trace.c), and a reader never sees bytes past the
 * file's size before they are written. A poll therefore takes every packet
 * that is complete now and leaves a packet still being written for the next
 * poll; finish takes the rest, a cut packet or damage included, verbatim as
 * hl_trace_compress_file always did. The frames are cut by the same rule
 * whatever the polls' timing, so the output does not depend on it.
 *
 * Plain C11 + libc (pthreads compress a frame's columns two at a time). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "hl-trace-codec.h"
#include "hl-trace-reader.h"

typedef struct HlTraceCompressStream HlTraceCompressStream;

/* A stream from the plain trace IN_PATH to OUT_PATH (which may be IN_PATH:
 * written aside to OUT_PATH.tmp-compress, then renamed over it at finish),
 * frames of about FRAME_RAW plain bytes (0: HL_ZFRAME_DEFAULT_RAW). Nothing
 * is read or written yet. NULL when out of memory.
 *
 * OUT_PATH NULL: a follower only (`heaplens-cli profiles`, which follows
 * the trace of a program another launcher does not own). The polls walk
 * the plain trace, opened read-only, and tell the packet function of each
 * whole packet as a compressing stream would; nothing is written, no file
 * is made, CODEC and FRAME_RAW are ignored (CODEC may be NULL), the index
 * is never made, and finish is a last poll (the bytes after the last
 * whole packet are not taken: the program may still be writing them). */
HlTraceCompressStream *hl_trace_compress_stream_new    (const char          *in_path,
                                                        const char          *out_path,
                                                        const HlTraceCodec  *codec,
                                                        size_t               frame_raw);
/* Takes in the whole packets appended to the plain trace since the last
 * poll and writes the frames that are full. 0, or -1 with ERR (the stream
 * is then of no further use: free it and compress the file whole). */
int                    hl_trace_compress_stream_poll   (HlTraceCompressStream *s,
                                                        HlFormatError         *err);
/* The plain trace is complete: takes in the rest, writes the last frame,
 * syncs and renames the output into place. 0, or -1 with ERR. */
int                    hl_trace_compress_stream_finish (HlTraceCompressStream *s,
                                                        HlFormatError         *err);
/* The first half of finish: takes in the rest and writes the last frame
 * (the packet function is told of the last packets), without the sync
 * and the rename, so that the caller can finish what it computed from
 * the packets (`record`: the saved costs) beside the sync. finish() then
 * does the rest. 0, or -1 with ERR. */
int                    hl_trace_compress_stream_finish_frames (HlTraceCompressStream *s,
                                                               HlFormatError         *err);
/* With INDEX, the compressed image ends with a trailing index
 * (docs/trace-format.md 7) of the packets taken in, put at the end of the
 * last frame by finish, unless the plain trace ends with one already: the
 * image is then the plain trace with the index
 * hl_trace_index_append_file() would append, and the plain file is left
 * as it is (the packet function never sees the index). Off by default:
 * the image is the plain file exactly. Set it before the first poll. */
void                   hl_trace_compress_stream_set_index (HlTraceCompressStream *s,
                                                           bool                   index);
/* A poll takes at most MAX_BYTES of plain packets (the first packet past
 * it ends the poll; the next poll goes on from there); 0, the default: all
 * there are. finish takes all the rest. A follower that starts on a large
 * trace catches up in steps, so that what it hands on at a time stays
 * bounded. */
void                   hl_trace_compress_stream_set_poll_limit (HlTraceCompressStream *s,
                                                                unsigned long long     max_bytes);
/* Plain bytes taken in so far (and, once finished, the index's; for
 * progress and tests). */
unsigned long long     hl_trace_compress_stream_taken  (const HlTraceCompressStream *s);
/* Told of every whole packet the stream takes in, in file order: PKT in
 * the plain trace R, the previous packet having ended at FROM
 * (PKT->offset > FROM when the walk skipped bytes: damage, another pid's
 * or an index packet). After each poll that read the file, and at finish,
 * PKT NULL and FROM where the packets taken end: at finish the bytes from
 * there to R's size are not a whole packet (they go verbatim in the last
 * frame). `record` computes the saved costs so, while the program runs
 * (hl-recording-costs-stream.h). */
typedef void (*HlTraceStreamPacketFunc) (void                *user_data,
                                         const HlTraceReader *r,
                                         const HlPacketView  *pkt,
                                         uint64_t             from);
void                   hl_trace_compress_stream_set_packet_func (HlTraceCompressStream  *s,
                                                                 HlTraceStreamPacketFunc func,
                                                                 void                   *user_data);
/* Frees S; an unfinished stream's temporary output is removed. */
void                   hl_trace_compress_stream_free   (HlTraceCompressStream *s);
