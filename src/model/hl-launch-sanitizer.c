/* hl-launch-sanitizer.c — see hl-launch-sanitizer.h. The file is read by
 * the format's ELF probe, the one the preload uses at exec. */
#define _GNU_SOURCE
#include "hl-config.h"

#include "hl-launch-sanitizer.h"

#include "hl-elf-probe.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* The ELF file at PATH into *PROBE; FALSE when it is not one (or cannot
 * be read), then a script's interpreter into INTERPRETER when it is one. */
static gboolean
probe_path (const char *path,
            HlElfProbe *probe,
            char       *interpreter,
            size_t      cap)
{
  *probe = (HlElfProbe) { NULL, false, false };
  int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    return FALSE;
  gboolean elf = hl_elf_probe (fd, probe);
  if (!elf && interpreter != NULL && !hl_script_interpreter (fd, interpreter, cap))
    interpreter[0] = '\0';
  close (fd);
  return elf;
}

gboolean
hl_launch_refusal_of (const char      *path,
                      HlLaunchRefusal *out)
{
  HlElfProbe probe;
  memset (out, 0, sizeof *out);
  if (!probe_path (path, &probe, out->interpreter, sizeof out->interpreter)
      && (out->interpreter[0] == '\0' || !probe_path (out->interpreter, &probe, NULL, 0)))
    {
      out->interpreter[0] = '\0';
      return FALSE;
    }
  out->sanitizer = probe.sanitizer;
  out->foreign = probe.foreign;
  out->static_linked = probe.static_linked && probe.sanitizer == NULL && !probe.foreign;
  return out->sanitizer != NULL || out->foreign || out->static_linked;
}
