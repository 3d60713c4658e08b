/* fuzz-elf-probe.c — libFuzzer target for the ELF probe the preload runs on
 * every program it exec's or spawns (hl-elf-probe.c): the input is the
 * file, written to a memfd (the probe reads with pread); also a script's
 * "#!" line. The seeds are
 * small shared objects: one needs libasan, one exports __asan_init, one
 * neither. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hl-elf-probe.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  static int fd = -1;
  if (fd < 0)
    fd = memfd_create ("fuzz-elf-probe", MFD_CLOEXEC);
  if (fd < 0 || ftruncate (fd, 0) != 0)
    abort ();
  size_t done = 0;
  while (done < size)
    {
      ssize_t k = pwrite (fd, data + done, size - done, (off_t) done);
      if (k <= 0)
        abort ();
      done += (size_t) k;
    }
  HlElfProbe p;
  if (!hl_elf_probe (fd, &p) && (p.sanitizer != NULL || p.foreign))
    abort (); /* not an ELF file: nothing found */
  char interpreter[64];
  if (hl_script_interpreter (fd, interpreter, sizeof interpreter) && strlen (interpreter) >= sizeof interpreter)
    abort ();
  return 0;
}
