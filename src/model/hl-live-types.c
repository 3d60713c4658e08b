/* hl-live-types.c — see hl-live-types.h: the state's enum type and names,
 * and the live error domain. */
#include "hl-live-types.h"

G_DEFINE_QUARK (hl-live-error-quark, hl_live_error)

GType
hl_live_state_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    { HL_LIVE_STATE_STARTING, "HL_LIVE_STATE_STARTING", "starting" },
    { HL_LIVE_STATE_RUNNING, "HL_LIVE_STATE_RUNNING", "running" },
    { HL_LIVE_STATE_ENDED, "HL_LIVE_STATE_ENDED", "ended" },
    { HL_LIVE_STATE_STALE, "HL_LIVE_STATE_STALE", "stale" },
    { HL_LIVE_STATE_VANISHED, "HL_LIVE_STATE_VANISHED", "vanished" },
    { HL_LIVE_STATE_RESTARTED, "HL_LIVE_STATE_RESTARTED", "restarted" },
    { 0, NULL, NULL },
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("HlLiveState", values));
  return type;
}

const char *
hl_live_state_to_string (HlLiveState state)
{
  switch (state)
    {
    case HL_LIVE_STATE_STARTING:
      return "starting";
    case HL_LIVE_STATE_RUNNING:
      return "running";
    case HL_LIVE_STATE_ENDED:
      return "ended";
    case HL_LIVE_STATE_STALE:
      return "stale";
    case HL_LIVE_STATE_VANISHED:
      return "vanished";
    case HL_LIVE_STATE_RESTARTED:
      return "restarted";
    default:
      return "unknown";
    }
}
