/* hl-window-timeline.c — the window's timeline: its data for the range
 * shown (fetched again when zoomed or panned), its chart (Consumed,
 * Allocations, Temporary: the window's own), its legend, the heap by call
 * site (computed on a worker the first time it is asked for) and the
 * cursor that the live-at-T flame graph follows. */
#include "hl-config.h"

#include <glib/gi18n.h>

#include "hl-adapter-timeline.h"
#include "hl-units.h"
#include "hl-window-private.h"

/* The heap by call site: the largest sites, over the whole recording in
 * buckets twice the whole timeline's (a zoomed view shows them coarser) */
#define SITE_MAX         8
#define SITE_BUCKETS     (HL_WINDOW_TIMELINE_BUCKETS * 2)

/* The legend of the heap by call site: each site's colour and function
 * (shortened), then the rest's and RSS's. */
static char *
sites_legend (HlWindow *self)
{
  gboolean dark = adw_style_manager_get_dark (adw_style_manager_get_default ());
  HlTimelineData *data = hl_timeline_get_data (self->timeline);
  GString *markup = g_string_new (NULL);
  double rgb[3];

  for (guint k = 0; data != NULL && k < hl_timeline_data_get_n_sites (data); k++)
    {
      const char *label = hl_timeline_data_get_site_label (data, k);
      g_autofree char *shown = hl_format_shortened (label, 36);
      g_autofree char *escaped = g_markup_escape_text (shown, -1);

      hl_timeline_site_color (dark, k, rgb);
      g_string_append_printf (markup, "<span foreground=\"#%02x%02x%02x\">■</span> %s   ",
                              (int) (rgb[0] * 255), (int) (rgb[1] * 255), (int) (rgb[2] * 255), escaped);
    }
  hl_timeline_heap_color (dark, rgb);
  g_string_append_printf (markup, "<span foreground=\"#%02x%02x%02x\" alpha=\"55%%\">■</span> %s   ",
                          (int) (rgb[0] * 255), (int) (rgb[1] * 255), (int) (rgb[2] * 255), _("Other call sites"));
  hl_timeline_rss_color (dark, rgb);
  g_string_append_printf (markup, "<span foreground=\"#%02x%02x%02x\">■</span> %s",
                          (int) (rgb[0] * 255), (int) (rgb[1] * 255), (int) (rgb[2] * 255), _("RSS"));
  return g_string_free (markup, FALSE);
}

/* One key of the legend: its colour, its name and the short name a
 * narrow window shows (NULL: the name). */
typedef struct
{
  double      rgb[3];
  const char *name;
  const char *short_name;
} LegendKey;

static char *
keys_markup (const LegendKey *keys,
             guint            n_keys,
             gboolean         short_names)
{
  GString *markup = g_string_new (NULL);

  for (guint k = 0; k < n_keys; k++)
    {
      const char *name = short_names && keys[k].short_name != NULL ? keys[k].short_name : keys[k].name;
      g_autofree char *escaped = g_markup_escape_text (name, -1);

      g_string_append_printf (markup, "%s<span foreground=\"#%02x%02x%02x\">■</span> %s", k > 0 ? "   " : "",
                              (int) (keys[k].rgb[0] * 255), (int) (keys[k].rgb[1] * 255),
                              (int) (keys[k].rgb[2] * 255), escaped);
    }
  return g_string_free (markup, FALSE);
}

/* The legend in three widths, of which the squeezer shows the widest that
 * fits: the keys and the hint, the keys alone, the keys' short names
 * (cut at the end if even those do not fit). The tooltip always has the
 * whole. */
static void
set_legend (HlWindow   *self,
            const char *keys,
            const char *short_keys)
{
  const char *hint = _("Drag or click a band to select; Ctrl+scroll to zoom");
  g_autofree char *full = g_strdup_printf ("%s   %s", keys, hint);
  g_autofree char *tooltip = g_strdup_printf ("%s\n%s", keys, hint);

  gtk_label_set_markup (self->timeline_legend, full);
  gtk_label_set_markup (self->timeline_legend_keys, keys);
  gtk_label_set_markup (self->timeline_legend_short, short_keys);
  gtk_widget_set_tooltip_markup (GTK_WIDGET (self->timeline_legend_squeezer), tooltip);
}

