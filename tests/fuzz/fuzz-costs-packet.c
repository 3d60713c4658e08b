/* fuzz-costs-packet.c — libFuzzer target: any bytes as a saved-costs
 * payload (docs/trace-format.md 7e: the trie of frames, stacks by
 * reference, every count bounded), first through format's decoder
 * directly (hl_costs_payload_decode, then encoded again and decoded back),
 * then through the model (hl_costs_packet_parse); and, when they start
 * with a trace file header, as a whole compressed trace whose COSTS packet
 * is found, checked and read: by format (hl_costs_packet_find, _unpack)
 * and by the model (hl_costs_packet_load: the covered crc, the stacks by
 * reference filled from the trace's STACK events). A recording that loads
 * is committed and its costs read: never a crash, never a huge
 * allocation. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <stdlib.h>

#include "hl-analysis.h"
#include "hl-costs-packet.h"
#include "hl-recording-costs-packet.h"
#include "hl-trace-format.h"
#ifdef HL_HAVE_ZSTD
#include "hl-trace-zstd.h"
#endif

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void
use (HlRecording *rec)
{
  HlAnalysis *a;
  HlCosts totals;

  if (rec == NULL)
    return;
  a = hl_analysis_new (rec, NULL);
  hl_analysis_get_totals (a, &totals);
  for (guint s = 0; s <= hl_recording_get_n_stacks (rec) && s < 64; s++)
    hl_analysis_get_stack_costs (a, s, &totals);
  g_object_unref (a);
  g_object_unref (rec);
}

/* Format's decoder alone: what it accepts encodes (the form inline needs
 * the frames, which a decode by reference does not give) and decodes
 * again to the same counts. */
static void
decode (const uint8_t *data, size_t size)
{
  HlCostsPayload p, q;
  HlCostsBuffer b = { 0 };
  HlFormatError err;

  if (hl_costs_payload_decode (data, size, &p, &err) != 0)
    {
      if (err.offset > size || err.message[0] == '\0')
        abort ();
      return;
    }
  if (p.form == HL_COSTS_FORM_INLINE)
    {
      if (hl_costs_payload_encode (&p, &b) != 0 || hl_costs_payload_decode (b.data, b.len, &q, &err) != 0)
        abort ();
      if (q.n_stacks != p.n_stacks || q.n_frames != p.n_frames || q.n_threads != p.n_threads ||
          q.n_pairs != p.n_pairs || q.n_stack_ids != p.n_stack_ids)
        abort ();
      hl_costs_payload_clear (&q);
      hl_costs_buffer_clear (&b);
    }
  hl_costs_payload_clear (&p);
}

/* Format's packet finder and unpacker, then the payload's decoder. */
static void
find (const uint8_t *data, size_t size)
{
  HlCostsPacketView v;
  HlFormatError err;
  uint8_t *payload;

  if (hl_costs_packet_find (data, size, HL_COSTS_PACKET_MODEL_VERSION, &v, &err) != 0)
    return;
  if (v.offset >= size || v.stored + v.stored_size > data + size || v.raw_size > HL_COSTS_PAYLOAD_MAX)
    abort ();
  const HlTraceCodec *codec = NULL;
#ifdef HL_HAVE_ZSTD
  codec = hl_trace_codec_zstd (0);
#endif
  payload = malloc (v.raw_size);
  if (payload != NULL && hl_costs_packet_unpack (&v, codec, payload, &err) == 0)
    decode (payload, v.raw_size);
  free (payload);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  decode (data, size);
  use (hl_costs_packet_parse (data, size));
  if (size >= HL_TRACE_FILE_HEADER_SIZE && memcmp (data, HL_TRACE_MAGIC, HL_TRACE_MAGIC_SIZE) == 0)
    {
      find (data, size);
      int fd = memfd_create ("hl-fuzz-costs", MFD_CLOEXEC);
      char path[64];

      if (fd < 0)
        return 0;
      if (write (fd, data, size) == (ssize_t) size)
        {
          snprintf (path, sizeof path, "/proc/self/fd/%d", fd);
          use (hl_costs_packet_load (path));
        }
      close (fd);
    }
  return 0;
}
