/* hl-filter.c — immutable, composable selections of allocations. */
#include "hl-filter-private.h"
#include "hl-model-error.h"
#include "hl-model-i18n.h"

#include <stdlib.h>
#include <string.h>

G_DEFINE_BOXED_TYPE (HlFilter, hl_filter, hl_filter_ref, hl_filter_unref)

HlFilter *
hl_filter_new (void)
{
  HlFilter *f = g_new0 (HlFilter, 1);

  g_atomic_ref_count_init (&f->ref_count);
  f->t0_ns = 0;
  f->t1_ns = HL_TIME_NONE;
  f->live_at_ns = HL_TIME_NONE;
  f->meta_keys = g_ptr_array_new_with_free_func (g_free);
  f->meta_values = g_ptr_array_new_with_free_func (g_free);
  f->modules = g_ptr_array_new_with_free_func (g_free);
  f->functions = g_ptr_array_new_with_free_func (g_free);
  f->regexes = g_ptr_array_new_with_free_func ((GDestroyNotify) g_regex_unref);
  return f;
}

HlFilter *
hl_filter_ref (HlFilter *filter)
{
  g_return_val_if_fail (filter != NULL, NULL);
  g_atomic_ref_count_inc (&filter->ref_count);
  return filter;
}

void
hl_filter_unref (HlFilter *filter)
{
  g_return_if_fail (filter != NULL);
  if (!g_atomic_ref_count_dec (&filter->ref_count))
    return;
  g_clear_pointer (&filter->tids, g_array_unref);
  g_ptr_array_unref (filter->meta_keys);
  g_ptr_array_unref (filter->meta_values);
  g_ptr_array_unref (filter->modules);
  g_ptr_array_unref (filter->functions);
  g_ptr_array_unref (filter->regexes);
  g_free (filter);
}

static void
append_strings (GPtrArray       *dest,
                const GPtrArray *src)
{
  for (guint i = 0; i < src->len; i++)
    g_ptr_array_add (dest, g_strdup (src->pdata[i]));
}

static HlFilter *
copy_into (HlFilter       *f,
           const HlFilter *src)
{
  if (src->t0_ns > f->t0_ns)
    f->t0_ns = src->t0_ns;
  if (src->t1_ns < f->t1_ns)
    f->t1_ns = src->t1_ns;
  if (src->live_at_ns != HL_TIME_NONE)
    f->live_at_ns = src->live_at_ns;
  if (src->tids != NULL)
    {
      if (f->tids == NULL)
        f->tids = g_array_new (FALSE, FALSE, sizeof (guint32));
      g_array_append_vals (f->tids, src->tids->data, src->tids->len);
    }
  append_strings (f->meta_keys, src->meta_keys);
  append_strings (f->meta_values, src->meta_values);
  append_strings (f->modules, src->modules);
  append_strings (f->functions, src->functions);
  for (guint i = 0; i < src->regexes->len; i++)
    g_ptr_array_add (f->regexes, g_regex_ref (src->regexes->pdata[i]));
  return f;
}

static HlFilter *
copy (const HlFilter *src)
{
  return copy_into (hl_filter_new (), src);
}

HlFilter *
hl_filter_with_time_range (const HlFilter *filter,
                           guint64         t0_ns,
                           guint64         t1_ns)
{
  HlFilter *f;

  g_return_val_if_fail (filter != NULL, NULL);
  g_return_val_if_fail (t0_ns <= t1_ns, NULL);

  f = copy (filter);
  f->t0_ns = t0_ns;
  f->t1_ns = t1_ns;
  return f;
}

HlFilter *
hl_filter_with_live_at (const HlFilter *filter,
                        guint64         t_ns)
{
  HlFilter *f;

  g_return_val_if_fail (filter != NULL, NULL);
  f = copy (filter);
  f->live_at_ns = t_ns;
  return f;
}

HlFilter *
hl_filter_with_thread (const HlFilter *filter,
                       guint32         tid)
{
  HlFilter *f;

  g_return_val_if_fail (filter != NULL, NULL);
  f = copy (filter);
  if (f->tids == NULL)
    f->tids = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_array_append_val (f->tids, tid);
  return f;
}

