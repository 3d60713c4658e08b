/* hl-symbolizer.c — libdw symbolization with per-module sorted tables. */
#include "hl-symbolizer.h"
#include "hl-dwarf-scopes.h"
#include "hl-model-i18n.h"

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <libiberty/demangle.h>
#include <string.h>

typedef struct
{
  guint64     addr;
  guint64     size;
  const char *name;     /* demangled, interned */
  guint       rank;     /* among symbols at one address: lower names it (sym_rank) */
} Sym;

typedef struct
{
  char        *path;
  char        *build_id;
  Dwfl_Module *mod;
  GArray      *syms;     /* Sym, sorted by addr */
  gboolean     has_symbols;
  gboolean     has_debug_info;
  char        *debug_file;
  char        *hint;
  HlDwarfScopes *scopes;  /* function scopes per unit, read on first use */
} Module;

struct _HlSymbolizer
{
  Dwfl         *dwfl;
  GPtrArray    *modules;     /* Module * */
  GHashTable   *by_mod;      /* Dwfl_Module * → Module * */
  GStringChunk *strings;
  char         *debuginfo_path;
  Dwfl_Callbacks callbacks;
  gboolean      ended;
};

static void
module_free (gpointer p)
{
  Module *m = p;

  g_free (m->path);
  g_free (m->build_id);
  g_clear_pointer (&m->syms, g_array_unref);
  g_free (m->debug_file);
  g_free (m->hint);
  hl_dwarf_scopes_free (m->scopes);
  g_free (m);
}

HlSymbolizer *
hl_symbolizer_new (void)
{
  HlSymbolizer *self = g_new0 (HlSymbolizer, 1);

  self->debuginfo_path = NULL;
  self->callbacks.find_elf = dwfl_build_id_find_elf;
  self->callbacks.find_debuginfo = dwfl_standard_find_debuginfo;
  self->callbacks.section_address = dwfl_offline_section_address;
  self->callbacks.debuginfo_path = &self->debuginfo_path;
  self->dwfl = dwfl_begin (&self->callbacks);
  self->modules = g_ptr_array_new_with_free_func (module_free);
  self->by_mod = g_hash_table_new (NULL, NULL);
  self->strings = g_string_chunk_new (64 * 1024);
  dwfl_report_begin (self->dwfl);
  return self;
}

void
hl_symbolizer_free (HlSymbolizer *self)
{
  if (self == NULL)
    return;
  if (!self->ended)
    dwfl_report_end (self->dwfl, NULL, NULL);
  dwfl_end (self->dwfl);
  g_ptr_array_unref (self->modules);
  g_hash_table_unref (self->by_mod);
  g_string_chunk_free (self->strings);
  g_free (self);
}

char *
hl_demangle (const char *name)
{
  char *d;
  char *out;

  g_return_val_if_fail (name != NULL, NULL);
  if (!(g_str_has_prefix (name, "_Z") || g_str_has_prefix (name, "_R")))
    return g_strdup (name);
  d = cplus_demangle (name, DMGL_PARAMS | DMGL_ANSI);
  if (d == NULL)
    return g_strdup (name);
  out = g_strdup (d);
  free (d);
  return out;
}

static const char *
intern_demangled (HlSymbolizer *self,
                  const char   *name)
{
  g_autofree char *d = hl_demangle (name);
  return g_string_chunk_insert_const (self->strings, d);
}

int
hl_symbolizer_add_module (HlSymbolizer *self,
                          const char   *path,
                          guint64       start,
                          const char   *build_id)
{
  Module *m;
  const char *name;

  g_return_val_if_fail (self != NULL && path != NULL, -1);
  g_return_val_if_fail (!self->ended, -1);

  m = g_new0 (Module, 1);
  m->path = g_strdup (path);
  m->build_id = g_strdup (build_id != NULL ? build_id : "");
  g_ptr_array_add (self->modules, m);
  name = strrchr (path, '/') != NULL ? strrchr (path, '/') + 1 : path;
  if (path[0] != '/' || strchr (path, '[') != NULL)
    {
      m->hint = g_strdup_printf (_("%s is not a file (no symbols)"), name);
      return -1;
    }
  m->mod = dwfl_report_elf (self->dwfl, path, path, -1, start, true);
  if (m->mod == NULL)
    {
      if (m->build_id[0])
        m->hint = g_strdup_printf (_("%s not found at %s (build-id %s): no symbols for it"), name, path, m->build_id);
      else
        m->hint = g_strdup_printf (_("%s not found at %s: no symbols for it"), name, path);
      return -1;
    }
  g_hash_table_insert (self->by_mod, m->mod, m);
  return (int) self->modules->len - 1;
}

/* Several symbols at one address (aliases): the one a person knows names
 * it. Global or weak before local, which drops glibc's internal aliases
 * (__GI___strdup, __libc_start_main_alias_2, _IO_*); then the fewest
 * leading underscores (strdup before __strdup). */
static guint
sym_rank (const GElf_Sym *sym,
          const char     *name)
{
  guint underscores = 0;
  while (name[underscores] == '_' && underscores < 15)
    underscores++;
  return (GELF_ST_BIND (sym->st_info) == STB_LOCAL ? 16u : 0u) + underscores;
}

