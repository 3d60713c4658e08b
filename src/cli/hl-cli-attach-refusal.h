/* hl-cli-attach-refusal.h — why `heaplens-cli attach PID` cannot attach
 * to a process, said with its reason and its remedy before anything is
 * done to the process (docs/cli.md, attach). */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <sys/types.h>

G_BEGIN_DECLS

typedef struct
{
  char comm[32];          /* /proc/PID/comm */
  bool preload_loaded;    /* libheaplens-preload.so is in its maps already */
  char session[256];      /* its running session, "" when none */
} HlAttachTarget;

/* NULL when PID can be attached to (TARGET filled in), else the message
 * (translated, without the "heaplens-cli attach: " prefix) and *STATUS,
 * the exit status to give (2: refused, 1: not found). */
char *hl_attach_refusal (pid_t pid, HlAttachTarget *target, int *status);

/* The running session of PID that an attach made, "" when none. */
bool hl_attach_find_session (pid_t pid, bool attached_only, char *name, size_t cap);

G_END_DECLS
