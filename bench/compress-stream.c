/* compress-stream.c — what `record` leaves for after the program's exit
 * (not a test): copies a plain trace into a growing file in pieces of
 * PIECE bytes, polling an HlTraceCompressStream after each (as the
 * recorder's thread does while the program runs), then finishes it (what
 * is left once the program has exited). Prints the CPU seconds of the
 * polls and of the finish, and the compressed size. With a stream that
 * keeps up with the program, the finish is the wait after the exit.
 *
 *   compress-stream PLAIN.hltrace OUT.hltrace [PIECE [LEVEL]]
 *   (piece 1 MiB, zstd level 9 as `record`) */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "bench-cpu.h"
#include "hl-trace-compress-stream.h"
#include "hl-trace-zstd.h"

int
main (int argc, char **argv)
{
  if (argc < 3)
    {
      fprintf (stderr, "usage: compress-stream PLAIN.hltrace OUT.hltrace [PIECE [LEVEL]]\n");
      return 2;
    }
  size_t piece = argc > 3 ? strtoull (argv[3], NULL, 10) : (size_t) 1 << 20;
  int level = argc > 4 ? atoi (argv[4]) : 9;
  FILE *in = fopen (argv[1], "rb");
  FILE *out = fopen (argv[2], "wb");
  if (in == NULL || out == NULL || piece == 0)
    {
      fprintf (stderr, "compress-stream: cannot open %s or %s\n", argv[1], argv[2]);
      return 1;
    }
  HlTraceCompressStream *s = hl_trace_compress_stream_new (argv[2], argv[2], hl_trace_codec_zstd (level), 0);
  char *buf = malloc (piece);
  if (s == NULL || buf == NULL)
    return 1;
  HlFormatError err;
  double polls = 0;
  size_t got;
  while ((got = fread (buf, 1, piece, in)) > 0)
    {
      if (fwrite (buf, 1, got, out) != got || fflush (out) != 0)
        return 1;
      double t0 = bench_cpu_seconds ();
      if (hl_trace_compress_stream_poll (s, &err) != 0)
        {
          fprintf (stderr, "compress-stream: %s\n", err.message);
          return 1;
        }
      polls += bench_cpu_seconds () - t0;
    }
  fclose (in);
  fclose (out);
  double t0 = bench_cpu_seconds ();
  if (hl_trace_compress_stream_finish (s, &err) != 0)
    {
      fprintf (stderr, "compress-stream: %s\n", err.message);
      return 1;
    }
  double finish = bench_cpu_seconds () - t0;
  hl_trace_compress_stream_free (s);
  struct stat st;
  printf ("polls %.3f s CPU, finish %.3f s CPU, %lld bytes\n", polls, finish,
          stat (argv[2], &st) == 0 ? (long long) st.st_size : -1LL);
  free (buf);
  return 0;
}
