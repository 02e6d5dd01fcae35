#include "live/suite/suite.h"

namespace gpusched::live {

std::unique_ptr<SuiteKernel> make_sgemm();
std::unique_ptr<SuiteKernel> make_histogram();
std::unique_ptr<SuiteKernel> make_gather();
std::unique_ptr<SuiteKernel> make_spmv();
std::unique_ptr<SuiteKernel> make_stencil();
std::unique_ptr<SuiteKernel> make_blackscholes();
std::unique_ptr<SuiteKernel> make_sad();
std::unique_ptr<SuiteKernel> make_xtea();
std::unique_ptr<SuiteKernel> make_mriq();

std::vector<std::unique_ptr<SuiteKernel>> make_suite() {
  std::vector<std::unique_ptr<SuiteKernel>> out;
  out.push_back(make_sgemm());
  out.push_back(make_histogram());
  out.push_back(make_gather());
  out.push_back(make_spmv());
  out.push_back(make_stencil());
  out.push_back(make_blackscholes());
  out.push_back(make_sad());
  out.push_back(make_xtea());
  out.push_back(make_mriq());
  return out;
}

}  // namespace gpusched::live
