// A co-run record's victim at the residency it ran at (docs/interference.md, "The victim's own residency"). A
// record's reference time is the victim's one-wave launch alone at victim_blocks_per_sm, but beside a partner the
// hardware places the victim's blocks where there is room: launched after a partner that leaves it too little room,
// its blocks wait and then fill the SMs the partner frees, up to the victim's own occupancy limit (mriq-s1 launched
// at 2 a SM after gather-s1 ran at 6.6 a SM, none beside gather, 2.2x its time alone at 2). Part of the measured
// slowdown is then the victim's own residency, which its recordings at 1, half and full residency already give,
// and which the engine knows (it places blocks itself); only the rest is the partners'.
#pragma once
#include <map>
#include <string>

#include "core/corun_records.h"
#include "core/kernel_profile.h"

namespace gpusched {

// The profiles of every kernel a table names, read from `dir` (NAME.kernel.toml; names without a file are left
// out).
std::map<std::string, KernelProfile> read_corun_profiles(const CoRunTable& table, const std::string& dir);

// `r` with its reference moved to the residency its victim ran at (CoRunRecord::victim_residency): alone_mean_ns
// scaled by the victim's recorded mean block time there over its mean at victim_blocks_per_sm (mean_block_ns_at),
// and victim_blocks_per_sm the nearest count (1 .. victim_full). Unchanged where the record has no measured
// residency or the victim's profile (`victim`, may be null) fewer than two record sets.
CoRunRecord at_own_residency(CoRunRecord r, const KernelProfile* victim);

// Every record of `table` so moved, with the profiles of `profiles`.
void move_to_own_residency(CoRunTable& table, const std::map<std::string, KernelProfile>& profiles);

}  // namespace gpusched
