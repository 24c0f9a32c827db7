#include "probes/shared/driver_cuda_versions.hpp"

#include <charconv>

namespace gd {
namespace {

struct BranchCuda {
  int branch;
  std::string_view cuda;
};

// Driver branch -> the CUDA version it reports. Sources (shared/knowledge/nvidia-cuda-facts.md):
// §1.1 runfile names cuda_<toolkit>_<bundled driver>_linux.run [V] (a branch reports the CUDA
// version of the toolkit it shipped with) and §1.2 nvidia-smi banners from issue reports [S].
// 565 is left out: no "CUDA Version" banner for it was found (§9 item 3).
constexpr BranchCuda k_branches[] = {
    {450, "11.0"},  // cuda_11.0.2_450.51.05 (§1.1)
    {455, "11.1"},  // cuda_11.1.1_455.32.00 (§1.1)
    {460, "11.2"},  // cuda_11.2.0_460.27.04 (§1.1)
    {465, "11.3"},  // cuda_11.3.0_465.19.01 (§1.1)
    {470, "11.4"},  // cuda_11.4.0_470.42.01 (§1.1)
    {495, "11.5"},  // cuda_11.5.0_495.29.05 (§1.1)
    {510, "11.6"},  // cuda_11.6.0_510.39.01 (§1.1)
    {515, "11.7"},  // cuda_11.7.0_515.43.04 (§1.1)
    {520, "11.8"},  // cuda_11.8.0_520.61.05 (§1.1)
    {525, "12.0"},  // 525.147.05 -> 12.0, mistralai/mistral-inference#144 (§1.2)
    {530, "12.1"},  // 530.41.03 -> 12.1, canonical/lxd#11804 (§1.2)
    {535, "12.2"},  // 535.161.07 -> 12.2 (§1.2)
    {545, "12.3"},  // cuda_12.3.0_545.23.06 (§1.1, §1.2)
    {550, "12.4"},  // 550.54.14 -> 12.4, pytorch#107300 (§1.2)
    {555, "12.5"},  // cuda_12.5.0_555.42.02 (§1.1, §1.2)
    {560, "12.6"},  // 560.35.03 -> 12.6, vllm-project/vllm#15335 (§1.2)
    {570, "12.8"},  // 570.124.06 -> 12.8 (§1.2)
    {575, "12.9"},  // 575.51.03 -> 12.9 (§1.2)
    {580, "13.0"},  // 580.126.09 -> 13.0, huggingface_hub#4128; 580.159.04 -> 13000 on a real H200 (§1.2)
    {590, "13.1"},  // cuda_13.1.0_590.44.01 (§1.1, §1.2 [S])
    {595, "13.2"},  // cuda_13.2.0_595.45.04 (§1.1, §1.2 [S])
};

}  // namespace

std::optional<std::string> cuda_version_for_driver(std::string_view driver_version) {
  std::string_view head = driver_version.substr(0, driver_version.find('.'));
  int branch = 0;
  auto [end, error] = std::from_chars(head.data(), head.data() + head.size(), branch);
  if (error != std::errc() || end != head.data() + head.size()) {
    return std::nullopt;
  }
  for (const BranchCuda& row : k_branches) {
    if (row.branch == branch) {
      return std::string(row.cuda);
    }
  }
  return std::nullopt;
}

namespace {

/// "12.8" -> {12, 8}.
bool parse_major_minor(std::string_view text, int& major, int& minor) {
  const char* end = text.data() + text.size();
  auto first = std::from_chars(text.data(), end, major);
  if (first.ec != std::errc() || first.ptr == end || *first.ptr != '.') {
    return false;
  }
  auto second = std::from_chars(first.ptr + 1, end, minor);
  return second.ec == std::errc() && second.ptr == end;
}

}  // namespace

std::optional<int> driver_branch_for_cuda(int major, int minor) {
  for (const BranchCuda& row : k_branches) {  // rows ascend by branch and CUDA version
    int row_major = 0;
    int row_minor = 0;
    if (parse_major_minor(row.cuda, row_major, row_minor) && row_major == major && row_minor >= minor) {
      return row.branch;
    }
  }
  return std::nullopt;
}

std::optional<int> first_driver_branch_for_cuda_major(int major) { return driver_branch_for_cuda(major, 0); }

}  // namespace gd
