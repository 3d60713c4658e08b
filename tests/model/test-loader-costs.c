/* test-loader-costs.c — saved costs: the COSTS packet a costs-only load
 * reads instead of the events (hl-recording-costs-packet.h), hostile
 * ones, and the costs stream that computes them while a trace is
 * written (hl-recording-costs-stream.h). */
#include "hl-model.h"

#include "loader-traces.h"
#include "hl-trace-writer.h"
#include "hl-trace-index.h"
#include "hl-trace-codec.h"
#include "hl-trace-compress.h"
#include "hl-trace-zstd.h"
#include "hl-recording-costs-packet.h"
#include "hl-recording-costs-stream.h"
#include "hl-trace-compress-stream.h"

#include <glib/gstdio.h>
#include <string.h>

/* PATH replaced by DATA (no fsync: g_file_set_contents syncs, slowly). */
static void
overwrite (const char *path,
           const void *data,
           gsize       len)
{
  FILE *f = fopen (path, "wb");

  g_assert_nonnull (f);
  g_assert_cmpuint (fwrite (data, 1, len, f), ==, len);
  g_assert_cmpint (fclose (f), ==, 0);
}

/* The report's text (JSON, every stack) of FILE loaded costs-only with FLAGS. */
static char *
report_of (GFile      *file,
           HlLoadFlags flags)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (HlRecording) rec = hl_recording_load (file, flags | HL_LOAD_FLAGS_AGGREGATE, NULL, NULL, NULL, &error);
  g_autoptr (HlAnalysis) a = NULL;
  g_autoptr (GArray) threads = NULL;
  HlSizeHistogram h;
  GString *out;
  char *json;

  g_assert_no_error (error);
  a = hl_analysis_new (rec, NULL);
  json = hl_report_to_json ("trace", a, NULL, 0, 100000);
  out = g_string_new (json);
  g_free (json);
  /* What the JSON does not show: threads, histogram, info, modules. */
  threads = hl_analysis_get_thread_costs (a);
  for (guint i = 0; i < threads->len; i++)
    {
      const HlThreadCosts *t = &g_array_index (threads, HlThreadCosts, i);
      g_string_append_printf (out, "thread %u %s %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
                              " %" G_GUINT64_FORMAT "\n", t->tid, t->name, t->costs.allocations, t->costs.bytes,
                              t->costs.peak_bytes, t->costs.leaked_bytes);
    }
  hl_analysis_get_size_histogram (a, &h);
  for (guint i = 0; i < HL_SIZE_HISTOGRAM_BUCKETS; i++)
    g_string_append_printf (out, "%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT " ", h.count[i], h.bytes[i]);
  for (const char * const *k = hl_recording_get_info_keys (rec); *k != NULL; k++)
    g_string_append_printf (out, "\ninfo %s=%s", *k, hl_recording_get_info (rec, *k));
  {
    guint n;
    const HlModuleInfo *m = hl_recording_get_modules (rec, &n);
    for (guint i = 0; i < n; i++)
      g_string_append_printf (out, "\nmodule %s %s %s %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %d %d", m[i].path,
                              m[i].name, m[i].build_id, m[i].start, m[i].size, m[i].has_symbols, m[i].has_debug_info);
  }
  g_string_append_printf (out, "\nstacks %u truncated %d", hl_recording_get_n_stacks (rec),
                          hl_recording_is_truncated (rec));
  return g_string_free (out, FALSE);
}

/* A compressed trace with its costs saved (hl-recording-costs-packet.h):
 * a costs-only load reads them and reports exactly what decoding the
 * events reports; a changed, cut or extended file, or a damaged packet,
 * is not read from the packet. */
