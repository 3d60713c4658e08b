/* hl-live-window.c — see hl-live-window.h. */
#include "hl-config.h"

#include "hl-live-window.h"
#include "hl-window.h"

static void
on_waiting (HlLivePanel *panel,
            const char  *message,
            HlWindow    *window)
{
  hl_window_set_live_waiting (window, GTK_WIDGET (panel), message);
}

static void
on_live_started (HlLivePanel   *panel,
                 HlLiveSession *session,
                 HlWindow      *window)
{
  hl_window_set_live (window, session, GTK_WIDGET (panel));
}

static void
on_live_updated (HlLivePanel *panel,
                 HlWindow    *window)
{
  /* the window's own views (timeline, summary, flame graph...) show the
   * session's recording; it rebuilds them off the main thread */
  if (hl_window_is_live (window))
    hl_window_live_update (window);
}

static void
on_switch_to_file (HlLivePanel *panel,
                   GFile       *file,
                   HlWindow    *window)
{
  /* the same window goes on with the complete trace: its view, time
   * range, filters and flame graph zoom stay */
  hl_window_switch_to_file (window, file);
}

static void
on_open_session (HlLivePanel   *panel,
                 HlLiveSession *session,
                 HlWindow      *window)
{
  HlApplication *app = (HlApplication *) gtk_window_get_application (GTK_WINDOW (window));
  if (app != NULL)
    gtk_window_present (GTK_WINDOW (hl_live_window_get_window (hl_live_window_new_attach (app, session))));
}

static void
on_detached (HlLivePanel *panel,
             HlWindow    *window)
{
  gtk_window_close (GTK_WINDOW (window));
}

/* A trace window in live mode with a panel on its right, waiting for its
 * program or session. */
static HlLivePanel *
live_window_new (HlApplication *app)
{
  HlLivePanel *panel = hl_live_panel_new ();
  HlWindow *window = hl_window_new (app);
  g_object_bind_property (panel, "title", window, "title", G_BINDING_SYNC_CREATE);
  g_signal_connect_object (panel, "waiting", G_CALLBACK (on_waiting), window, 0);
  g_signal_connect_object (panel, "live-started", G_CALLBACK (on_live_started), window, 0);
  g_signal_connect_object (panel, "live-updated", G_CALLBACK (on_live_updated), window, 0);
  g_signal_connect_object (panel, "switch-to-file", G_CALLBACK (on_switch_to_file), window, 0);
  g_signal_connect_object (panel, "open-session", G_CALLBACK (on_open_session), window, 0);
  g_signal_connect_object (panel, "detached", G_CALLBACK (on_detached), window, 0);
  hl_live_panel_start (panel); /* the window holds it from here */
  return panel;
}

HlLivePanel *
hl_live_window_new_record (HlApplication             *app,
                           const HlLiveRecordOptions *options,
                           GError                   **error)
{
  HlLivePanel *panel = live_window_new (app);
  if (!hl_live_panel_record (panel, options, error))
    {
      gtk_window_destroy (GTK_WINDOW (hl_live_window_get_window (panel)));
      return NULL;
    }
  return panel;
}

HlLivePanel *
hl_live_window_new_attach (HlApplication *app,
                           HlLiveSession *session)
{
  HlLivePanel *panel = live_window_new (app);
  hl_live_panel_attach (panel, session);
  return panel;
}

HlLivePanel *
hl_live_window_new_injected (HlApplication *app,
                             HlLiveSession *session)
{
  HlLivePanel *panel = live_window_new (app);
  hl_live_panel_set_injected (panel);
  hl_live_panel_attach (panel, session);
  return panel;
}

HlWindow *
hl_live_window_get_window (HlLivePanel *panel)
{
  g_return_val_if_fail (HL_IS_LIVE_PANEL (panel), NULL);
  return HL_WINDOW (hl_live_panel_get_window (panel));
}
