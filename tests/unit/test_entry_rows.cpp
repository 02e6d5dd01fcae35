// validate --entries-csv's rows (live/executor/entry_rows.h): each worker's stamps beside its planned piece and its
// part's call, in us from the execution's origin.
#include <gtest/gtest.h>

#include <stdexcept>

#include "live/executor/entry_rows.h"

namespace gpusched::live {
namespace {

// Launch a's block 3 planned in two pieces: 10-25 us (switched out) and 40-55 us (switched in), on SM 7.
Schedule two_piece_plan() {
  Schedule plan;
  BlockPiece first{};
  first.start = 10'000;
  first.end = 25'000;
  first.launch = 0;
  first.block = 3;
  first.sm = 7;
  first.outcome = PieceOutcome::SwitchedOut;
  BlockPiece second = first;
  second.start = 40'000;
  second.end = 55'000;
  second.outcome = PieceOutcome::SwitchedIn;
  plan.pieces = {first, second};
  return plan;
}

TEST(EntryRows, AWorkerThatWaitedForItsClaimShowsItsEntryBeforeItsStart) {
  const Schedule plan = two_piece_plan();
  // The second piece's worker entered at 41.2 us but claimed the block only at 47.5 us (the first piece, late, still
  // ran it); its part was called at 38.0 us. The first piece's part stamps no entry (no claims): empty there.
  PieceEntry a{.launch = 0,
               .part = 0,
               .entry = 0,
               .block = 3,
               .plan_piece = 0,
               .entered = kNotStamped,
               .start = 12'000,
               .end = 47'000,
               .sm = 7,
               .outcome = ExecOutcome::SwitchedOut};
  PieceEntry b{.launch = 0,
               .part = 1,
               .entry = 1,
               .block = 3,
               .plan_piece = 1,
               .entered = 41'200,
               .start = 47'500,
               .end = 60'250,
               .sm = 6,
               .outcome = ExecOutcome::SwitchedIn};
  const auto rows = entry_csv_rows("chimera/none repeat 1", {"a"}, plan, {a, b}, {{9'000, 38'000}});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0], "chimera/none repeat 1,a,0,0,3,7,switched_out,switched_out,10.000,25.000,9.000,,12.000,47.000");
  EXPECT_EQ(rows[1],
            "chimera/none repeat 1,a,1,1,3,6,switched_in,switched_in,40.000,55.000,38.000,41.200,47.500,60.250");
}

TEST(EntryRows, AnEntryNeverTakenAndAPartNeverCalledLeaveTheirTimesEmpty) {
  const Schedule plan = two_piece_plan();
  PieceEntry skipped{.launch = 0,
                     .part = 1,
                     .entry = 1,
                     .block = 3,
                     .plan_piece = 1,
                     .entered = 40'100,
                     .start = 40'300,
                     .end = 40'300,
                     .sm = 7,
                     .outcome = ExecOutcome::Skipped};
  PieceEntry none{.launch = 0, .part = 1, .entry = 1, .block = 3, .plan_piece = 1};
  const auto rows = entry_csv_rows("x", {"a"}, plan, {skipped, none}, {{}});
  EXPECT_EQ(rows[0], "x,a,1,1,3,7,switched_in,skipped,40.000,55.000,,40.100,40.300,40.300");
  EXPECT_EQ(rows[1], "x,a,1,1,3,0,switched_in,none,40.000,55.000,,,,");
}

TEST(EntryRows, AnEntryNamingAPieceOrLaunchThatIsNotThereThrows) {
  const Schedule plan = two_piece_plan();
  EXPECT_THROW(entry_csv_rows("x", {"a"}, plan, {PieceEntry{.plan_piece = 2}}, {{}}), std::out_of_range);
  EXPECT_THROW(entry_csv_rows("x", {"a"}, plan, {PieceEntry{.launch = 1}}, {{}, {}}), std::out_of_range);
  EXPECT_THROW(entry_csv_rows("x", {"a"}, plan, {PieceEntry{.part = 2}}, {{1, 2}}), std::out_of_range);
}

}  // namespace
}  // namespace gpusched::live
