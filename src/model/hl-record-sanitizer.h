/* hl-record-sanitizer.h — whether a program is built with a sanitizer
 * whose runtime replaces the allocator and must be the first library
 * loaded (AddressSanitizer and its kin): the preload, loaded before it,
 * makes it abort, so such a program cannot be recorded. Shared by
 * `heaplens-cli record` and the application's Record dialog. No GTK. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The sanitizer the ELF executable at PATH is built with ("AddressSanitizer",
 * "ThreadSanitizer", ...), from its DT_NEEDED runtimes and its dynamic
 * symbols, or NULL (none, or not an ELF file). For a script ("#!"), its
 * interpreter's. */
const char *hl_record_sanitizer_of (const char *path);

/* Whether the ELF file at PATH is of another class or machine than the
 * preload (a 32-bit program): the loader would ignore the preload, with an
 * error on the program's stderr. */
gboolean hl_record_is_foreign (const char *path);

/* Whether the executable at PATH (or a script's interpreter) is statically
 * linked: no dynamic loader runs for it, so nothing loads the preload. */
gboolean hl_record_is_static (const char *path);

/* The interpreter of the script at PATH (its "#!" line), which the checks
 * above judge in its place, or NULL when PATH is not a script. Free it. */
char *hl_record_interpreter_of (const char *path);

G_END_DECLS