HlFilter *
hl_filter_with_metadata (const HlFilter *filter,
                         const char     *key,
                         const char     *value)
{
  HlFilter *f;

  g_return_val_if_fail (filter != NULL, NULL);
  g_return_val_if_fail (key != NULL && value != NULL, NULL);
  f = copy (filter);
  g_ptr_array_add (f->meta_keys, g_strdup (key));
  g_ptr_array_add (f->meta_values, g_strdup (value));
  return f;
}

HlFilter *
hl_filter_with_module (const HlFilter *filter,
                       const char     *module)
{
  HlFilter *f;

  g_return_val_if_fail (filter != NULL, NULL);
  g_return_val_if_fail (module != NULL, NULL);
  f = copy (filter);
  g_ptr_array_add (f->modules, g_strdup (module));
  return f;
}

HlFilter *
hl_filter_with_function (const HlFilter *filter,
                         const char     *substring)
{
  HlFilter *f;

  g_return_val_if_fail (filter != NULL, NULL);
  g_return_val_if_fail (substring != NULL, NULL);
  f = copy (filter);
  g_ptr_array_add (f->functions, g_strdup (substring));
  return f;
}

HlFilter *
hl_filter_with_function_regex (const HlFilter *filter,
                               const char     *pattern,
                               GError        **error)
{
  GRegex *re;
  HlFilter *f;

  g_return_val_if_fail (filter != NULL, NULL);
  g_return_val_if_fail (pattern != NULL, NULL);

  re = g_regex_new (pattern, G_REGEX_OPTIMIZE, 0, error);
  if (re == NULL)
    return NULL;
  f = copy (filter);
  g_ptr_array_add (f->regexes, re);
  return f;
}

HlFilter *
hl_filter_and (const HlFilter *a,
               const HlFilter *b)
{
  g_return_val_if_fail (a != NULL && b != NULL, NULL);
  return copy_into (copy (a), b);
}

static gboolean
parse_time (const char *text,
            guint64    *out)
{
  char *end = NULL;
  double v = g_ascii_strtod (text, &end);
  double scale = 1;

  if (end == text || v < 0)
    return FALSE;
  if (*end == '\0' || strcmp (end, "ns") == 0)
    scale = 1;
  else if (strcmp (end, "us") == 0)
    scale = 1e3;
  else if (strcmp (end, "ms") == 0)
    scale = 1e6;
  else if (strcmp (end, "s") == 0)
    scale = 1e9;
  else
    return FALSE;
  *out = (guint64) (v * scale + 0.5);
  return TRUE;
}

HlFilter *
hl_filter_parse (const HlFilter *filter,
                 const char     *expression,
                 GError        **error)
{
  const char *eq;
  g_autofree char *key = NULL;
  const char *value;
  guint64 t;

  g_return_val_if_fail (filter != NULL, NULL);
  g_return_val_if_fail (expression != NULL, NULL);

  eq = strchr (expression, '=');
  if (eq == NULL || eq == expression)
    {
      g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_INVALID,
                   _("filter “%s” is not KEY=VALUE"), expression);
      return NULL;
    }
  key = g_strndup (expression, eq - expression);
  value = eq + 1;

  if (g_str_has_suffix (key, "~"))
    {
      key[strlen (key) - 1] = '\0';
      if (strcmp (key, "function") == 0)
        return hl_filter_with_function_regex (filter, value, error);
      g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_INVALID,
                   _("only function~=REGEX takes a regular expression"));
      return NULL;
    }
  if (strcmp (key, "from") == 0 || strcmp (key, "to") == 0)
    {
      HlFilter *f;
      if (!parse_time (value, &t))
        {
          g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_INVALID,
                       _("“%s” is not a time (e.g. 1500000, 20ms, 1.5s)"), value);
          return NULL;
        }
      f = copy (filter);
      if (key[0] == 'f')
        f->t0_ns = t;
      else
        f->t1_ns = t;
      if (f->t0_ns > f->t1_ns)
        {
          hl_filter_unref (f);
          g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_INVALID,
                       _("the time range ends before it starts"));
          return NULL;
        }
      return f;
    }
  if (strcmp (key, "thread") == 0)
    {
      char *end = NULL;
      guint64 tid = g_ascii_strtoull (value, &end, 10);
      if (end == value || *end != '\0' || tid > G_MAXUINT32)
        {
          g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_INVALID,
                       _("“%s” is not a thread id"), value);
          return NULL;
        }
      return hl_filter_with_thread (filter, (guint32) tid);
    }
  if (strcmp (key, "module") == 0)
    return hl_filter_with_module (filter, value);
  if (strcmp (key, "function") == 0)
    return hl_filter_with_function (filter, value);
  return hl_filter_with_metadata (filter, key, value);
}

