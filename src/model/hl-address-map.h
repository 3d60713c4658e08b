/* hl-address-map.h — address → id of the live blocks, for the frees a
 * trace gives by address (the preload's live table was full when the
 * block was allocated). An open-addressing table of 16-byte slots, no
 * allocation per entry (a GHashTable of the same did about as well: once
 * the first such free turns the map on, every later allocation and free
 * updates it, and most updates are a cache miss either way; python3 in fp
 * mode, 3,000 frees by address, spends a quarter of its costs thread
 * here). Same rules as the GHashTable: set() replaces the value of an
 * address already there, remove() forgets the address. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _HlAddressMap HlAddressMap;

HlAddressMap *hl_address_map_new    (void);
void          hl_address_map_free   (HlAddressMap *self);

/* VALUE must not be 0 (0 is what get() says of an unknown address). */
void          hl_address_map_set    (HlAddressMap *self,
                                     guint64       address,
                                     guint64       value);
guint64       hl_address_map_get    (const HlAddressMap *self,
                                     guint64             address);
void          hl_address_map_remove (HlAddressMap *self,
                                     guint64       address);
guint64       hl_address_map_size   (const HlAddressMap *self);

G_END_DECLS