static void
test_load_costs_packet_equals_decode (void)
{
  for (guint seed = 1; seed <= 8; seed++)
    {
      g_autoptr (GByteArray) bytes = seed == 1 ? build_trace () : seed == 2 ? build_big_trace ()
                                     : build_random_trace (seed, seed < 5 ? 300 : 20000);
      g_autoptr (GFile) file = write_temp (bytes->data, bytes->len);
      g_autofree char *path = g_file_get_path (file);
      g_autofree char *with = NULL, *without = NULL, *contents = NULL;
      g_autoptr (GError) error = NULL;
      HlFormatError ferr;
      gsize len;

      g_assert_cmpint (hl_trace_index_append_file (path, &ferr), ==, 0);
      /* A plain trace ends with its index: no costs there. */
      g_assert_false (hl_costs_packet_append (path, &error));
      g_assert_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_UNSUPPORTED);
      g_clear_error (&error);
      g_assert_cmpint (hl_trace_compress_file (path, path, hl_trace_codec_zstd (3), 0, &ferr), ==, 0);
      g_assert_null (hl_costs_packet_load (path));
      without = report_of (file, HL_LOAD_FLAGS_NONE);
      g_assert_true (hl_costs_packet_append (path, &error));
      g_assert_no_error (error);
      /* Appending again leaves the file as it is. */
      g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
      g_assert_true (hl_costs_packet_append (path, &error));
      {
        g_autofree char *again = NULL;
        gsize len2;
        g_assert_true (g_file_get_contents (path, &again, &len2, NULL));
        g_assert_cmpmem (again, len2, contents, len);
      }
      {
        g_autoptr (HlRecording) saved = hl_costs_packet_load (path);
        g_assert_nonnull (saved);
      }
      with = report_of (file, HL_LOAD_FLAGS_NONE);
      g_assert_cmpstr (with, ==, without);
      g_free (without);
      without = report_of (file, HL_LOAD_FLAGS_NO_COSTS_PACKET);
      g_assert_cmpstr (with, ==, without);
      g_free (without);
      without = report_of (file, HL_LOAD_FLAGS_NO_COSTS_PACKET | HL_LOAD_FLAGS_SERIAL);
      g_assert_cmpstr (with, ==, without);

      /* Not read from the packet: a byte changed before it, in its
       * header, payload or footer; the file cut or extended. */
      for (gsize k = 0; k < 7; k++)
        {
          gsize at = k == 0 ? 20 : k == 1 ? len / 2 : k == 2 ? len - 200 : k == 3 ? len - 60 : len - 3;
          g_autofree char *copy = g_memdup2 (contents, len);
          gsize n = len;

          if (k < 5)
            copy[at] ^= 0x21;
          else
            n = k == 5 ? len - 1 : len;
          if (k == 6)
            {
              copy = g_realloc (copy, len + 1);
              copy[len] = 0;
              n = len + 1;
            }
          overwrite (path, copy, n);
          g_assert_null (hl_costs_packet_load (path));
        }
      g_file_delete (file, NULL, NULL);
    }
}


/* A COSTS packet with a valid crc and a hostile payload (random bytes,
 * a real payload, stacks inline or by reference, cut or with a byte
 * changed, counts made huge): loading
 * it gives a recording or NULL, never a crash (ASan) nor a huge
 * allocation; NULL means the events are decoded. */
