/* hl-view-state.c — the view state of one window. */
#include "hl-config.h"

#include <glib/gi18n.h>

#include "hl-view-state.h"
#include "hl-units.h"

typedef struct
{
  HlFilterKind kind;
  char        *id;
  char        *label;
  guint        tid;
  char        *key;     /* metadata key, module, or function pattern */
  char        *value;
  gboolean     regex;   /* a function pattern is a regular expression */
  guint64      min_size, max_size;
} Filter;

struct _HlViewState
{
  GObject parent_instance;

  /* Owned */
  GPtrArray *filters;   /* Filter, in the order added; the range is one of them */
  GArray    *threads;   /* cached guint tids */
  GPtrArray *modules;   /* cached, NULL-terminated, borrowed strings */

  gboolean   has_range;
  guint64    range_start_ns;
  guint64    range_end_ns;
  guint      cost;
  guint64    lived_at_least_ns;
};

enum {
  PROP_0,
  PROP_COST,
  PROP_LIVED_AT_LEAST,
  N_PROPS
};

enum {
  CHANGED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (HlViewState, hl_view_state, G_TYPE_OBJECT)

static void
filter_free (Filter *f)
{
  g_free (f->id);
  g_free (f->label);
  g_free (f->key);
  g_free (f->value);
  g_free (f);
}

HlViewState *
hl_view_state_new (void)
{
  return g_object_new (HL_TYPE_VIEW_STATE, NULL);
}

static void rebuild_caches (HlViewState *self);

HlViewState *
hl_view_state_copy (HlViewState *self)
{
  HlViewState *copy;

  g_return_val_if_fail (HL_IS_VIEW_STATE (self), NULL);
  copy = hl_view_state_new ();
  for (guint i = 0; i < self->filters->len; i++)
    {
      const Filter *f = g_ptr_array_index (self->filters, i);
      Filter *c = g_new0 (Filter, 1);

      c->kind = f->kind;
      c->id = g_strdup (f->id);
      c->label = g_strdup (f->label);
      c->tid = f->tid;
      c->key = g_strdup (f->key);
      c->value = g_strdup (f->value);
      c->regex = f->regex;
      c->min_size = f->min_size;
      c->max_size = f->max_size;
      g_ptr_array_add (copy->filters, c);
    }
  copy->has_range = self->has_range;
  copy->range_start_ns = self->range_start_ns;
  copy->range_end_ns = self->range_end_ns;
  copy->cost = self->cost;
  copy->lived_at_least_ns = self->lived_at_least_ns;
  rebuild_caches (copy);
  return copy;
}

static void
rebuild_caches (HlViewState *self)
{
  g_array_set_size (self->threads, 0);
  g_ptr_array_set_size (self->modules, 0);
  for (guint i = 0; i < self->filters->len; i++)
    {
      Filter *f = g_ptr_array_index (self->filters, i);
      if (f->kind == HL_FILTER_THREAD)
        g_array_append_val (self->threads, f->tid);
      else if (f->kind == HL_FILTER_MODULE)
        g_ptr_array_add (self->modules, f->key);
    }
  g_ptr_array_add (self->modules, NULL);
}

static gint
find_filter (HlViewState  *self,
             const char *id)
{
  for (guint i = 0; i < self->filters->len; i++)
    if (g_str_equal (((Filter *) g_ptr_array_index (self->filters, i))->id, id))
      return (gint) i;
  return -1;
}

static void
changed (HlViewState *self)
{
  rebuild_caches (self);
  g_signal_emit (self, signals[CHANGED], 0);
}

/* Adds F unless a filter with its id exists (then F is freed). */
static gboolean
add_filter (HlViewState *self,
            Filter    *f)
{
  if (find_filter (self, f->id) >= 0)
    {
      filter_free (f);
      return FALSE;
    }
  g_ptr_array_add (self->filters, f);
  return TRUE;
}

void
hl_view_state_set_range (HlViewState *self,
                         guint64    start_ns,
                         guint64    end_ns)
{
  g_autofree char *from = NULL;
  g_autofree char *to = NULL;
  Filter *f;
  gint i;

  g_return_if_fail (HL_IS_VIEW_STATE (self));
  if (start_ns > end_ns)
    {
      guint64 t = start_ns;
      start_ns = end_ns;
      end_ns = t;
    }
  if (self->has_range && self->range_start_ns == start_ns && self->range_end_ns == end_ns)
    return;

  self->has_range = TRUE;
  self->range_start_ns = start_ns;
  self->range_end_ns = end_ns;

  from = hl_format_time (start_ns);
  to = hl_format_time (end_ns);
  i = find_filter (self, "range");
  if (i < 0)
    {
      f = g_new0 (Filter, 1);
      f->kind = HL_FILTER_RANGE;
      f->id = g_strdup ("range");
      /* The range chip comes first. */
      g_ptr_array_insert (self->filters, 0, f);
    }
  else
    f = g_ptr_array_index (self->filters, i);
  g_free (f->label);
  /* Translators: a time range filter, e.g. "Time 1.5 s – 3.0 s" */
  f->label = g_strdup_printf (_("Time %s – %s"), from, to);
  changed (self);
}

void
hl_view_state_clear_range (HlViewState *self)
{
  g_return_if_fail (HL_IS_VIEW_STATE (self));
  hl_view_state_remove_filter (self, "range");
}

gboolean
hl_view_state_get_range (HlViewState *self,
                         guint64   *start_ns,
                         guint64   *end_ns)
{
  g_return_val_if_fail (HL_IS_VIEW_STATE (self), FALSE);
  if (start_ns)
    *start_ns = self->range_start_ns;
  if (end_ns)
    *end_ns = self->range_end_ns;
  return self->has_range;
}

void
hl_view_state_add_thread (HlViewState  *self,
                          guint       tid,
                          const char *label)
{
  Filter *f;

  g_return_if_fail (HL_IS_VIEW_STATE (self));
  f = g_new0 (Filter, 1);
  f->kind = HL_FILTER_THREAD;
  f->tid = tid;
  f->id = g_strdup_printf ("thread:%u", tid);
  /* Translators: a thread filter chip, e.g. "Thread worker-1 (1234)" */
  f->label = label ? g_strdup_printf (_("Thread %s (%u)"), label, tid)
                   : g_strdup_printf (_("Thread %u"), tid);
  if (add_filter (self, f))
    changed (self);
}

const guint *
hl_view_state_get_threads (HlViewState *self,
                           guint     *n_threads)
{
  g_return_val_if_fail (HL_IS_VIEW_STATE (self), NULL);
  *n_threads = self->threads->len;
  return (const guint *) (gconstpointer) self->threads->data;
}

void
hl_view_state_add_metadata (HlViewState  *self,
                            const char *key,
                            const char *value)
{
  Filter *f;

  g_return_if_fail (HL_IS_VIEW_STATE (self));
  g_return_if_fail (key != NULL && value != NULL);
  f = g_new0 (Filter, 1);
  f->kind = HL_FILTER_METADATA;
  f->key = g_strdup (key);
  f->value = g_strdup (value);
  f->id = g_strdup_printf ("meta:%s=%s", key, value);
  f->label = g_strdup_printf ("%s=%s", key, value);
  if (add_filter (self, f))
    changed (self);
}

guint
hl_view_state_get_n_metadata (HlViewState *self)
{
  guint n = 0;

  g_return_val_if_fail (HL_IS_VIEW_STATE (self), 0);
  for (guint i = 0; i < self->filters->len; i++)
    n += ((Filter *) g_ptr_array_index (self->filters, i))->kind == HL_FILTER_METADATA;
  return n;
}

void
hl_view_state_get_metadata (HlViewState   *self,
                            guint        index,
                            const char **key,
                            const char **value)
{
  g_return_if_fail (HL_IS_VIEW_STATE (self));
  for (guint i = 0; i < self->filters->len; i++)
    {
      Filter *f = g_ptr_array_index (self->filters, i);
      if (f->kind != HL_FILTER_METADATA)
        continue;
      if (index-- == 0)
        {
          *key = f->key;
          *value = f->value;
          return;
        }
    }
  g_return_if_reached ();
}

void
hl_view_state_add_module (HlViewState  *self,
                          const char *module)
{
  Filter *f;

  g_return_if_fail (HL_IS_VIEW_STATE (self));
  g_return_if_fail (module != NULL);
  f = g_new0 (Filter, 1);
  f->kind = HL_FILTER_MODULE;
  f->key = g_strdup (module);
  f->id = g_strdup_printf ("module:%s", module);
  /* Translators: a module filter chip, e.g. "Module libfoo.so" */
  f->label = g_strdup_printf (_("Module %s"), module);
  if (add_filter (self, f))
    changed (self);
}

const char * const *
hl_view_state_get_modules (HlViewState *self)
{
  g_return_val_if_fail (HL_IS_VIEW_STATE (self), NULL);
  return (const char * const *) self->modules->pdata;
}

void
hl_view_state_add_function (HlViewState *self,
                            const char  *pattern,
                            gboolean     regex)
{
  Filter *f;

  g_return_if_fail (HL_IS_VIEW_STATE (self));
  g_return_if_fail (pattern != NULL && pattern[0] != '\0');
  f = g_new0 (Filter, 1);
  f->kind = HL_FILTER_FUNCTION;
  f->key = g_strdup (pattern);
  f->regex = regex;
  f->id = g_strdup_printf (regex ? "function~:%s" : "function:%s", pattern);
  f->label = regex ? /* Translators: a function filter chip by regular expression, e.g. "Function ~ ^parse_" */
                     g_strdup_printf (_("Function ~ %s"), pattern)
                   : /* Translators: a function filter chip, e.g. "Function parse" (names holding it) */
                     g_strdup_printf (_("Function %s"), pattern);
  if (add_filter (self, f))
    changed (self);
}

guint
hl_view_state_get_n_functions (HlViewState *self)
{
  guint n = 0;

  g_return_val_if_fail (HL_IS_VIEW_STATE (self), 0);
  for (guint i = 0; i < self->filters->len; i++)
    n += ((Filter *) g_ptr_array_index (self->filters, i))->kind == HL_FILTER_FUNCTION;
  return n;
}

void
hl_view_state_get_function (HlViewState  *self,
                            guint         index,
                            const char  **pattern,
                            gboolean     *regex)
{
  g_return_if_fail (HL_IS_VIEW_STATE (self));
  for (guint i = 0; i < self->filters->len; i++)
    {
      Filter *f = g_ptr_array_index (self->filters, i);

      if (f->kind != HL_FILTER_FUNCTION)
        continue;
      if (index-- == 0)
        {
          *pattern = f->key;
          *regex = f->regex;
          return;
        }
    }
  g_return_if_reached ();
}

void
hl_view_state_set_size_range (HlViewState *self,
                              guint64      min_size,
                              guint64      max_size)
{
  g_autofree char *lo = NULL, *hi = NULL;
  Filter *f;
  gint i;

  g_return_if_fail (HL_IS_VIEW_STATE (self));
  g_return_if_fail (min_size <= max_size);
  i = find_filter (self, "size");
  if (i >= 0)
    {
      f = g_ptr_array_index (self->filters, i);
      if (f->min_size == min_size && f->max_size == max_size)
        return;
    }
  else
    {
      f = g_new0 (Filter, 1);
      f->kind = HL_FILTER_SIZE;
      f->id = g_strdup ("size");
      g_ptr_array_add (self->filters, f);
    }
  f->min_size = min_size;
  f->max_size = max_size;
  g_free (f->label);
  lo = hl_format_size (min_size);
  hi = hl_format_size (max_size);
  if (max_size == G_MAXUINT64)
    /* Translators: a size filter chip, e.g. "Size ≥ 4.00 KiB" */
    f->label = g_strdup_printf (_("Size ≥ %s"), lo);
  else if (min_size == max_size)
    /* Translators: a size filter chip of one size, e.g. "Size 24 B" */
    f->label = g_strdup_printf (_("Size %s"), lo);
  else
    /* Translators: a size filter chip, both ends included, e.g. "Size 64 B – 127 B" */
    f->label = g_strdup_printf (_("Size %s – %s"), lo, hi);
  changed (self);
}

gboolean
hl_view_state_get_size_range (HlViewState *self,
                              guint64     *min_size,
                              guint64     *max_size)
{
  gint i;

  g_return_val_if_fail (HL_IS_VIEW_STATE (self), FALSE);
  i = find_filter (self, "size");
  if (i < 0)
    return FALSE;
  if (min_size != NULL)
    *min_size = ((Filter *) g_ptr_array_index (self->filters, i))->min_size;
  if (max_size != NULL)
    *max_size = ((Filter *) g_ptr_array_index (self->filters, i))->max_size;
  return TRUE;
}

void
hl_view_state_foreach_filter (HlViewState           *self,
                              HlViewStateFilterFunc  func,
                              gpointer             user_data)
{
  g_return_if_fail (HL_IS_VIEW_STATE (self));
  for (guint i = 0; i < self->filters->len; i++)
    {
      Filter *f = g_ptr_array_index (self->filters, i);
      func (f->id, f->label, f->kind, user_data);
    }
}

gboolean
hl_view_state_remove_filter (HlViewState  *self,
                             const char *id)
{
  gint i;

  g_return_val_if_fail (HL_IS_VIEW_STATE (self), FALSE);
  i = find_filter (self, id);
  if (i < 0)
    return FALSE;
  if (((Filter *) g_ptr_array_index (self->filters, i))->kind == HL_FILTER_RANGE)
    self->has_range = FALSE;
  g_ptr_array_remove_index (self->filters, (guint) i);
  changed (self);
  return TRUE;
}

void
hl_view_state_clear_filters (HlViewState *self)
{
  g_return_if_fail (HL_IS_VIEW_STATE (self));
  if (self->filters->len == 0)
    return;
  g_ptr_array_set_size (self->filters, 0);
  self->has_range = FALSE;
  changed (self);
}

gboolean
hl_view_state_has_filters (HlViewState *self)
{
  g_return_val_if_fail (HL_IS_VIEW_STATE (self), FALSE);
  return self->filters->len > 0;
}

guint
hl_view_state_get_cost (HlViewState *self)
{
  g_return_val_if_fail (HL_IS_VIEW_STATE (self), 0);
  return self->cost;
}

void
hl_view_state_set_cost (HlViewState *self,
                        guint      cost)
{
  g_return_if_fail (HL_IS_VIEW_STATE (self));
  if (self->cost == cost)
    return;
  self->cost = cost;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COST]);
}

