/* hl-prefault.h — faulting in memory a thread is about to fill, on
 * another thread: the loader reserves the tables of a trace's allocations
 * (hundreds of megabytes for 10⁷ of them) and the thread that applies the
 * events writes them in order; each first write of a page would stop it
 * for the kernel to find and clear a page. A prefault thread does that
 * ahead of it, on a core the decoding leaves idle part of the time. The
 * contents are not touched (MADV_POPULATE_WRITE): the writer and the
 * prefault may run over the same pages. Where the kernel cannot (before
 * Linux 5.14), nothing happens. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _HlPrefault HlPrefault;

/* Starts faulting in the N_RANGES ranges (START[i], LEN[i]) in order, in
 * steps, on a new thread. The ranges must stay mapped until
 * hl_prefault_finish(): a range freed meanwhile is harmless (madvise
 * fails), but may fault in memory that is no longer the caller's. */
HlPrefault *hl_prefault_start  (gpointer const *start,
                                const gsize    *len,
                                guint           n_ranges);
/* Stops (at the next step) and joins the thread; NULL is fine. */
void        hl_prefault_finish (HlPrefault *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HlPrefault, hl_prefault_finish)

G_END_DECLS
