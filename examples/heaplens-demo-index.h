/* heaplens-demo-index.h — the demo's word index, written in C++ so that the
 * recording shows operator new and demangled names. */
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct HlDemoIndex HlDemoIndex;

HlDemoIndex *hl_demo_index_new    (void);
void         hl_demo_index_add    (HlDemoIndex *index,
                                   size_t       document,
                                   const char  *text,
                                   size_t       length);
/* Returns a malloc'd array of document numbers (free() it); *n_out its length. */
size_t      *hl_demo_index_lookup (HlDemoIndex *index,
                                   const char  *word,
                                   size_t      *n_out);
void         hl_demo_index_free   (HlDemoIndex *index);

#ifdef __cplusplus
}
#endif
