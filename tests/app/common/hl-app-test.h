/* hl-app-test.h — helpers shared by the application's widget tests (run
 * under Xvfb): the test program's set-up, waiting on the main loop,
 * finding widgets, the fixture trace. */
#pragma once

#include <adwaita.h>

#include "hl-application.h"
#include "hl-window.h"

G_BEGIN_DECLS

/* g_test_init, a display and a registered non-unique application that
 * handles files. Without a display: NULL, and the failing test
 * PREFIX/no-display is added (a skipped GUI test would hide a broken
 * window): return g_test_run () then. */
HlApplication *hl_app_test_init          (int         *argc,
                                          char      ***argv,
                                          const char  *prefix);

/* Iterates the main context until DONE (DATA); fails after 90 s (ASan on
 * a loaded two-core machine loads slowly). */
void           hl_app_test_spin_until    (gboolean   (*done) (gpointer),
                                          gpointer     data);
/* Iterates the main context for MS milliseconds. */
void           hl_app_test_spin_ms       (guint        ms);
/* Fifty iterations that do not block: pending idles and timeouts run. */
void           hl_app_test_spin_a_little (void);
/* For hl_app_test_spin_until: the HlWindow shows its views. */
gboolean       hl_app_test_shows_views   (gpointer     window);
/* Waits until WINDOW shows PAGE ("views", "error", "start"…). */
void           hl_app_test_wait_for_page (HlWindow    *window,
                                          const char  *page);

/* A window of APP, presented (at WIDTH × HEIGHT unless 0) and mapped. */
HlWindow      *hl_app_test_new_window    (HlApplication *app,
                                          int            width,
                                          int            height);
/* The first widget of TYPE in WIDGET's tree, depth first, or NULL. */
GtkWidget     *hl_app_test_find_widget   (GtkWidget   *widget,
                                          GType        type);
/* The first label, button or status page showing TEXT, or NULL. */
GtkWidget     *hl_app_test_find_text     (GtkWidget   *widget,
                                          const char  *text);
/* The RGB of an image surface's pixel (x, y), as 0xRRGGBB. */
guint32        hl_app_test_pixel         (cairo_surface_t *surface,
                                          int              x,
                                          int              y);
/* Whether 0xRRGGBB colours A and B differ by at most TOLERANCE in each
 * channel (a fill blended over another). */
gboolean       hl_app_test_color_near    (guint32          a,
                                          guint32          b,
                                          guint            tolerance);
/* With HL_TEST_SCREENSHOT_DIR set: WINDOW as drawn, to NAME there (a
 * PNG for a person to look at); nothing otherwise. */
void           hl_app_test_save_window_png (GtkWindow  *window,
                                            const char *name);
/* The same in the light and the dark style: PREFIX-light.png and
 * PREFIX-dark.png (the style is the default again after). */
void           hl_app_test_save_window_pngs (GtkWindow  *window,
                                             const char *prefix);
/* tests/format/data/NAME in the source tree ($HL_SOURCE_ROOT). */
GFile         *hl_app_test_fixture       (const char  *name);

/* $HL_BUILD_ROOT/DIR/NAME. */
char          *hl_app_test_build_path    (const char  *dir,
                                          const char  *name);
/* The standard output of the built heaplens-cli with these arguments
 * (NULL-terminated); it must exit 0. */
char          *hl_app_test_run_cli       (const char  *first,
                                          ...) G_GNUC_NULL_TERMINATED;
/* A recording of the demo (`heaplens-cli record -- heaplens-demo
 * --seconds 1`, deterministic counts) in a new temporary folder: its
 * path. The test depends on heaplens_demo, the preload and the CLI. */
char          *hl_app_test_record_demo   (void);
/* Removes that recording and its folder. */
void           hl_app_test_remove_demo   (const char  *trace);

G_END_DECLS
