// The GPUs present, as GpuSpecs built from the device's attributes, and how they differ from the preset
// that names the same chip (gpusched-live devices).
#pragma once
#include <string>
#include <vector>

#include "core/gpu_spec.h"

namespace gpusched::live {

struct DeviceInfo {
  int index = 0;
  std::string name;    // as the driver reports it
  std::string driver;  // driver version, "major.minor"
  std::string runtime;
  GpuSpec spec;        // from the device's attributes
  const GpuSpec* preset = nullptr;  // the matching preset (by SM version and name), if any
  std::vector<std::string> differences;  // "field: device X, preset Y"
};

// Throws LiveError when no GPU or no driver is present, with the reason.
std::vector<DeviceInfo> list_devices();
GpuSpec spec_of_device(int device);
std::vector<std::string> spec_differences(const GpuSpec& device, const GpuSpec& preset);

}  // namespace gpusched::live
