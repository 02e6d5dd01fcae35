// Co-run records (docs/formats.md, "Co-run records"): what `gpusched-live record-pairs` measured when two or three
// suite kernels shared the same SMs. One row per (run, victim kernel): the victim's mean block time alone (the same
// one-wave launch, no co-runner) and beside its partners, and for each partner how many of its blocks shared the
// victim blocks' SMs, time-weighted over each victim block's life (`exposure`) and at the victim block's start
// (`exposure_at_start`). The interference models fitted from them live in sim/interference/.
//
// The file is CSV with "# key = value" provenance lines before the header; list-valued fields hold one entry per
// partner separated by ';'.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace gpusched {

struct CoRunPartner {
  std::string kernel;            // profile name of the partner ("sgemm-s1")
  int full = 1;                  // its blocks per SM alone (the occupancy limit)
  int blocks_per_sm = 0;         // its one-wave launch's blocks per SM
  double exposure = 0;           // its blocks on the victim block's SM, time-weighted over the victim block's life
  double exposure_at_start = 0;  // the same at the victim block's start
};

struct CoRunRecord {
  std::string run;  // names the co-run ("sgemm-s1+xtea-s1@0.50:0.50/ab")
  int repeat = 1;
  std::string victim;                 // profile name of the kernel whose blocks are measured
  int victim_full = 1;                // its blocks per SM alone
  int victim_blocks_per_sm = 1;       // its one-wave launch's blocks per SM
  double victim_bytes_per_block = 0;  // its compulsory DRAM traffic per block (footprint / grid blocks)
  std::vector<CoRunPartner> partners;
  std::int64_t blocks = 0;   // victim blocks measured
  double alone_mean_ns = 0;  // victim block time (end - start) alone at victim_blocks_per_sm
  double corun_mean_ns = 0;  // the same beside the partners
  // The victim's own blocks on its block's SM (the block itself included), time-weighted over the block's life and
  // at its start; means over the victim's blocks. The hardware places a launch's blocks where there is room, so a
  // victim launched after its partner may run more (or fewer) blocks on an SM than victim_blocks_per_sm
  // (docs/interference.md, "The victim's own residency"). 0: not recorded (files written before these columns).
  double victim_exposure = 0;
  double victim_exposure_at_start = 0;

  double slowdown() const { return alone_mean_ns > 0 ? corun_mean_ns / alone_mean_ns : 1.0; }
  // The victim's own blocks per SM as measured where recorded, else as launched.
  double victim_residency() const { return victim_exposure > 0 ? victim_exposure : victim_blocks_per_sm; }
  double victim_residency_at_start() const {
    return victim_exposure_at_start > 0 ? victim_exposure_at_start : victim_blocks_per_sm;
  }
};

struct CoRunTable {
  std::map<std::string, std::string> provenance;
  std::vector<CoRunRecord> records;
};

// "sgemm-s1" -> "sgemm": the suite kernel a profile was recorded from (its name without a trailing "-s<digits>").
// Co-run coefficients are kept per suite kernel, so that one recorded size serves the others.
std::string suite_kernel_of(const std::string& profile_name);
// The same as a view into `profile_name`, for callers on a hot path (the engine's re-timings).
std::string_view suite_kernel_view(std::string_view profile_name);

// The co-run records beside a kernel profile file (coruns.csv in its folder, where the interference models that
// are fitted from co-runs look by default), or "" when the profile has no file or there is none.
std::string corun_file_beside(const std::string& profile_file);

// Parses co-run records; throws InputError naming the file, line and field of the first problem.
CoRunTable parse_corun_records(const std::string& text, const std::string& name);
CoRunTable read_corun_records(const std::string& path);
// Writes atomically (a temporary file renamed): nothing is half-written.
void write_corun_records(const std::string& path, const CoRunTable& table);

}  // namespace gpusched