gboolean
hl_filter_is_empty (const HlFilter *filter)
{
  g_return_val_if_fail (filter != NULL, TRUE);
  return !hl_filter_has_time_range (filter) && filter->live_at_ns == HL_TIME_NONE &&
         filter->tids == NULL && filter->meta_keys->len == 0 && filter->modules->len == 0 &&
         filter->functions->len == 0 && filter->regexes->len == 0;
}

gboolean
hl_filter_selects_by_time (const HlFilter *filter)
{
  g_return_val_if_fail (filter != NULL, FALSE);
  return hl_filter_has_time_range (filter) || filter->live_at_ns != HL_TIME_NONE || filter->meta_keys->len > 0;
}

gboolean
hl_filter_has_time_range (const HlFilter *filter)
{
  g_return_val_if_fail (filter != NULL, FALSE);
  return filter->t0_ns != 0 || filter->t1_ns != HL_TIME_NONE;
}

void
hl_filter_get_time_range (const HlFilter *filter,
                          guint64        *t0_ns,
                          guint64        *t1_ns)
{
  g_return_if_fail (filter != NULL);
  if (t0_ns != NULL)
    *t0_ns = filter->t0_ns;
  if (t1_ns != NULL)
    *t1_ns = filter->t1_ns;
}

/* Appends one condition after a separator; takes PART. */
static void
append_part (GString *s,
             char    *part)
{
  if (s->len > 0)
    /* Translators: the separator between the conditions of a filter */
    g_string_append (s, _(", "));
  g_string_append (s, part);
  g_free (part);
}

char *
hl_filter_describe (const HlFilter *filter)
{
  GString *s = g_string_new (NULL);

  g_return_val_if_fail (filter != NULL, NULL);

  if (hl_filter_has_time_range (filter))
    {
      char t0[32], t1[32];

      /* Numbers as in the C locale: seconds with three decimals. */
      g_snprintf (t0, sizeof t0, "%.3f", filter->t0_ns / 1e9);
      g_snprintf (t1, sizeof t1, "%.3f", filter->t1_ns / 1e9);
      if (filter->t1_ns == HL_TIME_NONE)
        /* Translators: a time range to the end of the recording, e.g. "1.500 s – end" */
        g_string_append_printf (s, _("%s s – end"), t0);
      else
        /* Translators: a time range in seconds, e.g. "1.500 s – 2.000 s" */
        g_string_append_printf (s, _("%s s – %s s"), t0, t1);
    }
  for (guint i = 0; filter->tids != NULL && i < filter->tids->len; i++)
    {
      char tid[16];

      g_snprintf (tid, sizeof tid, "%u", g_array_index (filter->tids, guint32, i));
      append_part (s, g_strdup_printf (_("thread %s"), tid));
    }
  for (guint i = 0; i < filter->meta_keys->len; i++)
    append_part (s, g_strdup_printf ("%s=%s", (char *) filter->meta_keys->pdata[i],
                                     (char *) filter->meta_values->pdata[i]));
  for (guint i = 0; i < filter->modules->len; i++)
    append_part (s, g_strdup_printf (_("module %s"), (char *) filter->modules->pdata[i]));
  for (guint i = 0; i < filter->functions->len; i++)
    append_part (s, g_strdup_printf (_("function %s"), (char *) filter->functions->pdata[i]));
  for (guint i = 0; i < filter->regexes->len; i++)
    /* Translators: a filter on function names by a regular expression */
    append_part (s, g_strdup_printf (_("function ~ %s"), g_regex_get_pattern (filter->regexes->pdata[i])));
  return g_string_free (s, FALSE);
}
