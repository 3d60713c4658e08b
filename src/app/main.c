/* main.c — the heaplens executable. */
#include "hl-config.h"

#include <locale.h>

#include <glib/gi18n.h>

#include "hl-application.h"
#include "hl-live-actions.h"

int
main (int   argc,
      char *argv[])
{
  g_autoptr(HlApplication) app = NULL;

  setlocale (LC_ALL, "");
  /* Translated words, numbers as in C ("1.50 MiB" everywhere, as exported). */
  setlocale (LC_NUMERIC, "C");
  /* HEAPLENS_LOCALEDIR: translations of an uninstalled build (tests). */
  bindtextdomain (HL_GETTEXT_PACKAGE, g_getenv ("HEAPLENS_LOCALEDIR") ? g_getenv ("HEAPLENS_LOCALEDIR") : HL_LOCALEDIR);
  bind_textdomain_codeset (HL_GETTEXT_PACKAGE, "UTF-8");
  textdomain (HL_GETTEXT_PACKAGE);

  app = hl_application_new ();
  hl_live_command_line (app, &argc, argv);
  return g_application_run (G_APPLICATION (app), argc, argv);
}
