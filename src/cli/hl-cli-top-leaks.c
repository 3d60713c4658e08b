/* hl-cli-top-leaks.c — `top PID --leak-scan` (hl-cli-top-leaks.h). */
#include "hl-config.h"

#include "hl-cli-top-leaks.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>

#include "hl-cli-model-util.h"
#include "hl-shm-control.h"
#include "hl-model.h"
#include "hl-trace-format.h"

/* What the scan found, or why it did not run. */
static char *
describe (const HlShmLeakScan *l)
{
  switch (l->status)
    {
    case HL_SHM_LEAK_SCAN_DONE:
      {
        g_autofree char *lost = hl_cli_format_size (l->bytes[HL_REACH_DEFINITELY_LOST]);
        g_autofree char *indirect = hl_cli_format_size (l->bytes[HL_REACH_INDIRECTLY_LOST]);
        g_autofree char *possibly = hl_cli_format_size (l->bytes[HL_REACH_POSSIBLY_LOST]);
        g_autofree char *still = hl_cli_format_size (l->bytes[HL_REACH_STILL_REACHABLE]);

        /* Translators: `top`'s line of the leak scan on demand, Valgrind memcheck's kinds */
        return g_strdup_printf (_("leak scan  at %.2f s (%.1f ms): definitely lost %s in %" PRIu64 " blocks, "
                                  "indirectly lost %s in %" PRIu64 ", possibly lost %s in %" PRIu64 ", "
                                  "still reachable %s in %" PRIu64 "%s"),
                                (double) l->time_ns / 1e9, (double) l->scan_ns / 1e6,
                                lost, l->blocks[HL_REACH_DEFINITELY_LOST],
                                indirect, l->blocks[HL_REACH_INDIRECTLY_LOST],
                                possibly, l->blocks[HL_REACH_POSSIBLY_LOST],
                                still, l->blocks[HL_REACH_STILL_REACHABLE],
                                (l->flags & HL_REACH_FLAG_INCOMPLETE) != 0
                                  ? _(" (incomplete: blocks the live table dropped, or memory it could not read)") : "");
      }
    case HL_SHM_LEAK_SCAN_OFF:
      return g_strdup (_("leak scan  not run: the leak scan is off (HEAPLENS_LEAK_SCAN=0, record --no-leak-scan)"));
    case HL_SHM_LEAK_SCAN_SAMPLED:
      return g_strdup (_("leak scan  not run: sampling mode records only sampled blocks"));
    case HL_SHM_LEAK_SCAN_ATTACHED:
      return g_strdup (_("leak scan  not run: attached (blocks allocated before the attach are unknown)"));
    case HL_SHM_LEAK_SCAN_UNREADABLE:
      return g_strdup_printf (_("leak scan  not run: the program may not read its own memory (process_vm_readv: %s)"),
                              g_strerror ((int) l->flags));
    case HL_SHM_LEAK_SCAN_NO_MEMORY:
      return g_strdup (_("leak scan  not run: no memory for the scan"));
    case HL_SHM_LEAK_SCAN_NO_TRACE:
      return g_strdup (_("leak scan  not run: the program writes no trace"));
    default:
      return NULL;
    }
}

void
hl_top_leaks_append (HlShmReader *r,
                     GString     *out)
{
  HlShmLeakScan l;

  if (hl_shm_reader_leak_scan (r, &l, NULL) != 0 || l.seq_atomic == 0)
    return;
  g_autofree char *line = describe (&l);
  if (line != NULL)
    g_string_append_printf (out, "%s\n", line);
  /* its call sites are in the trace already, which report reads while the
   * program runs */
  const char *trace = hl_shm_reader_trace_path (r);
  if (l.status == HL_SHM_LEAK_SCAN_DONE && trace != NULL && trace[0] != '\0')
    /* Translators: under top's leak scan line */
    g_string_append_printf (out, _("           its call sites: heaplens-cli report %s\n"), trace);
}

typedef struct
{
  HlShmReader  *reader;
  HlShmLeakScan scan;
  int           rc;
  bool          ended;
} Read;

static void
read_guarded (gpointer data)
{
  Read *rd = data;

  rd->rc = hl_shm_reader_leak_scan (rd->reader, &rd->scan, NULL);
  rd->ended = hl_shm_reader_state (rd->reader, NULL) == HL_SHM_STATE_ENDED;
}

/* The last scan and whether the session ended; FALSE on SIGBUS. */
static bool
read_scan (HlShmReader *r,
           Read        *rd)
{
  rd->reader = r;
  return hl_shm_guard_run (read_guarded, rd);
}

int
hl_top_leaks_request (HlShmReader *r,
                      const char  *name,
                      uint32_t     pid,
                      uint64_t     timeout_ns)
{
  Read rd = { 0 };
  uint32_t before;
  gint64 deadline;

  for (int tries = 0; !read_scan (r, &rd) || rd.rc != 0; tries++)
    {
      if (tries == 100)
        {
          fprintf (stderr, "%s", _("heaplens-cli top: the session's leak scan cannot be read\n"));
          return 1;
        }
      g_usleep (10000);
    }
  before = rd.scan.seq_atomic;
  if (rd.ended)
    {
      fprintf (stderr, "%s", _("heaplens-cli top: the program has ended: its leaks at exit are in its trace "
                                "('heaplens-cli report TRACE')\n"));
      return 1;
    }
  if (hl_shm_request_control (name, pid, HL_SHM_CONTROL_LEAK_SCAN) != 0)
    {
      fprintf (stderr, _("heaplens-cli top: cannot ask session %s for a leak scan: %s\n"), name, g_strerror (errno));
      return 1;
    }
  fprintf (stderr, _("heaplens-cli top: asked pid %u for a leak scan (it runs at the program's next allocation)\n"),
           (unsigned) pid);
  deadline = g_get_monotonic_time () + (gint64) (timeout_ns / 1000);
  while (g_get_monotonic_time () < deadline)
    {
      g_usleep (10000);
      if (!read_scan (r, &rd))
        return 1;
      if (rd.rc == 0 && rd.scan.seq_atomic != before)
        return 0;
      if (rd.ended)
        {
          fprintf (stderr, "%s", _("heaplens-cli top: the program ended before it scanned: its leaks at exit are "
                                    "in its trace ('heaplens-cli report TRACE')\n"));
          return 1;
        }
      if (kill ((pid_t) pid, 0) != 0 && errno == ESRCH)
        {
          fprintf (stderr, "%s", _("heaplens-cli top: the program died before it scanned (killed?)\n"));
          return 1;
        }
    }
  fprintf (stderr, _("heaplens-cli top: no leak scan within %.0f s: the program did not allocate meanwhile (the scan "
                     "runs at its next allocation call); the request stays until it does\n"),
           (double) timeout_ns / 1e9);
  return 1;
}