/* A sentence in place of the legend (before the events are loaded). */
void
hl_window_set_timeline_legend_text (HlWindow   *self,
                                    const char *text)
{
  gtk_label_set_label (self->timeline_legend, text);
  gtk_label_set_label (self->timeline_legend_keys, text);
  gtk_label_set_label (self->timeline_legend_short, text);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->timeline_legend_squeezer), text);
}

void
hl_window_update_timeline_legend (HlWindow *self)
{
  LegendKey keys[5];
  guint n_keys = 0;
  g_autofree char *markup = NULL;
  g_autofree char *short_markup = NULL;
  HlTimelineMode mode = hl_timeline_get_mode (self->timeline);
  gboolean dark = adw_style_manager_get_dark (adw_style_manager_get_default ());
  HlTimelineData *data = hl_timeline_get_data (self->timeline);

  if (hl_timeline_get_by_site (self->timeline) && data != NULL && hl_timeline_data_get_n_sites (data) > 0)
    {
      markup = sites_legend (self);
      set_legend (self, markup, markup);
      return;
    }

  if (mode != HL_TIMELINE_MODE_CONSUMED)
    {
      /* the cumulative charts draw in the heap's colour, temporaries in the
       * first call site's */
      if (mode == HL_TIMELINE_MODE_TEMPORARY)
        hl_timeline_site_color (dark, 0, keys[n_keys].rgb);
      else
        hl_timeline_heap_color (dark, keys[n_keys].rgb);
      keys[n_keys].name = mode == HL_TIMELINE_MODE_ALLOCATIONS ? _("Allocations since the start")
                                                               : _("Temporary allocations since the start");
      /* Translators: the timeline's legend in a narrow window */
      keys[n_keys++].short_name = mode == HL_TIMELINE_MODE_ALLOCATIONS ? _("Allocations") : _("Temporary");
    }
  else
    {
      hl_timeline_heap_color (dark, keys[n_keys].rgb);
      keys[n_keys].name = _("Heap");
      keys[n_keys++].short_name = NULL;
      if (data != NULL && hl_timeline_data_has_memory (data))
        {
          /* Translators: the timeline's legend; "Free in malloc" is the free
           * space inside malloc's arenas, "mmap" the program's own mappings */
          hl_timeline_malloc_free_color (dark, keys[n_keys].rgb);
          keys[n_keys].name = _("Free in malloc");
          /* Translators: "Free in malloc" in a narrow window */
          keys[n_keys++].short_name = _("Free");
          hl_timeline_mmap_color (dark, keys[n_keys].rgb);
          keys[n_keys].name = _("mmap");
          keys[n_keys++].short_name = NULL;
        }
      hl_timeline_rss_color (dark, keys[n_keys].rgb);
      keys[n_keys].name = _("RSS");
      keys[n_keys++].short_name = NULL;
    }
  hl_timeline_rate_color (dark, keys[n_keys].rgb);
  keys[n_keys].name = _("Allocation rate");
  /* Translators: "Allocation rate" in a narrow window */
  keys[n_keys++].short_name = _("Rate");

  markup = keys_markup (keys, n_keys, FALSE);
  short_markup = keys_markup (keys, n_keys, TRUE);
  set_legend (self, markup, short_markup);
}

/* The heap by call site of the recording: computed on a worker the first
 * time it is shown (two passes over the allocations and frees: 0.3 s for
 * python3's 10 M events; the recording is only read, as by the analyses'
 * workers), then given to every timeline data the window builds. */
static void
give_sites (HlWindow *self)
{
  HlTimelineData *data = hl_timeline_get_data (self->timeline);

  if (data != NULL && self->site_series != NULL && hl_timeline_data_get_n_sites (data) == 0)
    hl_adapter_timeline_set_sites (data, hl_window_recording (self), self->site_series);
  gtk_widget_queue_draw (GTK_WIDGET (self->timeline));
  hl_window_update_timeline_legend (self);
}

static void
on_site_series (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(HlWindow) self = user_data;
  HlSiteSeries *series = hl_recording_get_site_series_finish (HL_RECORDING (source), result, NULL);

  /* another recording since (or the window closed): not this one's */
  if (source != (GObject *) hl_window_recording (self))
    {
      g_clear_pointer (&series, hl_site_series_free);
      return;
    }
  self->site_series = series;
  self->site_series_done = TRUE;
  self->site_series_running = FALSE;
  give_sites (self);
}

