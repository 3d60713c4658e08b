/* hl-capture-got.c — the allocator redirected by GOT patching, for a
 * preload loaded into a running process (`heaplens-cli attach`): the
 * program's modules were bound to the C library's malloc long before, so
 * interposition by symbol order cannot happen. For every loaded module
 * (dl_iterate_phdr; the preload itself and the vDSO skipped) the
 * relocations of DT_JMPREL (PLT slots) and DT_RELA (GLOB_DAT: addresses
 * taken) that name a function of HL_GOT_NAMES are found, and each slot
 * that holds the function the program's modules are bound to (or, for a
 * PLT slot not yet bound lazily, an address inside the module) is given
 * the preload's function. A RELRO page is made writable for the write and
 * given its protection back. The old values are kept, to be put back at
 * the detach. libc.so.6 itself calls malloc through its PLT, so its own
 * slots are patched too (strdup and the others are then seen).
 *
 * Every table is read through bounds checked against the module's mapped
 * segments. */
#define _GNU_SOURCE
#include "hl-capture-private.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

/* A patched slot: where, what it held, what we put. */
typedef struct
{
  uintptr_t *slot;
  uintptr_t  old;
  uintptr_t  ours;
  bool       relro;  /* on a RELRO page: read-only but for our writes */
  bool       frees;  /* free or cfree: written first, put back last */
} HlGotSlot;

#define HL_GOT_MAX_SLOTS 65536u

static void prune_slots (void);

static HlGotSlot *slots;      /* an anonymous mapping: never the allocator */
static uint32_t   n_slots;
static uint32_t   n_modules_patched;

typedef struct
{
  const char *name;
  uintptr_t   real;  /* what the program is bound to */
  uintptr_t   ours;
} HlGotTarget;

static HlGotTarget targets[HL_GOT_MAX_TARGETS];
static uint32_t    n_targets;

void
hl_got_set_targets (const char *const *names,
                    void *const       *ours,
                    uint32_t           n)
{
  n_targets = 0;
  for (uint32_t i = 0; i < n && n_targets < HL_GOT_MAX_TARGETS; i++)
    {
      void *real = hl_dlsym_next (names[i]);
      if (real == NULL || real == ours[i])
        continue;
      targets[n_targets++] = (HlGotTarget) { names[i], (uintptr_t) real, (uintptr_t) ours[i] };
    }
}

/* The address range [lo, hi) of the module's PT_LOAD segments. */
typedef struct
{
  uintptr_t lo, hi;
  uintptr_t relro_lo, relro_hi;
} ModuleRange;

static bool
in_module (const ModuleRange *m, uintptr_t p, uint64_t size)
{
  return p >= m->lo && p <= m->hi && size <= m->hi - p;
}

/* A dynamic entry's address: the loader has relocated most of them in
 * place (glibc on x86_64); one still below the bias is relative. */
static uintptr_t
dyn_addr (const struct dl_phdr_info *info, uint64_t v)
{
  return v < info->dlpi_addr ? info->dlpi_addr + v : v;
}

typedef struct
{
  uintptr_t self_addr;  /* an address inside the preload */
  uintptr_t vdso;
  uint32_t  patched;
} PatchCtx;

static const HlGotTarget *
target_of (const char *name)
{
  for (uint32_t i = 0; i < n_targets; i++)
    if (strcmp (targets[i].name, name) == 0)
      return &targets[i];
  return NULL;
}

static bool
already_patched (uintptr_t *slot)
{
  for (uint32_t i = 0; i < n_slots; i++)
    if (slots[i].slot == slot)
      return true;
  return false;
}

static void
patch_relocs (const struct dl_phdr_info *info, const ModuleRange *m, const ElfW (Rela) *rel, uint64_t size,
              const ElfW (Sym) *symtab, const char *strtab, uint64_t strsz, PatchCtx *ctx)
{
  if (rel == NULL || !in_module (m, (uintptr_t) rel, size))
    return;
  uint64_t n = size / sizeof (ElfW (Rela));
  for (uint64_t i = 0; i < n; i++)
    {
      uint32_t type = (uint32_t) ELF64_R_TYPE (rel[i].r_info);
      if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT)
        continue;
      uint64_t si = ELF64_R_SYM (rel[i].r_info);
      const ElfW (Sym) *s = &symtab[si];
      if (si == 0 || !in_module (m, (uintptr_t) s, sizeof *s) || s->st_name >= strsz)
        continue;
      const char *name = strtab + s->st_name;
      /* the name ends within the string table */
      if (memchr (name, '\0', strsz - s->st_name) == NULL)
        continue;
      const HlGotTarget *t = target_of (name);
      if (t == NULL)
        continue;
      uintptr_t *slot = (uintptr_t *) (info->dlpi_addr + rel[i].r_offset);
      if (((uintptr_t) slot & 7) != 0 || !in_module (m, (uintptr_t) slot, sizeof *slot))
        continue;
      uintptr_t cur = __atomic_load_n (slot, __ATOMIC_ACQUIRE);
      bool lazy = type == R_X86_64_JUMP_SLOT && cur >= m->lo && cur < m->hi;
      if (cur != t->real && !lazy)
        continue; /* bound elsewhere (a wrapper of the program's): left alone */
      if (n_slots >= HL_GOT_MAX_SLOTS || already_patched (slot))
        continue;
      bool relro = (uintptr_t) slot >= m->relro_lo && (uintptr_t) slot < m->relro_hi;
      bool frees = strcmp (t->name, "free") == 0 || strcmp (t->name, "cfree") == 0;
      /* written later, all at once (hl_got_patch_all) */
      slots[n_slots++] = (HlGotSlot) { slot, cur, t->ours, relro, frees };
      ctx->patched++;
    }
}

