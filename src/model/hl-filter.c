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
  f->min_size = 0;
  f->max_size = G_MAXUINT64;
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
  f->lived_at_least_ns = MAX (f->lived_at_least_ns, src->lived_at_least_ns);
  f->min_size = MAX (f->min_size, src->min_size);
  f->max_size = MIN (f->max_size, src->max_size);
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
hl_filter_with_lived_at_least (const HlFilter *filter,
                               guint64         t_ns)
{
  HlFilter *f;

  g_return_val_if_fail (filter != NULL, NULL);
  f = copy (filter);
  f->lived_at_least_ns = t_ns;
  return f;
}

guint64
hl_filter_get_lived_at_least (const HlFilter *filter)
{
  g_return_val_if_fail (filter != NULL, 0);
  return filter->lived_at_least_ns;
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
hl_filter_with_size_range (const HlFilter *filter,
                           guint64         min_size,
                           guint64         max_size)
{
  HlFilter *f;

  g_return_val_if_fail (filter != NULL, NULL);
  g_return_val_if_fail (min_size <= max_size, NULL);
  f = copy (filter);
  f->min_size = MAX (f->min_size, min_size);
  f->max_size = MIN (f->max_size, max_size);
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

/* "4096", "4KiB", "1.5 MiB", "2G": bytes, rounded to the nearest. */
static gboolean
parse_size (const char *text,
            guint64    *out)
{
  static const struct { const char *unit; double scale; } units[] = {
    { "", 1 }, { "B", 1 },
    { "K", 1024.0 }, { "KiB", 1024.0 }, { "KB", 1024.0 },
    { "M", 1048576.0 }, { "MiB", 1048576.0 }, { "MB", 1048576.0 },
    { "G", 1073741824.0 }, { "GiB", 1073741824.0 }, { "GB", 1073741824.0 },
  };
  g_autofree char *trimmed = g_strstrip (g_strdup (text));
  char *end = NULL;
  double v;

  if (!g_ascii_isdigit (trimmed[0]) && trimmed[0] != '.')
    return FALSE;
  v = g_ascii_strtod (trimmed, &end);
  if (end == trimmed || !(v >= 0))
    return FALSE;
  while (*end == ' ')
    end++;
  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    if (g_ascii_strcasecmp (end, units[i].unit) == 0)
      {
        double bytes = v * units[i].scale + 0.5;

        if (bytes >= 18446744073709551615.0)
          return FALSE;
        *out = (guint64) bytes;
        return TRUE;
      }
  return FALSE;
}

/* "MIN..MAX", "MIN..", "..MAX" or "N", both ends included. */
static HlFilter *
parse_size_range (const HlFilter *filter,
                  const char     *value,
                  GError        **error)
{
  const char *dots = strstr (value, "..");
  guint64 lo = 0, hi = G_MAXUINT64;
  gboolean ok;

  if (dots == NULL)
    {
      ok = parse_size (value, &lo);
      hi = lo;
    }
  else
    {
      g_autofree char *first = g_strndup (value, dots - value);

      ok = (first[0] == '\0' || parse_size (first, &lo)) &&
           (dots[2] == '\0' || parse_size (dots + 2, &hi)) &&
           (first[0] != '\0' || dots[2] != '\0');
    }
  if (!ok)
    {
      g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_INVALID,
                   _("“%s” is not a size range (e.g. 64..127, 4KiB.., ..1MiB, 100)"), value);
      return NULL;
    }
  if (lo > hi)
    {
      g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_INVALID,
                   _("the size range “%s” ends before it starts"), value);
      return NULL;
    }
  return hl_filter_with_size_range (filter, lo, hi);
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
  if (strcmp (key, "lived") == 0)
    {
      if (!parse_time (value, &t))
        {
          g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_INVALID,
                       _("“%s” is not a time (e.g. 1500000, 20ms, 1.5s)"), value);
          return NULL;
        }
      return hl_filter_with_lived_at_least (filter, t);
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
  if (strcmp (key, "size") == 0)
    return parse_size_range (filter, value, error);
  if (strcmp (key, "function") == 0)
    return hl_filter_with_function (filter, value);
  return hl_filter_with_metadata (filter, key, value);
}

gboolean
hl_filter_is_empty (const HlFilter *filter)
{
  g_return_val_if_fail (filter != NULL, TRUE);
  return !hl_filter_has_time_range (filter) && filter->live_at_ns == HL_TIME_NONE &&
         filter->lived_at_least_ns == 0 && filter->tids == NULL && filter->meta_keys->len == 0 && filter->modules->len == 0 &&
         filter->functions->len == 0 && filter->regexes->len == 0 &&
         !hl_filter_has_size_range (filter);
}

gboolean
hl_filter_selects_by_time (const HlFilter *filter)
{
  g_return_val_if_fail (filter != NULL, FALSE);
  return hl_filter_has_time_range (filter) || filter->live_at_ns != HL_TIME_NONE || filter->meta_keys->len > 0 ||
         hl_filter_has_size_range (filter) || filter->lived_at_least_ns > 0;
}

gboolean
hl_filter_needs_events (const HlFilter *filter,
                        HlCostKind      cost)
{
  g_return_val_if_fail (filter != NULL, FALSE);
  return hl_filter_selects_by_time (filter) || (cost == HL_COST_KIND_MMAP && filter->tids != NULL);
}

gboolean
hl_filter_has_size_range (const HlFilter *filter)
{
  g_return_val_if_fail (filter != NULL, FALSE);
  return filter->min_size != 0 || filter->max_size != G_MAXUINT64;
}

void
hl_filter_get_size_range (const HlFilter *filter,
                          guint64        *min_size,
                          guint64        *max_size)
{
  g_return_if_fail (filter != NULL);
  if (min_size != NULL)
    *min_size = filter->min_size;
  if (max_size != NULL)
    *max_size = filter->max_size;
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

/* A size as parse_size reads it back: "4 KiB" when a whole number of
 * KiB, MiB or GiB, else bytes. */
static char *
describe_size (guint64 size)
{
  static const char *units[] = { "B", "KiB", "MiB", "GiB" };
  guint u = 0;

  while (u + 1 < G_N_ELEMENTS (units) && size >= 1024 && size % 1024 == 0)
    {
      size /= 1024;
      u++;
    }
  return g_strdup_printf ("%" G_GUINT64_FORMAT " %s", size, units[u]);
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
  if (hl_filter_has_size_range (filter))
    {
      g_autofree char *lo = describe_size (filter->min_size);
      g_autofree char *hi = describe_size (filter->max_size);

      if (filter->max_size == G_MAXUINT64)
        /* Translators: a filter on allocation sizes, e.g. "size ≥ 4 KiB" */
        append_part (s, g_strdup_printf (_("size ≥ %s"), lo));
      else if (filter->min_size == filter->max_size)
        /* Translators: a filter on allocation sizes, e.g. "size 64 B" */
        append_part (s, g_strdup_printf (_("size %s"), lo));
      else
        /* Translators: a filter on allocation sizes, both ends included, e.g. "size 64 B – 127 B" */
        append_part (s, g_strdup_printf (_("size %s – %s"), lo, hi));
    }
  return g_string_free (s, FALSE);
}