static void
show_sites (HlWindow *self)
{
  if (self->site_series_done || self->site_series_running || hl_window_recording (self) == NULL)
    {
      give_sites (self);
      return;
    }
  self->site_series_running = TRUE;
  hl_recording_get_site_series_async (hl_window_recording (self), 0, HL_TIME_END, SITE_BUCKETS, SITE_MAX,
                                      NULL, on_site_series, g_object_ref (self));
}

void
hl_window_forget_sites (HlWindow *self)
{
  g_clear_pointer (&self->site_series, hl_site_series_free);
  self->site_series_done = FALSE;
  self->site_series_running = FALSE;
}

/* The by-site split is the heap's: in Consumed only, and not live (where
 * the button is hidden, so that the live buttons and the legend have its
 * room). */
static void
update_by_site_sensitive (HlWindow *self)
{
  gtk_widget_set_visible (GTK_WIDGET (self->by_site_button), hl_window_live_session (self) == NULL);
  gtk_widget_set_sensitive (GTK_WIDGET (self->by_site_button),
                            hl_timeline_get_mode (self->timeline) == HL_TIMELINE_MODE_CONSUMED);
}

static void
on_timeline_mode_selected (HlWindow *self)
{
  guint mode = gtk_drop_down_get_selected (self->timeline_mode);

  hl_timeline_set_mode (self->timeline, mode < HL_TIMELINE_N_MODES ? mode : HL_TIMELINE_MODE_CONSUMED);
  update_by_site_sensitive (self);
  hl_window_update_timeline_legend (self);
}

void
hl_window_on_by_site_toggled (HlWindow *self)
{
  gboolean by_site = gtk_toggle_button_get_active (self->by_site_button);

  if (by_site)
    show_sites (self);
  hl_timeline_set_by_site (self->timeline, by_site);
  hl_window_update_timeline_legend (self);
}

/* Zoomed or panned: fetch the series again for the visible range, so a
 * zoomed timeline shows detail rather than stretched buckets. */
static gboolean
refetch_timeline (gpointer user_data)
{
  HlWindow *self = user_data;
  g_autoptr(HlTimelineData) data = NULL;
  guint64 start, end, duration;

  self->timeline_refetch_id = 0;
  if (hl_window_recording (self) == NULL)
    return G_SOURCE_REMOVE;
  hl_timeline_get_visible_range (self->timeline, &start, &end);
  duration = hl_timeline_data_get_duration (hl_timeline_get_data (self->timeline));
  /* The whole recording is shown from its data already. */
  if (self->timeline_whole && start == 0 && end >= duration)
    return G_SOURCE_REMOVE;
  self->timeline_whole = FALSE;
  /* A margin of a screen on each side keeps panning smooth. */
  data = hl_adapter_timeline_data (hl_window_recording (self),
                                   start > end - start ? start - (end - start) : 0,
                                   MIN (end + (end - start), duration),
                                   HL_WINDOW_TIMELINE_BUCKETS * 3);
  hl_adapter_timeline_set_sites (data, hl_window_recording (self), self->site_series);
  hl_timeline_set_data (self->timeline, data);
  return G_SOURCE_REMOVE;
}

static void
on_timeline_visible_range_changed (HlWindow *self)
{
  if (hl_window_recording (self) != NULL && self->timeline_refetch_id == 0)
    self->timeline_refetch_id = g_timeout_add (50, refetch_timeline, self);
}

static void
on_timeline_cursor_changed (HlWindow *self,
                            guint64   time_ns)
{
  self->cursor_ns = time_ns;
  /* The live-at-T flame graph follows the cursor. */
  if (hl_flame_view_get_cost (self->flame_view) == HL_COST_KIND_LIVE)
    hl_window_start_analysis (self);
}

