/* hl-cli-record-names.h — which traces of a recording `record` keeps and
 * what they are called once the program has ended (issue 27, point 7;
 * docs/capture.md, "Where the traces go"). */
#pragma once

#include <glib.h>

#include "hl-cli-session-file.h"

G_BEGIN_DECLS

/* Removes the traces of the helper images among IMAGES (never ROOT's):
 * those that exec'ed another within 50 ms of their start
 * (HEAPLENS_RECORD_FOLD_MS), not those whose exec ran a program without
 * the preload. Their trace_path is emptied. Returns their programs' names,
 * "bash, env" (each once), or NULL; *N_FOLDED counts them. */
char *hl_record_fold_helper_images (HlCliSession **images,
                                    guint          n_images,
                                    HlCliSession  *root,
                                    guint         *n_folded);

/* `-o FILE`: ROOT's trace (the program's last image) takes the name FILE,
 * which the preload gave its first image; the two swap names. */
void  hl_record_name_root_trace    (HlCliSession **images,
                                    guint          n_images,
                                    HlCliSession  *root,
                                    const char    *file);

G_END_DECLS
