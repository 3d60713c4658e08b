/* hl-cli-prune-salvage.h — before `sessions --prune` or `record` removes
 * the session of a process that died without ending its trace and with
 * no launcher left to salvage it (a bare LD_PRELOAD killed by SIGKILL or
 * the OOM killer, or a killed record's program), its packets are
 * salvaged into its trace (hl_session_salvage_unseen): what the program
 * wrote last is not lost with the segment (issue 26 point 1). */
#pragma once

#include <glib.h>

/* For each readable session of LIST (HlLiveSessionInfo) whose process is
 * gone without END and whose launcher, when it was kept for one, is gone
 * too: its packets salvaged into its trace. Prints one line per session
 * salvaged ("salvaged N events of pid P into TRACE (M lost)") or that
 * could not be, to OUT. */
void hl_cli_prune_salvage (GPtrArray *list,
                           FILE      *out);
