/* hl-report-export.c — the report of an analysis saved as JSON. */
#include "hl-config.h"

#include <string.h>

#include "hl-report-export.h"

#define REPORT_TOP 10  /* as `heaplens-cli report` */

gboolean
hl_report_export (HlAnalysis *analysis,
                  GFile      *source,
                  GFile      *file,
                  GError    **error)
{
  g_autofree char *path = source != NULL ? g_file_get_path (source) : NULL;
  g_autofree char *json = NULL;

  g_return_val_if_fail (HL_IS_ANALYSIS (analysis), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  if (path == NULL && source != NULL)
    path = g_file_get_uri (source);
  json = hl_report_to_json (path != NULL ? path : "", analysis, NULL, 0, REPORT_TOP);
  return g_file_replace_contents (file, json, strlen (json), NULL, FALSE,
                                  G_FILE_CREATE_REPLACE_DESTINATION, NULL, NULL, error);
}
