/* hl-pprof-builder.h — the tables of a pprof Profile (strings, functions,
 * locations, mappings, samples, comments) interned as a recording's
 * stacks are walked, then the message packed by protobuf-c and gzip'd.
 * What the pprof export (hl-export-pprof.h) and the continuous heap
 * profiles (hl-heap-profile.h) share. Model-internal. */
#pragma once

#include <gio/gio.h>

#include "hl-recording.h"
#include "profile.pb-c.h"

G_BEGIN_DECLS

typedef Perftools__Profiles__Profile   HlPProfile;
typedef Perftools__Profiles__ValueType HlPValueType;
typedef Perftools__Profiles__Label     HlPLabel;

typedef struct
{
  /* Owned: the tables, their messages freed by hl_pprof_builder_clear() */
  GPtrArray  *strings;     /* char*, [0] = "" */
  GHashTable *string_ids;  /* borrowed char* -> index */
  GPtrArray  *functions;   /* PFunction* */
  GHashTable *function_ids;/* owned key text -> id */
  GPtrArray  *locations;   /* PLocation* */
  GHashTable *location_ids;/* GBytes of the frame pointers -> id */
  GPtrArray  *mappings;    /* PMapping* */
  GHashTable *mapping_ids; /* borrowed module path -> id */
  GPtrArray  *samples;     /* PSample* */
  GPtrArray  *comments;    /* char*, owned */
  GPtrArray  *labels;      /* HlPLabel*, owned; shared by the samples */
} HlPprofBuilder;

void    hl_pprof_builder_init         (HlPprofBuilder *b);
void    hl_pprof_builder_clear        (HlPprofBuilder *b);
/* The index of S (NULL: "") in the string table. */
gint64  hl_pprof_builder_intern       (HlPprofBuilder *b,
                                       const char     *s);
/* The mappings of REC's modules (path, range, build-id). */
void    hl_pprof_builder_add_mappings (HlPprofBuilder *b,
                                       HlRecording    *rec);
/* A label every sample carries: KEY=STR, or KEY=NUM when STR is NULL. */
void    hl_pprof_builder_add_label    (HlPprofBuilder *b,
                                       const char     *key,
                                       const char     *str,
                                       gint64          num);
/* The labels program, pid and host from REC's info. */
void    hl_pprof_builder_add_common_labels (HlPprofBuilder *b,
                                            HlRecording    *rec);
/* A sample of STACK with N_VALUES VALUES (copied), the labels added so
 * far (add the labels first). */
void    hl_pprof_builder_add_sample   (HlPprofBuilder *b,
                                       HlRecording    *rec,
                                       HlStackId       stack,
                                       const gint64   *values,
                                       guint           n_values);
/* A comment of the profile; takes TEXT. */
void    hl_pprof_builder_take_comment (HlPprofBuilder *b,
                                       char           *text);
/* P (its sample types, period, times set by the caller) with the tables
 * filled in, packed and gzip'd; NULL with ERROR only if compression
 * fails. B stays valid until cleared. */
GBytes *hl_pprof_builder_pack         (HlPprofBuilder *b,
                                       HlPProfile     *p,
                                       GError        **error);

static inline gint64
hl_pprof_clamp64 (guint64 v)
{
  return v > G_MAXINT64 ? G_MAXINT64 : (gint64) v;
}

G_END_DECLS