static void
test_load_costs_packet_hostile (void)
{
  g_autoptr (GByteArray) bytes = build_random_trace (5, 3000);
  g_autoptr (GFile) file = write_temp (bytes->data, bytes->len);
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *compressed = NULL;
  g_autoptr (GBytes) payload = NULL;
  g_autoptr (GBytes) by_reference = NULL;
  g_autoptr (HlRecording) costs = NULL;
  g_autoptr (GRand) rand = g_rand_new_with_seed (99);
  g_autoptr (GError) error = NULL;
  HlFormatError ferr;
  const guint8 *real, *bases[2];
  gsize real_len, len, base_lens[2];
  guint loaded = 0, refused = 0;

  g_assert_cmpint (hl_trace_index_append_file (path, &ferr), ==, 0);
  g_assert_cmpint (hl_trace_compress_file (path, path, hl_trace_codec_zstd (3), 0, &ferr), ==, 0);
  payload = hl_costs_packet_prepare (path, &error);
  g_assert_no_error (error);
  /* the same, its stacks by reference to the trace's (the reader fills
   * them from the trace's STACK events) */
  {
    g_autoptr (GFile) f = g_file_new_for_path (path);
    costs = hl_recording_load (f, HL_LOAD_FLAGS_AGGREGATE | HL_LOAD_FLAGS_NO_SYMBOLS | HL_LOAD_FLAGS_NO_COSTS_PACKET,
                               NULL, NULL, NULL, &error);
    g_assert_no_error (error);
    by_reference = hl_costs_packet_payload (costs, HL_COSTS_STACKS_BY_REFERENCE, &error);
    g_assert_no_error (error);
  }
  bases[0] = g_bytes_get_data (payload, &base_lens[0]);
  bases[1] = g_bytes_get_data (by_reference, &base_lens[1]);
  g_assert_true (g_file_get_contents (path, &compressed, &len, NULL));
  for (guint k = 0; k < 600; k++)
    {
      g_autofree guint8 *p = NULL;
      gsize n;
      g_autoptr (GBytes) hostile = NULL;
      g_autoptr (HlRecording) rec = NULL;

      real = bases[k % 2];
      real_len = base_lens[k % 2];
      p = g_memdup2 (real, real_len);
      n = real_len;

      if (k < 100)
        {
          /* random bytes of random length */
          n = g_rand_int_range (rand, 0, 400);
          for (gsize i = 0; i < n; i++)
            p[i] = (guint8) g_rand_int (rand);
        }
      else if (k < 300)
        n = real_len * (k - 100) / 200; /* cut */
      else if (k < 500)
        p[g_rand_int_range (rand, 0, (gint32) real_len)] ^= (guint8) (1 + g_rand_int_range (rand, 0, 255));
      else
        {
          /* a varint made huge (10 bytes of 0xff, 0x01) somewhere */
          gsize at = g_rand_int_range (rand, 0, (gint32) real_len);
          p = g_realloc (p, real_len + 10);
          memmove (p + at + 10, p + at, real_len - at);
          memset (p + at, 0xff, 9);
          p[at + 9] = 0x01;
          n = real_len + 10;
        }
      hostile = g_bytes_new (p, n);
      overwrite (path, compressed, len);
      g_assert_true (hl_costs_packet_write (hostile, path, &error));
      g_assert_no_error (error);
      rec = hl_costs_packet_load (path);
      if (rec != NULL)
        {
          g_autoptr (HlAnalysis) a = hl_analysis_new (rec, NULL);
          g_autofree char *json = hl_report_to_json ("x", a, NULL, 0, 10);
          g_assert_nonnull (json);
          loaded++;
        }
      else
        refused++;
    }
  /* Many more in memory (HL_HOSTILE_ROUNDS, default 20,000). */
  {
    const char *env = g_getenv ("HL_HOSTILE_ROUNDS");
    guint rounds = env != NULL ? (guint) g_ascii_strtoull (env, NULL, 10) : 20000;

    real = bases[0];
    real_len = base_lens[0];
    for (guint k = 0; k < rounds; k++)
      {
        g_autofree guint8 *p = g_memdup2 (real, real_len);
        g_autoptr (HlRecording) rec = NULL;
        guint flips = 1 + g_rand_int_range (rand, 0, 4);
        gsize n = k % 3 == 0 ? (gsize) g_rand_int_range (rand, 0, (gint32) real_len + 1) : real_len;

        for (guint f = 0; f < flips; f++)
          p[g_rand_int_range (rand, 0, (gint32) real_len)] ^= (guint8) (1 << g_rand_int_range (rand, 0, 8));
        rec = hl_costs_packet_parse (p, n);
        if (rec != NULL)
          {
            g_autoptr (HlAnalysis) a = hl_analysis_new (rec, NULL);
            HlCosts t;
            hl_analysis_get_totals (a, &t);
            loaded++;
          }
        else
          refused++;
      }
  }
  g_test_message ("%u hostile payloads loaded, %u refused", loaded, refused);
  g_assert_cmpuint (refused, >, 0);
  g_file_delete (file, NULL, NULL);
}


static gsize
file_size_of (const char *path)
{
  GStatBuf st;

  g_assert_cmpint (g_stat (path, &st), ==, 0);
  return (gsize) st.st_size;
}

/* Appends BYTES[from, to) to PATH. */
static void
append_range (const char   *path,
              const guint8 *bytes,
              gsize         from,
              gsize         to)
{
  FILE *f = fopen (path, "ab");

  g_assert_nonnull (f);
  g_assert_cmpuint (fwrite (bytes + from, 1, to - from, f), ==, to - from);
  g_assert_cmpint (fclose (f), ==, 0);
}

