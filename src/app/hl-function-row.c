/* hl-function-row.c — one function of the Callers/Callees lists. */
#include "hl-config.h"

#include <glib/gi18n.h>

#include "hl-adapter-stack.h"
#include "hl-function-row.h"

struct _HlFunctionRow
{
  GObject parent_instance;

  /* Owned */
  HlAnalysis    *analysis;   /* keeps the frame's recording */

  /* Borrowed (from the analysis' recording) */
  const HlFrame *frame;

  gboolean       has_self;
  guint64        total[HL_N_COST_KINDS];
  guint64        self[HL_N_COST_KINDS];
};

enum {
  PROP_0,
  PROP_NAME,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (HlFunctionRow, hl_function_row, G_TYPE_OBJECT)

HlFunctionRow *
hl_function_row_new (HlAnalysis    *analysis,
                     const HlFrame *frame,
                     const HlCosts *total,
                     const HlCosts *self)
{
  HlFunctionRow *row;

  g_return_val_if_fail (HL_IS_ANALYSIS (analysis), NULL);
  g_return_val_if_fail (frame != NULL && total != NULL, NULL);

  row = g_object_new (HL_TYPE_FUNCTION_ROW, NULL);
  row->analysis = g_object_ref (analysis);
  row->frame = frame;
  hl_adapter_costs_to_array (total, row->total);
  row->has_self = self != NULL;
  if (self != NULL)
    hl_adapter_costs_to_array (self, row->self);
  return row;
}

const char *
hl_function_row_get_name (HlFunctionRow *self)
{
  g_return_val_if_fail (HL_IS_FUNCTION_ROW (self), NULL);
  return self->frame->function;
}

const HlFrame *
hl_function_row_get_frame (HlFunctionRow *self)
{
  g_return_val_if_fail (HL_IS_FUNCTION_ROW (self), NULL);
  return self->frame;
}

gboolean
hl_function_row_has_self (HlFunctionRow *self)
{
  g_return_val_if_fail (HL_IS_FUNCTION_ROW (self), FALSE);
  return self->has_self;
}

guint64
hl_function_row_get_total (HlFunctionRow *self,
                           HlCostKind     cost)
{
  g_return_val_if_fail (HL_IS_FUNCTION_ROW (self), 0);
  g_return_val_if_fail (cost < HL_N_COST_KINDS, 0);
  return self->total[cost];
}

guint64
hl_function_row_get_self (HlFunctionRow *self,
                          HlCostKind     cost)
{
  g_return_val_if_fail (HL_IS_FUNCTION_ROW (self), 0);
  g_return_val_if_fail (cost < HL_N_COST_KINDS, 0);
  return self->self[cost];
}

char *
hl_function_row_format_location (HlFunctionRow *self)
{
  const HlFrame *f;
  g_autofree char *base = NULL, *place = NULL;

  g_return_val_if_fail (HL_IS_FUNCTION_ROW (self), NULL);
  f = self->frame;
  if (f->file == NULL || f->file[0] == '\0')
    return g_strdup (f->module_name);
  base = g_path_get_basename (f->file);
  place = f->line == 0 ? g_steal_pointer (&base) : g_strdup_printf ("%s:%u", base, f->line);
  if (f->module_name[0] == '\0')
    return g_steal_pointer (&place);
  /* Translators: a call tree's Location cell, e.g. "reader.c:42 · libfoo.so" */
  return g_strdup_printf (_("%s · %s"), place, f->module_name);
}

char *
hl_function_row_describe (HlFunctionRow *self)
{
  const HlFrame *f;

  g_return_val_if_fail (HL_IS_FUNCTION_ROW (self), NULL);
  f = self->frame;
  if (f->file != NULL && f->line != 0)
    return g_strdup_printf ("%s — %s:%u (%s)", f->function, f->file, f->line, f->module_name);
  if (f->file != NULL)
    return g_strdup_printf ("%s — %s (%s)", f->function, f->file, f->module_name);
  return g_strdup_printf ("%s (%s)", f->function, f->module_name);
}

static void
hl_function_row_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  HlFunctionRow *self = HL_FUNCTION_ROW (object);

  switch (prop_id)
    {
    case PROP_NAME:
      g_value_set_string (value, self->frame != NULL ? self->frame->function : NULL);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hl_function_row_finalize (GObject *object)
{
  HlFunctionRow *self = HL_FUNCTION_ROW (object);

  g_clear_object (&self->analysis);
  G_OBJECT_CLASS (hl_function_row_parent_class)->finalize (object);
}

static void
hl_function_row_class_init (HlFunctionRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = hl_function_row_get_property;
  object_class->finalize = hl_function_row_finalize;
  properties[PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
hl_function_row_init (HlFunctionRow *self)
{
}