/* The timeline of the recording shown, as a whole. */
void
hl_window_show_timeline (HlWindow *self)
{
  g_autoptr(HlTimelineData) timeline = NULL;
  HlTimingMark stage;

  hl_timing_mark (&stage);
  timeline = hl_adapter_timeline_data (hl_window_recording (self), 0, HL_TIME_END, HL_WINDOW_TIMELINE_BUCKETS);
  hl_timing_log (&stage, "  timeline data");
  self->timeline_whole = TRUE;
  hl_timeline_set_data (self->timeline, timeline);
  /* a live session's recording holds samples: no call sites over time,
   * and counts of the sampled allocations only: the heap alone */
  if (hl_window_live_session (self) != NULL)
    {
      gtk_toggle_button_set_active (self->by_site_button, FALSE);
      gtk_drop_down_set_selected (self->timeline_mode, HL_TIMELINE_MODE_CONSUMED);
    }
  gtk_widget_set_sensitive (GTK_WIDGET (self->timeline_mode), hl_window_live_session (self) == NULL);
  update_by_site_sensitive (self);
  if (gtk_toggle_button_get_active (self->by_site_button))
    show_sites (self);
  hl_window_update_timeline_legend (self);
}

/* The timeline's height: its natural one while the views below keep
 * their minimum (the paned's end child does not shrink), less in a short
 * window (800×600), where its bands narrow before the chart
 * (hl_timeline_fit_band_height) and the views keep their room. Fitted
 * again when the window's height or the timeline's rows change; a drag
 * of the handle holds until then. */
static gboolean
fit_timeline (gpointer user_data)
{
  HlWindow *self = user_data;
  GtkWidget *start = gtk_paned_get_start_child (self->timeline_paned);
  int min = 0, nat = 0, max_pos = 0, pos;

  self->timeline_fit_id = 0;
  if (start == NULL || gtk_widget_get_height (GTK_WIDGET (self->timeline_paned)) <= 0)
    return G_SOURCE_REMOVE;
  gtk_widget_measure (start, GTK_ORIENTATION_VERTICAL, gtk_widget_get_width (GTK_WIDGET (self->timeline_paned)),
                      &min, &nat, NULL, NULL);
  g_object_get (self->timeline_paned, "max-position", &max_pos, NULL);
  pos = MAX (min, MIN (nat, max_pos));
  if (pos != gtk_paned_get_position (self->timeline_paned))
    gtk_paned_set_position (self->timeline_paned, pos);
  return G_SOURCE_REMOVE;
}

static void
queue_fit_timeline (HlWindow *self)
{
  if (self->timeline_fit_id == 0)
    /* before the next frame, even while frames follow each other */
    self->timeline_fit_id = g_idle_add_full (G_PRIORITY_DEFAULT, fit_timeline, self, NULL);
}

void
hl_window_init_timeline (HlWindow *self)
{
  /* Translators: the timeline's charts (as heaptrack's): the heap consumed, allocations and temporary allocations since the start */
  const char *modes[] = { N_("Consumed"), N_("Allocations"), N_("Temporary"), NULL };
  const char *shown[G_N_ELEMENTS (modes)];

  for (guint i = 0; i < G_N_ELEMENTS (modes); i++)
    shown[i] = modes[i] != NULL ? _(modes[i]) : NULL;
  /* beside the By Call Site switch, in the timeline's header */
  self->timeline_mode = GTK_DROP_DOWN (gtk_drop_down_new_from_strings (shown));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->timeline_mode),
                               _("The chart: the heap consumed, or the allocations or temporary allocations since the start"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->timeline_mode),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Timeline chart"), -1);
  gtk_widget_add_css_class (GTK_WIDGET (self->timeline_mode), "flat");
  gtk_widget_set_valign (GTK_WIDGET (self->timeline_mode), GTK_ALIGN_CENTER);
  gtk_widget_insert_before (GTK_WIDGET (self->timeline_mode),
                            gtk_widget_get_parent (GTK_WIDGET (self->by_site_button)),
                            GTK_WIDGET (self->by_site_button));
  g_signal_connect_swapped (self->timeline_mode, "notify::selected",
                            G_CALLBACK (on_timeline_mode_selected), self);

  g_signal_connect_swapped (self->timeline_paned, "notify::max-position",
                            G_CALLBACK (queue_fit_timeline), self);
  g_signal_connect_swapped (self->timeline, "notify::data",
                            G_CALLBACK (queue_fit_timeline), self);
  g_signal_connect_swapped (self->timeline, "cursor-changed",
                            G_CALLBACK (on_timeline_cursor_changed), self);
  g_signal_connect_swapped (self->timeline, "visible-range-changed",
                            G_CALLBACK (on_timeline_visible_range_changed), self);
}
