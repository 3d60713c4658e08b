/* hl-model.h — the whole public API of src/model: app and cli include
 * this header and no other of model's (tests/unit/test-layers.sh checks).
 * What it pulls in is public; every other header of src/model is the
 * model's own. */
#pragma once

/* A recording and what is asked of it */
#include "hl-analysis.h"
#include "hl-call-tree.h"
#include "hl-cost-kind.h"
#include "hl-diff-tree.h"
#include "hl-filter.h"
#include "hl-export-pprof.h"
#include "hl-export-speedscope.h"
#include "hl-flame-layout.h"
#include "hl-frame.h"
#include "hl-lifetimes.h"
#include "hl-site-sizes.h"
#include "hl-model-error.h"
#include "hl-recording.h"
#include "hl-site-series-async.h"
#include "hl-report-json.h"
#include "hl-recycle.h"

/* Saved costs: computed while a program runs (record), saved after */
#include "hl-recording-costs-packet.h"
#include "hl-recording-costs-stream.h"
#include "hl-profile-writer.h"

/* Live sessions: found, watched, read (`top` reads the call-site table
 * itself, symbolizing only the sites it shows) */
#include "hl-live-discovery.h"
#include "hl-live-session.h"
#include "hl-proc-maps.h"
#include "hl-shm-guard.h"
#include "hl-symbolizer.h"

/* Attaching to a running process: checks, injection, detach */
#include "hl-attach.h"
#include "hl-process-list.h"

/* Launching a program to record it */
#include "hl-launch-clock.h"
#include "hl-launch-env.h"
#include "hl-launch-family.h"
#include "hl-launch-folder.h"
#include "hl-launch-sanitizer.h"
#include "hl-session-salvage.h"
#include "hl-session-salvage-find.h"
