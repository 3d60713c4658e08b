/* hl-cli-prune-salvage.h — before `sessions --prune` or `record` removes
 * the session of a process that died without ending its trace and with
 * no launcher left to salvage it (a bare LD_PRELOAD killed by SIGKILL or
 * the OOM killer, or a killed record's program), its packets are
 * salvaged into its trace (hl_session_salvage_unseen): what the program
 * wrote last is not lost with the segment (issue 26 point 1). Every
 * reader of a trace does the same for the trace it reads
 * (hl_cli_salvage_before_read, hl-cli-model-util.h). Which sessions
 * qualify is the model's (hl_session_salvage_is_left); this file prints
 * what was done. */
#pragma once

#include <glib.h>
#include <stdio.h>

#include "hl-model.h"

/* For each readable session of LIST (HlLiveSessionInfo) whose process is
 * gone without END and whose launcher, when it was kept for one, is gone
 * too: its packets salvaged into its trace. Prints one line per session
 * salvaged ("salvaged N events of pid P into TRACE (M lost)") or that
 * could not be, to OUT. A session another process is salvaging (its
 * trace locked) is taken out of LIST (freed, when LIST owns it), so
 * that it is not pruned from under that salvager. */
void hl_cli_prune_salvage       (GPtrArray *list,
                                 FILE      *out);

/* The line that says what was done with the session NAME of PID, whose
 * trace is TRACE, to OUT: salvaged (OUTCOME DONE, what in SALVAGE),
 * found locked by another salvager (BUSY), or not salvaged (ERROR);
 * nothing for NOTHING without ERROR. */
void hl_cli_prune_salvage_print (FILE                    *out,
                                 const char              *name,
                                 guint32                  pid,
                                 const char              *trace,
                                 HlSessionSalvageOutcome  outcome,
                                 const HlSessionSalvage  *salvage,
                                 const GError            *error);
