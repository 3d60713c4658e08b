/* hl-trace-codec.h — compressed traces, through caller-supplied codecs.
 *
 * The preload writes plain packets. Once the program has exited,
 * `heaplens-cli record` may rewrite the trace compressed: the file header
 * gets HL_TRACE_FLAG_COMPRESSED and everything after it becomes ZFRAME
 * packets, each the compression of a run of whole packets (about
 * HL_ZFRAME_DEFAULT_RAW bytes). Decompressing the frames in order gives the
 * original bytes back exactly, so offsets (the trailing index included)
 * mean the same in both forms. Whole-run compression sees far more
 * repetition than packet-by-packet compression could, and costs the
 * profiled program nothing.
 *
 * src/format stays libc-only: the compression library comes in through an
 * HlTraceCodec. hl-trace-zstd.h provides one for libzstd (hl_format_zstd_dep,
 * for the model and the CLI). A reader opened without a codec refuses a
 * compressed file with HL_FORMAT_ERROR_UNSUPPORTED.
 *
 * ZFRAME packet (kind HL_PACKET_KIND_ZFRAME): the usual 64-byte header
 * (tid 0; times, ids, n_events and flags summarise the packets inside;
 * crc32c over the whole packet), content = codec:u32 raw_size:u32
 * compressed bytes. raw_size <= HL_ZFRAME_MAX_RAW; content_size <=
 * HL_ZFRAME_MAX_CONTENT. A damaged frame is skipped (its packets are lost
 * and counted); a cut last frame is ignored like a cut packet.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>


#define HL_CODEC_ZSTD          1u
/* Frames of format 3.0: the run of packets split into columns
 * (hl-trace-columns.h), each compressed with zstd on its own. Written by
 * hl_trace_compress_file with the zstd codec, read with it. */
#define HL_CODEC_ZSTD_COLUMNS  2u
/* Frames of format 4.0: columns with the allocator and call-sequence model
 * of hl-trace-model.h (docs/trace-format.md 7d). Written by format 4.0. */
#define HL_CODEC_ZSTD_MODEL    3u
/* Frames of format 5.0: model frames whose model also predicts which
 * allocation a free refers to (free cursors, column fid). */
#define HL_CODEC_ZSTD_MODEL5   4u
/* Frames of format 6.0: codec 4 whose model writes an unpredicted address
 * as its difference to the class's last allocated address
 * (HL_MTOK_ADDR_LAST). What hl_trace_compress_file writes with the zstd
 * codec. */
#define HL_CODEC_ZSTD_MODEL6   5u
#define HL_ZFRAME_HEADER_SIZE  8u                    /* codec + raw_size */
#define HL_ZFRAME_MAX_RAW      (64u * 1024u * 1024u)
#define HL_ZFRAME_MAX_CONTENT  (HL_ZFRAME_MAX_RAW + HL_ZFRAME_MAX_RAW / 64u + 4096u)
/* Independent frames of 16 MiB: a cut keeps every whole frame before it
 * and a damaged frame loses itself only, for +4.9 % on python3's trace
 * (0 on churn's) against one frame of the whole run; 8 MiB cost +10.6 %,
 * a dictionary or the previous frame as a zstd prefix did not pay for the
 * dependence (bench/results/frames-20261202-0730.md). */
#define HL_ZFRAME_DEFAULT_RAW  (16u * 1024u * 1024u)
#define HL_TRACE_MAX_IMAGE     ((uint64_t) 16 << 30) /* a reader refuses traces decompressing to more */

/* Efforts of HlTraceCodec.stream_new: FAST for columns that compress
 * little anyway (high-entropy stacks), ORDINARY as compress, STRONG as
 * compress_strong. */
#define HL_CODEC_STREAM_FAST     0
#define HL_CODEC_STREAM_ORDINARY 1
#define HL_CODEC_STREAM_STRONG   2
#define HL_CODEC_STREAM_STRONG_LIGHT 3 /* the strong pass, cheaper (a codec may treat it as STRONG) */

typedef struct HlTraceCodec
{
  uint32_t id;   /* HL_CODEC_* written into each frame */
  void    *user;
  /* Largest output of compress for N input bytes. */
  size_t (*compress_bound) (void *user, size_t n);
  /* Compressed size written to DST, or 0 on failure. */
  size_t (*compress)       (void *user, const void *src, size_t n, void *dst, size_t cap);
  /* Bytes written to DST (at most CAP), or 0 on failure or damaged input. */
  size_t (*decompress)     (void *user, const void *src, size_t n, void *dst, size_t cap);
  /* Optional (NULL: none): a slower, stronger compression, which
   * hl_trace_compress_file tries on the columns where it pays (small,
   * very compressible ones); the same output format. */
  size_t (*compress_strong) (void *user, const void *src, size_t n, void *dst, size_t cap);
  /* Optional (all three NULL: none): the compression of one growing
   * buffer, done as it grows (hl_trace_compress_stream compresses a
   * frame's large columns while the program still runs). stream_new: a
   * stream of the effort HL_CODEC_STREAM_* (fast, ordinary or strong),
   * NULL when out of memory. stream_feed: SRC is the same address at every call of
   * a stream and holds the bytes of the earlier calls unchanged, N (the
   * bytes there now) only grows; compresses what it can and appends the
   * output to *OUT (LEN bytes used of CAP, grown with realloc); with END,
   * all of it, closing the stream. 0, or -1 on failure. The output must
   * not depend on how N grew between the calls (the decompress of the
   * whole output gives SRC[0..N) back). */
  void  *(*stream_new)  (void *user, int effort);
  int    (*stream_feed) (void *stream, const void *src, size_t n, int end, uint8_t **out, size_t *len,
                         size_t *cap);
  void   (*stream_free) (void *stream);
} HlTraceCodec;

