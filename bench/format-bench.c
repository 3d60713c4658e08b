/* format-bench.c — what the trace format costs (not a test):
 *   - write: ns per event for the packet writer (encode + crc, no write(2)),
 *   - size: bytes per event,
 *   - decode: events per second for the reader (walk + crc + cursor), on
 *     one core, symbols not resolved.
 * The stream imitates bench/churn.c: allocations from ~1000 call paths with
 * a ring of 256 live blocks, so every free refers to the allocation 256
 * before it.
 *
 *   format-bench [N_EVENTS [OUT.hltrace]]   (default 20,000,000; OUT keeps the trace) */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hl-trace-reader.h"
#include "hl-trace-writer.h"

#define RING 256

static uint64_t
now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static uint32_t seed = 1;

static inline uint32_t
rnd (void)
{
  seed = seed * 1103515245u + 12345u;
  return seed >> 8;
}

typedef struct
{
  uint8_t *data;
  size_t   size, cap;
} Out;

static uint64_t discarded;

static void
emit (Out *o, const void *p, size_t n)
{
  if (o == NULL)
    {
      discarded += n; /* timing run: the packet is ready, nothing is kept */
      return;
    }
  if (o->size + n > o->cap)
    {
      o->cap = o->cap ? o->cap * 2 : 1 << 24;
      o->data = realloc (o->data, o->cap);
    }
  memcpy (o->data + o->size, p, n);
  o->size += n;
}

static uint64_t
write_stream (HlPacketWriter *w, uint8_t *buf, Out *out, uint64_t n_pairs, const uint32_t *sizes,
              const uint32_t *stacks, const uint64_t *addrs, const uint16_t *dts)
{
  uint64_t frames[24];
  for (int i = 0; i < 24; i++)
    frames[i] = 0x555555555000ull + (uint64_t) i * 0x40;
  hl_packet_writer_init (w, buf, HL_PACKET_MAX_SIZE, 1, 1);
  hl_packet_writer_begin (w, 0);
  uint64_t t = 0, id = 1, n_written = 0;
  bool defined[1001] = { false };
  for (uint64_t i = 0; i < n_pairs; i++)
    {
      t += dts[i];
      if (!defined[stacks[i]])
        {
          defined[stacks[i]] = true;
          frames[0] = 0x555555556000ull + stacks[i] * 8;
          while (hl_packet_writer_stack (w, t, stacks[i], 0, frames, 5 + stacks[i] % 20) == HL_WRITE_FULL)
            {
              size_t n = hl_packet_writer_finish (w);
              emit (out, buf, n);
              hl_packet_writer_begin (w, t);
            }
        }
      if (i >= RING)
        while (hl_packet_writer_free (w, t, id - RING) == HL_WRITE_FULL)
          {
            size_t n = hl_packet_writer_finish (w);
            emit (out, buf, n);
            hl_packet_writer_begin (w, t);
          }
      t += dts[i] / 2;
      while (hl_packet_writer_alloc (w, t, id, sizes[i], 0, stacks[i], addrs[i]) == HL_WRITE_FULL)
        {
          size_t n = hl_packet_writer_finish (w);
          emit (out, buf, n);
          hl_packet_writer_begin (w, t);
        }
      id++;
      n_written += i >= RING ? 2 : 1;
    }
  emit (out, buf, hl_packet_writer_finish (w));
  return n_written;
}