/* The plain trace BYTES written to PATH in pieces (cut anywhere, even
 * inside a packet, as a poll may see it) while a compress stream to
 * OUT polls it with a costs stream told of its packets (KEEP points may
 * wait): the stream's recording, or NULL when it could not follow. */
static HlRecording *
follow_costs_hurried (const GByteArray *bytes,
                      const char       *path,
                      const char       *out,
                      GRand            *rand,
                      guint             n_polls,
                      HlCostsStream    *costs,
                      guint             hurry_at)
{
  HlTraceCompressStream *stream = hl_trace_compress_stream_new (path, out, hl_trace_codec_zstd (3), 0);
  g_autoptr (GError) error = NULL;
  HlFormatError ferr;
  gsize at = HL_TRACE_FILE_HEADER_SIZE;
  HlRecording *payload;

  g_assert_nonnull (stream);
  hl_trace_compress_stream_set_packet_func (stream, hl_costs_stream_take, costs);
  g_assert_true (g_file_set_contents (path, (const char *) bytes->data, at, NULL));
  for (guint i = 0; i < n_polls && at < bytes->len; i++)
    {
      gsize step = (gsize) g_rand_int_range (rand, 1, (gint32) (bytes->len / n_polls * 2 + 2));
      gsize next = i + 1 == n_polls ? bytes->len : MIN (bytes->len, at + step);

      append_range (path, bytes->data, at, next);
      at = next;
      g_assert_cmpint (hl_trace_compress_stream_poll (stream, &ferr), ==, 0);
      if (i == hurry_at)
        hl_costs_stream_hurry (costs);
    }
  append_range (path, bytes->data, at, bytes->len);
  g_assert_cmpint (hl_trace_compress_stream_finish (stream, &ferr), ==, 0);
  hl_trace_compress_stream_free (stream);
  payload = hl_costs_stream_finish (costs, &error);
  g_assert_true ((payload == NULL) == (error != NULL));
  if (payload == NULL)
    g_test_message ("not followed: %s", error->message);
  return payload;
}

static HlRecording *
follow_costs_with (const GByteArray *bytes,
                   const char       *path,
                   const char       *out,
                   GRand            *rand,
                   guint             n_polls,
                   HlCostsStream    *costs)
{
  return follow_costs_hurried (bytes, path, out, rand, n_polls, costs, G_MAXUINT);
}

static HlRecording *
follow_costs (const GByteArray *bytes,
              const char       *path,
              const char       *out,
              GRand            *rand,
              guint             n_polls,
              guint64           keep)
{
  HlCostsStream *costs = hl_costs_stream_new ();
  HlRecording *payload;

  hl_costs_stream_set_keep (costs, keep);
  payload = follow_costs_with (bytes, path, out, rand, n_polls, costs);
  hl_costs_stream_free (costs);
  return payload;
}

/* Costs followed while a trace is written (hl-recording-costs-stream.h)
 * are, byte for byte, the payload a costs-only load of the finished
 * file makes, whatever the polls saw: one poll, a few, hundreds cutting
 * packets; and a report from them equals the events'. Where a thread's
 * packet comes later than the watermark allowed (random multi-threaded
 * runs; a tiny KEEP forcing early releases) the stream gives no payload
 * rather than a wrong one. A damaged packet or a trailing index: no
 * payload. */