static int
patch_cb (struct dl_phdr_info *info,
          size_t               size,
          void                *data)
{
  PatchCtx *ctx = data;
  ModuleRange m = { UINTPTR_MAX, 0, 0, 0 };
  const ElfW (Phdr) *dynph = NULL;
  for (int i = 0; i < info->dlpi_phnum; i++)
    {
      const ElfW (Phdr) *ph = &info->dlpi_phdr[i];
      uintptr_t s = info->dlpi_addr + ph->p_vaddr;
      if (ph->p_type == PT_LOAD)
        {
          if (s < m.lo)
            m.lo = s;
          if (s + ph->p_memsz > m.hi)
            m.hi = s + ph->p_memsz;
        }
      else if (ph->p_type == PT_DYNAMIC)
        dynph = ph;
      else if (ph->p_type == PT_GNU_RELRO)
        {
          uintptr_t page = (uintptr_t) sysconf (_SC_PAGESIZE);
          m.relro_lo = s & ~(page - 1);
          m.relro_hi = (s + ph->p_memsz) & ~(page - 1); /* whole pages, as the loader protects */
        }
    }
  if (dynph == NULL || m.hi == 0)
    return 0;
  if (ctx->self_addr >= m.lo && ctx->self_addr < m.hi)
    return 0; /* the preload itself */
  if (ctx->vdso != 0 && ctx->vdso >= m.lo && ctx->vdso < m.hi)
    return 0;
  const ElfW (Dyn) *dyn = (const ElfW (Dyn) *) (info->dlpi_addr + dynph->p_vaddr);
  if (!in_module (&m, (uintptr_t) dyn, dynph->p_memsz))
    return 0;
  uint64_t n_dyn = dynph->p_memsz / sizeof (ElfW (Dyn));
  const ElfW (Sym) *symtab = NULL;
  const char *strtab = NULL;
  const ElfW (Rela) *jmprel = NULL, *rela = NULL;
  uint64_t strsz = 0, pltrelsz = 0, relasz = 0, pltrel = DT_RELA, syment = sizeof (ElfW (Sym));
  for (uint64_t i = 0; i < n_dyn && dyn[i].d_tag != DT_NULL; i++)
    switch (dyn[i].d_tag)
      {
      case DT_SYMTAB: symtab = (const ElfW (Sym) *) dyn_addr (info, dyn[i].d_un.d_ptr); break;
      case DT_STRTAB: strtab = (const char *) dyn_addr (info, dyn[i].d_un.d_ptr); break;
      case DT_STRSZ: strsz = dyn[i].d_un.d_val; break;
      case DT_SYMENT: syment = dyn[i].d_un.d_val; break;
      case DT_JMPREL: jmprel = (const ElfW (Rela) *) dyn_addr (info, dyn[i].d_un.d_ptr); break;
      case DT_PLTRELSZ: pltrelsz = dyn[i].d_un.d_val; break;
      case DT_PLTREL: pltrel = dyn[i].d_un.d_val; break;
      case DT_RELA: rela = (const ElfW (Rela) *) dyn_addr (info, dyn[i].d_un.d_ptr); break;
      case DT_RELASZ: relasz = dyn[i].d_un.d_val; break;
      default: break;
      }
  if (symtab == NULL || strtab == NULL || syment != sizeof (ElfW (Sym)) || pltrel != DT_RELA
      || !in_module (&m, (uintptr_t) symtab, sizeof (ElfW (Sym))) || !in_module (&m, (uintptr_t) strtab, strsz))
    return 0;
  uint32_t before = ctx->patched;
  patch_relocs (info, &m, jmprel, pltrelsz, symtab, strtab, strsz, ctx);
  patch_relocs (info, &m, rela, relasz, symtab, strtab, strsz, ctx);
  if (ctx->patched > before)
    n_modules_patched++;
  return 0;
}

