/* loader-traces.c — the traces the loader tests write and load
 * (loader-traces.h): built with the format's packet writer. */
#include "loader-traces.h"

#include "hl-trace-writer.h"

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

typedef struct
{
  GByteArray    *bytes;
  HlPacketWriter w;
  guint8         buf[HL_PACKET_MAX_SIZE];
} TraceBuilder;

static void
tb_begin (TraceBuilder *tb,
          guint32       tid,
          guint64       time_ns)
{
  hl_packet_writer_init (&tb->w, tb->buf, sizeof tb->buf, 4242, tid);
  hl_packet_writer_begin (&tb->w, time_ns);
}

static void
tb_end (TraceBuilder *tb)
{
  size_t n = hl_packet_writer_finish (&tb->w);
  g_assert_cmpuint (n, >, 0);
  g_byte_array_append (tb->bytes, tb->buf, n);
}

/* The stream of test-costs.c, in three threads' packets. */
GByteArray *
build_trace (void)
{
  TraceBuilder *tb = g_new0 (TraceBuilder, 1);
  HlTraceFileHeader hdr;
  const guint64 s1[] = { 0x1000, 0x2000, 0x3000 };
  const guint64 s2[] = { 0x1100, 0x2000, 0x3000 };
  const guint64 s3[] = { 0x1200, 0x3000 };
  const char *keys[] = { "exe" }, *values[] = { "/usr/bin/demo" };
  GByteArray *out;

  tb->bytes = g_byte_array_new ();
  hl_trace_file_header_init (&hdr, 4242, 1, 1, 0);
  g_byte_array_append (tb->bytes, (const guint8 *) &hdr, sizeof hdr);

  hl_packet_writer_init (&tb->w, tb->buf, sizeof tb->buf, 4242, 100);
  g_byte_array_append (tb->bytes, tb->buf, hl_packet_writer_info (&tb->w, 0, keys, values, 1));

  tb_begin (tb, 100, 0);
  g_assert_cmpint (hl_packet_writer_stack (&tb->w, 0, 1, 0, s1, 3), ==, HL_WRITE_OK);
  g_assert_cmpint (hl_packet_writer_stack (&tb->w, 0, 2, 0, s2, 3), ==, HL_WRITE_OK);
  g_assert_cmpint (hl_packet_writer_stack (&tb->w, 0, 3, 0, s3, 2), ==, HL_WRITE_OK);
  hl_packet_writer_meta_string (&tb->w, 0, "phase", "load");
  hl_packet_writer_alloc (&tb->w, 10, 0, 100, 0, 1, 0xa0);
  hl_packet_writer_free (&tb->w, 20, 0);
  hl_packet_writer_alloc (&tb->w, 30, 1, 200, 0, 2, 0xa1);
  hl_packet_writer_alloc (&tb->w, 40, 2, 50, 0, 3, 0xa2);
  hl_packet_writer_free (&tb->w, 50, 1);
  hl_packet_writer_meta_int (&tb->w, 55, "phase", 2);
  tb_end (tb);

  tb_begin (tb, 200, 60);
  hl_packet_writer_thread (&tb->w, 60, 200, HL_THREAD_FLAG_START | HL_THREAD_FLAG_NAME, "worker");
  hl_packet_writer_alloc (&tb->w, 60, 3, 1000, 0, 1, 0xa3);
  tb_end (tb);

  tb_begin (tb, 100, 70);
  hl_packet_writer_alloc (&tb->w, 70, 4, 10, 0, 2, 0xa4);
  tb_end (tb);

  tb_begin (tb, 200, 80);
  hl_packet_writer_free (&tb->w, 80, 3);
  hl_packet_writer_alloc (&tb->w, 90, 5, 5, 0, 3, 0xa5);
  hl_packet_writer_end (&tb->w, 95, 0);
  tb_end (tb);

  out = tb->bytes;
  g_free (tb);
  return out;
}

GFile *
write_temp (const guint8 *data,
            gsize         len)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;
  int fd = g_file_open_tmp ("hl-test-XXXXXX.hltrace", &path, &error);

  g_assert_no_error (error);
  close (fd);
  g_file_set_contents (path, (const char *) data, len, &error);
  g_assert_no_error (error);
  return g_file_new_for_path (path);
}


