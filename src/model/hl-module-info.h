/* hl-module-info.h — a module (shared object or executable) of a
 * recording, and what the symbolizer found for it. Its own header so that
 * the frame table and the symbolizer need not include the recording. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A module seen in the trace, and what the symbolizer found for it. */
typedef struct
{
  const char *path;            /* as mapped in the target */
  const char *name;            /* basename */
  const char *build_id;        /* lower-case hex, "" when unknown */
  guint64     start;           /* load address */
  guint64     size;
  gboolean    has_symbols;     /* an ELF symbol table was found */
  gboolean    has_debug_info;  /* DWARF (file:line, inline frames) was found */
  const char *debug_file;      /* where DWARF came from, or NULL */
  const char *hint;            /* NULL, or one line for a person, e.g.
                                * "no debug info for libfoo.so (build-id ab12…): install its -dbg package" */
} HlModuleInfo;

G_END_DECLS
