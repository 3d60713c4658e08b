/* hl-inject.c — remote calls into a running process (hl-inject.h).
 *
 * The steps, each undone on failure:
 *  1. PTRACE_SEIZE and PTRACE_INTERRUPT every thread of /proc/PID/task,
 *     reading the list again until a pass finds no new thread (a thread
 *     created meanwhile is seized on the next pass).
 *  2. Choose the thread the calls run on: one stopped in a system call
 *     (it holds no lock of the C library's user-space code), the main
 *     thread first; else one whose instruction pointer is outside the C
 *     library and the loader. When none is, every thread runs 2 ms and
 *     is stopped again, up to 50 times.
 *  3. Detach every other thread: they run during the calls, so a lock one
 *     of them holds (the allocator's, the loader's) is released and the
 *     call cannot wait for it forever.
 *  4. Each call: the registers and the extended state (x87/SSE/AVX) are
 *     saved; the string argument and a return address of 0 are written
 *     on the thread's stack below its red zone (the words overwritten are
 *     saved); rip = the function, rdi/rsi/rdx, rsp 16-byte aligned as at
 *     a call, orig_rax = -1 (a system call the thread was interrupted in
 *     is not restarted into our call). The call returns to address 0: a
 *     SIGSEGV stop at rip 0, caught here. Other signals that arrive during
 *     the call are delivered to the program as they would be.
 *  5. The registers (orig_rax included: the interrupted system call is
 *     restarted), the extended state and the stack words are put back
 *     and the thread is detached, the SIGSEGV suppressed. */
#define _GNU_SOURCE
#include "hl-inject.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HL_INJECT_MAX_THREADS 16384
#define HL_INJECT_RED_ZONE    128u
#define HL_INJECT_XSTATE_MAX  16384u

typedef struct
{
  pid_t tid;
  bool  seized;
  bool  stopped;
} InjThread;

struct HlInject
{
  pid_t      pid;
  InjThread *threads;
  size_t     n_threads;
  pid_t      chosen;
  uint64_t   t_stop_ns, t_others_ns;
  struct user_regs_struct saved;
  uint8_t    xstate[HL_INJECT_XSTATE_MAX];
  size_t     xstate_len;
  bool       have_saved;
};

static uint64_t
now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static void
set_err (char *err, size_t cap, const char *what, int e)
{
  if (e != 0)
    snprintf (err, cap, "%s: %s", what, strerror (e));
  else
    snprintf (err, cap, "%s", what);
}

/* ---- /proc/PID/maps ------------------------------------------------------ */

static bool
name_matches (const char *path,
              const char *prefix)
{
  const char *base = strrchr (path, '/');
  base = base != NULL ? base + 1 : path;
  size_t n = strlen (prefix);
  if (strncmp (base, prefix, n) != 0)
    return false;
  return base[n] == '\0' || base[n] == '.' || base[n] == '-';
}

/* The page-aligned p_vaddr of the PT_LOAD at file offset 0 of PATH (as
 * the target sees it, read through /proc/PID/root). */
