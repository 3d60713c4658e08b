/* hl-record-sanitizer.c — see hl-record-sanitizer.h. */
#define _GNU_SOURCE
#include "hl-config.h"

#include "hl-record-sanitizer.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

/* a runtime linked as a shared library (gcc) */
static const struct
{
  const char *prefix;
  const char *name;
} runtimes[] = {
  { "libasan.so", "AddressSanitizer" },
  { "libhwasan.so", "HWAddressSanitizer" },
  { "libtsan.so", "ThreadSanitizer" },
  { "liblsan.so", "LeakSanitizer" },
  { "libmsan.so", "MemorySanitizer" },
};

/* a runtime linked into the executable (clang), or its entry imported */
static const struct
{
  const char *symbol;
  const char *name;
} entries[] = {
  { "__asan_init", "AddressSanitizer" },
  { "__hwasan_init", "HWAddressSanitizer" },
  { "__tsan_init", "ThreadSanitizer" },
  { "__msan_init", "MemorySanitizer" },
};

/* The data of section SCN and its number of entries (*N), or NULL. */
static Elf_Data *
entries_of (Elf_Scn *scn, const GElf_Shdr *sh, size_t *n)
{
  Elf_Data *d = elf_getdata (scn, NULL);
  if (d == NULL || sh->sh_entsize == 0)
    return NULL;
  *n = sh->sh_size / sh->sh_entsize;
  return d;
}

static const char *
in_dynamic (Elf *e, Elf_Scn *scn, const GElf_Shdr *sh)
{
  size_t n = 0;
  Elf_Data *d = entries_of (scn, sh, &n);
  for (size_t k = 0; d != NULL && k < n; k++)
    {
      GElf_Dyn dyn;
      if (gelf_getdyn (d, (int) k, &dyn) == NULL || dyn.d_tag == DT_NULL)
        break;
      if (dyn.d_tag != DT_NEEDED)
        continue;
      const char *lib = elf_strptr (e, sh->sh_link, dyn.d_un.d_val);
      for (size_t r = 0; lib != NULL && r < G_N_ELEMENTS (runtimes); r++)
        if (g_str_has_prefix (lib, runtimes[r].prefix))
          return runtimes[r].name;
    }
  return NULL;
}

static const char *
in_dynsym (Elf *e, Elf_Scn *scn, const GElf_Shdr *sh)
{
  size_t n = 0;
  Elf_Data *d = entries_of (scn, sh, &n);
  for (size_t k = 0; d != NULL && k < n; k++)
    {
      GElf_Sym sym;
      if (gelf_getsym (d, (int) k, &sym) == NULL)
        break;
      const char *name = elf_strptr (e, sh->sh_link, sym.st_name);
      for (size_t r = 0; name != NULL && r < G_N_ELEMENTS (entries); r++)
        if (strcmp (name, entries[r].symbol) == 0)
          return entries[r].name;
    }
  return NULL;
}

const char *
hl_record_sanitizer_of (const char *path)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  elf_version (EV_CURRENT);
  Elf *e = elf_begin (fd, ELF_C_READ_MMAP, NULL);
  const char *found = NULL;
  if (e != NULL && elf_kind (e) == ELF_K_ELF)
    {
      Elf_Scn *scn = NULL;
      while (found == NULL && (scn = elf_nextscn (e, scn)) != NULL)
        {
          GElf_Shdr sh;
          if (gelf_getshdr (scn, &sh) == NULL)
            continue;
          if (sh.sh_type == SHT_DYNAMIC)
            found = in_dynamic (e, scn, &sh);
          else if (sh.sh_type == SHT_DYNSYM)
            found = in_dynsym (e, scn, &sh);
        }
    }
  if (e != NULL)
    elf_end (e);
  close (fd);
  return found;
}
