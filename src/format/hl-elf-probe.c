/* hl-elf-probe.c — see hl-elf-probe.h.
 *
 * The loader's view of the file, not the linker's: the program headers
 * (the section headers may be stripped), the dynamic section they point
 * to, its DT_NEEDED names in the dynamic string table, and a lookup of
 * the runtimes' entry points in the GNU hash table of the dynamic
 * symbols. Addresses are turned into file offsets through the PT_LOAD
 * segments. */
#define _GNU_SOURCE
#include "hl-elf-probe.h"

#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if UINTPTR_MAX == UINT64_MAX
#define NATIVE_CLASS ELFCLASS64
typedef Elf64_Ehdr Ehdr;
typedef Elf64_Phdr Phdr;
typedef Elf64_Dyn  Dyn;
typedef Elf64_Sym  Sym;
typedef uint64_t   BloomWord;
#else
#define NATIVE_CLASS ELFCLASS32
typedef Elf32_Ehdr Ehdr;
typedef Elf32_Phdr Phdr;
typedef Elf32_Dyn  Dyn;
typedef Elf32_Sym  Sym;
typedef uint32_t   BloomWord;
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NATIVE_DATA ELFDATA2LSB
#else
#define NATIVE_DATA ELFDATA2MSB
#endif

#if defined(__x86_64__)
#define NATIVE_MACHINE EM_X86_64
#elif defined(__i386__)
#define NATIVE_MACHINE EM_386
#elif defined(__aarch64__)
#define NATIVE_MACHINE EM_AARCH64
#elif defined(__arm__)
#define NATIVE_MACHINE EM_ARM
#elif defined(__powerpc64__)
#define NATIVE_MACHINE EM_PPC64
#elif defined(__s390x__)
#define NATIVE_MACHINE EM_S390
#elif defined(__riscv)
#define NATIVE_MACHINE EM_RISCV
#else
#define NATIVE_MACHINE EM_NONE /* not known here: never called foreign */
#endif

#define MAX_PHDRS   256u  /* program headers looked at */
#define MAX_LOADS   16u   /* PT_LOAD segments kept for address translation */
#define MAX_DYN     4096u /* dynamic entries read */
#define MAX_NEEDED  64u   /* DT_NEEDED names compared */
#define MAX_CHAIN   4096u /* hash chain entries followed in one lookup */
#define NAME_MAX_LEN 64u  /* longest name compared (runtime prefixes, entry points) */

/* a runtime linked as a shared library (gcc; clang with -shared-libasan) */
static const struct
{
  const char *prefix;
  const char *name;
} runtimes[] = {
  { "libasan.so", "AddressSanitizer" },
  { "libclang_rt.asan", "AddressSanitizer" },
  { "libhwasan.so", "HWAddressSanitizer" },
  { "libclang_rt.hwasan", "HWAddressSanitizer" },
  { "libtsan.so", "ThreadSanitizer" },
  { "libclang_rt.tsan", "ThreadSanitizer" },
  { "liblsan.so", "LeakSanitizer" },
  { "libclang_rt.lsan", "LeakSanitizer" },
  { "libmsan.so", "MemorySanitizer" },
  { "libclang_rt.msan", "MemorySanitizer" },
};

/* a runtime linked into the executable (clang's default): its entry point
 * among the exported symbols */
static const struct
{
  const char *symbol;
  const char *name;
} entries[] = {
  { "__asan_init", "AddressSanitizer" },
  { "__hwasan_init", "HWAddressSanitizer" },
  { "__tsan_init", "ThreadSanitizer" },
  { "__lsan_init", "LeakSanitizer" },
  { "__msan_init", "MemorySanitizer" },
};

#define N_OF(a) (sizeof (a) / sizeof (a)[0])

typedef struct
{
  uint64_t vaddr, filesz, offset;
} Load;

typedef struct
{
  int      fd;
  uint64_t size;       /* of the file */
  uint32_t n_loads;
  Load     loads[MAX_LOADS];
  uint64_t strtab, strsz; /* file offset and size of the dynamic string table */
} Image;

/* LEN bytes at file offset OFF, all within the file. */
static bool
read_at (const Image *im,
         uint64_t     off,
         void        *buf,
         size_t       len)
{
  if (off > im->size || len > im->size - off)
    return false;
  size_t done = 0;
  while (done < len)
    {
      ssize_t k = pread (im->fd, (char *) buf + done, len - done, (off_t) (off + done));
      if (k < 0 && errno == EINTR)
        continue;
      if (k <= 0)
        return false;
      done += (size_t) k;
    }
  return true;
}

/* The file offset of LEN bytes at address VADDR, all inside the file part
 * of one PT_LOAD segment. */