static void
test_load_costs_stream_equals_prepare (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);
  guint followed = 0, refused = 0, early_refused = 0, hurried = 0;

  for (guint seed = 1; seed <= 10; seed++)
    {
      g_autoptr (GByteArray) bytes = seed == 1 ? build_trace () : seed == 2 ? build_big_trace ()
                                     : build_random_trace (seed, seed < 6 ? 300 : 20000);
      g_autoptr (GFile) file = write_temp (bytes->data, bytes->len);
      g_autofree char *path = g_file_get_path (file);
      g_autofree char *out = g_strconcat (path, ".z", NULL);
      g_autoptr (GFile) out_file = g_file_new_for_path (out);
      g_autoptr (GBytes) expected = NULL;
      g_autoptr (GError) error = NULL;
      g_autofree char *decoded = NULL;

      for (guint schedule = 0; schedule < 4; schedule++)
        {
          guint n_polls = schedule == 0 ? 1 : schedule == 1 ? 3 : schedule == 2 ? 40 : 300;
          g_autoptr (HlRecording) rec = follow_costs (bytes, path, out, rand, n_polls, HL_COSTS_STREAM_KEEP);
          g_autoptr (GBytes) payload = NULL;
          g_autofree char *compressed = NULL;
          gsize compressed_len;

          if (expected == NULL)
            {
              expected = hl_costs_packet_prepare (out, &error);
              g_assert_no_error (error);
              decoded = report_of (out_file, HL_LOAD_FLAGS_NO_COSTS_PACKET);
            }
          /* one poll at the end sees every packet: always followed */
          if (schedule == 0 || seed <= 2)
            g_assert_nonnull (rec);
          if (rec == NULL)
            {
              refused++;
              continue;
            }
          followed++;
          payload = hl_costs_packet_payload (rec, HL_COSTS_STACKS_INLINE, &error);
          g_assert_no_error (error);
          g_assert_true (g_bytes_equal (payload, expected));
          /* saved with its stacks inline, then by reference: read back,
           * the report is the events' */
          g_assert_true (g_file_get_contents (out, &compressed, &compressed_len, NULL));
          for (guint form = 0; form < 2; form++)
            {
              g_autoptr (GBytes) p = hl_costs_packet_payload (rec, form, &error);
              g_autofree char *with = NULL;

              g_assert_no_error (error);
              overwrite (out, compressed, compressed_len);
              g_assert_true (hl_costs_packet_write (p, out, &error));
              g_assert_no_error (error);
              g_assert_cmpuint (hl_costs_packet_size (p), ==, file_size_of (out) - compressed_len);
              /* built once, measured, then written: the same bytes */
              {
                g_autoptr (HlCostsPacket) built = hl_costs_packet_build (p);
                g_autofree char *once = NULL, *twice = NULL;
                gsize once_len, twice_len;

                g_assert_true (g_file_get_contents (out, &once, &once_len, NULL));
                overwrite (out, compressed, compressed_len);
                g_assert_cmpuint (hl_costs_packet_built_size (built), ==, once_len - compressed_len);
                g_assert_true (hl_costs_packet_write_built (built, out, &error));
                g_assert_no_error (error);
                g_assert_true (g_file_get_contents (out, &twice, &twice_len, NULL));
                g_assert_cmpmem (once, once_len, twice, twice_len);
              }
              g_assert_nonnull (hl_costs_packet_load (out));
              with = report_of (out_file, HL_LOAD_FLAGS_NONE);
              g_assert_cmpstr (with, ==, decoded);
              /* by reference, the frames are the trace's: a parse alone cannot */
              if (form == HL_COSTS_STACKS_BY_REFERENCE)
                g_assert_null (hl_costs_packet_parse (g_bytes_get_data (p, NULL), g_bytes_get_size (p)));
            }
        }
      /* The program's exit (hl_costs_stream_hurry()) at any poll, the
       * first thread at a low priority: a second one takes over where it
       * stopped, and the payload is the same. Twice at the first poll:
       * the second call does nothing. */
      for (guint hurry_at = 0; hurry_at <= 40; hurry_at += seed <= 2 ? 4 : 20)
        {
          HlCostsStream *costs = hl_costs_stream_new ();
          g_autoptr (HlRecording) rec = NULL;

          hl_costs_stream_set_nice (costs, 10);
          if (hurry_at == 0)
            hl_costs_stream_hurry (costs);
          rec = follow_costs_hurried (bytes, path, out, rand, 40, costs, hurry_at);
          hl_costs_stream_free (costs);
          if (seed <= 2)
            g_assert_nonnull (rec);
          if (rec != NULL)
            {
              g_autoptr (GBytes) payload = hl_costs_packet_payload (rec, HL_COSTS_STACKS_INLINE, &error);
              g_assert_no_error (error);
              g_assert_true (g_bytes_equal (payload, expected));
              hurried++;
            }
        }
      /* Every event through hl_recording_load_apply_event(), as a load applies
       * them (no short path for allocations and frees): the same payload. */
      {
        HlCostsStream *costs = hl_costs_stream_new ();
        g_autoptr (HlRecording) rec = NULL;

        hl_costs_stream_set_short_path (costs, FALSE);
        rec = follow_costs_with (bytes, path, out, rand, 1, costs);
        hl_costs_stream_free (costs);
        g_assert_nonnull (rec);
        {
          g_autoptr (GBytes) payload = hl_costs_packet_payload (rec, HL_COSTS_STACKS_INLINE, &error);
          g_assert_no_error (error);
          g_assert_true (g_bytes_equal (payload, expected));
        }
      }
      /* Points released early (2 may wait): caught, or still right. */
      {
        g_autoptr (HlRecording) rec = follow_costs (bytes, path, out, rand, 40, 2);
        g_autoptr (GBytes) payload = rec != NULL ? hl_costs_packet_payload (rec, HL_COSTS_STACKS_INLINE, NULL) : NULL;
        if (rec == NULL)
          early_refused++;
        else
          g_assert_true (g_bytes_equal (payload, expected));
      }
      /* A damaged packet (a byte of the last packet's content changed), a
       * trailing index: not followed. */
      {
        g_autoptr (GByteArray) damaged = g_byte_array_new ();
        g_autoptr (HlRecording) payload = NULL;
        HlFormatError ferr;

        g_byte_array_append (damaged, bytes->data, bytes->len);
        damaged->data[damaged->len - 3] ^= 0x40;
        payload = follow_costs (damaged, path, out, rand, 3, HL_COSTS_STREAM_KEEP);
        g_assert_null (payload);
        g_assert_true (g_file_set_contents (path, (const char *) bytes->data, bytes->len, NULL));
        g_assert_cmpint (hl_trace_index_append_file (path, &ferr), ==, 0);
        {
          g_autofree char *indexed = NULL;
          gsize len;
          g_autoptr (GByteArray) with_index = g_byte_array_new ();
          g_assert_true (g_file_get_contents (path, &indexed, &len, NULL));
          g_byte_array_append (with_index, (const guint8 *) indexed, len);
          g_clear_object (&payload);
          payload = follow_costs (with_index, path, out, rand, 3, HL_COSTS_STREAM_KEEP);
          g_assert_null (payload);
        }
      }
      g_file_delete (file, NULL, NULL);
      g_file_delete (out_file, NULL, NULL);
    }
  g_test_message ("%u schedules followed, %u refused; with early releases %u refused; %u hurried", followed,
                  refused, early_refused, hurried);
  g_assert_cmpuint (followed, >, 20);
  g_assert_cmpuint (early_refused, >, 0);
  g_assert_cmpuint (hurried, >, 30);
}