GByteArray *
build_big_trace (void)
{
  TraceBuilder *tb = g_new0 (TraceBuilder, 1);
  HlTraceFileHeader hdr;
  const guint64 s1[] = { 0x1000, 0x2000 }, s2[] = { 0x1100, 0x2000 };
  GByteArray *out;
  guint64 id = 0;

  tb->bytes = g_byte_array_new ();
  hl_trace_file_header_init (&hdr, 4242, 1, 1, 0);
  g_byte_array_append (tb->bytes, (const guint8 *) &hdr, sizeof hdr);
  for (guint p = 0; p < 100; p++)
    {
      guint32 tid = 100 + p % 2;
      guint64 t = p * 10000;
      tb_begin (tb, tid, t);
      if (p < 2)
        hl_packet_writer_stack (&tb->w, t, tid == 100 ? 1 : 2, 0, tid == 100 ? s1 : s2, 2);
      for (guint i = 0; i < 1000; i++, id++)
        {
          g_assert_cmpint (hl_packet_writer_alloc (&tb->w, t + i * 5, id, 8 + (id % 100), 0,
                                                   tid == 100 ? 1 : 2, 0x100000 + id * 16), ==, HL_WRITE_OK);
          if (i % 3 != 0)
            g_assert_cmpint (hl_packet_writer_free (&tb->w, t + i * 5 + 2, id), ==, HL_WRITE_OK);
        }
      tb_end (tb);
    }
  out = tb->bytes;
  g_free (tb);
  return out;
}

static gint
compare_u64_pairs (gconstpointer a,
                   gconstpointer b)
{
  const guint64 *x = a, *y = b;
  if (x[0] != y[0])
    return x[0] < y[0] ? -1 : 1;
  return x[1] < y[1] ? -1 : x[1] > y[1];
}

typedef struct
{
  guint64 time_ns;
  guint8  kind;      /* 0 alloc, 1 free by id, 2 free by address, 3 realloc */
  guint64 id, old_id, size, address;
  guint32 stack;
} SimEvent;

/* EVENTS[k] (thread 100 + k's) written in packets of 1 to 40 events,
 * the packets in the order of their last time. */
static void
emit_packets (TraceBuilder *tb,
              GRand        *rand,
              GArray      **events)
{
  g_autoptr (GArray) packets = g_array_new (FALSE, FALSE, sizeof (guint64[4]));

  /* Packets: (last time, thread, first event, end event), by last time. */
  for (guint k = 0; k < 4; k++)
    for (guint i = 0; i < events[k]->len;)
      {
        guint want = (guint) g_rand_int_range (rand, 1, 41);
        guint n = MIN (want, events[k]->len - i);
        guint64 p[4] = { g_array_index (events[k], SimEvent, i + n - 1).time_ns, k, i, i + n };
        g_array_append_val (packets, p);
        i += n;
      }
  g_array_sort (packets, (GCompareFunc) compare_u64_pairs);
  for (guint p = 0; p < packets->len; p++)
    {
      const guint64 *pk = &g_array_index (packets, guint64, 4 * p);
      GArray *list = events[pk[1]];
      guint32 tid = 100 + (guint32) pk[1];

      tb_begin (tb, tid, g_array_index (list, SimEvent, pk[2]).time_ns);
      for (guint64 i = pk[2]; i < pk[3]; i++)
        {
          const SimEvent *e = &g_array_index (list, SimEvent, i);
          HlWriteStatus st = HL_WRITE_OK;

          switch (e->kind)
            {
            case 0: st = hl_packet_writer_alloc (&tb->w, e->time_ns, e->id, e->size, 0, e->stack, e->address); break;
            case 1: st = hl_packet_writer_free (&tb->w, e->time_ns, e->old_id); break;
            case 2: st = hl_packet_writer_free_addr (&tb->w, e->time_ns, e->address); break;
            default: st = hl_packet_writer_realloc (&tb->w, e->time_ns, e->old_id, e->id, e->size, e->stack, e->address); break;
            }
          g_assert_cmpint (st, ==, HL_WRITE_OK);
        }
      tb_end (tb);
    }
}

/* A random run of four threads: allocations, frees of any thread's blocks
 * by id or by address, reallocs, double frees and equal times; each
 * thread's events cut into packets of 1-40 events, written in the order
 * their last event happened (as threads flush), so frees often come
 * before their allocation in the file. */
