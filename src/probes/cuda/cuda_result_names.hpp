#pragma once
#include <string_view>

namespace gd {

/// The CUresult name for `code` ("CUDA_ERROR_NO_DEVICE"), or empty when not in the table. Used
/// when libcuda cannot name its own result (the toolkit stub answers cuGetErrorName with 34).
std::string_view cuda_result_name(int code);

}  // namespace gd
