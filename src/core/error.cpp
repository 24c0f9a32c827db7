#include "core/error.hpp"

namespace gd {

std::string Error::describe() const {
  if (file.empty()) {
    return message;
  }
  if (line > 0) {
    return file + ":" + std::to_string(line) + ": " + message;
  }
  return file + ": " + message;
}

}  // namespace gd
