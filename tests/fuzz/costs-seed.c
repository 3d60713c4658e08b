/* costs-seed.c — the costs-packet fuzz corpus's seeds: real traces whose
 * COSTS packet the reader accepts. A seed the reader rejects (the format
 * moved on since it was recorded) still replays without a crash, but the
 * fuzzer then never reaches the packet's loader: its coverage fell from
 * 627 to 373 edges before anyone noticed. Two modes:
 *
 *   costs-seed --check DIR
 *     (test fuzz-costs-seeds) every t-*.hltrace of DIR loads its saved
 *     costs (hl_costs_packet_load) with the totals of decoding its events,
 *     and every t-*-inline.payload parses (hl_costs_packet_parse) to the
 *     same totals as its trace. TAP.
 *
 *   costs-seed --write TRACE inline|reference OUT.hltrace OUT.payload
 *     (scripts/fuzz-seeds.sh) TRACE (recorded without costs) copied to
 *     OUT.hltrace with a COSTS packet of that form appended, and the packet's
 *     payload alone written to OUT.payload. */
#include <gio/gio.h>
#include <stdio.h>
#include <string.h>

#include "hl-analysis.h"
#include "hl-recording-costs-packet.h"
#include "hl-test-util.h"

static HlRecording *
decode_events (const char *path,
               GError    **error)
{
  g_autoptr (GFile) file = g_file_new_for_path (path);
  return hl_recording_load (file, HL_LOAD_FLAGS_AGGREGATE | HL_LOAD_FLAGS_NO_SYMBOLS | HL_LOAD_FLAGS_NO_COSTS_PACKET,
                            NULL, NULL, NULL, error);
}

static void
totals_of (HlRecording *rec,
           HlCosts     *out)
{
  g_autoptr (HlAnalysis) a = hl_analysis_new (rec, NULL);
  hl_analysis_get_totals (a, out);
}

static gboolean
same_totals (const HlCosts *a,
             const HlCosts *b)
{
  return a->allocations == b->allocations && a->bytes == b->bytes && a->temporary == b->temporary
         && a->peak_bytes == b->peak_bytes && a->leaked_bytes == b->leaked_bytes
         && a->leaked_blocks == b->leaked_blocks;
}

/* The trace's saved costs against its events; fills EVENTS. */
static void
check_trace (const char *path,
             HlCosts    *events)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (HlRecording) decoded = decode_events (path, &error);
  g_autoptr (HlRecording) saved = hl_costs_packet_load (path);
  HlCosts from_packet = { 0 };

  memset (events, 0, sizeof *events);
  if (decoded != NULL)
    totals_of (decoded, events);
  if (saved != NULL)
    totals_of (saved, &from_packet);
  hl_tap_ok (decoded != NULL && events->allocations > 0, "%s: its events decode (%" G_GUINT64_FORMAT " allocations)%s%s",
             path, events->allocations, error != NULL ? ": " : "", error != NULL ? error->message : "");
  hl_tap_ok (saved != NULL && hl_recording_get_n_stacks (saved) > 0, "%s: its COSTS packet loads", path);
  hl_tap_ok (saved != NULL && same_totals (&from_packet, events),
             "%s: saved totals %" G_GUINT64_FORMAT " allocations, %" G_GUINT64_FORMAT " bytes, %" G_GUINT64_FORMAT
             " leaked = the events'", path, from_packet.allocations, from_packet.bytes, from_packet.leaked_bytes);
}

static void
check_payload (const char    *path,
               const HlCosts *events)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  g_autoptr (HlRecording) rec = NULL;
  HlCosts got = { 0 };

  if (g_file_get_contents (path, &data, &len, NULL))
    rec = hl_costs_packet_parse ((const guint8 *) data, len);
  if (rec != NULL)
    totals_of (rec, &got);
  hl_tap_ok (rec != NULL && same_totals (&got, events), "%s: parses to its trace's totals", path);
}

static gint
by_name (gconstpointer a,
         gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

static int
check (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;
  int n_traces = 0, n_payloads = 0;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    if (g_str_has_prefix (name, "t-"))
      g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, by_name);
  for (guint i = 0; i < names->len; i++)
    {
      name = g_ptr_array_index (names, i);
      if (g_str_has_suffix (name, ".hltrace"))
        n_traces++;
      else if (g_str_has_suffix (name, "-inline.payload"))
        n_payloads++;
    }
  hl_tap_plan (3 * n_traces + n_payloads + 1);
  hl_tap_ok (n_traces >= 4 && n_payloads >= 2, "%s: %d seed traces, %d inline payloads", dir, n_traces, n_payloads);
  for (guint i = 0; i < names->len; i++)
    {
      name = g_ptr_array_index (names, i);
      if (!g_str_has_suffix (name, ".hltrace"))
        continue;
      g_autofree char *path = g_build_filename (dir, name, NULL);
      HlCosts events;
      check_trace (path, &events);
      if (g_str_has_suffix (name, "-inline.hltrace"))
        {
          g_autofree char *stem = g_strndup (name, strlen (name) - strlen (".hltrace"));
          g_autofree char *payload_name = g_strconcat (stem, ".payload", NULL);
          g_autofree char *payload = g_build_filename (dir, payload_name, NULL);
          if (g_file_test (payload, G_FILE_TEST_EXISTS))
            check_payload (payload, &events);
        }
    }
  return hl_tap_finish ();
}

static int
write_seed (const char *trace,
            const char *form_name,
            const char *out_trace,
            const char *out_payload)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (HlRecording) rec = decode_events (trace, &error);
  g_autoptr (GBytes) payload = NULL;
  g_autofree char *data = NULL;
  gsize len = 0;
  HlCostsStacks form = strcmp (form_name, "reference") == 0 ? HL_COSTS_STACKS_BY_REFERENCE : HL_COSTS_STACKS_INLINE;

  if (rec != NULL)
    payload = hl_costs_packet_payload (rec, form, &error);
  if (payload == NULL || !g_file_get_contents (trace, &data, &len, &error)
      || !g_file_set_contents (out_trace, data, (gssize) len, &error)
      || !hl_costs_packet_write (payload, out_trace, &error)
      || !g_file_set_contents (out_payload, g_bytes_get_data (payload, NULL), (gssize) g_bytes_get_size (payload), &error))
    {
      fprintf (stderr, "costs-seed: %s: %s\n", trace, error != NULL ? error->message : "no payload");
      return 1;
    }
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc == 3 && strcmp (argv[1], "--check") == 0)
    return check (argv[2]);
  if (argc == 6 && strcmp (argv[1], "--write") == 0)
    return write_seed (argv[2], argv[3], argv[4], argv[5]);
  fprintf (stderr, "usage: costs-seed --check DIR | --write TRACE inline|reference OUT.hltrace OUT.payload\n");
  return 2;
}
