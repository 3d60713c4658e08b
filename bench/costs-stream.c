/* costs-stream.c — what following a trace's costs costs `record` (not a
 * test): copies a plain trace into a growing file in pieces of PIECE
 * bytes, polling an HlTraceCompressStream after each with an
 * HlCostsStream attached (as the recorder's thread does while the
 * program runs), then finishes both. Prints the process's CPU seconds
 * with the costs followed and, for the same pieces, without (the
 * difference is the costs thread's work), and whether the costs came out.
 *
 *   costs-stream PLAIN.hltrace OUT.hltrace [PIECE]   (piece 1 MiB)
 *
 * Environment: HL_BENCH_NO_GIVE_UP=1 follows whatever the lag
 * (its CPU per event is measured all the same);
 * HL_BENCH_PAYLOAD=FILE writes the saved costs' payload (both forms, inline
 * then by reference) there, to compare two builds byte for byte;
 * HL_BENCH_ONLY_COSTS=1 skips the run without costs (for callgrind). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include "bench-cpu.h"
#include "hl-recording-costs-packet.h"
#include "hl-recording-costs-stream.h"
#include "hl-trace-compress-stream.h"
#include "hl-trace-zstd.h"

/* Both payloads of REC, one after the other, into PATH. */
static void
write_payload (HlRecording *rec,
               const char  *path)
{
  FILE *f = fopen (path, "wb");
  GError *error = NULL;

  for (int form = 0; form < 2 && f != NULL; form++)
    {
      GBytes *payload = hl_costs_packet_payload (rec, form ? HL_COSTS_STACKS_BY_REFERENCE : HL_COSTS_STACKS_INLINE,
                                                 &error);
      gsize n = 0;
      const void *data = payload != NULL ? g_bytes_get_data (payload, &n) : NULL;

      if (payload == NULL)
        {
          fprintf (stderr, "costs-stream: %s\n", error->message);
          g_clear_error (&error);
          continue;
        }
      if (fwrite (data, 1, n, f) != n)
        exit (1);
      g_bytes_unref (payload);
    }
  if (f == NULL || fclose (f) != 0)
    exit (1);
}

/* The costs threads' own CPU time and the bytes they applied. */
static guint64 applied_ns, applied_bytes;

/* One run: the CPU seconds it took; *FOLLOWED whether costs came out. */
static double
run (const char *plain,
     const char *out_path,
     size_t      piece,
     int         with_costs,
     int        *followed)
{
  FILE *in = fopen (plain, "rb");
  FILE *out = fopen (out_path, "wb");
  char *buf = malloc (piece);
  double t0 = bench_cpu_seconds ();
  HlFormatError err;
  size_t got;

  if (in == NULL || out == NULL || buf == NULL)
    exit (1);
  HlTraceCompressStream *s = hl_trace_compress_stream_new (out_path, out_path, hl_trace_codec_zstd (9), 0);
  HlCostsStream *costs = with_costs ? hl_costs_stream_new () : NULL;
  if (s == NULL)
    exit (1);
  if (costs != NULL && getenv ("HL_BENCH_NO_GIVE_UP") != NULL)
    hl_costs_stream_set_max_lag (costs, G_MAXUINT64 / 2, G_MAXUINT64 / 2);
  if (costs != NULL)
    hl_trace_compress_stream_set_packet_func (s, hl_costs_stream_take, costs);
  while ((got = fread (buf, 1, piece, in)) > 0)
    {
      if (fwrite (buf, 1, got, out) != got || fflush (out) != 0 || hl_trace_compress_stream_poll (s, &err) != 0)
        exit (1);
    }
  fclose (in);
  fclose (out);
  if (hl_trace_compress_stream_finish (s, &err) != 0)
    {
      fprintf (stderr, "costs-stream: %s\n", err.message);
      exit (1);
    }
  hl_trace_compress_stream_free (s);
  *followed = 0;
  if (costs != NULL)
    {
      GError *error = NULL;
      HlRecording *rec = hl_costs_stream_finish (costs, &error);
      *followed = rec != NULL;
      hl_costs_stream_applied (costs, &applied_ns, &applied_bytes);
      if (rec != NULL && getenv ("HL_BENCH_PAYLOAD") != NULL)
        {
          /* not the stream's work: left out of the time */
          double p0 = bench_cpu_seconds ();
          write_payload (rec, getenv ("HL_BENCH_PAYLOAD"));
          t0 += bench_cpu_seconds () - p0;
        }
      if (error != NULL)
        fprintf (stderr, "costs-stream: %s\n", error->message);
      g_clear_error (&error);
      g_clear_object (&rec);
      hl_costs_stream_free (costs);
    }
  free (buf);
  return bench_cpu_seconds () - t0;
}

int
main (int argc, char **argv)
{
  if (argc < 3)
    {
      fprintf (stderr, "usage: costs-stream PLAIN.hltrace OUT.hltrace [PIECE]\n");
      return 2;
    }
  size_t piece = argc > 3 ? strtoull (argv[3], NULL, 10) : (size_t) 1 << 20;
  int followed, unused;
  double with = run (argv[1], argv[2], piece, 1, &followed);
  double without = getenv ("HL_BENCH_ONLY_COSTS") != NULL ? 0 : run (argv[1], argv[2], piece, 0, &unused);
  printf ("with costs %.3f s CPU, without %.3f s CPU, costs %.3f s; followed: %s; costs thread %.3f s CPU, "
          "%.1f ns a KiB of trace\n", with, without, with - without, followed ? "yes" : "no", (double) applied_ns / 1e9,
          applied_bytes > 0 ? (double) applied_ns * 1024 / (double) applied_bytes : 0.0);
  return 0;
}
