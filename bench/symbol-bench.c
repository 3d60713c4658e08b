/* symbol-bench — symbolizes N unique addresses (default 10,000) cold, from
 * a real binary with debug info (issue 6 target: 10,000 in ≤ 0.2 s). Not a
 * test.
 *
 *   symbol-bench [ELF] [N]
 *
 * ELF defaults to the C library (its DWARF from libc6-dbg, found by
 * build-id). The addresses are spread evenly over the bytes of its function
 * symbols, as return addresses. Timed twice, each in a fresh object: the
 * symbolizer alone (hl_symbolizer_resolve), then a recording's
 * hl_recording_symbolize over N one-frame stacks (the loader's path, with
 * interning and stack expansion). SYMBOL_BENCH_DUMP=1 prints every frame
 * (to compare two builds' answers).
 */
#define _POSIX_C_SOURCE 200809L
#include "bench-cpu.h"
#include "hl-model.h"
#include "hl-recording-builder.h"
#include "hl-symbolizer.h"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define LOAD_AT 0x7f0000000000ull

static double
now_ms (void)
{
  return g_get_monotonic_time () / 1000.0;
}

typedef struct
{
  guint64 start, size;
} Range;

static int
compare_ranges (gconstpointer a,
                gconstpointer b)
{
  const Range *ra = a, *rb = b;
  return ra->start < rb->start ? -1 : ra->start > rb->start;
}

/* Function symbols of PATH (start, size), its build-id in hex and its
 * mapped size. */
static GArray *
read_functions (const char *path,
                char      **build_id_hex,
                guint64    *map_size)
{
  GArray *ranges = g_array_new (FALSE, FALSE, sizeof (Range));
  int fd = open (path, O_RDONLY);
  Elf *elf;
  Elf_Scn *scn = NULL;
  const void *id;
  ssize_t id_len;
  size_t n_ph;

  *build_id_hex = g_strdup ("");
  *map_size = 0;
  if (fd < 0)
    return ranges;
  elf_version (EV_CURRENT);
  elf = elf_begin (fd, ELF_C_READ, NULL);
  if (elf == NULL)
    {
      close (fd);
      return ranges;
    }
  id_len = dwelf_elf_gnu_build_id (elf, &id);
  if (id_len > 0)
    {
      GString *hex = g_string_new (NULL);
      for (ssize_t i = 0; i < id_len; i++)
        g_string_append_printf (hex, "%02x", ((const guint8 *) id)[i]);
      g_free (*build_id_hex);
      *build_id_hex = g_string_free (hex, FALSE);
    }
  if (elf_getphdrnum (elf, &n_ph) == 0)
    for (size_t i = 0; i < n_ph; i++)
      {
        GElf_Phdr ph;
        if (gelf_getphdr (elf, (int) i, &ph) != NULL && ph.p_type == PT_LOAD)
          *map_size = MAX (*map_size, ph.p_vaddr + ph.p_memsz);
      }
  while ((scn = elf_nextscn (elf, scn)) != NULL)
    {
      GElf_Shdr sh;
      Elf_Data *data;

      if (gelf_getshdr (scn, &sh) == NULL || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
        continue;
      data = elf_getdata (scn, NULL);
      for (size_t i = 0; data != NULL && sh.sh_entsize > 0 && i < sh.sh_size / sh.sh_entsize; i++)
        {
          GElf_Sym sym;
          if (gelf_getsym (data, (int) i, &sym) != NULL && GELF_ST_TYPE (sym.st_info) == STT_FUNC &&
              sym.st_size > 0 && sym.st_shndx != SHN_UNDEF)
            {
              Range r = { sym.st_value, sym.st_size };
              g_array_append_val (ranges, r);
            }
        }
    }
  elf_end (elf);
  close (fd);

  /* Without duplicates (aliases, and both tables). */
  g_array_sort (ranges, compare_ranges);
  {
    guint out = 0;
    guint64 end = 0;
    for (guint i = 0; i < ranges->len; i++)
      {
        Range r = g_array_index (ranges, Range, i);
        if (r.start < end)
          continue;
        g_array_index (ranges, Range, out++) = r;
        end = r.start + r.size;
      }
    g_array_set_size (ranges, out);
  }
  return ranges;
}

/* N addresses spread evenly over the functions' bytes, each a return
 * address (one past a call), all different. */
static GArray *
pick_addresses (GArray *ranges,
                guint   n)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint64 total = 0, step, at = 0, r = 0, done = 0;

  for (guint i = 0; i < ranges->len; i++)
    total += g_array_index (ranges, Range, i).size;
  if (total < n || n == 0)
    return out;
  step = total / n;
  for (guint k = 0; k < n; k++)
    {
      guint64 want = (guint64) k * step + 1;
      while (r < ranges->len && done + g_array_index (ranges, Range, r).size <= want)
        done += g_array_index (ranges, Range, r++).size;
      if (r >= ranges->len)
        break;
      at = g_array_index (ranges, Range, r).start + (want - done);
      at += LOAD_AT;
      g_array_append_val (out, at);
    }
  return out;
}

