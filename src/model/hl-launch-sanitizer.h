/* hl-launch-sanitizer.h — whether a program can be recorded at all, read
 * from its ELF file before it is run: one built with a sanitizer whose
 * runtime replaces the allocator and must be the first library loaded
 * (AddressSanitizer and its kin) aborts under the preload; the loader
 * ignores the preload for one of another ELF class or machine (a 32-bit
 * program); no loader runs for a statically linked one. Shared by
 * `heaplens-cli record` and the application's Record dialog. No GTK. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  /* "AddressSanitizer", "ThreadSanitizer", ... (from its DT_NEEDED
   * runtimes and its dynamic symbols), NULL when none */
  const char *sanitizer;
  gboolean    foreign;        /* another ELF class or machine */
  gboolean    static_linked;  /* no PT_INTERP: no dynamic loader */
  /* for a script ("#!"), the interpreter judged in its place, else "" */
  char        interpreter[256];
} HlLaunchRefusal;

/* Reads the program at PATH once (a script: its interpreter, one level).
 * TRUE when it cannot be recorded, *OUT saying why (a sanitizer first,
 * then another machine, then static linking); FALSE when it can, or is
 * not an ELF file or cannot be read (then running it tells). */
gboolean hl_launch_refusal_of (const char      *path,
                               HlLaunchRefusal *out);

G_END_DECLS
