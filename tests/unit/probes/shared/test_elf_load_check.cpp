#include "probes/shared/elf_load_check.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "ldconfig_tree.hpp"
#include "probes/shared/library_file.hpp"
#include "sys/real_host.hpp"
#include "sys/replay_host.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::LoadProblem;

namespace {

constexpr gd::ElfIdent k_x86_64{2, 62};
constexpr gd::ElfIdent k_aarch64{2, 183};

/// The check as the library probe runs it: the first 64 bytes, the size, the program headers.
gd::LoadCheck check(const std::string& bytes, gd::ElfIdent native = k_x86_64, bool with_program_headers = true) {
  std::string head = bytes.substr(0, 64);
  std::optional<std::string> table;
  if (auto range = gd::program_header_range(head); range && with_program_headers && range->first <= bytes.size() &&
                                                    range->second <= bytes.size() - range->first) {
    table = bytes.substr(range->first, range->second);
  }
  return gd::check_elf_load(head, bytes.size(), native, table ? std::optional<std::string_view>(*table) : std::nullopt);
}

/// The fake libcuda the build links with the host's compiler: a real glibc shared library
/// (10 program headers, about 32 sections). Where its segments and section headers end depends
/// on the fake's code and the compiler, so the expectations are read from its own headers.
std::string built_library() {
  std::string bytes = gd::test::read_whole(GD_TEST_FAKES_DIR "/libcuda.so.1");
  REQUIRE(bytes.size() > 4096);
  return bytes;
}

template <typename T>
T field(const std::string& bytes, std::size_t at) {
  T value{};
  REQUIRE(at + sizeof value <= bytes.size());
  std::memcpy(&value, bytes.data() + at, sizeof value);
  return value;
}

/// Where the last PT_LOAD segment's file bytes end (ELF64, little-endian: the build machine's).
std::size_t segments_end(const std::string& lib) {
  auto phoff = field<std::uint64_t>(lib, 32);
  auto phentsize = field<std::uint16_t>(lib, 54);
  auto phnum = field<std::uint16_t>(lib, 56);
  std::size_t end = 0;
  for (std::size_t i = 0; i < phnum; ++i) {
    std::size_t at = phoff + i * phentsize;
    if (field<std::uint32_t>(lib, at) != 1) continue;  // PT_LOAD
    end = std::max<std::size_t>(end, field<std::uint64_t>(lib, at + 8) + field<std::uint64_t>(lib, at + 32));
  }
  return end;
}

/// Where the section header table ends.
std::size_t section_headers_end(const std::string& lib) {
  return field<std::uint64_t>(lib, 40) + std::size_t{field<std::uint16_t>(lib, 58)} * field<std::uint16_t>(lib, 60);
}

}  // namespace

TEST_CASE("elf load check: real libraries load", "[probes][elf_load_check]") {
  CHECK(check(built_library()).problem == LoadProblem::none);
  CHECK(check(built_library(), k_x86_64, false).problem == LoadProblem::none);
  CHECK(check(gd::test::elf_fixture("libcuda.x86_64.so")).problem == LoadProblem::none);
  CHECK(check(gd::test::elf_fixture("libnvidia-ml.x86_64.so")).problem == LoadProblem::none);
  CHECK(check(gd::test::elf_fixture("libcuda.aarch64.so"), k_aarch64).problem == LoadProblem::none);
  CHECK(check(built_library()).text.empty());
  // Without a native table row (ppc64le): only what does not depend on the host is checked.
  CHECK(gd::check_elf_load(built_library().substr(0, 64), built_library().size(), std::nullopt, std::nullopt).problem ==
        LoadProblem::none);
}

TEST_CASE("elf load check: another class or machine is skipped", "[probes][elf_load_check]") {
  auto i386 = check(gd::test::elf_fixture("libcuda.i386.so"));
  CHECK(i386.problem == LoadProblem::wrong_class);
  CHECK(i386.text == "ELF32 i386, but programs here are ELF64 x86-64: the loader skips it (\"wrong ELF class: ELFCLASS32\" "
                     "when it finds no other copy)");
  auto arm = check(gd::test::elf_fixture("libcuda.aarch64.so"));
  CHECK(arm.problem == LoadProblem::wrong_machine);
  CHECK(arm.text == "ELF64 AArch64, but programs here are ELF64 x86-64: the loader skips it");
  CHECK(check(built_library(), k_aarch64).problem == LoadProblem::wrong_machine);
  CHECK(gd::loader_takes(LoadProblem::wrong_class) == gd::LoaderTakes::skips);
  CHECK(gd::loader_takes(LoadProblem::wrong_machine) == gd::LoaderTakes::skips);
}

TEST_CASE("elf load check: empty, short and non-ELF files stop the loader", "[probes][elf_load_check]") {
  auto empty = check("");
  CHECK(empty.problem == LoadProblem::empty);
  CHECK(empty.text == "the file is empty: the loader stops there with \"file too short\"");
  CHECK(gd::to_string(empty.problem) == "empty");
  // glibc reads sizeof(Elf64_Ehdr) first: a cut header and a short ld script are both "too short".
  CHECK(check(built_library().substr(0, 40)).problem == LoadProblem::too_short);
  CHECK(check("/* GNU ld script */\n").problem == LoadProblem::too_short);
  auto script = check("/* GNU ld script\n   Use the shared library, but some functions are only in\n   the static library */\n"
                      "GROUP ( libc.so.6 )\n");
  CHECK(script.problem == LoadProblem::not_elf);
  CHECK(script.text == "not an ELF file (it starts with \"/* GNU l\"): the loader stops there with \"invalid ELF header\"");
  CHECK(check(std::string(4096, '\0')).text.find("it starts with zero bytes") != std::string::npos);
  CHECK(check("\x89PNG\r\n\x1a\n" + std::string(100, 'x')).text.find("bytes 89504e47") != std::string::npos);
  for (auto p : {LoadProblem::empty, LoadProblem::too_short, LoadProblem::not_elf}) {
    CHECK(gd::loader_takes(p) == gd::LoaderTakes::fails);
  }
}