guint64
hl_view_state_get_lived_at_least (HlViewState *self)
{
  g_return_val_if_fail (HL_IS_VIEW_STATE (self), 0);
  return self->lived_at_least_ns;
}

void
hl_view_state_set_lived_at_least (HlViewState *self,
                                  guint64      t_ns)
{
  g_return_if_fail (HL_IS_VIEW_STATE (self));
  if (self->lived_at_least_ns == t_ns)
    return;
  self->lived_at_least_ns = t_ns;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LIVED_AT_LEAST]);
}

static void
hl_view_state_finalize (GObject *object)
{
  HlViewState *self = HL_VIEW_STATE (object);

  g_ptr_array_unref (self->filters);
  g_array_unref (self->threads);
  g_ptr_array_unref (self->modules);
  G_OBJECT_CLASS (hl_view_state_parent_class)->finalize (object);
}

static void
hl_view_state_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_COST:
      g_value_set_uint (value, HL_VIEW_STATE (object)->cost);
      break;
    case PROP_LIVED_AT_LEAST:
      g_value_set_uint64 (value, HL_VIEW_STATE (object)->lived_at_least_ns);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hl_view_state_set_property (GObject      *object,
                            guint         prop_id,
                            const GValue *value,
                            GParamSpec   *pspec)
{
  switch (prop_id)
    {
    case PROP_COST:
      hl_view_state_set_cost (HL_VIEW_STATE (object), g_value_get_uint (value));
      break;
    case PROP_LIVED_AT_LEAST:
      hl_view_state_set_lived_at_least (HL_VIEW_STATE (object), g_value_get_uint64 (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hl_view_state_class_init (HlViewStateClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = hl_view_state_finalize;
  object_class->get_property = hl_view_state_get_property;
  object_class->set_property = hl_view_state_set_property;

  properties[PROP_COST] =
    g_param_spec_uint ("cost", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  /* The T of the long-lived cost (the flame graph's slider), ns */
  properties[PROP_LIVED_AT_LEAST] =
    g_param_spec_uint64 ("lived-at-least", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* The range or a filter changed: every view recomputes. */
  signals[CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
hl_view_state_init (HlViewState *self)
{
  self->filters = g_ptr_array_new_with_free_func ((GDestroyNotify) filter_free);
  self->threads = g_array_new (FALSE, FALSE, sizeof (guint));
  self->modules = g_ptr_array_new ();
  g_ptr_array_add (self->modules, NULL);
}