static int
compare_syms (gconstpointer a,
              gconstpointer b)
{
  const Sym *x = a, *y = b;

  if (x->addr != y->addr)
    return x->addr < y->addr ? -1 : 1;
  /* Sized symbols first, then by rank (find_sym takes the first). */
  if ((x->size == 0) != (y->size == 0))
    return (x->size == 0) - (y->size == 0);
  return (x->rank > y->rank) - (x->rank < y->rank);
}

static void
load_module (HlSymbolizer *self,
             Module       *m)
{
  int n = dwfl_module_getsymtab (m->mod);
  Dwarf_Addr bias;
  const char *debugfile = NULL;
  const char *name = strrchr (m->path, '/') != NULL ? strrchr (m->path, '/') + 1 : m->path;
  const unsigned char *bits = NULL;
  GElf_Addr vaddr;
  int bits_len;

  m->syms = g_array_new (FALSE, FALSE, sizeof (Sym));
  for (int i = 1; i < n; i++)
    {
      GElf_Sym sym;
      GElf_Addr addr;
      const char *sname = dwfl_module_getsym_info (m->mod, i, &sym, &addr, NULL, NULL, NULL);
      Sym s;
      int type = GELF_ST_TYPE (sym.st_info);

      if (sname == NULL || sname[0] == '\0' || addr == 0)
        continue;
      if (type != STT_FUNC && type != STT_GNU_IFUNC)
        continue;
      /* a debug file's symbol table spells versioned symbols with their
       * version (__libc_start_main@@GLIBC_2.34): the name without it */
      g_autofree char *unversioned = strchr (sname, '@') != NULL ? g_strndup (sname, strcspn (sname, "@")) : NULL;
      if (unversioned != NULL)
        sname = unversioned;
      s.addr = addr;
      s.size = sym.st_size;
      s.name = intern_demangled (self, sname);
      s.rank = sym_rank (&sym, sname);
      g_array_append_val (m->syms, s);
    }
  g_array_sort (m->syms, compare_syms);
  m->has_symbols = m->syms->len > 0;
  m->has_debug_info = dwfl_module_getdwarf (m->mod, &bias) != NULL;
  dwfl_module_info (m->mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
  if (debugfile != NULL)
    m->debug_file = g_strdup (debugfile);

  bits_len = dwfl_module_build_id (m->mod, &bits, &vaddr);
  if (bits_len > 0 && m->build_id[0] != '\0')
    {
      GString *hex = g_string_new (NULL);
      for (int i = 0; i < bits_len; i++)
        g_string_append_printf (hex, "%02x", bits[i]);
      if (strcmp (hex->str, m->build_id) != 0)
        {
          g_free (m->hint);
          m->hint = g_strdup_printf (_("%s at %s has build-id %s, the trace recorded %s: "
                                       "symbols may be wrong"), name, m->path, hex->str, m->build_id);
        }
      g_string_free (hex, TRUE);
    }
  if (m->hint == NULL && !m->has_debug_info)
    m->hint = m->build_id[0]
              ? g_strdup_printf (_("no debug info for %s (build-id %s): install its -dbg/-dbgsym package"),
                                 name, m->build_id)
              : g_strdup_printf (_("no debug info for %s: install its -dbg/-dbgsym package"), name);
}

void
hl_symbolizer_end_modules (HlSymbolizer *self)
{
  g_return_if_fail (self != NULL);
  if (self->ended)
    return;
  dwfl_report_end (self->dwfl, NULL, NULL);
  self->ended = TRUE;
  for (guint i = 0; i < self->modules->len; i++)
    {
      Module *m = self->modules->pdata[i];
      if (m->mod != NULL)
        load_module (self, m);
    }
}

static const Sym *
find_sym (const Module *m,
          guint64       addr)
{
  guint lo = 0, hi = m->syms->len;
  const Sym *s;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (g_array_index (m->syms, Sym, mid).addr <= addr)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0)
    return NULL;
  s = &g_array_index (m->syms, Sym, lo - 1);
  /* Several symbols at one address: sized ones sort first. */
  while (lo >= 2 && g_array_index (m->syms, Sym, lo - 2).addr == s->addr)
    s = &g_array_index (m->syms, Sym, --lo - 1);
  if (s->size > 0 && addr >= s->addr + s->size)
    return NULL;
  return s;
}

static const char *
die_name (HlSymbolizer *self,
          Dwarf_Die    *die)
{
  Dwarf_Attribute attr;
  const char *name = NULL;

  if (dwarf_attr_integrate (die, DW_AT_linkage_name, &attr) != NULL ||
      dwarf_attr_integrate (die, DW_AT_MIPS_linkage_name, &attr) != NULL)
    name = dwarf_formstring (&attr);
  /* a mangled name (C++, Rust) demangles to the full signature; any other
   * linkage name is an assembler label, which C code uses for internal
   * aliases (glibc's __GI__IO_doallocbuf): the source name then */
  if (name != NULL && (g_str_has_prefix (name, "_Z") || g_str_has_prefix (name, "_R")))
    return intern_demangled (self, name);
  name = NULL;
  if (dwarf_attr_integrate (die, DW_AT_name, &attr) != NULL)
    name = dwarf_formstring (&attr);
  return name != NULL ? g_string_chunk_insert_const (self->strings, name) : NULL;
}

