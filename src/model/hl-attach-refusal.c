/* hl-attach-refusal.c — the processes an attach refuses, each with its
 * reason and remedy (hl_attach_check, hl-attach.h). Read from /proc and
 * the executable's ELF headers (hl-elf-probe.h); nothing touches the
 * process. */
#define _GNU_SOURCE
#include "hl-config.h"

#include "hl-attach.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hl-elf-probe.h"
#include "hl-inject.h"
#include "hl-live-discovery.h"
#include "hl-model-i18n.h"

/* The value of "KEY:\t..." in /proc/PID/status, or NULL. */
static char *
status_field (pid_t pid, const char *key)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/status", (int) pid);
  g_autofree char *text = NULL;
  if (!g_file_get_contents (path, &text, NULL, NULL))
    return NULL;
  size_t n = strlen (key);
  for (char *line = text; line != NULL && *line != '\0';)
    {
      char *next = strchr (line, '\n');
      if (next != NULL)
        *next++ = '\0';
      if (strncmp (line, key, n) == 0 && line[n] == ':')
        return g_strstrip (g_strdup (line + n + 1));
      line = next;
    }
  return NULL;
}

static bool
have_cap_sys_ptrace (void)
{
  g_autofree char *caps = status_field (getpid (), "CapEff");
  return caps != NULL && (g_ascii_strtoull (caps, NULL, 16) & (1ull << 19)) != 0;
}

char *
hl_attach_find_session (guint32  pid,
                        gboolean attached_only)
{
  g_autoptr (GPtrArray) list = hl_live_session_list_pid (pid, NULL);
  for (guint i = 0; list != NULL && i < list->len; i++)
    {
      const HlLiveSessionInfo *s = g_ptr_array_index (list, i);
      if (!s->readable || s->pid != pid || s->state == HL_LIVE_STATE_ENDED || s->state == HL_LIVE_STATE_RESTARTED)
        continue;
      if (attached_only && !s->attached)
        continue;
      if (!s->alive)
        continue;
      return g_strdup (s->name);
    }
  return NULL;
}

/* What the maps say: the C library, a sanitizer runtime, the preload. */
static void
scan_maps (pid_t pid, bool *libc, const char **sanitizer, bool *preload)
{
  static const struct { const char *lib, *name; } runtimes[] = {
    { "libasan", "AddressSanitizer" }, { "libtsan", "ThreadSanitizer" }, { "libmsan", "MemorySanitizer" },
    { "liblsan", "LeakSanitizer" }, { "libhwasan", "HWAddressSanitizer" }, { "libclang_rt.asan", "AddressSanitizer" },
  };
  g_autofree char *path = g_strdup_printf ("/proc/%d/maps", (int) pid);
  g_autofree char *text = NULL;
  *libc = *preload = false;
  *sanitizer = NULL;
  if (!g_file_get_contents (path, &text, NULL, NULL))
    return;
  for (char *line = text; line != NULL && *line != '\0';)
    {
      char *next = strchr (line, '\n');
      if (next != NULL)
        *next++ = '\0';
      const char *file = strrchr (line, '/');
      if (file != NULL)
        {
          file++;
          if (g_str_has_prefix (file, "libc.so") || g_str_has_prefix (file, "libc-"))
            *libc = true;
          if (g_str_has_prefix (file, "libheaplens-preload"))
            *preload = true;
          for (size_t i = 0; i < G_N_ELEMENTS (runtimes); i++)
            if (g_str_has_prefix (file, runtimes[i].lib))
              *sanitizer = runtimes[i].name;
        }
      line = next;
    }
}

/* NULL when PID can be attached to, else the message and *STATUS (1: no
 * such process, 2: refused). */
