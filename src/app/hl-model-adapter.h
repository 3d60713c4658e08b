/* hl-model-adapter.h — the model's answers turned into what the widgets
 * draw, one adapter per view: hl-adapter-flame.h, -timeline.h,
 * -call-tree.h, -allocations.h, -summary.h, the filters (-filter.h) and
 * what they share (-stack.h). Conversions only: no state, no windows.
 * Include the one a file needs; this header includes them all. */
#pragma once

#include "hl-adapter-allocations.h"
#include "hl-adapter-call-tree.h"
#include "hl-adapter-filter.h"
#include "hl-adapter-flame.h"
#include "hl-adapter-stack.h"
#include "hl-adapter-summary.h"
#include "hl-adapter-timeline.h"
