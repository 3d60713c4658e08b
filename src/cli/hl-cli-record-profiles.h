/* hl-cli-record-profiles.h — `record --profile-every T --profile-dir DIR
 * [--profile-keep K]`: the options of the continuous heap profiles
 * (docs/continuous-profiles.md), which the follower of each trace writes
 * while the program runs (hl-cli-record-stream.h, hl-profile-writer.h). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

typedef struct
{
  /* as given */
  const char *dir_arg;
  const char *every_arg;
  const char *keep_arg;
  /* checked by hl_record_profiles_check() */
  bool        on;
  char       *dir;        /* absolute, made if missing (mode 0700) */
  uint64_t    every_ns;
  unsigned    keep;
} HlRecordProfiles;

/* record --help's lines for them */
#define HL_RECORD_PROFILES_USAGE \
  "  --profile-dir DIR        write continuous heap profiles (pprof .pb.gz) of the\n" \
  "                           live heap and of what was allocated, every\n" \
  "                           --profile-every (default 60s), in DIR\n" \
  "                           (HEAPLENS_PROFILE_DIR; see docs/continuous-profiles.md)\n" \
  "  --profile-every T        their interval: 60s, 0.5s, 500ms, 2m, 1h\n" \
  "  --profile-keep K         keep the newest K of each kind (default 1440)\n"

#define HL_RECORD_PROFILE_EVERY_DEFAULT "60s"
#define HL_RECORD_PROFILE_KEEP_DEFAULT  1440u   /* a day of 60 s profiles */

/* ARGV[*I] a --profile-* option: takes it (and its value, *I moved on to
 * it) and returns true. */
bool hl_record_profiles_parse_arg (HlRecordProfiles *p,
                                   int               argc,
                                   char            **argv,
                                   int              *i);

/* Checks the options (HEAPLENS_PROFILE_DIR stands for a missing
 * --profile-dir); FOLLOWED: record follows the trace while the program
 * runs (compressed, with costs), which the profiles need. 0, or 2 with
 * the reason on stderr. */
int  hl_record_profiles_check     (HlRecordProfiles *p,
                                   bool              followed);

/* `profiles`: checks the options with DIR the folder (the caller chose
 * it), makes it if missing; COMMAND names the command in the messages.
 * 0, or 2 with the reason on stderr. */
int  hl_record_profiles_check_dir (HlRecordProfiles *p,
                                   const char       *command,
                                   const char       *dir);

/* "heaplens: N heap profiles of TRACE in DIR" on stderr, with P on. */
void hl_record_profiles_say_written (const HlRecordProfiles *p,
                                     guint64                 n_profiles,
                                     const char             *trace);

/* "0.5s", "500ms", "60s", "2m", "1h", a plain number of seconds: the
 * nanoseconds, false when not a duration from 10 ms to a day. */
bool hl_record_profiles_parse_duration (const char *text,
                                        uint64_t   *ns);

void hl_record_profiles_clear     (HlRecordProfiles *p);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (HlRecordProfiles, hl_record_profiles_clear)
