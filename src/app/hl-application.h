/* hl-application.h — the Heaplens application: one instance, one window per recording. */
#pragma once

#include <adwaita.h>

#include "hl-model.h"

G_BEGIN_DECLS

#define HL_TYPE_APPLICATION (hl_application_get_type ())
G_DECLARE_FINAL_TYPE (HlApplication, hl_application, HL, APPLICATION, AdwApplication)

HlApplication *hl_application_new          (void);
/* The window state and preferences; NULL when the schema is not installed. */
GSettings     *hl_application_get_settings (HlApplication *self);
/* Open FILE in an empty window if there is one, else in a new window. */
void           hl_application_open_file    (HlApplication *self,
                                            GFile         *file);
/* A window comparing B against A (A_RECORDING: A already loaded, or NULL). */
void           hl_application_open_diff    (HlApplication *self,
                                            GFile         *a,
                                            HlRecording   *a_recording,
                                            GFile         *b);
/* Tells the user MESSAGE ("Cannot record PROG: why"): a toast on the
 * active trace window; with no window (a failure at start-up, `heaplens
 * --record PROG`), a start window is opened and the message shown over it
 * in a dialog, so that the application neither quits nor says nothing. */
void           hl_application_show_error   (HlApplication *self,
                                            const char    *message);
/* Remember FILE in the recent traces. */
void           hl_application_add_recent   (HlApplication *self,
                                            GFile         *file);

G_END_DECLS
