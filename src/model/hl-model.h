/* hl-model.h — the whole public API of src/model. */
#pragma once

#include "hl-analysis.h"
#include "hl-call-tree.h"
#include "hl-cost-kind.h"
#include "hl-diff-tree.h"
#include "hl-filter.h"
#include "hl-flame-layout.h"
#include "hl-frame.h"
#include "hl-model-error.h"
#include "hl-recording.h"
#include "hl-report-json.h"
