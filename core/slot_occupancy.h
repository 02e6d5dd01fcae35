// Slot occupancy: how long each recorded block held its slot on the SM (docs/formats.md, "Block time").
//
// A block holds one of its SM's resident-block slots from the moment the hardware dispatches it, not from its
// first timestamp: on a busy SM a freshly placed block's warps wait behind older warps before its thread 0 stamps
// the start, so `end - start` drops that wait. Per SM, R slots (R = the record set's residency) are free at the
// launch's first start; the SM's records in block-index order (the order the hardware dispatches a grid's blocks)
// each take the slot that was freed earliest (the end of an earlier block on that SM, or the launch start) and
// hold it from then to their own end. Index order, not start order: a late-placed block's start stamp can come
// after a later block's (mriq-s1's second wave starts 1167, 1175, 1113, ...), and pairing by start swaps their
// occupancies (mriq-s1 replayed +5.9 % long that way, 0.0 % by index). Replaying these occupancies reproduces the
// recording's span; replaying `end - start` under-predicts it (xtea-s2 on an H100: -35 %).
#pragma once
#include <cstdint>
#include <vector>

#include "core/kernel_profile.h"

namespace gpusched {

// Each record's slot occupancy, in the order of `records` (dispatch to end, ns). A block whose SM has no free
// slot at its start (more than `residency` blocks overlap there: timer jitter, or a record set whose residency
// is too low) is taken as dispatched at its own start.
std::vector<TimeNs> slot_occupancy(const std::vector<BlockRecord>& records, int residency);

}  // namespace gpusched
