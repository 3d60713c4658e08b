/* hl-heap-profile.h — one continuous heap profile (`record
 * --profile-dir`, docs/continuous-profiles.md): a gzip'd pprof Profile
 * with two sample types, inuse_objects/inuse_space (the live heap at a
 * moment) or alloc_objects/alloc_space (what was allocated in an
 * interval), one sample per stack with a non-zero value.
 *
 * The values are a sampled recording's weighted estimates
 * (hl-sample-weight.h), so the period is the sampling's mean bytes. Every
 * sample carries the labels program, pid, host, and one per metadata key
 * set at that moment (`phase=serve`): `go tool pprof -tags` lists them,
 * Pyroscope and Parca keep them as labels. The same go to comments. */
#pragma once

#include <gio/gio.h>

#include "hl-recording.h"

G_BEGIN_DECLS

typedef enum
{
  HL_HEAP_PROFILE_INUSE,
  HL_HEAP_PROFILE_ALLOC,
} HlHeapProfileKind;

/* The profile of REC's stacks below N_STACKS with OBJECTS[s] and BYTES[s]
 * as their values, taken at TIME_NS (wall clock), DURATION_NS the
 * interval it covers. NULL with ERROR only if compression fails. */
GBytes *hl_heap_profile_build (HlRecording       *rec,
                               HlHeapProfileKind  kind,
                               guint              n_stacks,
                               const guint64     *objects,
                               const guint64     *bytes,
                               guint64            time_ns,
                               guint64            duration_ns,
                               GError           **error);

G_END_DECLS