GByteArray *
build_random_trace (guint32 seed,
                    guint   n_steps)
{
  TraceBuilder *tb = g_new0 (TraceBuilder, 1);
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  HlTraceFileHeader hdr;
  GArray *events[4];
  g_autoptr (GArray) live = g_array_new (FALSE, FALSE, sizeof (guint64[2]));
  g_autoptr (GArray) freed = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint64 t = 1, next_id = 0;
  GByteArray *out;

  tb->bytes = g_byte_array_new ();
  hl_trace_file_header_init (&hdr, 4242, 1, 1, 0);
  g_byte_array_append (tb->bytes, (const guint8 *) &hdr, sizeof hdr);
  tb_begin (tb, 100, 0);
  for (guint32 s = 1; s <= 20; s++)
    {
      const guint64 frames[] = { 0x1000 + s * 16, 0x2000 + (s % 3) * 16, 0x3000 };
      g_assert_cmpint (hl_packet_writer_stack (&tb->w, 0, s, 0, frames, 3), ==, HL_WRITE_OK);
    }
  tb_end (tb);

  for (guint k = 0; k < 4; k++)
    events[k] = g_array_new (FALSE, TRUE, sizeof (SimEvent));
  for (guint step = 0; step < n_steps; step++)
    {
      guint k = g_rand_int_range (rand, 0, 4);
      guint r = g_rand_int_range (rand, 0, 100);
      SimEvent ev = { .time_ns = t };

      t += g_rand_int_range (rand, 0, 3);
      if (live->len == 0 || r < 45)
        {
          ev.kind = 0;
          ev.id = next_id++;
          ev.size = g_rand_int_range (rand, 0, 5000);
          ev.stack = g_rand_int_range (rand, 1, 21);
          ev.address = 0x100000 + ev.id * 16;
          g_array_append_vals (live, (guint64[2]) { ev.id, ev.address }, 1);
        }
      else if (r < 97)
        {
          guint i = g_rand_int_range (rand, 0, live->len);
          guint64 *victim = &g_array_index (live, guint64, 2 * i);

          ev.kind = r < 80 ? 1 : r < 88 ? 2 : 3;
          ev.old_id = victim[0];
          ev.address = victim[1];
          g_array_append_val (freed, victim[0]);
          g_array_remove_index_fast (live, i);
          if (ev.kind == 3)
            {
              ev.id = next_id++;
              ev.size = g_rand_int_range (rand, 1, 300);
              ev.stack = g_rand_int_range (rand, 1, 21);
              ev.address = 0x100000 + ev.id * 16;
              g_array_append_vals (live, (guint64[2]) { ev.id, ev.address }, 1);
            }
        }
      else if (freed->len > 0)
        {
          ev.kind = 1; /* a second free */
          ev.old_id = g_array_index (freed, guint64, g_rand_int_range (rand, 0, freed->len));
        }
      else
        continue;
      g_array_append_val (events[k], ev);
    }

  emit_packets (tb, rand, events);
  for (guint k = 0; k < 4; k++)
    g_array_unref (events[k]);
  out = tb->bytes;
  g_free (tb);
  return out;
}

static gint
compare_sim_time (gconstpointer a,
                  gconstpointer b)
{
  const SimEvent *x = a, *y = b;
  return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

GByteArray *
build_long_lived_trace (guint32 seed,
                        guint   n_allocs)
{
  TraceBuilder *tb = g_new0 (TraceBuilder, 1);
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  g_autoptr (GArray) all = g_array_new (FALSE, TRUE, sizeof (SimEvent));
  HlTraceFileHeader hdr;
  GArray *events[4];
  GByteArray *out;

  tb->bytes = g_byte_array_new ();
  hl_trace_file_header_init (&hdr, 4242, 1, 1, 0);
  g_byte_array_append (tb->bytes, (const guint8 *) &hdr, sizeof hdr);
  tb_begin (tb, 100, 0);
  for (guint32 s = 1; s <= 20; s++)
    {
      const guint64 frames[] = { 0x1000 + s * 16, 0x3000 };
      g_assert_cmpint (hl_packet_writer_stack (&tb->w, 0, s, 0, frames, 2), ==, HL_WRITE_OK);
    }
  tb_end (tb);
  for (guint64 id = 0; id < n_allocs; id++)
    {
      guint r = g_rand_int_range (rand, 0, 100);
      SimEvent a = { .time_ns = 10 + id * 4, .kind = 0, .id = id, .size = g_rand_int_range (rand, 1, 3000),
                     .stack = g_rand_int_range (rand, 1, 21), .address = 0x100000 + id * 16 };
      g_array_append_val (all, a);
      if (r < 10)
        continue; /* leaked */
      SimEvent f = { .kind = r < 20 ? 2 : 1, .old_id = id, .address = a.address };
      guint64 after = r < 50 ? (guint64) g_rand_int_range (rand, 1, 200)
                             : (guint64) g_rand_int_range (rand, 70000, 160000);
      f.time_ns = a.time_ns + after * 4 + 2;
      g_array_append_val (all, f);
    }
  g_array_sort (all, compare_sim_time);
  for (guint k = 0; k < 4; k++)
    events[k] = g_array_new (FALSE, TRUE, sizeof (SimEvent));
  for (guint i = 0; i < all->len; i++)
    g_array_append_val (events[g_rand_int_range (rand, 0, 4)], g_array_index (all, SimEvent, i));
  emit_packets (tb, rand, events);
  for (guint k = 0; k < 4; k++)
    g_array_unref (events[k]);
  out = tb->bytes;
  g_free (tb);
  return out;
}