/* The lag give-up (hl_costs_stream_set_max_lag): a stream whose thread
 * would need longer than allowed for what is queued gives up, says so
 * (lagged, a reason naming the lag), and gives no payload; the trace is
 * compressed all the same and a report decodes its events to the same
 * numbers a followed one gives. The same trace with no limit, or with a
 * pace that keeps within the limit, is followed. */
static void
test_load_costs_stream_lag (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (11);
  g_autoptr (GByteArray) bytes = build_big_trace ();
  g_autoptr (GFile) file = write_temp (bytes->data, bytes->len);
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *out = g_strconcat (path, ".z", NULL);
  g_autoptr (GFile) out_file = g_file_new_for_path (out);
  g_autofree char *followed_report = NULL, *lagged_report = NULL, *decoded = NULL;

  for (guint mode = 0; mode < 4; mode++)
    {
      HlCostsStream *costs = hl_costs_stream_new ();
      g_autoptr (HlRecording) rec = NULL;
      /* 0: no limit; 1: a slow pace (1 ms a KiB) against a 1 ms limit
       * while running; 2: the same pace, no limit while running, none at
       * the end either; 3: a fast pace (1 ns a KiB) within 1 s */
      guint64 pace = mode == 3 ? 1 : 1000000;

      hl_costs_stream_set_pace (costs, pace);
      if (mode == 0 || mode == 2)
        hl_costs_stream_set_max_lag (costs, G_MAXUINT64, G_MAXUINT64);
      else
        hl_costs_stream_set_max_lag (costs, mode == 1 ? 1000000 : 1000000000, 1000000000);
      rec = follow_costs_with (bytes, path, out, rand, 20, costs);
      if (mode == 1)
        {
          const char *why = hl_costs_stream_lag_reason (costs);
          g_assert_null (rec);
          g_assert_true (hl_costs_stream_lagged (costs));
          g_assert_true (hl_costs_stream_failed (costs));
          g_assert_nonnull (why);
          g_assert_nonnull (strstr (why, "behind"));
          g_assert_cmpuint (hl_costs_stream_worst_lag (costs), >, 1000000);
          /* the trace is whole and compressed: a report decodes its events */
          lagged_report = report_of (out_file, HL_LOAD_FLAGS_NONE);
          decoded = report_of (out_file, HL_LOAD_FLAGS_NO_COSTS_PACKET);
          g_assert_cmpstr (lagged_report, ==, decoded);
        }
      else
        {
          g_autoptr (GBytes) payload = NULL;
          g_autoptr (GError) error = NULL;

          g_assert_nonnull (rec);
          g_assert_false (hl_costs_stream_lagged (costs));
          g_assert_null (hl_costs_stream_lag_reason (costs));
          payload = hl_costs_packet_payload (rec, HL_COSTS_STACKS_INLINE, &error);
          g_assert_no_error (error);
          g_assert_true (hl_costs_packet_write (payload, out, &error));
          g_assert_no_error (error);
          g_clear_pointer (&followed_report, g_free);
          followed_report = report_of (out_file, HL_LOAD_FLAGS_NONE);
        }
      hl_costs_stream_free (costs);
    }
  /* followed or given up, the report says the same */
  g_assert_cmpstr (followed_report, ==, lagged_report);
  g_file_delete (file, NULL, NULL);
  g_file_delete (out_file, NULL, NULL);
}

