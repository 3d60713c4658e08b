/* hl-site-name.h — what a call site is called in every list, legend and
 * tooltip (issue 27.4): its first frame with a symbol, with its file:line
 * where known; when that one has no source, the first frame with source
 * after it ("sqlite3Malloc ← … ← insert_rows (main.c:42)"), or without
 * one its first named caller. A frame without a symbol, such as
 * "libsqlite3.so.0+0xb786c", is never part of a name. Sites that would
 * read the same get as many named callers as it takes to tell them
 * apart. */
#pragma once

#include "hl-model.h"

G_BEGIN_DECLS

/* "function (file:line)" with the file's basename, or "function". */
char       *hl_site_name_frame  (const HlFrame *frame);

/* "file:line" with the file's basename, or "" without line info. */
char       *hl_site_name_location (const HlFrame *frame);

/* The name of STACK with at least DEPTH named callers after its first
 * named frame: "f (a.c:3) ← g (b.c:9)"; NULL for a stack without frames.
 * *CALLER, when not NULL, gets the next named caller after those shown
 * (or NULL). */
char       *hl_site_name_get    (HlRecording   *recording,
                                 HlStackId      stack,
                                 guint          depth,
                                 char         **caller);

/* Names for N_STACKS stacks that tell them apart: each at its first
 * depth (none with source, one without), then, for stacks whose names are
 * the same, one more caller at a time; stacks that still read the same
 * (the same named frames, different addresses) are numbered "#2", "#3".
 * CALLERS, when not NULL, gets each one's next named caller (or NULL). A
 * stack without frames is named "(stack not recorded)". */
GPtrArray  *hl_site_name_labels (HlRecording     *recording,
                                 const HlStackId *stacks,
                                 guint            n_stacks,
                                 GPtrArray      **callers);

G_END_DECLS