static bool
offset_of (const Image *im,
           uint64_t     vaddr,
           uint64_t     len,
           uint64_t    *off)
{
  for (uint32_t i = 0; i < im->n_loads; i++)
    {
      const Load *l = &im->loads[i];
      if (vaddr < l->vaddr)
        continue;
      uint64_t in = vaddr - l->vaddr;
      if (in > l->filesz || len > l->filesz - in)
        continue;
      *off = l->offset + in;
      return true;
    }
  return false;
}

static bool
read_vaddr (const Image *im,
            uint64_t     vaddr,
            void        *buf,
            size_t       len)
{
  uint64_t off;
  return offset_of (im, vaddr, len, &off) && read_at (im, off, buf, len);
}

/* The name at offset NAME of the dynamic string table into BUF (at most
 * NAME_MAX_LEN bytes, NUL-terminated; a longer one is cut, which no name
 * compared here is). */
static bool
read_name (const Image *im,
           uint64_t     name,
           char         buf[NAME_MAX_LEN + 1])
{
  if (name >= im->strsz)
    return false;
  uint64_t len = im->strsz - name;
  if (len > NAME_MAX_LEN)
    len = NAME_MAX_LEN;
  if (im->strtab > im->size || name > im->size - im->strtab)
    return false;
  uint64_t left = im->size - im->strtab - name;
  if (len > left)
    len = left;
  if (!read_at (im, im->strtab + name, buf, (size_t) len))
    return false;
  buf[len] = '\0';
  return true;
}

static uint32_t
gnu_hash (const char *s)
{
  uint32_t h = 5381;
  for (; *s != '\0'; s++)
    h = h * 33u + (uint8_t) *s;
  return h;
}

/* Whether the GNU hash table at address TABLE finds the defined symbol
 * NAME in the symbol table at address SYMTAB. */
static bool
exports (const Image *im,
         uint64_t     table,
         uint64_t     symtab,
         const char  *name)
{
  uint32_t head[4]; /* nbuckets, symoffset, bloom words, bloom shift */
  if (!read_vaddr (im, table, head, sizeof head))
    return false;
  uint32_t nbuckets = head[0], symoffset = head[1], nbloom = head[2], shift = head[3];
  if (nbuckets == 0 || nbloom == 0 || nbuckets > (1u << 24) || nbloom > (1u << 24))
    return false;
  const uint32_t bits = 8u * (uint32_t) sizeof (BloomWord);
  uint32_t h = gnu_hash (name);
  BloomWord word;
  uint64_t bloom = table + sizeof head;
  if (!read_vaddr (im, bloom + (uint64_t) ((h / bits) % nbloom) * sizeof word, &word, sizeof word))
    return false;
  if (((word >> (h % bits)) & (word >> ((h >> (shift % 32u)) % bits)) & 1u) == 0)
    return false;
  uint64_t buckets = bloom + (uint64_t) nbloom * sizeof word;
  uint32_t i;
  if (!read_vaddr (im, buckets + (uint64_t) (h % nbuckets) * 4u, &i, sizeof i))
    return false;
  if (i == 0 || i < symoffset)
    return false;
  uint64_t chain = buckets + (uint64_t) nbuckets * 4u;
  for (uint32_t n = 0; n < MAX_CHAIN; n++, i++)
    {
      uint32_t c;
      if (i == 0 || !read_vaddr (im, chain + (uint64_t) (i - symoffset) * 4u, &c, sizeof c))
        return false;
      if ((c | 1u) == (h | 1u))
        {
          Sym sym;
          char got[NAME_MAX_LEN + 1];
          if (!read_vaddr (im, symtab + (uint64_t) i * sizeof sym, &sym, sizeof sym))
            return false;
          if (sym.st_shndx != SHN_UNDEF && read_name (im, sym.st_name, got) && strcmp (got, name) == 0)
            return true;
        }
      if (c & 1u)
        return false;
    }
  return false;
}

/* The program headers: the PT_LOAD segments into IM, the dynamic
 * section's place into *DYN_OFF and *DYN_SIZE (0: none). */
static bool
read_segments (Image      *im,
               const Ehdr *eh,
               uint64_t   *dyn_off,
               uint64_t   *dyn_size,
               bool       *has_interp)
{
  *dyn_off = 0;
  *dyn_size = 0;
  *has_interp = false;
  if (eh->e_phentsize != sizeof (Phdr))
    return false;
  uint32_t n = eh->e_phnum < MAX_PHDRS ? eh->e_phnum : MAX_PHDRS;
  for (uint32_t i = 0; i < n; i++)
    {
      Phdr ph;
      if (!read_at (im, (uint64_t) eh->e_phoff + (uint64_t) i * sizeof ph, &ph, sizeof ph))
        return false;
      if (ph.p_type == PT_LOAD && im->n_loads < MAX_LOADS)
        im->loads[im->n_loads++] = (Load) { ph.p_vaddr, ph.p_filesz, ph.p_offset };
      else if (ph.p_type == PT_DYNAMIC)
        {
          *dyn_off = ph.p_offset;
          *dyn_size = ph.p_filesz;
        }
      else if (ph.p_type == PT_INTERP)
        *has_interp = true;
    }
  return true;
}

