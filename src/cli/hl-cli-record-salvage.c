/* hl-cli-record-salvage.c — what only `record` knows of a session, in its
 * trace (hl-cli-record-salvage.h). */
#define _GNU_SOURCE
#include "hl-cli-record-salvage.h"

#include <glib.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hl-model.h"
#include "hl-trace-writer.h"

bool
hl_record_salvage_note_session (const char        *trace,
                                const HlShmHeader *header,
                                uint64_t           live_dropped,
                                uint64_t           died_mono_ns,
                                int                wait_status)
{
  uint64_t t = died_mono_ns > header->start_mono_ns ? died_mono_ns - header->start_mono_ns : 0;
  char status_text[16], untracked[24];
  const char *keys[2], *values[2];
  size_t n = 0;
  if (header->flags & HL_SHM_FLAG_ENDED_BY_EXEC)
    {
      bool sig = WIFSIGNALED (wait_status);
      snprintf (status_text, sizeof status_text, "%d", sig ? WTERMSIG (wait_status) : WEXITSTATUS (wait_status));
      keys[n] = sig ? "exec_chain_signal" : "exec_chain_exit_status";
      values[n++] = status_text;
    }
  if (header->flags & HL_SHM_FLAG_SHM_FULL)
    {
      snprintf (untracked, sizeof untracked, "%" G_GUINT64_FORMAT, live_dropped);
      keys[n] = "shm_full_untracked";
      values[n++] = untracked;
    }
  if (n == 0)
    return true;
  g_autofree uint8_t *buf = g_malloc (HL_PACKET_MAX_SIZE);
  g_autofree HlPacketWriter *w = g_new0 (HlPacketWriter, 1);
  int fd = open (trace, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return false;
  hl_packet_writer_init (w, buf, HL_PACKET_MAX_SIZE, header->pid, header->pid);
  size_t len = hl_packet_writer_info (w, t, keys, values, n);
  bool ok = len > 0 && hl_session_append_all (fd, buf, len);
  return close (fd) == 0 && ok;
}