static char *
refusal (pid_t pid, HlAttachTarget *t, int *status)
{
  memset (t, 0, sizeof *t);
  t->pid = (guint32) pid;
  *status = 2;
  g_autofree char *dir = g_strdup_printf ("/proc/%d", (int) pid);
  struct stat st;
  if (pid <= 0 || stat (dir, &st) != 0)
    {
      *status = 1;
      return g_strdup_printf (_("no process %d"), (int) pid);
    }
  if (pid == getpid ())
    return g_strdup (_("cannot attach to itself"));
  g_autofree char *comm_path = g_strdup_printf ("/proc/%d/comm", (int) pid);
  g_autofree char *comm = NULL;
  if (g_file_get_contents (comm_path, &comm, NULL, NULL))
    g_strlcpy (t->comm, g_strstrip (comm), sizeof t->comm);

  /* another user's process: the preload would run with its uid, and its
   * session and trace would be that user's */
  g_autofree char *uids = status_field (pid, "Uid");
  unsigned ruid = 0, euid = 0;
  if (uids == NULL || sscanf (uids, "%u %u", &ruid, &euid) != 2)
    return g_strdup_printf (_("cannot read the owner of process %d"), (int) pid);
  if (ruid != geteuid () || euid != geteuid ())
    return g_strdup_printf (_("process %d (%s) belongs to user %u, not to you (%u): run attach as that user "
                              "(sudo -u '#%u' heaplens-cli attach %d)"),
                            (int) pid, t->comm, euid, (unsigned) geteuid (), euid, (int) pid);

  /* Yama: 1 allows tracing one's descendants only, 2 only with
   * CAP_SYS_PTRACE, 3 nothing */
  g_autofree char *scope_text = NULL;
  if (g_file_get_contents ("/proc/sys/kernel/yama/ptrace_scope", &scope_text, NULL, NULL))
    {
      int scope = atoi (scope_text);
      if (scope == 3)
        return g_strdup (_("kernel.yama.ptrace_scope is 3: no process may be traced until the next boot, so "
                           "attach cannot work (start the program under heaplens-cli record instead)"));
      if ((scope == 1 || scope == 2) && !have_cap_sys_ptrace ())
        return g_strdup_printf (_("kernel.yama.ptrace_scope is %d: %s may trace it; allow it with "
                                  "'sudo sysctl kernel.yama.ptrace_scope=0', or give heaplens-cli the capability "
                                  "('sudo setcap cap_sys_ptrace+ep heaplens-cli')"),
                                scope, scope == 1 ? _("only a process's ancestors or a process with CAP_SYS_PTRACE")
                                                  : _("only a process with CAP_SYS_PTRACE"));
    }

  /* already traced: a debugger (or strace) holds it */
  g_autofree char *tracer = status_field (pid, "TracerPid");
  if (tracer != NULL && atoi (tracer) != 0)
    {
      g_autofree char *tcomm_path = g_strdup_printf ("/proc/%d/comm", atoi (tracer));
      g_autofree char *tcomm = NULL;
      if (!g_file_get_contents (tcomm_path, &tcomm, NULL, NULL))
        tcomm = g_strdup ("?");
      return g_strdup_printf (_("process %d (%s) is already traced by process %d (%s), a debugger: detach it "
                                "first"),
                              (int) pid, t->comm, atoi (tracer), g_strstrip (tcomm));
    }

  /* the executable: class, static, sanitizer */
  g_autofree char *exe_path = g_strdup_printf ("/proc/%d/exe", (int) pid);
  int fd = open (exe_path, O_RDONLY | O_CLOEXEC);
  HlElfProbe probe;
  bool probed = fd >= 0 && hl_elf_probe (fd, &probe);
  if (fd >= 0)
    close (fd);
  if (probed && probe.foreign)
    return g_strdup_printf (_("process %d (%s) is a program of another word size or machine (a 32-bit "
                              "program?): the 64-bit preload cannot be loaded into it"),
                            (int) pid, t->comm);
  bool libc, preload;
  const char *sanitizer;
  scan_maps (pid, &libc, &sanitizer, &preload);
  /* dynamically linked, yet no C library: just after its exec the loader
   * has not mapped it yet */
  if (probed && !probe.static_linked && !libc)
    return g_strdup_printf (_("process %d (%s) has no C library in its memory map yet: a program that has just "
                              "started maps it a moment later (try again); one without a C library cannot be "
                              "attached to"),
                            (int) pid, t->comm);
  if ((probed && probe.static_linked) || !libc)
    return g_strdup_printf (_("process %d (%s) is statically linked (no C library in its memory map): there "
                              "is no dynamic loader to load the preload with, so it cannot be attached to"),
                            (int) pid, t->comm);
  if (sanitizer == NULL && probed)
    sanitizer = probe.sanitizer;
  if (sanitizer != NULL)
    return g_strdup_printf (_("process %d (%s) is built with %s, whose runtime replaces the allocator: it "
                              "cannot be recorded (build it without -fsanitize)"),
                            (int) pid, t->comm, sanitizer);
  static const char *const alloc_names[] = { "malloc", "calloc", "realloc", "free", "posix_memalign",
                                              "aligned_alloc", "memalign", "valloc", "pvalloc",
                                              "malloc_usable_size" };
  for (size_t i = 0; i < G_N_ELEMENTS (alloc_names); i++)
    if (hl_inject_elf_canonical_plt (exe_path, alloc_names[i]))
      return g_strdup_printf (_("process %d (%s) is a program built without -fPIE that takes the address of %s: "
                                "its allocator cannot be redirected in the running process (record it from its "
                                "start with heaplens-cli record)"),
                              (int) pid, t->comm, alloc_names[i]);
  t->preload_loaded = preload;
  g_autofree char *attached = preload ? hl_attach_find_session ((guint32) pid, TRUE) : NULL;
  if (attached != NULL)
    {
      g_strlcpy (t->session, attached, sizeof t->session);
      return g_strdup_printf (_("process %d (%s) already runs under Heaplens: an attach records it (session %s); "
                                "detach it first (heaplens-cli attach --detach %d)"),
                              (int) pid, t->comm, t->session, (int) pid);
    }
  g_autofree char *preloaded = preload ? hl_attach_find_session ((guint32) pid, FALSE) : NULL;
  if (preloaded != NULL)
    {
      g_strlcpy (t->session, preloaded, sizeof t->session);
      return g_strdup_printf (_("process %d (%s) already runs under Heaplens: it was started under the preload "
                                "(session %s), which records it already (heaplens-cli sessions, heaplens-cli top)"),
                              (int) pid, t->comm, t->session);
    }
  return NULL;
}

gboolean
hl_attach_check (guint32         pid,
                 HlAttachTarget *target,
                 GError        **error)
{
  g_return_val_if_fail (target != NULL, FALSE);
  int status;
  g_autofree char *why = refusal ((pid_t) pid, target, &status);
  if (why == NULL)
    return TRUE;
  g_set_error_literal (error, HL_ATTACH_ERROR, status == 1 ? HL_ATTACH_ERROR_NOT_FOUND : HL_ATTACH_ERROR_REFUSED,
                       why);
  return FALSE;
}