int
main (int argc, char **argv)
{
  uint64_t n_events = argc > 1 ? strtoull (argv[1], NULL, 10) : 20000000u;
  static uint8_t buf[HL_PACKET_MAX_SIZE];
  HlPacketWriter *w = malloc (sizeof *w);
  Out out = { 0 };
  HlTraceFileHeader fh;
  hl_trace_file_header_init (&fh, 1, 0, 0, 0);
  emit (&out, &fh, sizeof fh);

  /* Pre-generate the inputs so that only the writer is timed. */
  uint64_t n_pairs = n_events / 2;
  uint32_t *sizes = malloc (n_pairs * sizeof *sizes);
  uint32_t *stacks = malloc (n_pairs * sizeof *stacks);
  uint64_t *addrs = malloc (n_pairs * sizeof *addrs);
  uint16_t *dts = malloc (n_pairs * sizeof *dts);
  uint64_t ring_addr[RING];
  for (int i = 0; i < RING; i++)
    ring_addr[i] = 0x555555560000ull + (uint64_t) i * 1024;
  for (uint64_t i = 0; i < n_pairs; i++)
    {
      sizes[i] = (rnd () & 1) ? 16 + rnd () % 512 : 32 + rnd () % 128;
      stacks[i] = 1 + ((5 + rnd () % 21) * 64 + rnd () % 64) % 1000;
      /* glibc hands back a recently freed chunk of a similar size */
      uint64_t a = ring_addr[rnd () % RING] + ((rnd () % 4) * 16);
      ring_addr[i % RING] = a;
      addrs[i] = a;
      dts[i] = (uint16_t) (60 + rnd () % 200);
    }
  /* Best of 3 timing runs that keep nothing, then one run that keeps the trace. */
  uint64_t best_write = UINT64_MAX, n_written = 0;
  for (int rep = 0; rep < 4; rep++)
    {
      Out *dest = rep < 3 ? NULL : &out;
      uint64_t t0 = now_ns ();
      n_written = write_stream (w, buf, dest, n_pairs, sizes, stacks, addrs, dts);
      uint64_t t1 = now_ns ();
      if (rep < 3 && t1 - t0 < best_write)
        best_write = t1 - t0;
    }
  double write_ns = (double) best_write / (double) n_written;
  printf ("events written:   %llu (%llu allocations, %llu frees)\n", (unsigned long long) n_written,
          (unsigned long long) n_pairs, (unsigned long long) (n_written - n_pairs));
  printf ("write cost:       %.2f ns/event (encode + crc32c, no write(2); best of 3)\n", write_ns);
  printf ("trace size:       %zu bytes, %.2f bytes/event\n", out.size, (double) out.size / (double) n_written);
  if (argc > 2)
    {
      FILE *f = fopen (argv[2], "wb");
      if (f == NULL || fwrite (out.data, 1, out.size, f) != out.size || fclose (f) != 0)
        fprintf (stderr, "format-bench: cannot write %s\n", argv[2]);
    }

  /* Decode: walk with crc checks, every event through the cursor */
  HlTraceReader *r;
  HlFormatError err;
  HlEventCursor *c = malloc (sizeof *c);
  uint64_t best = UINT64_MAX, n_read = 0, checksum = 0;
  for (int rep = 0; rep < 3; rep++)
    {
      uint64_t d0 = now_ns ();
      hl_trace_reader_open_memory (out.data, out.size, &r, &err);
      HlPacketView pkt;
      HlEvent ev;
      n_read = 0;
      while (hl_trace_reader_next_packet (r, &pkt, &err) > 0)
        {
          hl_event_cursor_init (c, &pkt);
          while (hl_event_cursor_next (c, &ev, &err) > 0)
            {
              n_read++;
              checksum += ev.type == HL_EVENT_ALLOC ? ev.u.alloc.size : ev.u.free.id;
            }
        }
      hl_trace_reader_free (r);
      uint64_t d1 = now_ns ();
      if (d1 - d0 < best)
        best = d1 - d0;
    }
  printf ("decode:           %.1f M events/s (best of 3; %llu events, checksum %llu)\n",
          (double) n_read / ((double) best / 1e9) / 1e6, (unsigned long long) n_read,
          (unsigned long long) (checksum & 0xffff));
  free (c);
  free (w);
  free (out.data);
  free (sizes);
  free (stacks);
  free (addrs);
  free (dts);
  return n_read >= n_written ? 0 : 1;
}
