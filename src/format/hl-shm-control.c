/* hl-shm-control.c — the control word of a session segment
 * (hl-shm-control.h). Only the header page is mapped writable, for one
 * atomic OR. */
#define _GNU_SOURCE
#include "hl-shm-control.h"

#include "hl-shm-layout.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int
hl_shm_request_control (const char *name,
                        uint32_t    pid,
                        uint32_t    bits)
{
  char path[300];
  if (name == NULL || strchr (name, '/') != NULL
      || snprintf (path, sizeof path, "/dev/shm/%s", name) >= (int) sizeof path)
    {
      errno = EINVAL;
      return -1;
    }
  /* /dev/shm is anyone's: never block on a FIFO put there under the name */
  int fd = open (path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return -1;
  struct stat st;
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || st.st_uid != geteuid () || (st.st_mode & 0077) != 0
      || st.st_size < (off_t) HL_SHM_HEADER_SIZE)
    {
      close (fd);
      errno = EINVAL;
      return -1;
    }
  void *map = mmap (NULL, HL_SHM_HEADER_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close (fd);
  if (map == MAP_FAILED)
    return -1;
  HlShmHeader *h = map;
  int rc = 0;
  if (memcmp (h->magic, HL_SHM_MAGIC, HL_SHM_MAGIC_SIZE) != 0 || h->version != HL_SHM_VERSION
      || h->header_size != HL_SHM_HEADER_SIZE || h->pid != pid || h->uid != (uint32_t) geteuid ())
    {
      errno = EINVAL;
      rc = -1;
    }
  else
    __atomic_fetch_or (&h->control_atomic, bits, __ATOMIC_RELEASE);
  munmap (map, HL_SHM_HEADER_SIZE);
  return rc;
}
