/* test-elf-probe.c — the ELF probe (hl-elf-probe.c) on the fuzz seeds (a
 * shared object that needs libasan, one that exports __asan_init, a
 * plain one), on copies made foreign (another class, another machine),
 * on files that are not ELF, and on every truncation and many corruptions
 * of the seeds (under ASan/UBSan in the test build: no read out of
 * bounds); the "#!" line of scripts. */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hl-elf-probe.h"
#include "hl-test-util.h"

static int mem_fd = -1;

/* Probes DATA (LEN bytes) as a file. */
static bool
probe_bytes (const void *data,
             size_t      len,
             HlElfProbe *out)
{
  if (ftruncate (mem_fd, 0) != 0 || pwrite (mem_fd, data, len, 0) != (ssize_t) len)
    abort ();
  return hl_elf_probe (mem_fd, out);
}

static char *
seed (const char *name,
      size_t     *len)
{
  char path[4096];
  snprintf (path, sizeof path, "%s/%s", HL_ELF_SEEDS, name);
  char *data = hl_test_read_file (path, len);
  if (data == NULL)
    {
      fprintf (stderr, "cannot read %s\n", path);
      exit (1);
    }
  return data;
}

static const char *
show (const HlElfProbe *p)
{
  return p->foreign ? "foreign" : p->sanitizer != NULL ? p->sanitizer : "none";
}

int
main (void)
{
  mem_fd = memfd_create ("test-elf-probe", MFD_CLOEXEC);
  if (mem_fd < 0)
    return 1;
  static const struct
  {
    const char *file, *want;
  } seeds[] = {
    { "needs-libasan.so", "AddressSanitizer" },
    { "exports-asan-init.so", "AddressSanitizer" },
    { "plain.so", "none" },
  };
  HlElfProbe p;
  for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++)
    {
      size_t len;
      char *data = seed (seeds[i].file, &len);
      bool ok = probe_bytes (data, len, &p);
      hl_tap_ok (ok && strcmp (show (&p), seeds[i].want) == 0, "%s: %s (got %s)", seeds[i].file, seeds[i].want,
                 show (&p));

      /* another class, another machine: foreign */
      char *copy = malloc (len);
      memcpy (copy, data, len);
      copy[EI_CLASS] = copy[EI_CLASS] == ELFCLASS64 ? ELFCLASS32 : ELFCLASS64;
      ok = probe_bytes (copy, len, &p);
      hl_tap_ok (ok && p.foreign && p.sanitizer == NULL, "%s as another ELF class: foreign", seeds[i].file);
      memcpy (copy, data, len);
      Elf64_Half machine = EM_AARCH64 + EM_X86_64 - ((Elf64_Ehdr *) copy)->e_machine;
      memcpy (copy + offsetof (Elf64_Ehdr, e_machine), &machine, sizeof machine);
      ok = probe_bytes (copy, len, &p);
      hl_tap_ok (ok && p.foreign, "%s for another machine: foreign", seeds[i].file);

      /* every truncation: no crash, and never a sanitizer the file does
       * not name (a cut file may lose what it names) */
      bool sane = true;
      for (size_t cut = 0; cut < len; cut++)
        {
          ok = probe_bytes (data, cut, &p);
          if ((cut < EI_NIDENT && ok) || (p.sanitizer != NULL && strcmp (p.sanitizer, seeds[i].want) != 0))
            sane = false;
        }
      hl_tap_ok (sane, "%s: every truncation probed (%zu)", seeds[i].file, len);

      /* corruptions: every byte of the headers and tables set to 0xff,
       * then random bytes in random places (a fixed seed) */
      for (size_t at = 0; at < len; at++)
        {
          memcpy (copy, data, len);
          copy[at] = (char) 0xff;
          probe_bytes (copy, len, &p);
        }
      srand (42);
      for (int round = 0; round < 3000; round++)
        {
          memcpy (copy, data, len);
          for (int k = 0; k < 1 + round % 8; k++)
            copy[(size_t) rand () % len] = (char) rand ();
          probe_bytes (copy, len, &p);
        }
      hl_tap_ok (true, "%s: %zu + 3000 corrupted copies probed", seeds[i].file, len);
      free (copy);
      free (data);
    }

  /* not ELF: a script, an empty file, a directory */
  static const char script[] = "#!/bin/sh\nexit 0\n";
  hl_tap_ok (!probe_bytes (script, sizeof script - 1, &p) && p.sanitizer == NULL && !p.foreign, "a script: not ELF");
  hl_tap_ok (!probe_bytes ("", 0, &p), "an empty file: not ELF");
  /* a dynamically linked program has a loader (PT_INTERP), the seeds
   * (shared objects) none */
  int shell = open ("/bin/sh", O_RDONLY | O_CLOEXEC);
  hl_tap_ok (shell >= 0 && hl_elf_probe (shell, &p) && !p.static_linked && p.sanitizer == NULL && !p.foreign,
             "/bin/sh: dynamically linked, nothing to refuse");
  if (shell >= 0)
    close (shell);
  {
    size_t len;
    char *data = seed ("plain.so", &len);
    hl_tap_ok (probe_bytes (data, len, &p) && p.static_linked, "plain.so: no PT_INTERP");
    free (data);
  }

  /* a script's interpreter, as the kernel reads the "#!" line */
  static const struct
  {
    const char *text, *want; /* NULL: none */
  } scripts[] = {
    { "#!/bin/sh\nexit 0\n", "/bin/sh" },
    { "#! /usr/bin/env python3 -u\n", "/usr/bin/env" },
    { "#!\t/opt/x\targ\n", "/opt/x" },
    { "#!\n", NULL },
    { "#!", NULL },
    { "# not a script\n", NULL },
    { "#!/no/newline/within/the/first/255/bytes/"
      "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
      "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
      "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n", NULL },
  };
  for (size_t i = 0; i < sizeof scripts / sizeof scripts[0]; i++)
    {
      char got[256] = "";
      if (ftruncate (mem_fd, 0) != 0
          || pwrite (mem_fd, scripts[i].text, strlen (scripts[i].text), 0) != (ssize_t) strlen (scripts[i].text))
        abort ();
      bool found = hl_script_interpreter (mem_fd, got, sizeof got);
      hl_tap_ok (scripts[i].want == NULL ? !found : found && strcmp (got, scripts[i].want) == 0,
                 "script %zu: interpreter %s (got %s)", i, scripts[i].want ? scripts[i].want : "none",
                 found ? got : "none");
    }
  char small[4];
  static const char sh[] = "#!/bin/sh\n";
  if (ftruncate (mem_fd, 0) != 0 || pwrite (mem_fd, sh, sizeof sh - 1, 0) != (ssize_t) sizeof sh - 1)
    abort ();
  hl_tap_ok (!hl_script_interpreter (mem_fd, small, sizeof small), "an interpreter longer than the buffer: none");

  int dir = open ("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  hl_tap_ok (dir >= 0 && !hl_elf_probe (dir, &p), "a directory: not probed");
  close (dir);
  return hl_tap_finish ();
}
