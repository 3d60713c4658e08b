/* hl-record-sanitizer.c — see hl-record-sanitizer.h. The file is read by
 * the format's ELF probe, the one the preload uses at exec. */
#define _GNU_SOURCE
#include "hl-config.h"

#include "hl-record-sanitizer.h"

#include "hl-elf-probe.h"

#include <fcntl.h>
#include <unistd.h>

/* The program at PATH, or for a script its interpreter (one level). */
static HlElfProbe
probe_path (const char *path,
            gboolean    script)
{
  HlElfProbe probe = { NULL, false, false };
  int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    return probe;
  char interpreter[256];
  if (!hl_elf_probe (fd, &probe) && script && hl_script_interpreter (fd, interpreter, sizeof interpreter))
    probe = probe_path (interpreter, FALSE);
  close (fd);
  return probe;
}

const char *
hl_record_sanitizer_of (const char *path)
{
  return probe_path (path, TRUE).sanitizer;
}

gboolean
hl_record_is_foreign (const char *path)
{
  return probe_path (path, TRUE).foreign;
}

gboolean
hl_record_is_static (const char *path)
{
  HlElfProbe probe = probe_path (path, TRUE);
  return probe.static_linked && probe.sanitizer == NULL && !probe.foreign;
}

char *
hl_record_interpreter_of (const char *path)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    return NULL;
  char interpreter[256];
  HlElfProbe probe;
  gboolean script = !hl_elf_probe (fd, &probe) && hl_script_interpreter (fd, interpreter, sizeof interpreter);
  close (fd);
  return script ? g_strdup (interpreter) : NULL;
}