TEST_CASE("elf load check: truncated copies", "[probes][elf_load_check]") {
  std::string lib = built_library();
  // Cut inside the program headers (64 + 10 * 56 = 624): "cannot read file data".
  auto headers = check(lib.substr(0, 300));
  CHECK(headers.problem == LoadProblem::program_headers_cut);
  CHECK(headers.text.find("program headers end at byte 624") != std::string::npos);
  const std::size_t segments_at = segments_end(lib);
  const std::size_t sections_at = section_headers_end(lib);
  REQUIRE(segments_at > 1024);
  REQUIRE(sections_at > segments_at);  // the section headers follow the segments, as ld puts them
  // Cut inside the segments: mapped past the end of the file, SIGBUS (measured: dlopen dies with 135).
  auto segments = check(lib.substr(0, segments_at - 512));
  CHECK(segments.problem == LoadProblem::segments_cut);
  CHECK(segments.text.find("segments end at byte " + std::to_string(segments_at)) != std::string::npos);
  CHECK(gd::loader_takes(LoadProblem::segments_cut) == gd::LoaderTakes::fails);
  // Without the program headers read (a capture that lacks them) the cut shows in the section headers.
  auto unread = check(lib.substr(0, segments_at - 512), k_x86_64, false);
  CHECK(unread.problem == LoadProblem::sections_cut);
  CHECK(unread.text.find("its segments were not checked") != std::string::npos);
  // Cut after the segments: only the section headers are gone, the loader still maps it.
  auto sections = check(lib.substr(0, segments_at + (sections_at - segments_at) / 2));
  CHECK(sections.problem == LoadProblem::sections_cut);
  CHECK(sections.text == "truncated: its section headers end at byte " + std::to_string(sections_at) +
                             ", past the end of the file (a copy cut short; its "
                             "segments are whole, so the loader may still map it)");
  CHECK(gd::loader_takes(LoadProblem::sections_cut) == gd::LoaderTakes::maps);
}

TEST_CASE("elf load check: byte order and file type", "[probes][elf_load_check]") {
  std::string big = built_library();
  big[5] = 2;  // EI_DATA = ELFDATA2MSB
  CHECK(check(big).problem == LoadProblem::byte_order);
  std::string object = built_library();
  object[16] = 1;  // e_type = ET_REL
  auto rel = check(object);
  CHECK(rel.problem == LoadProblem::not_shared_object);
  CHECK(rel.text.find("relocatable object") != std::string::npos);
  CHECK(gd::program_header_range(built_library().substr(0, 64)) == std::pair<std::uint64_t, std::size_t>{64, 560});
  // A corrupt e_phoff near 2^64 does not wrap around into "fits".
  std::string wild = built_library();
  for (int i = 32; i < 40; ++i) wild[i] = '\xff';
  CHECK(check(wild).problem == LoadProblem::program_headers_cut);
  CHECK_FALSE(gd::program_header_range("not elf"));
}

TEST_CASE("elf load check: through the host, a folder, an empty and a cut file", "[probes][elf_load_check]") {
  gd::test::TempTree tree;
  std::string lib = built_library();
  tree.file("/lib/good/libcuda.so.1", lib);
  tree.file("/lib/empty/libcuda.so.1", "");
  tree.file("/lib/cut/libcuda.so.1", lib.substr(0, segments_end(lib) - 512));
  tree.dir("/lib/folder/libcuda.so.1");
  gd::RealHost host(tree.root(), {});
  auto inspect = [&](const std::string& path) { return gd::inspect_library_file(host, path, "libcuda.so", true, "x86_64"); };
  auto good = inspect("/lib/good/libcuda.so.1");
  CHECK(good.problem == LoadProblem::none);
  CHECK(good.size == lib.size());
  auto empty = inspect("/lib/empty/libcuda.so.1");
  CHECK(empty.problem == LoadProblem::empty);
  CHECK(empty.size == 0);
  CHECK(empty.elf == gd::ElfCheck::not_elf);
  CHECK(inspect("/lib/cut/libcuda.so.1").problem == LoadProblem::segments_cut);
  auto folder = inspect("/lib/folder/libcuda.so.1");
  CHECK(folder.problem == LoadProblem::directory);
  CHECK(folder.problem_text.find("Is a directory") != std::string::npos);
}

TEST_CASE("elf load check: /dev/null bound over a library", "[probes][elf_load_check]") {
  // A capture of the H200 with /dev/null bind-mounted over libcuda.so.1 (a way to hide it):
  // glibc 2.36's dlopen then says "file too short".
  gd::Capture capture;
  gd::CapturedPath& node = capture.paths["/usr/lib/x86_64-linux-gnu/libcuda.so.1"];
  gd::FileStat st;
  st.kind = gd::FileKind::char_device;
  st.mode = 0666;
  st.major = 1;
  st.minor = 3;
  node.lstat = st;
  node.stat = st;
  gd::ReplayHost host(capture);
  auto file = gd::inspect_library_file(host, "/usr/lib/x86_64-linux-gnu/libcuda.so.1", "libcuda.so", true, "x86_64");
  CHECK(file.problem == LoadProblem::device);
  CHECK(file.problem_text == "a character device node (1:3, /dev/null), not a file: the loader reads no ELF header from it "
                             "and stops there with \"file too short\"");
  CHECK(gd::loader_takes(file.problem) == gd::LoaderTakes::fails);
}

}  // namespace GD_UNITY_ID
