/* hl-cli-session-file.c — what `record` reads from a session segment,
 * through the format's validated shm reader (hl-shm-reader.h); the
 * segments are found by the model (hl-live-discovery.h). */
#define _GNU_SOURCE
#include "hl-cli-session-file.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hl-model.h"
#include "hl-shm-reader.h"

bool
hl_cli_session_read (const char   *name,
                     HlCliSession *out,
                     char         *err,
                     size_t        err_size)
{
  HlShmReader *r;
  HlFormatError ferr;
  memset (out, 0, sizeof *out);
  if (hl_shm_reader_open (name, &r, &ferr) != 0)
    {
      snprintf (err, err_size, "%s", ferr.message);
      return false;
    }
  out->header = *hl_shm_reader_header (r);
  uint64_t heartbeat = 0;
  out->header.state_atomic = (uint32_t) hl_shm_reader_state (r, &heartbeat);
  out->header.heartbeat_ns_atomic = heartbeat;
  hl_shm_reader_end_info (r, &out->header.exit_status, &out->header.ended_ns, &out->header.flags);
  HlShmTotals t;
  bool ok = hl_shm_reader_totals (r, &t, &ferr) == 0;
  if (ok)
    {
      out->n_allocs = t.n_allocs;
      out->n_frees = t.n_frees;
      out->bytes_allocated = t.bytes_allocated;
      out->bytes_freed = t.bytes_freed;
      out->heap_bytes = t.heap_bytes;
      out->peak_heap_bytes = t.peak_heap_bytes;
      out->peak_rss_bytes = t.peak_rss_bytes;
      out->frees_unknown = t.frees_unknown;
      for (int i = 0; i < HL_DROP_REASONS_MAX; i++)
        out->dropped += t.dropped[i];
      out->live_dropped = t.dropped[HL_DROP_LIVE_TABLE];
    }
  else
    snprintf (err, err_size, "%s", ferr.message);
  hl_shm_reader_free (r);
  return ok;
}

void
hl_cli_session_foreach (HlCliSessionFunc func,
                        void            *user_data)
{
  g_autoptr(GPtrArray) list = hl_live_session_list (HL_LIVE_LIST_NAMES_ONLY, NULL);
  for (guint i = 0; list != NULL && i < list->len; i++)
    func (((const HlLiveSessionInfo *) g_ptr_array_index (list, i))->name, user_data);
}

bool
hl_cli_pid_alive (uint32_t pid)
{
  return pid != 0 && (kill ((pid_t) pid, 0) == 0 || errno == EPERM);
}
