/* hl-recording-costs-packet.h — a costs-only recording saved in the trace.
 *
 * `heaplens-cli record` interprets the trace once the program has exited
 * (heaptrack's trace is likewise interpreted while it is recorded): it
 * loads it with HL_LOAD_FLAGS_AGGREGATE | HL_LOAD_FLAGS_NO_SYMBOLS and
 * appends the resulting recording (summary, module map, threads, stacks,
 * costs per stack and thread, histogram, metadata, warnings) as one COSTS
 * packet after the last ZFRAME (docs/trace-format.md section 7e). A
 * costs-only load then reads that packet instead of decoding the events,
 * when it is the file's last packet, its crc holds, the crc32c of every
 * byte before it is the one it recorded, and it was written by this
 * model's version of the cost rules (HL_COSTS_PACKET_MODEL_VERSION).
 * Anything else (no packet, a changed or cut file, another version) and
 * the events are decoded as before: the packet is a cache whose result
 * is, by construction, the one the decode gives on the same bytes.
 */
#pragma once

#include <glib.h>

#include "hl-recording.h"

G_BEGIN_DECLS

/* Bump when a cost rule or what a costs-only recording holds changes: an
 * older packet is then ignored. */
#define HL_COSTS_PACKET_MODEL_VERSION 3u /* 3: the leak scan, the allocator samples and the mappings */

/* How a payload holds the stacks' frames: INLINE (a trie of frames), or
 * BY_REFERENCE to the trace's own STACK events, which the reader then
 * decodes (it decompresses the trace, but decodes only the packets with
 * STACK events) and checks against the payload's crc of every frame. */
typedef enum
{
  HL_COSTS_STACKS_INLINE       = 0,
  HL_COSTS_STACKS_BY_REFERENCE = 1,
} HlCostsStacks;

/* The packet's layout (its header, footer and payload) is format's:
 * hl-costs-packet.h and hl-costs-payload.h. */

/* Loads the compressed trace at PATH costs-only and appends its COSTS
 * packet. FALSE with ERROR when it cannot be loaded so (no index, a
 * broken time order: reports load it in full) or written. A file already
 * ending with a valid packet is left as it is. */
gboolean     hl_costs_packet_append (const char *path,
                                     GError    **error);

/* The same in two steps, so that `record` computes the costs from the
 * plain trace while it compresses it (its image is the same bytes):
 * prepare() loads PATH (plain or compressed) costs-only and returns the
 * payload, or NULL with ERROR; write() appends it to the compressed trace
 * at PATH, which must have the image the payload was made from. */
GBytes      *hl_costs_packet_prepare (const char *path,
                                      GError    **error);
/* prepare() that stops with a G_IO_ERROR_CANCELLED error when CANCELLABLE
 * is cancelled (record's bounded finish after the program exited). */
GBytes      *hl_costs_packet_prepare_cancellable (const char    *path,
                                                  GCancellable  *cancellable,
                                                  GError       **error);
/* The payload of REC, a costs-only recording as a load leaves it before
 * symbols (loaded, or made by hl-recording-costs-stream.h), its stacks in
 * FORM; NULL with ERROR when it is too large to save. */
GBytes      *hl_costs_packet_payload (HlRecording   *rec,
                                      HlCostsStacks  form,
                                      GError       **error);
/* The bytes PAYLOAD's packet takes (compressed as write() does). */
gsize        hl_costs_packet_size    (GBytes        *payload);
gboolean     hl_costs_packet_write   (GBytes     *payload,
                                      const char *path,
                                      GError    **error);

/* The same with the packet compressed once: build() compresses PAYLOAD
 * (as size() and write() each do), and the result gives its size and is
 * appended (write_built(): as write() with PAYLOAD) without compressing
 * it again. `record` compares the sizes of both forms and writes one. */
typedef struct _HlCostsPacket HlCostsPacket;
HlCostsPacket *hl_costs_packet_build      (GBytes              *payload);
gsize          hl_costs_packet_built_size (const HlCostsPacket *packet);
gboolean       hl_costs_packet_write_built (HlCostsPacket      *packet,
                                            const char         *path,
                                            GError            **error);
void           hl_costs_packet_free       (HlCostsPacket       *packet);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HlCostsPacket, hl_costs_packet_free)

/* The costs-only recording saved in PATH's COSTS packet, before symbols
 * (modules, stacks and costs as the loader leaves them before
 * hl_recording_symbolize()), or NULL when the file has no packet that
 * matches its bytes and this model version. */
HlRecording *hl_costs_packet_load   (const char *path);

/* The recording a payload (as prepare() returns) describes, or NULL when
 * it does not read to its last byte or holds its stacks by reference
 * (load() reads those from the trace); what load() does once the packet
 * checks out; given any bytes (the fuzzer does), NULL, never a crash. */
HlRecording *hl_costs_packet_parse   (const guint8 *payload,
                                      gsize         len);

G_END_DECLS
