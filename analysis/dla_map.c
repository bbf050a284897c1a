/* dla_map.c - the analysis's maps: common/dl_map.h's (see dla_map.h); the
 * lookups are inline in the header. */
#include "dla_map.h"

void dla_map_init(dla_map *m) { dl_map_init(m); }
void dla_map_free(dla_map *m) { dl_map_free(m); }
void dla_smap_init(dla_smap *m) { dl_smap_init(m); }
void dla_smap_free(dla_smap *m) { dl_smap_free(m); }
