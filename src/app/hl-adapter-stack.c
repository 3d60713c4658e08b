/* hl-adapter-stack.c — the stacks' lines, and an HlCosts as an
 * array by cost kind, for every view's adapter. */
#include "hl-config.h"

#include <string.h>
#include <glib/gi18n.h>

#include "hl-adapter-stack.h"

void
hl_adapter_costs_to_array (const HlCosts *costs,
                           guint64        out[HL_N_COST_KINDS])
{
  for (guint k = 0; k < HL_N_COST_KINDS; k++)
    out[k] = hl_costs_value (costs, k);
}

GStrv
hl_adapter_stack_lines (HlRecording *recording,
                        HlStackId    stack)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  const HlFrame * const *frames;
  guint n = 0;

  frames = hl_recording_get_stack_frames (recording, stack, &n);
  for (guint i = 0; frames != NULL && i < n; i++)
    {
      const HlFrame *f = frames[i];
      GString *line = g_string_new (f->function);

      if (f->is_inline)
        g_string_append (line, _(" [inline]"));
      if (f->file != NULL)
        g_string_append_printf (line, " — %s:%u", f->file, f->line);
      if (f->module_name != NULL && f->module_name[0] != '\0')
        g_string_append_printf (line, " (%s)", f->module_name);
      g_strv_builder_add (builder, line->str);
      g_string_free (line, TRUE);
    }
  return g_strv_builder_end (builder);
}

const HlFrame *
hl_adapter_first_resolved_frame (HlRecording *recording,
                                 HlStackId    stack)
{
  const HlFrame * const *frames;
  guint n = 0;

  frames = hl_recording_get_stack_frames (recording, stack, &n);
  for (guint i = 0; frames != NULL && i < n; i++)
    if (frames[i]->resolved)
      return frames[i];
  return n > 0 ? frames[0] : NULL;
}
