// Removes what this test process left in the temporary folder under its own pid (gpusched_store_PID_*,
// gpusched_sweep_PID_*, gpusched_rt_PID, gpusched_compare_PID.db, ...) when the tests end, passed or not: ctest runs
// each test in a process of its own, so without this every run added folders and stores there for good.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace {

bool names_this_process(const std::string& name, const std::string& pid) {
  if (name.rfind("gpusched_", 0) != 0) return false;
  for (std::size_t at = name.find(pid); at != std::string::npos; at = name.find(pid, at + 1)) {
    const bool starts = at > 0 && name[at - 1] == '_';
    const std::size_t end = at + pid.size();
    const bool ends = end == name.size() || name[end] == '_' || name[end] == '.';
    if (starts && ends) return true;
  }
  return false;
}

class TempCleanup final : public ::testing::Environment {
 public:
  void TearDown() override {
    namespace fs = std::filesystem;
    const std::string pid = std::to_string(::getpid());
    std::error_code ec;
    std::vector<fs::path> mine;
    for (const auto& e : fs::directory_iterator(fs::temp_directory_path(ec), ec))
      if (names_this_process(e.path().filename().string(), pid)) mine.push_back(e.path());
    for (const auto& p : mine) fs::remove_all(p, ec);  // best effort: a leftover is no test failure
  }
};

const auto* const kTempCleanup = ::testing::AddGlobalTestEnvironment(new TempCleanup);

}  // namespace

TEST(TempCleanup, NamesOfThisProcessOnly) {
  EXPECT_TRUE(names_this_process("gpusched_store_123_dup.db", "123"));
  EXPECT_TRUE(names_this_process("gpusched_sweep_123_kill9", "123"));
  EXPECT_TRUE(names_this_process("gpusched_rt_123", "123"));
  EXPECT_TRUE(names_this_process("gpusched_compare_123.db", "123"));
  EXPECT_FALSE(names_this_process("gpusched_store_1234_dup.db", "123"));  // another process's
  EXPECT_FALSE(names_this_process("gpusched_store_9123_dup.db", "123"));
  EXPECT_FALSE(names_this_process("other_123_x", "123"));  // not ours at all
  EXPECT_FALSE(names_this_process("gpusched_stream_test.csv", "123"));
}
