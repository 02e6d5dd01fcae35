#include "live/suite/suite.h"

namespace gpusched::live {

std::unique_ptr<SuiteKernel> make_sgemm();
std::unique_ptr<SuiteKernel> make_histogram();
std::unique_ptr<SuiteKernel> make_gather();

std::vector<std::unique_ptr<SuiteKernel>> make_suite() {
  std::vector<std::unique_ptr<SuiteKernel>> out;
  out.push_back(make_sgemm());
  out.push_back(make_histogram());
  out.push_back(make_gather());
  return out;
}

}  // namespace gpusched::live
