/* hl-symbolizer.h — addresses to functions, inline frames and file:line
 * with libdw, from a module map (path, load address, build-id), so that a
 * trace can be symbolized after its program is gone.
 *
 * Debug files are found by build-id under /usr/lib/debug/.build-id and by
 * .gnu_debuglink (libdw's standard lookup, which also asks debuginfod when,
 * and only when, DEBUGINFOD_URLS is set: run it off the UI thread). Each
 * module gets a sorted function-symbol table built once, so a lookup is a
 * binary search instead of dwfl_module_addrname's linear scan.
 * Not thread-safe: one symbolizer per thread.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _HlSymbolizer HlSymbolizer;

typedef struct
{
  char     *function;   /* demangled; NULL when no symbol covers the address */
  char     *file;       /* NULL without line info */
  guint     line;
  gboolean  is_inline;
} HlSymbol;

HlSymbolizer *hl_symbolizer_new          (void);
void          hl_symbolizer_free         (HlSymbolizer *self);

/* Reports a module loaded at START (the address where file offset 0 is
 * mapped). BUILD_ID is lower-case hex or NULL/"". Returns the module's
 * index, or -1 when the file cannot be opened (see get_module_hint). */
int           hl_symbolizer_add_module   (HlSymbolizer *self,
                                          const char   *path,
                                          guint64       start,
                                          const char   *build_id);
/* Call once after the last add_module(). */
void          hl_symbolizer_end_modules  (HlSymbolizer *self);

/* Frames of the return address ADDRESS, innermost first (inline frames
 * first, the real function last). Returns the number written (≤ MAX), 0
 * when ADDRESS is in no module. Strings are owned by the symbolizer and
 * valid until it is freed. */
guint         hl_symbolizer_resolve      (HlSymbolizer *self,
                                          guint64       address,
                                          gboolean      is_return_address,
                                          HlSymbol     *frames,
                                          guint         max_frames);

/* Per module (by the path given to add_module): whether a symbol table and
 * DWARF were found, where the DWARF came from, and a hint for a person
 * when something is missing (NULL when all is well). */
gboolean      hl_symbolizer_get_module_status (HlSymbolizer *self,
                                          const char   *path,
                                          gboolean     *has_symbols,
                                          gboolean     *has_debug_info,
                                          const char  **debug_file,
                                          const char  **hint);

/* C++ and Rust (legacy and v0) demangling through libiberty; a copy of
 * NAME when it is not mangled. */
char         *hl_demangle                (const char   *name);

G_END_DECLS
