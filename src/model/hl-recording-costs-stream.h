/* hl-recording-costs-stream.h — the saved costs of a trace (its COSTS
 * packet, hl-recording-costs-packet.h) computed while the trace is being
 * written, so that nothing is left for after the program exits but the
 * last packets.
 *
 * `heaplens-cli record` follows the plain trace while the program runs
 * (hl-cli-record-stream.h, hl-trace-compress-stream.h) and hands every
 * whole packet, in file order, to hl_costs_stream_take(). The stream
 * applies the packet's events to a costs-only recording exactly as a
 * costs-only load does (hl-recording-events.c, the same calls in the same
 * order), so the recording it gives has the payload
 * (hl_costs_packet_payload()) hl_costs_packet_prepare() would make from
 * the finished file, byte for byte.
 *
 * The one thing a load knows that a stream does not is which packets are
 * still to come: the heap curve (peak, each stack's share of it) is built
 * in (time, sequence) order, and a load releases a point once the packet
 * index says no later packet can hold an earlier one. A stream releases
 * the points up to a watermark instead: every thread writes its packets
 * in time order, so no packet to come holds an event earlier than the
 * least, over the threads not known to have exited, of their last packet's
 * end. A thread whose first packet has not come yet (it holds its events
 * in its buffer) may break that; so may a wait longer than
 * HL_COSTS_STREAM_KEEP points allow (then the earliest are released
 * anyway). A point then arrives before one already released, the
 * aggregate sees it (hl_aggregate_order_broken()), and finish() gives no
 * recording: the caller computes it from the file or saves none. Anything
 * else a load would warn about (bytes between packets, a bad crc, another
 * pid's packet, malformed events, a cut last packet) gives none too.
 */
#pragma once

#include <glib.h>

#include "hl-profile-writer.h"
#include "hl-recording.h"
#include "hl-trace-reader.h"

G_BEGIN_DECLS

/* Points that may wait for the watermark (40 bytes each): past it the
 * earliest are released anyway. 2^20 made a poll that took in 8 MiB of
 * churn's trace (a busy machine, the follower late) hold 40 MB of points,
 * 80 while their queue grew: record's RSS 175 MB against 114 with 2^17
 * (bench/costs-stream, 8 MiB pieces). */
#define HL_COSTS_STREAM_KEEP (1u << 17)

typedef struct _HlCostsStream HlCostsStream;

HlCostsStream *hl_costs_stream_new    (void);
void           hl_costs_stream_free   (HlCostsStream *self);

/* The packet PKT of the plain trace READER, taken in by a follower whose
 * previous packet ended at FROM (PKT->offset > FROM: the bytes between
 * were not a packet of the trace). PKT NULL: the end of a poll, the
 * packets taken so far end at FROM (the points the watermark allows are
 * released now); the bytes after FROM must be gone by the last poll. The
 * signature of HlTraceStreamPacketFunc (hl-trace-compress-stream.h). */
void           hl_costs_stream_take   (void               *self,
                                       const HlTraceReader *reader,
                                       const HlPacketView  *pkt,
                                       guint64              from);

/* Every packet was taken: the costs-only recording, committed, before
 * symbols (what a costs-only load with HL_LOAD_FLAGS_NO_SYMBOLS gives),
 * or NULL with ERROR (the trace is not one the stream could follow
 * exactly: see above). */
HlRecording   *hl_costs_stream_finish (HlCostsStream *self,
                                       GError       **error);

/* The program has exited: the packets queued are applied from now on by
 * a thread of the caller's priority (the stream's own runs at the nice
 * value of set_nice(), which an unprivileged thread cannot lower again),
 * beside whatever the caller does until finish(). The same packets in the
 * same order: the recording does not change. May be called from any
 * thread, at any time before finish(); later calls do nothing. */
void           hl_costs_stream_hurry  (HlCostsStream *self);

/* Continuous heap profiles (hl-profile-writer.h): the stream's thread
 * writes WRITER's profiles when they are due, between two polls' packets
 * (it waits for the next poll's no longer than that), and a last one at
 * finish() once every packet was applied. Takes WRITER; before the first
 * take(). A profile not written is said on stderr (the first failure). */
void           hl_costs_stream_set_profiler (HlCostsStream   *self,
                                             HlProfileWriter *writer);
/* Profiles written so far. */
guint64        hl_costs_stream_n_profiles   (const HlCostsStream *self);

/* At most KEEP points wait for the watermark (HL_COSTS_STREAM_KEEP):
 * tests make it small to see a release too early caught. */
void           hl_costs_stream_set_keep (HlCostsStream *self,
                                         guint64        keep);

/* Whether allocations and frees by id take the short path (the default);
 * without it every event goes through hl_trace_apply_event(), as a load
 * does: the tests compare the two. */
void           hl_costs_stream_set_short_path (HlCostsStream *self,
                                               gboolean       short_path);

/* After hl_costs_stream_finish(): the CPU time its threads took applying
 * the packets, and the bytes of packets they applied (for benchmarks). */
void           hl_costs_stream_applied (const HlCostsStream *self,
                                        guint64             *cpu_ns,
                                        guint64             *bytes);

/* The lag allowed (the CPU time the packets queued and not applied yet
 * would take the stream's thread, at its pace so far): RUNNING_NS at the
 * end of a poll (default 5 s), FINISH_NS when finish() is called (the
 * program has exited: 10 s). Past it the stream gives up (finish() says
 * so, and hl_costs_stream_lagged() is TRUE). G_MAXUINT64: never. */
void           hl_costs_stream_set_max_lag (HlCostsStream *self,
                                            guint64        running_ns,
                                            guint64        finish_ns);

/* The nice value of the stream's thread (Linux: per thread), set when it
 * starts: the recorder lowers it so that the program goes first. */
void           hl_costs_stream_set_nice (HlCostsStream *self,
                                         int            nice);

/* Tests: the pace the lag is computed with, in ns of CPU per KiB of trace,
 * instead of the thread's measured one. */
void           hl_costs_stream_set_pace (HlCostsStream *self,
                                         guint64        ns_per_kib);

/* Whether the stream has given up so far (then finish() says why); whether it gave up for
 * its lag, and the largest lag it saw at a poll's end or at finish(). */
gboolean       hl_costs_stream_failed  (const HlCostsStream *self);
gboolean       hl_costs_stream_lagged  (const HlCostsStream *self);
guint64        hl_costs_stream_worst_lag (const HlCostsStream *self);
/* Trace bytes queued and not applied yet (HEAPLENS_DEBUG=timing). */
guint64        hl_costs_stream_queued  (const HlCostsStream *self);
/* Why it gave up for its lag ("the costs thread fell 1.20 s behind ..."),
 * NULL when it did not. */
const char    *hl_costs_stream_lag_reason (const HlCostsStream *self);

G_END_DECLS