/* The sanitizer the dynamic section at DYN_OFF (DYN_SIZE bytes) asks
 * for, or NULL. */
static const char *
sanitizer_of (Image    *im,
              uint64_t  dyn_off,
              uint64_t  dyn_size)
{
  uint64_t needed[MAX_NEEDED];
  uint32_t n_needed = 0;
  uint64_t strtab = 0, strsz = 0, symtab = 0, gnu_hash_table = 0;
  uint64_t n = dyn_size / sizeof (Dyn);
  if (n > MAX_DYN)
    n = MAX_DYN;
  for (uint64_t i = 0; i < n; i++)
    {
      Dyn d;
      if (!read_at (im, dyn_off + i * sizeof d, &d, sizeof d) || d.d_tag == DT_NULL)
        break;
      switch (d.d_tag)
        {
        case DT_NEEDED:
          if (n_needed < MAX_NEEDED)
            needed[n_needed++] = d.d_un.d_val;
          break;
        case DT_STRTAB:
          strtab = d.d_un.d_ptr;
          break;
        case DT_STRSZ:
          strsz = d.d_un.d_val;
          break;
        case DT_SYMTAB:
          symtab = d.d_un.d_ptr;
          break;
        case DT_GNU_HASH:
          gnu_hash_table = d.d_un.d_ptr;
          break;
        default:
          break;
        }
    }
  if (strsz == 0 || !offset_of (im, strtab, strsz, &im->strtab))
    return NULL;
  im->strsz = strsz;
  for (uint32_t k = 0; k < n_needed; k++)
    {
      char name[NAME_MAX_LEN + 1];
      if (!read_name (im, needed[k], name))
        continue;
      for (size_t r = 0; r < N_OF (runtimes); r++)
        if (strncmp (name, runtimes[r].prefix, strlen (runtimes[r].prefix)) == 0)
          return runtimes[r].name;
    }
  if (gnu_hash_table != 0 && symtab != 0)
    for (size_t r = 0; r < N_OF (entries); r++)
      if (exports (im, gnu_hash_table, symtab, entries[r].symbol))
        return entries[r].name;
  return NULL;
}

bool
hl_elf_probe (int         fd,
              HlElfProbe *out)
{
  *out = (HlElfProbe) { NULL, false, false };
  int saved = errno;
  struct stat st;
  Image im = { .fd = fd };
  bool ok = false;
  unsigned char ident[EI_NIDENT];
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size < 0)
    goto out;
  im.size = (uint64_t) st.st_size;
  if (!read_at (&im, 0, ident, sizeof ident) || memcmp (ident, ELFMAG, SELFMAG) != 0)
    goto out;
  ok = true;
  Ehdr eh;
  if (ident[EI_CLASS] != NATIVE_CLASS || ident[EI_DATA] != NATIVE_DATA)
    {
      out->foreign = true;
      goto out;
    }
  if (!read_at (&im, 0, &eh, sizeof eh))
    goto out;
  if (NATIVE_MACHINE != EM_NONE && eh.e_machine != NATIVE_MACHINE)
    {
      out->foreign = true;
      goto out;
    }
  uint64_t dyn_off, dyn_size;
  bool has_interp;
  if ((eh.e_type == ET_EXEC || eh.e_type == ET_DYN) && read_segments (&im, &eh, &dyn_off, &dyn_size, &has_interp))
    {
      out->static_linked = !has_interp;
      if (dyn_size != 0)
        out->sanitizer = sanitizer_of (&im, dyn_off, dyn_size);
    }
out:
  errno = saved;
  return ok;
}

bool
hl_script_interpreter (int     fd,
                       char   *buf,
                       size_t  cap)
{
  int saved = errno;
  char line[256];
  ssize_t n;
  do
    n = pread (fd, line, sizeof line - 1, 0);
  while (n < 0 && errno == EINTR);
  errno = saved;
  if (n < 3 || line[0] != '#' || line[1] != '!' || cap == 0)
    return false;
  line[n] = '\0';
  const char *p = line + 2;
  while (*p == ' ' || *p == '\t')
    p++;
  const char *end = p;
  while (*end != '\0' && *end != ' ' && *end != '\t' && *end != '\n')
    end++;
  /* no interpreter, or a first line longer than the kernel reads */
  if (end == p || *end == '\0' || (size_t) (end - p) >= cap)
    return false;
  memcpy (buf, p, (size_t) (end - p));
  buf[end - p] = '\0';
  return true;
}