int
main (int    argc,
      char **argv)
{
  const char *path = argc > 1 && argv[1][0] != '\0' ? argv[1] : NULL;
  guint n = argc > 2 ? (guint) atoi (argv[2]) : 10000;
  g_autofree char *build_id = NULL;
  g_autoptr (GArray) ranges = NULL;
  g_autoptr (GArray) addrs = NULL;
  guint64 map_size;
  gboolean has_symbols = FALSE, has_debug = FALSE;
  const char *debug_file = NULL, *hint = NULL;
  guint named = 0, with_line = 0;
  gboolean dump = g_getenv ("SYMBOL_BENCH_DUMP") != NULL;  /* every frame, to compare two builds */
  double t, c;

  if (path == NULL)
    {
      static const char *const candidates[] = {
        "/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6",
        "/lib/aarch64-linux-gnu/libc.so.6", "/usr/lib/aarch64-linux-gnu/libc.so.6",
      };
      for (guint i = 0; path == NULL && i < G_N_ELEMENTS (candidates); i++)
        if (g_file_test (candidates[i], G_FILE_TEST_EXISTS))
          path = candidates[i];
      if (path == NULL)
        {
          fprintf (stderr, "symbol-bench: give an ELF file\n");
          return 2;
        }
    }
  ranges = read_functions (path, &build_id, &map_size);
  addrs = pick_addresses (ranges, n);
  if (addrs->len < n)
    {
      fprintf (stderr, "symbol-bench: %s has too few function bytes for %u addresses\n", path, n);
      return 1;
    }

  /* 1. The symbolizer alone. */
  {
    HlSymbolizer *sym;
    HlSymbol frames[32];

    t = now_ms ();
    c = bench_cpu_ms ();
    sym = hl_symbolizer_new ();
    hl_symbolizer_add_module (sym, path, LOAD_AT, build_id);
    hl_symbolizer_end_modules (sym);
    for (guint i = 0; i < addrs->len; i++)
      {
        guint nf = hl_symbolizer_resolve (sym, g_array_index (addrs, guint64, i), TRUE, frames, 32);
        if (dump)
          for (guint k = 0; k < nf; k++)
            printf ("%#" G_GINT64_MODIFIER "x %u %s %s:%u%s\n", g_array_index (addrs, guint64, i), k,
                    frames[k].function ? frames[k].function : "(null)", frames[k].file ? frames[k].file : "(null)",
                    frames[k].line, frames[k].is_inline ? " inline" : "");
        if (nf > 0 && frames[nf - 1].function != NULL)
          named++;
        if (nf > 0 && frames[0].file != NULL)
          with_line++;
      }
    t = now_ms () - t;
    c = bench_cpu_ms () - c;
    hl_symbolizer_get_module_status (sym, path, &has_symbols, &has_debug, &debug_file, &hint);
    printf ("%s (debug info: %s)\n", path, has_debug ? (debug_file ? debug_file : "yes") : "none");
    printf ("symbolizer, %u unique addresses cold: %.0f ms wall, %.0f ms CPU (%u named, %u with file:line)\n",
            addrs->len, t, c, named, with_line);
    hl_symbolizer_free (sym);
  }

  /* 2. The same through a recording (what loading a trace runs). */
  {
    g_autoptr (HlRecording) rec = hl_recording_new ();
    guint8 id_bytes[64];
    gsize id_len = 0;

    for (const char *p = build_id; p[0] != '\0' && p[1] != '\0' && id_len < sizeof id_bytes; p += 2)
      id_bytes[id_len++] = (guint8) g_ascii_strtoull ((char[]) { p[0], p[1], 0 }, NULL, 16);
    hl_recording_append_module (rec, path, LOAD_AT, map_size, 0, id_bytes, id_len);
    for (guint i = 0; i < addrs->len; i++)
      {
        hl_recording_append_stack (rec, i + 1, &g_array_index (addrs, guint64, i), 1);
        hl_recording_append_alloc (rec, i, i, 1, 16, 0x1000 + i * 16ull, i + 1);
      }
    hl_recording_commit (rec);
    t = now_ms ();
    c = bench_cpu_ms ();
    hl_recording_symbolize (rec, NULL);
    t = now_ms () - t;
    c = bench_cpu_ms () - c;
    printf ("hl_recording_symbolize, %u one-frame stacks cold: %.0f ms wall, %.0f ms CPU\n",
            addrs->len, t, c);
  }
  return 0;
}