/* The program's exit, then the stream freed unfinished at once (`record`
 * frees the stream of a trace it did not finish, e.g. one whose session
 * it could not read at the end, right after hurry()): the first thread,
 * at a low priority, waits for a chunk when hurry() queues the hand-over;
 * free() must not take that chunk from it, else the first thread takes
 * the stop meant for the one taking over, which then waits for a chunk
 * forever and free() joins it forever. The same with finish() after a
 * lag give-up. Racy by nature: many rounds (before the fix, the first
 * hung). */
static void
test_load_costs_stream_hurry_free (void)
{
  g_autoptr (GByteArray) bytes = build_trace ();
  g_autoptr (GFile) file = write_temp (bytes->data, bytes->len);
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *out = g_strconcat (path, ".z", NULL);
  guint rounds = g_test_slow () ? 2000 : 300;

  for (guint i = 0; i < rounds; i++)
    {
      HlCostsStream *costs = hl_costs_stream_new ();
      HlTraceCompressStream *stream = hl_trace_compress_stream_new (path, out, hl_trace_codec_zstd (3), 0);
      HlFormatError ferr;

      g_assert_nonnull (stream);
      hl_costs_stream_set_nice (costs, 19);
      /* every other round: given up for its lag at the first poll, then
       * finished (stop_thread() frees what is queued there too) */
      if (i % 2 == 1)
        {
          hl_costs_stream_set_pace (costs, 1000000);
          hl_costs_stream_set_max_lag (costs, 1, 1);
        }
      hl_trace_compress_stream_set_packet_func (stream, hl_costs_stream_take, costs);
      /* one poll: the first thread starts, applies it, waits for more */
      g_assert_cmpint (hl_trace_compress_stream_poll (stream, &ferr), ==, 0);
      while (hl_costs_stream_queued (costs) > 0)
        g_usleep (100);
      g_usleep (200);
      hl_costs_stream_hurry (costs);
      if (i % 2 == 1)
        {
          g_autoptr (GError) error = NULL;
          g_assert_null (hl_costs_stream_finish (costs, &error));
          g_assert_nonnull (error);
          g_assert_true (hl_costs_stream_lagged (costs));
        }
      hl_costs_stream_free (costs);
      hl_trace_compress_stream_free (stream);
    }
  g_file_delete (file, NULL, NULL);
  g_unlink (out);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/loader/costs-packet-equals-decode", test_load_costs_packet_equals_decode);
  g_test_add_func ("/loader/costs-packet-hostile", test_load_costs_packet_hostile);
  g_test_add_func ("/loader/costs-stream-equals-prepare", test_load_costs_stream_equals_prepare);
  g_test_add_func ("/loader/costs-stream-lag", test_load_costs_stream_lag);
  g_test_add_func ("/loader/costs-stream-hurry-free", test_load_costs_stream_hurry_free);
  return g_test_run ();
}
