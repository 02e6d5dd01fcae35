// A stored run's timeline model: its Schedule and launches from the store, lanes for every SM of the GPUs it ran
// on (from the GPU preset when its name is one, otherwise from the SMs its blocks used).
#pragma once
#include "core/store/store.h"
#include "gui/model/timeline_model.h"

namespace gpusched::gui {

TimelineModel timeline_from_record(const store::RunRecord& record);

// Names for runs side by side: the policy, with its parameters only where runs of one policy differ in them.
std::vector<std::string> distinct_labels(const std::vector<const store::RunInfo*>& runs);
// "#12 srtf on h100 x1, sim, workload default": a run named in full.
std::string run_title(const store::RunInfo& info);

}  // namespace gpusched::gui
