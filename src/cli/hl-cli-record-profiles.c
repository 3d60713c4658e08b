/* hl-cli-record-profiles.c — the options of record's continuous heap
 * profiles (hl-cli-record-profiles.h). */
#include "hl-config.h"

#include "hl-cli-record-profiles.h"

#include <errno.h>
#include <glib.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --NAME VALUE or --NAME=VALUE */
static bool
take (const char  *name,
      int          argc,
      char       **argv,
      int         *i,
      const char **value)
{
  const char *a = argv[*i];
  size_t n = strlen (name);

  if (strcmp (a, name) == 0 && *i + 1 < argc)
    {
      *value = argv[++*i];
      return true;
    }
  if (strncmp (a, name, n) == 0 && a[n] == '=')
    {
      *value = a + n + 1;
      return true;
    }
  return false;
}

bool
hl_record_profiles_parse_arg (HlRecordProfiles *p,
                              int               argc,
                              char            **argv,
                              int              *i)
{
  return take ("--profile-dir", argc, argv, i, &p->dir_arg)
         || take ("--profile-every", argc, argv, i, &p->every_arg)
         || take ("--profile-keep", argc, argv, i, &p->keep_arg);
}

bool
hl_record_profiles_parse_duration (const char *text,
                                   uint64_t   *ns)
{
  char *end;
  double v, unit = 1e9;

  if (text == NULL || text[0] == '\0' || text[0] == '-' || text[0] == '+')
    return false;
  errno = 0;
  v = g_ascii_strtod (text, &end);
  if (errno != 0 || end == text || !isfinite (v))
    return false;
  if (strcmp (end, "ms") == 0)
    unit = 1e6;
  else if (strcmp (end, "s") == 0 || end[0] == '\0')
    unit = 1e9;
  else if (strcmp (end, "m") == 0 || strcmp (end, "min") == 0)
    unit = 60e9;
  else if (strcmp (end, "h") == 0)
    unit = 3600e9;
  else
    return false;
  v *= unit;
  if (v < 10e6 || v > 86400e9)
    return false;
  *ns = (uint64_t) v;
  return true;
}

/* The folder's name, the interval and the count: 0, or 2 with the
 * reason on stderr (heaplens-cli COMMAND: ...). */
static int
check_values (HlRecordProfiles *p,
              const char       *command,
              const char       *dir)
{
  guint64 keep = HL_RECORD_PROFILE_KEEP_DEFAULT;

  if (dir[0] == '\0')
    {
      fprintf (stderr, _("heaplens-cli %s: --profile-dir needs a folder\n"), command);
      return 2;
    }
  if (!hl_record_profiles_parse_duration (p->every_arg != NULL ? p->every_arg : HL_RECORD_PROFILE_EVERY_DEFAULT,
                                          &p->every_ns))
    {
      fprintf (stderr, _("heaplens-cli %s: --profile-every takes a duration from 10ms to 24h "
                         "(60s, 0.5s, 500ms, 2m, 1h), not '%s'\n"), command, p->every_arg);
      return 2;
    }
  if (p->keep_arg != NULL && !g_ascii_string_to_unsigned (p->keep_arg, 10, 1, 1000000, &keep, NULL))
    {
      fprintf (stderr, _("heaplens-cli %s: --profile-keep takes a count from 1 to 1000000, not '%s'\n"),
               command, p->keep_arg);
      return 2;
    }
  p->keep = (unsigned) keep;
  return 0;
}

/* Makes DIR (mode 0700) if missing and turns the profiles on: 0, or 2. */
static int
make_dir (HlRecordProfiles *p,
          const char       *command,
          const char       *dir)
{
  p->dir = g_canonicalize_filename (dir, NULL);
  if (g_mkdir_with_parents (p->dir, 0700) != 0 || access (p->dir, W_OK | X_OK) != 0)
    {
      fprintf (stderr, _("heaplens-cli %s: cannot write heap profiles in %s: %s\n"), command, p->dir,
               g_strerror (errno));
      g_clear_pointer (&p->dir, g_free);
      return 2;
    }
  p->on = true;
  return 0;
}

int
hl_record_profiles_check (HlRecordProfiles *p,
                          bool              followed)
{
  /* HEAPLENS_PROFILE_DIR: the folder when --profile-dir is not given */
  const char *dir = p->dir_arg != NULL ? p->dir_arg : g_getenv ("HEAPLENS_PROFILE_DIR");
  int rc;

  if (dir == NULL)
    {
      if (p->every_arg != NULL || p->keep_arg != NULL)
        {
          fprintf (stderr, _("heaplens-cli record: --profile-every and --profile-keep need --profile-dir DIR\n"));
          return 2;
        }
      return 0;
    }
  if ((rc = check_values (p, "record", dir)) != 0)
    return rc;
  if (!followed && p->dir_arg == NULL)
    {
      fprintf (stderr, _("heaplens-cli record: HEAPLENS_PROFILE_DIR ignored: heap profiles are made while the "
                         "trace is followed, not with --no-compress or --no-costs\n"));
      return 0;
    }
  if (!followed)
    {
      fprintf (stderr, _("heaplens-cli record: heap profiles are made while the trace is followed: they cannot "
                         "be combined with --no-compress or --no-costs\n"));
      return 2;
    }
  return make_dir (p, "record", dir);
}

int
hl_record_profiles_check_dir (HlRecordProfiles *p,
                              const char       *command,
                              const char       *dir)
{
  int rc = check_values (p, command, dir);
  return rc != 0 ? rc : make_dir (p, command, dir);
}

void
hl_record_profiles_say_written (const HlRecordProfiles *p,
                                guint64                 n_profiles,
                                const char             *trace)
{
  if (p != NULL && p->on)
    fprintf (stderr, _("heaplens: %llu heap profiles of %s in %s\n"), (unsigned long long) n_profiles, trace,
             p->dir);
}

void
hl_record_profiles_clear (HlRecordProfiles *p)
{
  g_clear_pointer (&p->dir, g_free);
  p->on = false;
}
