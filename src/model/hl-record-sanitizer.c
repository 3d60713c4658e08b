/* hl-record-sanitizer.c — see hl-record-sanitizer.h. The file is read by
 * the format's ELF probe, the one the preload uses at exec. */
#define _GNU_SOURCE
#include "hl-config.h"

#include "hl-record-sanitizer.h"

#include "hl-elf-probe.h"

#include <fcntl.h>
#include <unistd.h>

static HlElfProbe
probe_path (const char *path)
{
  HlElfProbe probe = { NULL, false };
  int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    return probe;
  hl_elf_probe (fd, &probe);
  close (fd);
  return probe;
}

const char *
hl_record_sanitizer_of (const char *path)
{
  return probe_path (path).sanitizer;
}

gboolean
hl_record_is_foreign (const char *path)
{
  return probe_path (path).foreign;
}
