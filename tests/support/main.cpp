// doctest main shared by all test executables. CUDA builds skip (exit 77, reported by ctest as
// SKIPPED, never as passed) when no usable GPU is present. A run whose filters select no test case
// fails: the unity builds (tests/CMakeLists.txt, DEM_TEST_UNITY) run each source's tests from its
// group's executable with a --source-file filter, and a filter that matched nothing would pass
// silently.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include "support/test_backend.hpp"

namespace {
bool run_ended = false;
unsigned selected = 0;

struct selection_listener : doctest::IReporter {
  explicit selection_listener(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats& stats) override {
    run_ended = true;
    selected = stats.numTestCasesPassingFilters;
  }
  void test_case_start(const doctest::TestCaseData&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};
}  // namespace

DOCTEST_REGISTER_LISTENER("selection", 1, selection_listener);

int main(int argc, char** argv) {
#if defined(DEM_TEST_BACKEND_CUDA)
  std::string why;
  if (!dem::backend::cuda_device_available(&why)) {
    std::printf("SKIPPED: no usable CUDA device (%s); the CUDA build of these tests did not run\n", why.c_str());
    return 77;
  }
#endif
  doctest::Context context(argc, argv);
  const int result = context.run();
  if (result == 0 && run_ended && selected == 0 && !context.shouldExit()) {
    std::fprintf(stderr, "no test case matched the filters: nothing ran\n");
    return 1;
  }
  return result;
}
