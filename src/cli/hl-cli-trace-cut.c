/* hl-cli-trace-cut.c — the record of a cut trace, appended by `record`
 * from the session's header and counters, and the words of its cause. */
#define _GNU_SOURCE
#include "hl-cli-trace-cut.h"

#include <glib.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hl-model.h"
#include "hl-trace-writer.h"

const char *
hl_cli_trace_cut_cause (const char *reason)
{
  if (g_strcmp0 (reason, "ENOSPC") == 0)
    return "a full disk";
  if (g_strcmp0 (reason, "EFBIG") == 0)
    return "the file size limit";
  if (g_strcmp0 (reason, "EDQUOT") == 0)
    return "a disk quota";
  return "a write error";
}

const char *
hl_cli_trace_cut_reason (const HlCliSession *s)
{
  int err = __atomic_load_n (&s->header.trace_cut_errno_atomic, __ATOMIC_ACQUIRE);
  if (err == 0)
    return NULL;
  const char *name = strerrorname_np (err);
  return name != NULL ? name : "EIO";
}

bool
hl_cli_trace_cut_append (const HlCliSession *s)
{
  const char *reason = hl_cli_trace_cut_reason (s);
  const HlShmHeader *h = &s->header;
  if (reason == NULL || h->trace_path[0] == '\0')
    return true;

  uint64_t known_frees = s->n_frees - MIN (s->frees_unknown, s->n_frees);
  uint64_t not_freed_blocks = s->n_allocs >= known_frees ? s->n_allocs - known_frees : 0;
  uint64_t not_freed_bytes = s->bytes_allocated >= s->bytes_freed ? s->bytes_allocated - s->bytes_freed : 0;
  uint64_t at = h->trace_cut_ns_atomic;
  const uint64_t numbers[] = { at, s->n_allocs, s->n_frees, s->bytes_allocated, not_freed_bytes,
                               not_freed_blocks, s->dropped };
  const char *keys[] = { "trace_cut_ns", "session_allocations", "session_frees", "session_bytes_allocated",
                         "session_not_freed_bytes", "session_not_freed_blocks", "session_dropped_events",
                         "trace_cut_reason" };
  char text[G_N_ELEMENTS (numbers)][24];
  const char *values[G_N_ELEMENTS (keys)];
  for (guint i = 0; i < G_N_ELEMENTS (numbers); i++)
    {
      g_snprintf (text[i], sizeof text[i], "%" G_GUINT64_FORMAT, numbers[i]);
      values[i] = text[i];
    }
  values[G_N_ELEMENTS (keys) - 1] = reason;

  g_autofree uint8_t *buf = g_malloc (HL_PACKET_MAX_SIZE);
  g_autofree HlPacketWriter *w = g_new0 (HlPacketWriter, 1);
  hl_packet_writer_init (w, buf, HL_PACKET_MAX_SIZE, h->pid, h->pid);
  size_t len = hl_packet_writer_info (w, at, keys, values, G_N_ELEMENTS (keys));
  int fd = open (h->trace_path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return false;
  struct stat st;
  bool ok = len > 0 && fstat (fd, &st) == 0;
  if (ok && !hl_session_append_all (fd, buf, len))
    {
      int saved = errno;
      (void) ftruncate (fd, st.st_size);
      errno = saved;
      ok = false;
    }
  return close (fd) == 0 && ok;
}
