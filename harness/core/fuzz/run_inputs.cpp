// Runs the fuzz target over files and folders (the seed corpus, saved crashes) without a
// fuzzing engine: the regression half of fuzzing, in every build.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  // How many prefixes of each input (evenly spaced cuts): 257 unless TIDEMARK_FUZZ_PREFIXES says
  // fewer (the sanitizers lane: its -O0 instrumented server takes minutes over every cut).
  size_t prefixes = 257;
  if (const char* wanted = std::getenv("TIDEMARK_FUZZ_PREFIXES"))
    if (long value = std::strtol(wanted, nullptr, 10); value > 0) prefixes = static_cast<size_t>(value);
  int ran = 0;
  auto run_file = [&](const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
    // Every prefix too: a recording cut anywhere must be refused cleanly.
    for (size_t cut = 0; cut < bytes.size(); cut += 1 + bytes.size() / prefixes)
      LLVMFuzzerTestOneInput(bytes.data(), cut);
    ++ran;
  };
  for (int i = 1; i < argc; ++i) {
    fs::path path(argv[i]);
    if (fs::is_directory(path)) {
      for (const auto& entry : fs::recursive_directory_iterator(path))
        if (entry.is_regular_file()) run_file(entry.path());
    } else {
      run_file(path);
    }
  }
  std::printf("ran %d inputs and their prefixes\n", ran);
  return ran > 0 ? 0 : 1;
}
