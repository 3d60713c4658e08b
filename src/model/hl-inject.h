/* hl-inject.h — remote calls into a running process (x86_64 Linux,
 * ptrace), for an attach (hl-attach.c): every thread stopped, one of them
 * made to call a function of the target (dlopen, the preload's
 * heaplens__attach) and put back exactly as it was, every thread
 * resumed. Plain C, no GLib.
 *
 * Nothing here may leave the target stopped, killed or half-patched: on
 * any failure the thread's registers and the stack bytes written are put
 * back and every thread is detached before the error is returned. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct HlInject HlInject;

/* ERR (at least 256 bytes) says what failed; ESRCH anywhere gives
 * HL_INJECT_GONE ("the process exited during the attach"). */
typedef enum
{
  HL_INJECT_OK = 0,
  HL_INJECT_FAILED,   /* a ptrace or /proc step failed: ERR says which */
  HL_INJECT_GONE,     /* the process (or the chosen thread) exited */
  HL_INJECT_NO_THREAD, /* no thread at a point where a call is safe */
} HlInjectStatus;

/* A module of the target, from /proc/PID/maps: its path (as the target
 * sees it), load bias (address of its ELF offset 0 minus that segment's
 * page-aligned p_vaddr) and the lowest and highest addresses mapped. */
typedef struct
{
  char      path[1024];
  uintptr_t bias;
  uintptr_t lo, hi;
} HlInjectModule;

/* The first module of PID whose file name (the last part of its path)
 * starts with PREFIX and is followed by '.', '-' or the end; false when
 * none. Reads /proc/PID/maps and the module's program headers. */
bool hl_inject_find_module (pid_t pid, const char *prefix, HlInjectModule *out, char *err, size_t err_size);

/* The value of the defined dynamic symbol NAME (the default version, when
 * there are several) in the ELF file PATH: its address is bias + value.
 * Every offset and size of the file is checked against the file. */
bool hl_inject_elf_symbol (const char *path, const char *name, uint64_t *value, char *err, size_t err_size);

/* True when the executable PATH is a non-PIE program that takes NAME's
 * address: its dynamic symbol NAME is undefined with a value (the PLT
 * entry that stands for the function everywhere), which GOT patching
 * cannot redirect safely. */
bool hl_inject_elf_canonical_plt (const char *path, const char *name);

/* Stops every thread of PID (PTRACE_SEIZE + PTRACE_INTERRUPT, the task
 * list read again until no new thread appears), chooses the thread the
 * calls run on and resumes (detaches) all the others. */
HlInjectStatus hl_inject_begin (pid_t pid, HlInject **out, char *err, size_t err_size);

/* Calls FUNC (an address in the target) with up to three integer
 * arguments on the chosen thread; STR, when not NULL, is copied to the
 * target's stack first and its address replaces every argument that is
 * HL_INJECT_ARG_STR. *RET is the call's rax. The registers are put back
 * after each call. */
#define HL_INJECT_ARG_STR UINT64_C (0x5354525f41524730)
HlInjectStatus hl_inject_call (HlInject *inj, uintptr_t func, const char *str, uint64_t a0, uint64_t a1,
                               uint64_t a2, uint64_t *ret, char *err, size_t err_size);

/* Reads a NUL-terminated string at ADDR of the target into BUF. */
bool hl_inject_read_string (HlInject *inj, uintptr_t addr, char *buf, size_t cap);

/* Puts the chosen thread's registers and stack back and detaches it.
 * *STOPPED_NS: how long the chosen thread was stopped; *ALL_NS: how long
 * every thread was. Frees INJ. */
HlInjectStatus hl_inject_end (HlInject *inj, uint64_t *stopped_ns, uint64_t *all_ns, char *err, size_t err_size);
