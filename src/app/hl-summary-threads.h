/* hl-summary-threads.h — the summary's table of threads: for each thread
 * of the selection, its allocations, the bytes it allocated, its share of
 * the peak and what it left not freed (issue 30, point 5); a row filters
 * the window to its thread. Only shows what it is given. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef struct
{
  guint32     tid;
  const char *thread;     /* "worker (4243)", "Thread 4242" */
  const char *calls;      /* formatted: "1,234" */
  const char *allocated;  /* "3.18 GiB" */
  const char *at_peak;
  const char *not_freed;
} HlSummaryThreadRow;

/* A new, empty table: a list box whose first row holds the column titles;
 * NOT_FREED_TITLE the last column's (e.g. "Leaked", "Not Freed"). */
GtkWidget  *hl_summary_threads_new        (void);

/* Shows N ROWS (in that order), then, when MORE is not NULL, a last row
 * saying what is not shown; NOT_FREED_TITLE: the last column's title.
 * Rows are updated in place. */
void        hl_summary_threads_set        (GtkWidget                *table,
                                           const char               *not_freed_title,
                                           guint                     n,
                                           const HlSummaryThreadRow *rows,
                                           const char               *more);

/* Row ROW's thread id and its cell COLUMN (0 the thread, 1 calls,
 * 2 allocated, 3 at peak, 4 not freed), or NULL past the rows. COLUMN
 * for row -1: the titles. */
const char *hl_summary_threads_get_cell   (GtkWidget *table,
                                           int        row,
                                           guint      column,
                                           guint32   *tid);

/* What follows the rows ("3 more threads …"), or NULL */
const char *hl_summary_threads_get_more   (GtkWidget *table);

G_END_DECLS