uint32_t
hl_got_patch_all (void)
{
  if (slots == NULL)
    {
      slots = hl_sys_map_anon (HL_GOT_MAX_SLOTS * sizeof (HlGotSlot));
      if (slots == NULL)
        return 0;
    }
  PatchCtx ctx = { (uintptr_t) &hl_got_patch_all, (uintptr_t) getauxval (AT_SYSINFO_EHDR), 0 };
  int saved = errno;
  prune_slots ();
  uint32_t first = n_slots;
  dl_iterate_phdr (patch_cb, &ctx);
  /* The program's threads run meanwhile: the slots are written in one
   * tight loop, with no system call between two of them (the RELRO pages
   * made writable before, read-only after), the frees first, so that a
   * thread rarely frees unseen a block it allocated through us (a block
   * it allocated unseen and frees through us only counts as allocated
   * before the attach). */
  uintptr_t page = (uintptr_t) sysconf (_SC_PAGESIZE);
  uint32_t k = first;
  for (uint32_t i = first; i < n_slots; i++)
    if (!slots[i].relro || mprotect ((void *) ((uintptr_t) slots[i].slot & ~(page - 1)), page,
                                     PROT_READ | PROT_WRITE) == 0)
      slots[k++] = slots[i];
  n_slots = k;
  for (int pass = 0; pass < 2; pass++)
    for (uint32_t i = first; i < n_slots; i++)
      if (slots[i].frees == (pass == 0))
        __atomic_store_n (slots[i].slot, slots[i].ours, __ATOMIC_RELEASE);
  for (uint32_t i = first; i < n_slots; i++)
    if (slots[i].relro)
      (void) mprotect ((void *) ((uintptr_t) slots[i].slot & ~(page - 1)), page, PROT_READ);
  ctx.patched = n_slots - first;
  errno = saved;
  return ctx.patched;
}

/* Marks the slots inside a module still loaded (a module closed since
 * took its slots with it: they must not be read). */
static int
mark_cb (struct dl_phdr_info *info,
         size_t               size,
         void                *data)
{
  uint8_t *live = data;
  for (int i = 0; i < info->dlpi_phnum; i++)
    {
      const ElfW (Phdr) *ph = &info->dlpi_phdr[i];
      if (ph->p_type != PT_LOAD || (ph->p_flags & PF_W) == 0)
        continue;
      uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
      for (uint32_t k = 0; k < n_slots; k++)
        if ((uintptr_t) slots[k].slot >= lo && (uintptr_t) slots[k].slot + sizeof (uintptr_t) <= hi)
          live[k] = 1;
    }
  return 0;
}

static uint8_t *live_marks; /* one byte a slot, an anonymous mapping */

/* Drops the slots of modules no longer loaded. */
static void
prune_slots (void)
{
  if (n_slots == 0)
    return;
  if (live_marks == NULL && (live_marks = hl_sys_map_anon (HL_GOT_MAX_SLOTS)) == NULL)
    return;
  memset (live_marks, 0, n_slots);
  dl_iterate_phdr (mark_cb, live_marks);
  uint32_t k = 0;
  for (uint32_t i = 0; i < n_slots; i++)
    if (live_marks[i])
      slots[k++] = slots[i];
  n_slots = k;
}

/* Puts back every slot that still holds our function (a slot the program
 * or the loader changed since is left as it is). */
uint32_t
hl_got_restore_all (void)
{
  uint32_t restored = 0;
  int saved = errno;
  prune_slots ();
  uintptr_t page = (uintptr_t) sysconf (_SC_PAGESIZE);
  /* as when patching: pages writable first, then one tight loop (the
   * allocations first, the frees last), then read-only again */
  for (uint32_t i = 0; i < n_slots; i++)
    {
      HlGotSlot *s = &slots[i];
      bool ok = __atomic_load_n (s->slot, __ATOMIC_ACQUIRE) == s->ours;
      if (ok && s->relro
          && mprotect ((void *) ((uintptr_t) s->slot & ~(page - 1)), page, PROT_READ | PROT_WRITE) != 0)
        ok = false;
      if (!ok)
        s->ours = 0; /* changed since, or not writable: left alone */
    }
  for (int pass = 0; pass < 2; pass++)
    for (uint32_t i = 0; i < n_slots; i++)
      if (slots[i].ours != 0 && slots[i].frees == (pass == 1))
        {
          __atomic_store_n (slots[i].slot, slots[i].old, __ATOMIC_RELEASE);
          restored++;
        }
  for (uint32_t i = 0; i < n_slots; i++)
    if (slots[i].ours != 0 && slots[i].relro)
      (void) mprotect ((void *) ((uintptr_t) slots[i].slot & ~(page - 1)), page, PROT_READ);
  n_slots = 0;
  n_modules_patched = 0;
  errno = saved;
  return restored;
}

uint32_t
hl_got_slots (void)
{
  return n_slots;
}

uint32_t
hl_got_modules_patched (void)
{
  return n_modules_patched;
}
