#pragma once
// Finding a program by name on PATH through `Host`, the way execvp and Python's shutil.which
// do: the first folder that holds an executable file of that name wins. Nothing is run.

#include <string>
#include <string_view>
#include <vector>

#include "sys/host.hpp"

namespace gd {

/// What PATH would have been searched with when the variable is unset: shutil.which then uses
/// os.confstr("CS_PATH"), which glibc answers with "/bin:/usr/bin".
inline constexpr std::string_view k_default_path = "/bin:/usr/bin";

/// "/usr/local/cuda/bin" -> "/usr/local/cuda"; "/usr" -> "/"; "nvcc" -> "".
std::string parent_folder(std::string_view path);

/// `folder` + "/" + `name`, without doubling a trailing slash ("/" + "opt" -> "/opt").
std::string join_path(std::string_view folder, std::string_view name);

/// PATH's folders in order. Empty entries (the current folder) are dropped: gpudoctor cannot
/// know the folder a later build will run in.
std::vector<std::string> path_folders(std::string_view path_value);

struct PathLookup {
  std::string found;    ///< "/usr/local/cuda/bin/nvcc", as PATH names it (links not followed); empty: none
  std::string problem;  ///< a folder that could not be looked into ("/opt/x/nvcc: EACCES ..."), first one
};

/// The first executable regular file `name` in the folders of `path_value`. A folder that cannot
/// be searched is skipped, as the shell skips it, and reported in `problem`.
PathLookup find_on_path(Host& host, std::string_view path_value, std::string_view name);

}  // namespace gd
