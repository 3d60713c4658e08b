/* hl-cli-record-find.c — the sessions of the program `record` ran, found
 * after its exit (hl-cli-record-find.h). */
#define _GNU_SOURCE
#include "hl-cli-record-find.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hl-model.h"

/* HEAPLENS_DEBUG=handover: each session found after the program exited */
static bool
handover_debug_on (void)
{
  return g_strcmp0 (g_getenv ("HEAPLENS_DEBUG"), "handover") == 0;
}


/* Sessions that started after `record` did: the program's and its
 * children's among them (keep_descendants), of which those whose process
 * is gone (or is the program, which has exited) are compressed and
 * unlinked. */
static void
find_cb (const char *name,
         void       *user_data)
{
  FindCtx *ctx = user_data;
  g_autofree Found *f = g_new0 (Found, 1);
  char err[256];
  if (!hl_cli_session_read (name, &f->s, err, sizeof err))
    {
      if (handover_debug_on ())
        fprintf (stderr, "heaplens: handover: %s unreadable: %s\n", name, err);
      return;
    }
  if (f->s.header.start_wall_ns < ctx->since_wall_ns)
    return;
  /* an image that ended by exec'ing another is done, its process runs on */
  f->running = f->s.header.state_atomic != HL_SHM_STATE_ENDED && hl_cli_pid_alive (f->s.header.pid);
  /* gone without ENDED when read: it may have ended between the read and
   * the check (and removed its own segment, its launcher ending). Its
   * segment is final now: read again */
  if (f->s.header.state_atomic != HL_SHM_STATE_ENDED && !f->running
      && !hl_cli_session_read (name, &f->s, err, sizeof err))
    return;
  snprintf (f->name, sizeof f->name, "%s", name);
  g_array_append_vals (ctx->found, f, 1);
}

/* Leaves the running session of F to its process, which unlinks the name
 * at its end (HL_SHM_FLAG_ABANDONED; docs/shm-layout.md §1). One atomic
 * OR decides it: when the process's own (KEPT) came first, it is ending
 * and left the session to us: F is read again once it has ENDED (or its
 * process died), and false returned. */
static bool
abandon_session (Found *f)
{
  char path[512], err[256];
  snprintf (path, sizeof path, "/dev/shm/%s", f->name);
  int fd = open (path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return true; /* gone meanwhile: nothing to leave */
  struct stat st;
  void *map = MAP_FAILED;
  if (fstat (fd, &st) == 0 && S_ISREG (st.st_mode) && st.st_uid == geteuid ()
      && st.st_size >= (off_t) HL_SHM_HEADER_SIZE)
    map = mmap (NULL, HL_SHM_HEADER_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close (fd);
  if (map == MAP_FAILED)
    return true;
  HlShmHeader *h = map;
  bool kept = false;
  if (memcmp (h->magic, HL_SHM_MAGIC, HL_SHM_MAGIC_SIZE) == 0 && h->pid == f->s.header.pid
      && h->start_wall_ns == f->s.header.start_wall_ns)
    {
      uint32_t old = __atomic_fetch_or (&h->flags, (uint32_t) HL_SHM_FLAG_ABANDONED, __ATOMIC_SEQ_CST);
      kept = (old & HL_SHM_FLAG_KEPT) != 0;
      /* its END is a few stores away */
      for (int i = 0; kept && i < 2000 && __atomic_load_n (&h->state_atomic, __ATOMIC_ACQUIRE) != HL_SHM_STATE_ENDED
                      && hl_cli_pid_alive (h->pid); i++)
        g_usleep (1000);
    }
  munmap (map, HL_SHM_HEADER_SIZE);
  if (!kept)
    return true;
  (void) hl_cli_session_read (f->name, &f->s, err, sizeof err);
  f->running = false;
  return false;
}

/* Keeps only the sessions of PID and of its descendants
 * (hl-launch-family.h): another program's kept session that happened to
 * start meanwhile is not ours to compress or unlink. A parent's session
 * may be listed after its children's: judged again until none is added. */
static void
keep_descendants (FindCtx  *ctx,
                  uint32_t  pid)
{
  HlLaunchFamily *family = hl_launch_family_new (pid, ctx->since_wall_ns);
  guint n_found = ctx->found->len;
  g_autofree bool *ours = g_new0 (bool, n_found + 1);
  bool grew = true;
  while (grew)
    {
      grew = false;
      for (guint k = 0; k < n_found; k++)
        {
          const HlShmHeader *h = &FOUND (ctx, k)->s.header;
          if (!ours[k]
              && hl_launch_family_judge (family, h->pid, h->ppid, h->start_wall_ns, h->launcher_pid)
                   == HL_LAUNCH_FAMILY_OURS)
            ours[k] = grew = true;
        }
    }
  hl_launch_family_free (family);
  if (handover_debug_on ())
    for (guint k = 0; k < n_found; k++)
      {
        const HlShmHeader *h = &FOUND (ctx, k)->s.header;
        fprintf (stderr, "heaplens: handover: %s pid %u ppid %u launcher %u state %u flags %#x running %d ours %d\n",
                 FOUND (ctx, k)->name, h->pid, h->ppid, h->launcher_pid, h->state_atomic, h->flags,
                 FOUND (ctx, k)->running, ours[k]);
      }
  /* a process that outlived the program (a daemon) keeps its session,
   * which it unlinks at its end (HEAPLENS_LAUNCHER: we are gone then) */
  guint n = 0;
  for (guint k = 0; k < n_found; k++)
    if (ours[k] && FOUND (ctx, k)->running && abandon_session (FOUND (ctx, k)))
      ctx->running++; /* one running session a process */
    else if (ours[k])
      {
        if (n != k)
          *FOUND (ctx, n) = *FOUND (ctx, k);
        n++;
      }
  g_array_set_size (ctx->found, n);
}

/* The processes other than PID among the sessions found (a process that
 * exec'ed has a session per image: counted once). */
guint
hl_record_count_children (const FindCtx *ctx,
                          uint32_t       pid)
{
  g_autoptr (GHashTable) pids = g_hash_table_new (NULL, NULL);
  for (guint k = 0; k < ctx->found->len; k++)
    {
      uint32_t p = FOUND (ctx, k)->s.header.pid;
      if (p != pid)
        g_hash_table_add (pids, GUINT_TO_POINTER (p));
    }
  return g_hash_table_size (pids);
}

/* The names of the sessions found are unlinked once their final counters
 * are read (docs/shm-layout.md). Unlinking frees the segment's pages
 * (python3's workload: about 7 ms of kernel time, its live table mirrors
 * a 25 MiB heap): a thread does it beside the compression's last frame,
 * where the core of the column helper is idle half the time, rather than
 * after it, while the user waits. */
void
hl_record_unlink_sessions (const FindCtx *ctx)
{
  for (guint k = 0; k < ctx->found->len; k++)
    {
      char path[512];
      snprintf (path, sizeof path, "/dev/shm/%s", FOUND (ctx, k)->name);
      unlink (path);
    }
}

void
hl_record_find_sessions (FindCtx  *ctx,
                         uint32_t  pid)
{
  hl_cli_session_foreach (find_cb, ctx);
  keep_descendants (ctx, pid);
}
