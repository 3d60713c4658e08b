/* hl-capture-refusal.c — the programs the preload must not be loaded
 * into, judged before exec* and posix_spawn* start them: one built with a
 * sanitizer whose runtime must be the first library loaded
 * (AddressSanitizer aborts: "ASan runtime does not come first"), or one of
 * another ELF class or machine (the loader ignores the preload with an
 * error on stderr); for a script, its "#!" interpreter. The image is read
 * by the ELF probe (src/format/hl-elf-probe.c: a few preads, no
 * allocation); the stack used stays small (the caller may be a small
 * thread). errno is kept. */
#define _GNU_SOURCE
#include "hl-capture-private.h"

#include "hl-elf-probe.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HL_OPEN_PROBE (O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)

/* A script: its interpreter is what runs, and what must take the
 * preload. One level: an interpreter that is itself a script is not
 * looked into. */
static const char *
refusal_of_interpreter (int fd)
{
  static _Thread_local int depth;
  char interpreter[256];
  if (depth > 0 || !hl_script_interpreter (fd, interpreter, sizeof interpreter))
    return NULL;
  depth++;
  const char *why = hl_refusal_of_file (interpreter, false);
  depth--;
  return why;
}

/* The refusal of a program of another ELF class or machine (the others
 * are the name of a sanitizer). */
static const char foreign_class[] = "another ELF class or machine";

/* Why the image open as FD cannot take the preload, NULL when it can. */
static const char *
refusal_of_open (int fd)
{
  HlElfProbe p;
  if (fd < 0)
    return NULL;
  if (!hl_elf_probe (fd, &p))
    return refusal_of_interpreter (fd);
  if (p.sanitizer != NULL)
    return p.sanitizer;
  return p.foreign ? foreign_class : NULL;
}

const char *
hl_refusal_of_file (const char *file,
                    bool        search)
{
  if (file == NULL || file[0] == '\0')
    return NULL;
  int e = errno;
  int fd = -1;
  struct stat st;
  /* only a regular file is opened: opening a device can act on it */
  if (!search || strchr (file, '/') != NULL)
    fd = stat (file, &st) == 0 && S_ISREG (st.st_mode) ? open (file, HL_OPEN_PROBE) : -1;
  else
    {
      const char *dirs = getenv ("PATH");
      if (dirs == NULL)
        dirs = "/bin:/usr/bin";
      size_t flen = strlen (file);
      for (const char *p = dirs; fd < 0; p++)
        {
          const char *end = strchrnul (p, ':');
          size_t dlen = (size_t) (end - p);
          if (dlen + 2 + flen <= PATH_MAX)
            {
              char cand[dlen + 2 + flen]; /* (not PATH_MAX: the stack may be small) */
              memcpy (cand, p, dlen);
              size_t n = dlen;
              if (n > 0)
                cand[n++] = '/';
              memcpy (cand + n, file, flen + 1);
              if (access (cand, X_OK) == 0 && stat (cand, &st) == 0 && S_ISREG (st.st_mode))
                {
                  fd = open (cand, HL_OPEN_PROBE);
                  break;
                }
            }
          if (*end == '\0')
            break;
          p = end;
        }
    }
  const char *why = refusal_of_open (fd);
  if (fd >= 0)
    close (fd);
  errno = e;
  return why;
}

/* (opened again for reading through /proc: it may be an O_PATH
 * descriptor, which cannot be read) */
const char *
hl_refusal_of_fd (int fd)
{
  if (fd < 0)
    return NULL;
  char path[40];
  size_t n = hl_strlcpy (path, "/proc/self/fd/", sizeof path);
  hl_fmt_u64 (path + n, (uint64_t) fd);
  return hl_refusal_of_file (path, false);
}

/* execveat's program: PATH relative to the directory DIRFD (read through
 * /proc/self/fd, which names it without a second descriptor), or the file
 * DIRFD itself with AT_EMPTY_PATH and an empty PATH. */
const char *
hl_refusal_of_at (int         dirfd,
                  const char *path,
                  int         flags)
{
  if (path == NULL)
    return NULL;
  if (path[0] == '\0')
    return (flags & AT_EMPTY_PATH) ? hl_refusal_of_fd (dirfd) : NULL;
  if (path[0] == '/' || dirfd == AT_FDCWD)
    return hl_refusal_of_file (path, false);
  if (dirfd < 0)
    return NULL;
  size_t len = strlen (path);
  if (len > PATH_MAX)
    return NULL;
  char full[24 + len + 2]; /* (not PATH_MAX: the stack may be small) */
  size_t n = hl_strlcpy (full, "/proc/self/fd/", sizeof full);
  n += hl_fmt_u64 (full + n, (uint64_t) dirfd);
  full[n++] = '/';
  memcpy (full + n, path, len + 1);
  return hl_refusal_of_file (full, false);
}

bool
hl_refusal_is_foreign (const char *refusal)
{
  return refusal == foreign_class;
}
