/* hl-elf-probe.h — what an executable file needs from the loader that
 * rules out our preload: a sanitizer runtime that must be the first
 * library loaded (AddressSanitizer and its kin abort when the preload
 * comes before them), or another ELF class or machine (the loader ignores
 * the preload with an error on stderr).
 *
 * Shared by the preload, which runs such an image without itself when the
 * program exec's or spawns it, and by `heaplens-cli record` and the
 * application, which refuse to record it. Read with pread() into fixed
 * buffers: no allocation, no stdio, async-signal-safe. Every offset and
 * size the file gives is checked against the file; a malformed file is
 * "not known", never a crash. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

typedef struct
{
  /* "AddressSanitizer", "ThreadSanitizer", ... (from the runtime among its
   * DT_NEEDED libraries, or the runtime's entry point among its exported
   * symbols: a runtime linked in), NULL when none */
  const char *sanitizer;
  /* an ELF file of another class, byte order or machine than the preload's
   * (a 32-bit program): the loader would refuse the preload */
  bool        foreign;
  /* an executable without a PT_INTERP (statically linked): no dynamic
   * loader runs for it, so nothing loads a preload */
  bool        static_linked;
} HlElfProbe;

/* Probes the regular file open as FD (read with pread: its offset is left
 * alone). False (and *OUT zeroed) when it is not an ELF file (a script) or
 * cannot be read. */
bool hl_elf_probe (int fd, HlElfProbe *out);

/* The interpreter the script open as FD names on its "#!" line, as the
 * kernel reads it (the first word after "#!"), into BUF (CAP bytes, NUL
 * terminated): what runs when the script is exec'd. False when FD is not
 * such a script (or the line does not fit in 255 bytes). */
bool hl_script_interpreter (int fd, char *buf, size_t cap);