static const char *
call_site_file (HlSymbolizer *self,
                Dwarf_Die    *cudie,
                Dwarf_Die    *inlined,
                guint        *line)
{
  Dwarf_Attribute attr;
  Dwarf_Word file_index = 0, l = 0;
  Dwarf_Files *files;
  size_t n_files;
  const char *file;

  *line = 0;
  if (dwarf_formudata (dwarf_attr (inlined, DW_AT_call_line, &attr), &l) == 0)
    *line = (guint) l;
  if (dwarf_formudata (dwarf_attr (inlined, DW_AT_call_file, &attr), &file_index) != 0)
    return NULL;
  if (dwarf_getsrcfiles (cudie, &files, &n_files) != 0 || file_index >= n_files)
    return NULL;
  file = dwarf_filesrc (files, file_index, NULL, NULL);
  return file != NULL ? g_string_chunk_insert_const (self->strings, file) : NULL;
}

guint
hl_symbolizer_resolve (HlSymbolizer *self,
                       guint64       address,
                       gboolean      is_return_address,
                       HlSymbol     *frames,
                       guint         max_frames)
{
  guint64 pc = is_return_address && address > 0 ? address - 1 : address;
  Dwfl_Module *mod;
  Module *m;
  const Sym *sym;
  Dwarf_Addr bias = 0;
  Dwarf_Die *cudie;
  Dwfl_Line *dl;
  const char *file = NULL;
  int line = 0;
  guint n = 0;

  g_return_val_if_fail (self != NULL && max_frames > 0, 0);
  if (!self->ended)
    hl_symbolizer_end_modules (self);

  mod = dwfl_addrmodule (self->dwfl, pc);
  if (mod == NULL || (m = g_hash_table_lookup (self->by_mod, mod)) == NULL)
    return 0;

  sym = find_sym (m, pc);
  dl = dwfl_module_getsrc (mod, pc);
  if (dl != NULL)
    {
      file = dwfl_lineinfo (dl, NULL, &line, NULL, NULL, NULL);
      if (file != NULL)
        file = g_string_chunk_insert_const (self->strings, file);
    }

  cudie = m->has_debug_info ? dwfl_module_addrdie (mod, pc, &bias) : NULL;
  if (cudie != NULL)
    {
      const HlCuScopes *cu;
      gint32 scope;
      Dwarf_Die die;

      if (m->scopes == NULL)
        m->scopes = hl_dwarf_scopes_new ();
      cu = hl_dwarf_scopes_for_cu (m->scopes, cudie);
      scope = hl_cu_scopes_innermost (cu, pc - bias);

      while (scope >= 0 && n < max_frames)
        {
          HlSymbol *f = &frames[n++];
          guint call_line = 0;
          const char *call_file = NULL;

          die = *hl_cu_scopes_die (cu, scope);
          f->function = (char *) die_name (self, &die);
          f->file = (char *) file;
          f->line = (guint) line;
          f->is_inline = dwarf_tag (&die) == DW_TAG_inlined_subroutine;
          if (!f->is_inline)
            {
              /* The ELF symbol has the full demangled signature. */
              if (sym != NULL)
                f->function = (char *) sym->name;
              break;
            }
          call_file = call_site_file (self, cudie, &die, &call_line);
          file = call_file;
          line = (int) call_line;

          /* The scope it was inlined into. */
          scope = hl_cu_scopes_parent (cu, scope);
          if (scope < 0 && n < max_frames)
            {
              /* The containing function from the symbol table. */
              HlSymbol *g = &frames[n++];
              g->function = sym != NULL ? (char *) sym->name : NULL;
              g->file = (char *) file;
              g->line = (guint) line;
              g->is_inline = FALSE;
            }
        }
      for (guint i = 0; i < n; i++)
        if (frames[i].function == NULL)
          frames[i].function = (char *) "??";
    }

  if (n == 0)
    {
      if (sym == NULL)
        return 0;
      frames[0].function = (char *) sym->name;
      frames[0].file = (char *) file;
      frames[0].line = (guint) line;
      frames[0].is_inline = FALSE;
      n = 1;
    }
  return n;
}

gboolean
hl_symbolizer_get_module_status (HlSymbolizer *self,
                                 const char   *path,
                                 gboolean     *has_symbols,
                                 gboolean     *has_debug_info,
                                 const char  **debug_file,
                                 const char  **hint)
{
  g_return_val_if_fail (self != NULL && path != NULL, FALSE);
  if (!self->ended)
    hl_symbolizer_end_modules (self);

  for (guint i = 0; i < self->modules->len; i++)
    {
      Module *m = self->modules->pdata[i];
      if (strcmp (m->path, path) != 0)
        continue;
      *has_symbols = m->has_symbols;
      *has_debug_info = m->has_debug_info;
      *debug_file = m->debug_file;
      *hint = m->hint;
      return TRUE;
    }
  return FALSE;
}
