/* hl-cli-session-file.c — reads a session segment for `record` and
 * `sessions`: maps it read-only, checks magic, version, owner, sizes and
 * that every region lies inside it before reading anything. */
#define _GNU_SOURCE
#include "hl-cli-session-file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static bool
region_ok (const HlShmRegion *r,
           uint64_t           size,
           uint64_t           min)
{
  return r->offset >= HL_SHM_HEADER_SIZE && r->offset <= size && r->size <= size - r->offset
         && r->size >= min;
}

bool
hl_cli_session_read (const char   *name,
                     HlCliSession *out,
                     char         *err,
                     size_t        err_size)
{
  char path[512];
  snprintf (path, sizeof path, "/dev/shm/%s", name);
  int fd = open (path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    {
      snprintf (err, err_size, "%s: %s", path, strerror (errno));
      return false;
    }
  struct stat st;
  if (fstat (fd, &st) != 0 || (uint64_t) st.st_size < HL_SHM_HEADER_SIZE)
    {
      snprintf (err, err_size, "%s: too small to be a session", path);
      close (fd);
      return false;
    }
  if (st.st_uid != getuid ())
    {
      snprintf (err, err_size, "%s: owned by uid %u, not you (%u)", path,
                (unsigned) st.st_uid, (unsigned) getuid ());
      close (fd);
      return false;
    }
  uint64_t size = (uint64_t) st.st_size;
  const uint8_t *map = mmap (NULL, size, PROT_READ, MAP_SHARED, fd, 0);
  close (fd);
  if (map == MAP_FAILED)
    {
      snprintf (err, err_size, "%s: %s", path, strerror (errno));
      return false;
    }
  bool ok = false;
  memset (out, 0, sizeof *out);
  memcpy (&out->header, map, sizeof out->header);
  HlShmHeader *h = &out->header;
  h->exe[HL_SHM_EXE_MAX - 1] = '\0';
  h->cmdline[HL_SHM_CMDLINE_MAX - 1] = '\0';
  h->trace_path[HL_SHM_PATH_MAX - 1] = '\0';
  if (memcmp (h->magic, HL_SHM_MAGIC, HL_SHM_MAGIC_SIZE) != 0)
    snprintf (err, err_size, "%s: not a Heaplens session", path);
  else if (h->version != HL_SHM_VERSION)
    snprintf (err, err_size, "%s: session version %u, this program reads %u", path,
              (unsigned) h->version, (unsigned) HL_SHM_VERSION);
  else if (h->segment_size != size || !region_ok (&h->counters, size, sizeof (HlShmCounters)))
    snprintf (err, err_size, "%s: malformed header", path);
  else
    {
      const HlShmCounters *c = (const HlShmCounters *) (map + h->counters.offset);
      out->n_allocs = __atomic_load_n (&c->exited_n_allocs_atomic, __ATOMIC_ACQUIRE);
      out->n_frees = __atomic_load_n (&c->exited_n_frees_atomic, __ATOMIC_ACQUIRE);
      out->bytes_allocated = __atomic_load_n (&c->exited_bytes_allocated_atomic, __ATOMIC_ACQUIRE);
      out->bytes_freed = __atomic_load_n (&c->exited_bytes_freed_atomic, __ATOMIC_ACQUIRE);
      for (uint32_t i = 0; i < HL_SHM_THREAD_SLOTS; i++)
        {
          const HlShmThreadCounters *t = &c->threads[i];
          if (__atomic_load_n (&t->tid_atomic, __ATOMIC_ACQUIRE) == 0)
            continue;
          out->n_allocs += t->n_allocs;
          out->n_frees += t->n_frees;
          out->bytes_allocated += t->bytes_allocated;
          out->bytes_freed += t->bytes_freed;
        }
      out->heap_bytes = __atomic_load_n (&c->heap_bytes_atomic, __ATOMIC_ACQUIRE);
      out->peak_heap_bytes = __atomic_load_n (&c->peak_heap_bytes_atomic, __ATOMIC_ACQUIRE);
      out->peak_rss_bytes = __atomic_load_n (&c->peak_rss_bytes_atomic, __ATOMIC_ACQUIRE);
      for (int i = 0; i < 8; i++)
        out->dropped += __atomic_load_n (&c->dropped_atomic[i], __ATOMIC_ACQUIRE);
      ok = true;
    }
  munmap ((void *) map, size);
  return ok;
}

void
hl_cli_session_foreach (HlCliSessionFunc func,
                        void            *user_data)
{
  char prefix[64];
  snprintf (prefix, sizeof prefix, "%s%u-", HL_SHM_NAME_PREFIX, (unsigned) getuid ());
  DIR *d = opendir ("/dev/shm");
  if (d == NULL)
    return;
  struct dirent *e;
  while ((e = readdir (d)) != NULL)
    if (strncmp (e->d_name, prefix, strlen (prefix)) == 0)
      func (e->d_name, user_data);
  closedir (d);
}

bool
hl_cli_pid_alive (uint32_t pid)
{
  return pid != 0 && (kill ((pid_t) pid, 0) == 0 || errno == EPERM);
}
