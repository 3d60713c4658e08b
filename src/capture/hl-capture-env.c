/* hl-capture-env.c — the HEAPLENS_* environment variables of the preload.
 * A malformed value gives a one-line warning and the default. */
#include "hl-capture-private.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool
parse_u64 (const char *s,
           uint64_t   *out)
{
  uint64_t v = 0;
  if (s == NULL || *s == '\0')
    return false;
  for (; *s; s++)
    {
      if (*s < '0' || *s > '9' || v > UINT64_MAX / 10 - 10)
        return false;
      v = v * 10 + (uint64_t) (*s - '0');
    }
  *out = v;
  return true;
}

static uint64_t
env_u64 (const char *name,
         uint64_t    def,
         uint64_t    min,
         uint64_t    max)
{
  const char *s = hl_env_get (name);
  uint64_t v;
  if (s == NULL)
    return def;
  if (!parse_u64 (s, &v) || v < min || v > max)
    {
      hl_sys_warn ("ignoring malformed ", name, " (using the default)");
      return def;
    }
  return v;
}

static uint64_t
round_pow2 (uint64_t v)
{
  uint64_t p = 1;
  while (p < v)
    p <<= 1;
  return p;
}

void
hl_config_load (HlConfig *cfg)
{
  memset (cfg, 0, sizeof *cfg);
  cfg->unwind = HL_UNWIND_LIBUNWIND;
  cfg->cfi = true;
  const char *u = hl_env_get ("HEAPLENS_UNWIND");
  if (u != NULL)
    {
      if (strcmp (u, "unw") == 0)
        cfg->cfi = false; /* unw_backtrace for every stack */
      else if (strcmp (u, "fp") == 0)
        cfg->unwind = HL_UNWIND_FP;
      else if (strcmp (u, "none") == 0)
        cfg->unwind = HL_UNWIND_NONE;
      else if (strcmp (u, "libunwind") != 0)
        hl_sys_warn ("ignoring malformed HEAPLENS_UNWIND (use libunwind, unw, fp or none)", NULL, NULL);
    }

  cfg->depth = (uint32_t) env_u64 ("HEAPLENS_DEPTH", 128, 1, HL_TRACE_MAX_FRAMES);

  cfg->follow = true;
  const char *f = hl_env_get ("HEAPLENS_FOLLOW");
  if (f != NULL)
    {
      if (strcmp (f, "none") == 0)
        cfg->follow = false;
      else if (strcmp (f, "all") != 0)
        hl_sys_warn ("ignoring malformed HEAPLENS_FOLLOW (use all or none)", NULL, NULL);
    }

  cfg->max_stacks = env_u64 ("HEAPLENS_MAX_STACKS", 1u << 20, 16, 1u << 24);
  cfg->live_slots = round_pow2 (env_u64 ("HEAPLENS_LIVE_SLOTS", 1u << 24, 64, 1u << 28));
  cfg->sample_ms = (uint32_t) env_u64 ("HEAPLENS_SAMPLE_MS", 10, 1, 60000);
  cfg->fine_clock_ms = (uint32_t) env_u64 ("HEAPLENS_FINE_CLOCK_MS", 50, 0, 86400000);
  /* sampling mode (hl-capture-sample.h): mean bytes between samples */
  cfg->sample_bytes = env_u64 ("HEAPLENS_SAMPLE_BYTES", 0, 0, UINT64_C (1) << 40);
  cfg->sample_seed = env_u64 ("HEAPLENS_SAMPLE_SEED", 0, 0, UINT64_MAX - 1);

  const char *g = hl_env_get ("HEAPLENS_LIVE_GRANULE");
  if (g != NULL)
    {
      if (strcmp (g, "16") == 0)
        cfg->live_granule_shift = 4;
      else if (strcmp (g, "32") == 0)
        cfg->live_granule_shift = 5;
      else if (strcmp (g, "auto") != 0)
        hl_sys_warn ("ignoring malformed HEAPLENS_LIVE_GRANULE (use auto, 16 or 32)", NULL, NULL);
    }

  /* read now, not at the end: a program may clear its environment before
   * it exits (clearenv), and the launcher would find no session */
  const char *scan = hl_env_get ("HEAPLENS_LEAK_SCAN");
  cfg->leak_scan = true;
  if (scan != NULL)
    {
      if (strcmp (scan, "0") == 0)
        cfg->leak_scan = false;
      else if (strcmp (scan, "1") != 0)
        hl_sys_warn ("ignoring malformed HEAPLENS_LEAK_SCAN (use 0 or 1)", NULL, NULL);
    }

  const char *keep = hl_env_get ("HEAPLENS_KEEP_SESSION");
  cfg->keep_session = keep != NULL && strcmp (keep, "1") == 0;
  cfg->launcher_pid = (uint32_t) env_u64 ("HEAPLENS_LAUNCHER", 0, 1, UINT32_MAX);
  cfg->allocator_stall_ns = env_u64 ("HEAPLENS_ALLOCATOR_STALL_US", 1000, 0, UINT64_C (1) << 32) * 1000u;
  cfg->launcher_start_ticks = hl_launcher_start_ticks (cfg->launcher_pid);

  const char *o = hl_env_get ("HEAPLENS_OUTPUT");
  cfg->trace = true;
  if (o == NULL || *o == '\0')
    o = "heaplens.%e.%p.hltrace";
  else if (strcmp (o, "none") == 0)
    cfg->trace = false;
  if (strlen (o) >= sizeof cfg->output - 32)
    {
      hl_sys_warn ("ignoring HEAPLENS_OUTPUT: path too long", NULL, NULL);
      o = "heaplens.%e.%p.hltrace";
    }
  /* a relative template against the directory the program starts in: a
   * forked child that changed directory writes beside its parent's trace
   * (the directory's own '%' doubled: the template expands them) */
  char cwd[sizeof cfg->output];
  size_t c = 0;
  if (cfg->trace && o[0] != '/' && getcwd (cwd, sizeof cwd) != NULL)
    {
      for (const char *d = cwd; *d != '\0' && c < sizeof cfg->output - 2; d++)
        {
          if (*d == '%')
            cfg->output[c++] = '%';
          cfg->output[c++] = *d;
        }
      if (c + 1 + strlen (o) < sizeof cfg->output - 32)
        {
          cfg->output[c] = '/';
          hl_strlcpy (cfg->output + c + 1, o, sizeof cfg->output - c - 1);
          return;
        }
    }
  hl_strlcpy (cfg->output, o, sizeof cfg->output);
}