static bool
first_load_vaddr (pid_t pid, const char *path, uint64_t *vaddr, char *err, size_t cap)
{
  char full[1200];
  snprintf (full, sizeof full, "/proc/%d/root%s", (int) pid, path);
  int fd = open (full, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    {
      set_err (err, cap, "cannot open the target's module", errno);
      return false;
    }
  Elf64_Ehdr eh;
  struct stat st;
  bool ok = false;
  if (fstat (fd, &st) == 0 && pread (fd, &eh, sizeof eh, 0) == (ssize_t) sizeof eh
      && memcmp (eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_ident[EI_CLASS] == ELFCLASS64
      && eh.e_phentsize == sizeof (Elf64_Phdr) && eh.e_phnum > 0 && eh.e_phnum < 4096
      && eh.e_phoff < (uint64_t) st.st_size
      && (uint64_t) eh.e_phnum * sizeof (Elf64_Phdr) <= (uint64_t) st.st_size - eh.e_phoff)
    {
      for (unsigned i = 0; i < eh.e_phnum && !ok; i++)
        {
          Elf64_Phdr ph;
          if (pread (fd, &ph, sizeof ph, (off_t) (eh.e_phoff + i * sizeof ph)) != (ssize_t) sizeof ph)
            break;
          if (ph.p_type == PT_LOAD && ph.p_offset == 0)
            {
              *vaddr = ph.p_vaddr & ~(uint64_t) 4095;
              ok = true;
            }
        }
    }
  close (fd);
  if (!ok)
    set_err (err, cap, "the target's module is not a 64-bit ELF file with a segment at offset 0", 0);
  return ok;
}

bool
hl_inject_find_module (pid_t           pid,
                       const char     *prefix,
                       HlInjectModule *out,
                       char           *err,
                       size_t          cap)
{
  char path[64];
  snprintf (path, sizeof path, "/proc/%d/maps", (int) pid);
  FILE *f = fopen (path, "re");
  if (f == NULL)
    {
      set_err (err, cap, "cannot read the process's memory map", errno);
      return false;
    }
  char line[1400];
  bool found = false;
  uintptr_t base0 = 0;
  memset (out, 0, sizeof *out);
  while (fgets (line, sizeof line, f) != NULL)
    {
      unsigned long lo, hi, off;
      int pos = 0;
      if (sscanf (line, "%lx-%lx %*s %lx %*s %*s %n", &lo, &hi, &off, &pos) < 3 || pos <= 0)
        continue;
      char *p = line + pos;
      p[strcspn (p, "\n")] = '\0';
      if (p[0] != '/')
        continue;
      if (!found)
        {
          if (!name_matches (p, prefix))
            continue;
          found = true;
          snprintf (out->path, sizeof out->path, "%s", p);
          out->lo = lo;
          out->hi = hi;
          if (off == 0)
            base0 = lo;
          continue;
        }
      if (strcmp (p, out->path) != 0)
        continue;
      if (lo < out->lo)
        out->lo = lo;
      if (hi > out->hi)
        out->hi = hi;
      if (off == 0 && base0 == 0)
        base0 = lo;
    }
  fclose (f);
  if (!found)
    {
      snprintf (err, cap, "no %s in the process's memory map", prefix);
      return false;
    }
  if (base0 == 0)
    {
      snprintf (err, cap, "%s has no mapping at file offset 0", out->path);
      return false;
    }
  uint64_t vaddr;
  if (!first_load_vaddr (pid, out->path, &vaddr, err, cap))
    return false;
  out->bias = base0 - (uintptr_t) vaddr;
  return true;
}

/* ---- ELF dynamic symbols ------------------------------------------------- */

static void *
read_range (int fd, uint64_t file_size, uint64_t off, uint64_t size)
{
  if (off > file_size || size > file_size - off || size > (UINT64_C (64) << 20))
    return NULL;
  void *buf = malloc (size + 1);
  if (buf == NULL)
    return NULL;
  if (size > 0 && pread (fd, buf, size, (off_t) off) != (ssize_t) size)
    {
      free (buf);
      return NULL;
    }
  ((char *) buf)[size] = '\0';
  return buf;
}

/* CANONICAL: an undefined symbol with a value (a non-PIE program's PLT
 * entry that stands for the function's address) instead of a definition */
static bool
elf_symbol (const char *path,
            const char *name,
            bool        canonical,
            uint64_t   *value,
            char       *err,
            size_t      cap)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    {
      snprintf (err, cap, "cannot open %s: %s", path, strerror (errno));
      return false;
    }
  struct stat st;
  Elf64_Ehdr eh;
  Elf64_Shdr *sh = NULL;
  Elf64_Sym *syms = NULL;
  char *strs = NULL;
  uint16_t *versym = NULL;
  bool ok = false;
  const char *why = "not a 64-bit ELF file";
  if (fstat (fd, &st) != 0 || pread (fd, &eh, sizeof eh, 0) != (ssize_t) sizeof eh
      || memcmp (eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64
      || eh.e_shentsize != sizeof (Elf64_Shdr) || eh.e_shnum == 0)
    goto out;
  uint64_t size = (uint64_t) st.st_size;
  why = "malformed section headers";
  sh = read_range (fd, size, eh.e_shoff, (uint64_t) eh.e_shnum * sizeof (Elf64_Shdr));
  if (sh == NULL)
    goto out;
  const Elf64_Shdr *dynsym = NULL, *vs = NULL;
  for (unsigned i = 0; i < eh.e_shnum; i++)
    {
      if (sh[i].sh_type == SHT_DYNSYM && dynsym == NULL)
        dynsym = &sh[i];
      else if (sh[i].sh_type == SHT_GNU_versym && vs == NULL)
        vs = &sh[i];
    }
  why = "no dynamic symbol table";
  if (dynsym == NULL || dynsym->sh_link >= eh.e_shnum || dynsym->sh_entsize != sizeof (Elf64_Sym))
    goto out;
  const Elf64_Shdr *strsec = &sh[dynsym->sh_link];
  uint64_t n_syms = dynsym->sh_size / sizeof (Elf64_Sym);
  why = "malformed dynamic symbol table";
  syms = read_range (fd, size, dynsym->sh_offset, n_syms * sizeof (Elf64_Sym));
  strs = read_range (fd, size, strsec->sh_offset, strsec->sh_size);
  if (syms == NULL || strs == NULL)
    goto out;
  if (vs != NULL && vs->sh_size / 2 >= n_syms)
    versym = read_range (fd, size, vs->sh_offset, n_syms * 2);
  bool have = false;
  for (uint64_t i = 1; i < n_syms; i++)
    {
      const Elf64_Sym *s = &syms[i];
      if (s->st_name >= strsec->sh_size || (s->st_shndx == SHN_UNDEF) != canonical || s->st_value == 0)
        continue;
      if (ELF64_ST_TYPE (s->st_info) != STT_FUNC && ELF64_ST_TYPE (s->st_info) != STT_GNU_IFUNC)
        continue;
      /* the name ends within the table (read_range added a NUL after it) */
      if (strcmp (strs + s->st_name, name) != 0)
        continue;
      bool hidden_version = versym != NULL && (versym[i] & 0x8000) != 0;
      if (!have || !hidden_version)
        {
          *value = s->st_value;
          have = true;
        }
      if (!hidden_version)
        break;
    }
  ok = have;
  why = "no such symbol";
out:
  if (!ok)
    snprintf (err, cap, "cannot find %s in %s: %s", name, path, why);
  free (sh);
  free (syms);
  free (strs);
  free (versym);
  close (fd);
  return ok;
}

bool
hl_inject_elf_symbol (const char *path,
                      const char *name,
                      uint64_t   *value,
                      char       *err,
                      size_t      cap)
{
  return elf_symbol (path, name, false, value, err, cap);
}

bool
hl_inject_elf_canonical_plt (const char *path,
                             const char *name)
{
  char err[256];
  uint64_t value;
  return elf_symbol (path, name, true, &value, err, sizeof err);
}

/* ---- Stopping the threads ------------------------------------------------ */

/* Waits for TID's stop after PTRACE_INTERRUPT; a signal that stops it
 * first is delivered (the interrupt's stop follows). 0, or an errno
 * (ESRCH when the thread ended). */
static int
wait_interrupt_stop (pid_t tid)
{
  for (;;)
    {
      int status;
      pid_t r = waitpid (tid, &status, __WALL);
      if (r < 0)
        {
          if (errno == EINTR)
            continue;
          return errno == ECHILD ? ESRCH : errno;
        }
      if (WIFEXITED (status) || WIFSIGNALED (status))
        return ESRCH;
      if (!WIFSTOPPED (status))
        continue;
      if ((status >> 16) == PTRACE_EVENT_STOP)
        return 0;
      /* a signal-delivery stop: deliver it and wait for the interrupt */
      if (ptrace (PTRACE_CONT, tid, NULL, (void *) (uintptr_t) WSTOPSIG (status)) != 0)
        return errno;
    }
}

static bool
known_thread (const HlInject *inj,
              pid_t           tid)
{
  for (size_t i = 0; i < inj->n_threads; i++)
    if (inj->threads[i].tid == tid)
      return true;
  return false;
}

/* Alive: neither gone nor a zombie (a killed process stays one until its
 * parent reaps it). */
static bool
process_exists (pid_t pid)
{
  char path[64], buf[256];
  snprintf (path, sizeof path, "/proc/%d/stat", (int) pid);
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  ssize_t n = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (n <= 0)
    return false;
  buf[n] = '\0';
  const char *p = strrchr (buf, ')');
  return p != NULL && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X' && p[2] != '\0';
}

/* Seizes and stops the threads of the task list not yet stopped; *NEW is
 * how many it found. */
static HlInjectStatus
seize_pass (HlInject *inj, size_t *new_count, char *err, size_t cap)
{
  char path[64];
  snprintf (path, sizeof path, "/proc/%d/task", (int) inj->pid);
  DIR *d = opendir (path);
  *new_count = 0;
  if (d == NULL)
    {
      set_err (err, cap, "cannot list the process's threads", errno);
      return errno == ENOENT ? HL_INJECT_GONE : HL_INJECT_FAILED;
    }
  struct dirent *e;
  while ((e = readdir (d)) != NULL)
    {
      char *end;
      long tid = strtol (e->d_name, &end, 10);
      if (*end != '\0' || tid <= 0 || known_thread (inj, (pid_t) tid))
        continue;
      if (inj->n_threads >= HL_INJECT_MAX_THREADS)
        {
          closedir (d);
          set_err (err, cap, "more than 16384 threads", 0);
          return HL_INJECT_FAILED;
        }
      InjThread *t = &inj->threads[inj->n_threads];
      t->tid = (pid_t) tid;
      t->seized = t->stopped = false;
      if (ptrace (PTRACE_SEIZE, t->tid, NULL, NULL) != 0)
        {
          int er = errno;
          if (er == ESRCH)
            continue; /* the thread ended meanwhile */
          closedir (d);
          set_err (err, cap, "PTRACE_SEIZE", er);
          return HL_INJECT_FAILED;
        }
      t->seized = true;
      inj->n_threads++;
      (*new_count)++;
      if (ptrace (PTRACE_INTERRUPT, t->tid, NULL, NULL) != 0 || wait_interrupt_stop (t->tid) != 0)
        {
          /* the thread ended: it is gone from the kernel's tracees */
          t->seized = false;
          continue;
        }
      t->stopped = true;
    }
  closedir (d);
  if (!process_exists (inj->pid))
    return HL_INJECT_GONE;
  return HL_INJECT_OK;
}

static void
detach_thread (InjThread *t)
{
  if (t->seized)
    (void) ptrace (PTRACE_DETACH, t->tid, NULL, NULL);
  t->seized = t->stopped = false;
}

static void
detach_all (HlInject *inj)
{
  for (size_t i = 0; i < inj->n_threads; i++)
    detach_thread (&inj->threads[i]);
}

static void
free_inject (HlInject *inj)
{
  free (inj->threads);
  free (inj);
}

/* The thread to run the calls on, or 0. */
static pid_t
choose_thread (HlInject *inj, const HlInjectModule *libc, const HlInjectModule *ld)
{
  pid_t outside = 0, in_syscall = 0;
  for (size_t i = 0; i < inj->n_threads; i++)
    {
      InjThread *t = &inj->threads[i];
      struct user_regs_struct r;
      if (!t->stopped || ptrace (PTRACE_GETREGS, t->tid, NULL, &r) != 0)
        continue;
      if ((int64_t) r.orig_rax >= 0)
        {
          if (in_syscall == 0 || t->tid == inj->pid)
            in_syscall = t->tid;
          continue;
        }
      bool in_lib = (r.rip >= libc->lo && r.rip < libc->hi) || (ld->hi != 0 && r.rip >= ld->lo && r.rip < ld->hi);
      if (!in_lib && (outside == 0 || t->tid == inj->pid))
        outside = t->tid;
    }
  return in_syscall != 0 ? in_syscall : outside;
}

/* Every stopped thread runs for a moment and is stopped again. */
static HlInjectStatus
let_run (HlInject *inj, char *err, size_t cap)
{
  for (size_t i = 0; i < inj->n_threads; i++)
    if (inj->threads[i].stopped && ptrace (PTRACE_CONT, inj->threads[i].tid, NULL, NULL) == 0)
      inj->threads[i].stopped = false;
  usleep (2000);
  for (size_t i = 0; i < inj->n_threads; i++)
    {
      InjThread *t = &inj->threads[i];
      if (!t->seized || t->stopped)
        continue;
      if (ptrace (PTRACE_INTERRUPT, t->tid, NULL, NULL) != 0 || wait_interrupt_stop (t->tid) != 0)
        {
          t->seized = false;
          continue;
        }
      t->stopped = true;
    }
  if (!process_exists (inj->pid))
    {
      set_err (err, cap, "the process exited during the attach", 0);
      return HL_INJECT_GONE;
    }
  return HL_INJECT_OK;
}

HlInjectStatus
hl_inject_begin (pid_t      pid,
                 HlInject **out,
                 char      *err,
                 size_t     cap)
{
  *out = NULL;
  HlInjectModule libc, ld;
  if (!hl_inject_find_module (pid, "libc", &libc, err, cap))
    return process_exists (pid) ? HL_INJECT_FAILED : HL_INJECT_GONE;
  if (!hl_inject_find_module (pid, "ld-linux-x86-64", &ld, err, cap))
    memset (&ld, 0, sizeof ld);
  HlInject *inj = calloc (1, sizeof *inj);
  if (inj == NULL || (inj->threads = calloc (HL_INJECT_MAX_THREADS, sizeof (InjThread))) == NULL)
    {
      free (inj);
      set_err (err, cap, "out of memory", ENOMEM);
      return HL_INJECT_FAILED;
    }
  inj->pid = pid;
  inj->t_stop_ns = now_ns ();
  HlInjectStatus st = HL_INJECT_OK;
  for (int pass = 0; pass < 1000 && st == HL_INJECT_OK; pass++)
    {
      size_t n_new;
      st = seize_pass (inj, &n_new, err, cap);
      if (n_new == 0)
        break;
    }
  for (int round = 0; st == HL_INJECT_OK && round < 50; round++)
    {
      inj->chosen = choose_thread (inj, &libc, &ld);
      if (inj->chosen != 0)
        break;
      st = let_run (inj, err, cap);
    }
  if (st == HL_INJECT_OK && inj->chosen == 0 && !process_exists (pid))
    st = HL_INJECT_GONE;
  if (st == HL_INJECT_OK && inj->chosen == 0)
    {
      set_err (err, cap, "no thread of the process stopped at a point where a call is safe (50 tries)", 0);
      st = HL_INJECT_NO_THREAD;
    }
  if (st != HL_INJECT_OK)
    {
      detach_all (inj);
      if (st == HL_INJECT_GONE)
        set_err (err, cap, "the process exited during the attach", 0);
      free_inject (inj);
      return st;
    }
  for (size_t i = 0; i < inj->n_threads; i++)
    if (inj->threads[i].tid != inj->chosen)
      detach_thread (&inj->threads[i]);
  inj->t_others_ns = now_ns ();
  *out = inj;
  return HL_INJECT_OK;
}

/* ---- One call -------------------------------------------------------------- */

static bool
get_xstate (pid_t tid, uint8_t *buf, size_t *len)
{
  struct iovec iov = { buf, HL_INJECT_XSTATE_MAX };
  if (ptrace (PTRACE_GETREGSET, tid, (void *) (uintptr_t) NT_X86_XSTATE, &iov) != 0)
    return false;
  *len = iov.iov_len;
  return true;
}

static bool
set_xstate (pid_t tid, uint8_t *buf, size_t len)
{
  struct iovec iov = { buf, len };
  return ptrace (PTRACE_SETREGSET, tid, (void *) (uintptr_t) NT_X86_XSTATE, &iov) == 0;
}

/* Words [ADDR, ADDR + 8 * N) of the thread's memory into WORDS. */
static bool
peek_words (pid_t tid, uintptr_t addr, uint64_t *words, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      errno = 0;
      long v = ptrace (PTRACE_PEEKDATA, tid, (void *) (addr + 8 * i), NULL);
      if (v == -1 && errno != 0)
        return false;
      words[i] = (uint64_t) v;
    }
  return true;
}

static bool
poke_words (pid_t tid, uintptr_t addr, const uint64_t *words, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (ptrace (PTRACE_POKEDATA, tid, (void *) (addr + 8 * i), (void *) (uintptr_t) words[i]) != 0)
      return false;
  return true;
}

bool
hl_inject_read_string (HlInject  *inj,
                       uintptr_t  addr,
                       char      *buf,
                       size_t     cap)
{
  if (cap == 0)
    return false;
  size_t n = 0;
  while (n + 1 < cap)
    {
      uint64_t w;
      if (!peek_words (inj->chosen, addr + n, &w, 1))
        break;
      for (int k = 0; k < 8 && n + 1 < cap; k++)
        {
          char c = (char) (w >> (8 * k));
          buf[n++] = c;
          if (c == '\0')
            return true;
        }
    }
  buf[n] = '\0';
  return n > 0;
}

/* Waits for the call's end: the SIGSEGV at rip 0. */
static HlInjectStatus
wait_call_end (pid_t tid, struct user_regs_struct *r, char *err, size_t cap)
{
  for (;;)
    {
      int status;
      pid_t w = waitpid (tid, &status, __WALL);
      if (w < 0)
        {
          if (errno == EINTR)
            continue;
          set_err (err, cap, "the process exited during the attach", 0);
          return HL_INJECT_GONE;
        }
      if (WIFEXITED (status) || WIFSIGNALED (status))
        {
          set_err (err, cap, "the process exited during the attach", 0);
          return HL_INJECT_GONE;
        }
      if (!WIFSTOPPED (status))
        continue;
      int sig = WSTOPSIG (status);
      int deliver = 0;
      if ((status >> 16) == 0 && sig == SIGSEGV)
        {
          if (ptrace (PTRACE_GETREGS, tid, NULL, r) != 0)
            {
              set_err (err, cap, "PTRACE_GETREGS", errno);
              return errno == ESRCH ? HL_INJECT_GONE : HL_INJECT_FAILED;
            }
          if (r->rip == 0)
            return HL_INJECT_OK;
          snprintf (err, cap, "the remote call faulted at 0x%llx", (unsigned long long) r->rip);
          return HL_INJECT_FAILED;
        }
      if ((status >> 16) == 0)
        deliver = sig; /* a signal of the program's: delivered as it would be */
      if (ptrace (PTRACE_CONT, tid, NULL, (void *) (uintptr_t) deliver) != 0)
        {
          set_err (err, cap, "PTRACE_CONT", errno);
          return errno == ESRCH ? HL_INJECT_GONE : HL_INJECT_FAILED;
        }
    }
}

#define HL_INJECT_STR_MAX 1024u

HlInjectStatus
hl_inject_call (HlInject   *inj,
                uintptr_t   func,
                const char *str,
                uint64_t    a0,
                uint64_t    a1,
                uint64_t    a2,
                uint64_t   *ret,
                char       *err,
                size_t      cap)
{
  pid_t tid = inj->chosen;
  struct user_regs_struct r;
  if (!inj->have_saved)
    {
      if (ptrace (PTRACE_GETREGS, tid, NULL, &inj->saved) != 0)
        {
          set_err (err, cap, "PTRACE_GETREGS", errno);
          return errno == ESRCH ? HL_INJECT_GONE : HL_INJECT_FAILED;
        }
      if (!get_xstate (tid, inj->xstate, &inj->xstate_len))
        inj->xstate_len = 0;
      inj->have_saved = true;
    }
  size_t len = str != NULL ? strlen (str) + 1 : 0;
  if (len > HL_INJECT_STR_MAX)
    {
      set_err (err, cap, "the path is too long for the remote call", 0);
      return HL_INJECT_FAILED;
    }
  /* [sp, top): the return address, then the string; top below the red zone */
  uintptr_t top = ((uintptr_t) inj->saved.rsp - HL_INJECT_RED_ZONE - 256) & ~(uintptr_t) 15;
  uintptr_t str_addr = (top - len) & ~(uintptr_t) 15;
  uintptr_t sp = str_addr - 8; /* rsp % 16 == 8 at a function's entry */
  size_t n_words = (top - sp) / 8;
  uint64_t old[2 + HL_INJECT_STR_MAX / 8 + 2], neww[2 + HL_INJECT_STR_MAX / 8 + 2];
  if (!peek_words (tid, sp, old, n_words))
    {
      set_err (err, cap, "cannot read the thread's stack", errno);
      return errno == ESRCH ? HL_INJECT_GONE : HL_INJECT_FAILED;
    }
  memcpy (neww, old, n_words * 8);
  neww[0] = 0; /* the return address */
  if (len > 0)
    memcpy ((uint8_t *) neww + 8, str, len);
  uint64_t args[3] = { a0, a1, a2 };
  for (int i = 0; i < 3; i++)
    if (str != NULL && args[i] == HL_INJECT_ARG_STR)
      args[i] = str_addr;
  HlInjectStatus st = HL_INJECT_OK;
  if (!poke_words (tid, sp, neww, n_words))
    {
      set_err (err, cap, "cannot write the thread's stack", errno);
      st = errno == ESRCH ? HL_INJECT_GONE : HL_INJECT_FAILED;
      (void) poke_words (tid, sp, old, n_words);
      return st;
    }
  r = inj->saved;
  r.rip = func;
  r.rdi = args[0];
  r.rsi = args[1];
  r.rdx = args[2];
  r.rsp = sp;
  r.rax = 0;
  r.orig_rax = (unsigned long long) -1;
  if (ptrace (PTRACE_SETREGS, tid, NULL, &r) != 0 || ptrace (PTRACE_CONT, tid, NULL, NULL) != 0)
    {
      set_err (err, cap, "cannot start the remote call", errno);
      st = errno == ESRCH ? HL_INJECT_GONE : HL_INJECT_FAILED;
    }
  else
    st = wait_call_end (tid, &r, err, cap);
  if (st == HL_INJECT_GONE)
    return st;
  *ret = r.rax;
  /* the stack and the registers as they were */
  bool restored = poke_words (tid, sp, old, n_words);
  restored &= ptrace (PTRACE_SETREGS, tid, NULL, &inj->saved) == 0;
  if (inj->xstate_len > 0)
    restored &= set_xstate (tid, inj->xstate, inj->xstate_len);
  if (!restored && st == HL_INJECT_OK)
    {
      set_err (err, cap, "cannot restore the thread's state", errno);
      st = HL_INJECT_FAILED;
    }
  return st;
}

HlInjectStatus
hl_inject_end (HlInject *inj,
               uint64_t *stopped_ns,
               uint64_t *all_ns,
               char     *err,
               size_t    cap)
{
  HlInjectStatus st = HL_INJECT_OK;
  pid_t tid = inj->chosen;
  if (inj->have_saved)
    {
      bool ok = ptrace (PTRACE_SETREGS, tid, NULL, &inj->saved) == 0;
      if (ok && inj->xstate_len > 0)
        ok = set_xstate (tid, inj->xstate, inj->xstate_len);
      if (!ok)
        {
          set_err (err, cap, errno == ESRCH ? "the process exited during the attach" : "PTRACE_SETREGS", errno);
          st = errno == ESRCH ? HL_INJECT_GONE : HL_INJECT_FAILED;
        }
    }
  detach_all (inj);
  uint64_t t = now_ns ();
  if (stopped_ns != NULL)
    *stopped_ns = t - inj->t_stop_ns;
  if (all_ns != NULL)
    *all_ns = inj->t_others_ns - inj->t_stop_ns;
  free_inject (inj);
  return st;
}
