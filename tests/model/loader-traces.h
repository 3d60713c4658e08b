/* loader-traces.h — the traces the loader tests write and load
 * (test-loader.c, test-loader-damage.c, test-loader-costs.c). */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The stream of test-costs.c, in three threads' packets. */
GByteArray *build_trace        (void);
/* 100,000 allocations in 100 packets of two threads. */
GByteArray *build_big_trace    (void);
/* A random run of four threads (SEED, N_STEPS steps), its packets in the
 * order threads flush them: frees often before their allocation. */
GByteArray *build_random_trace (guint32       seed,
                                guint         n_steps);
/* A temporary file holding DATA. */
/* N_ALLOCS allocations in four threads, most of them living past the
 * costs-only load's ring of 2^16 ids (hl-recording-aggregate-private.h),
 * freed by id or by address in another order, a tenth never. */
GByteArray *build_long_lived_trace (guint32     seed,
                                    guint       n_allocs);
GFile      *write_temp         (const guint8 *data,
                                gsize         len);

G_END_DECLS
