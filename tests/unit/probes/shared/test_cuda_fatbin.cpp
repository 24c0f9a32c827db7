#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "probes/shared/cuda_fatbin.hpp"
#include "sys/real_host.hpp"
#include "fatbin_bytes.hpp"
#include "host_tools.hpp"
#include "sys/replay_host.hpp"
#include "temp_tree.hpp"
#include "tiny_elf.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::ArchVariant;
using gd::Capture;
using gd::FatbinArch;
using gd::FatbinStatus;

namespace {

constexpr const char* k_path = "/usr/lib/python3/dist-packages/torch/lib/libtorch_cuda.so";

std::uint64_t read_le64(std::string_view bytes, std::size_t at) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < 8; ++i) {
    value |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
  }
  return value;
}

using gd::test::container_bytes;
using gd::test::Entry;
using gd::test::k_host_flags;
using gd::test::le;

using gd::test::ElfSection;

/// A shared library with these sections (tiny_elf.hpp); 32-bit, big-endian or another machine on request.
std::string elf_with(const std::vector<ElfSection>& sections, bool is_64 = true, bool little_endian = true,
                     std::uint16_t machine = 62) {
  return gd::test::elf_with_sections(sections, gd::test::ElfShape{is_64, little_endian, /*ET_DYN*/ 3, machine});
}

gd::ReplayHost host_with(const std::string& bytes) {
  Capture capture;
  capture.identity = gd::Identity{0, 0, {}};
  capture.paths[k_path].read = bytes;
  return gd::ReplayHost(std::move(capture));
}

gd::FatbinScan scan_bytes(const std::string& bytes, const gd::FatbinScanLimits& limits = {}) {
  auto host = host_with(bytes);
  return gd::scan_fat_binaries(host, k_path, limits);
}

/// Two containers as one translation unit each would give: cubins for sm_80 and sm_90a and
/// PTX for compute_90a in the first; a cubin for sm_100f, one for sm_120 and PTX for
/// compute_120 in the second (with a feature-data header tail like CUDA 13 writes for sm_100+).
std::string two_containers() {
  std::string tail = le(0x48, 4) + le(8, 4) + std::string(8, '\x01');
  return container_bytes({{gd::k_fatbin_kind_elf, 80, k_host_flags, 200, ""},
                          {gd::k_fatbin_kind_elf, 90, k_host_flags | gd::k_fatbin_flag_arch_specific, 120, ""},
                          {gd::k_fatbin_kind_ptx, 90, k_host_flags | gd::k_fatbin_flag_arch_specific, 88, ""}}) +
         container_bytes({{gd::k_fatbin_kind_elf, 100, k_host_flags | gd::k_fatbin_flag_family_specific, 64, tail},
                          {gd::k_fatbin_kind_elf, 120, k_host_flags, 64, tail},
                          {gd::k_fatbin_kind_ptx, 120, k_host_flags, 48, ""}});
}

std::vector<FatbinArch> archs(std::initializer_list<FatbinArch> list) { return list; }

}  // namespace

TEST_CASE("fatbin: container and entry headers", "[probes][fatbin]") {
  std::string bytes =
      container_bytes({{gd::k_fatbin_kind_ptx, 120, k_host_flags | gd::k_fatbin_flag_zstd, 48, "xyzw1234"}});
  auto container = gd::parse_fatbin_container_header(bytes);
  REQUIRE(container);
  CHECK(container->magic == 0xBA55ED50);
  CHECK(container->version == 1);
  CHECK(container->header_size == 16);
  CHECK(container->entries_size == 64 + 8 + 48);
  auto entry = gd::parse_fatbin_entry_header(std::string_view(bytes).substr(16));
  REQUIRE(entry);
  CHECK(entry->kind == 1);
  CHECK(entry->header_size == 72);
  CHECK(entry->payload_size == 48);
  CHECK(entry->arch == 120);
  CHECK(entry->flags == 0x8011);
  CHECK_FALSE(gd::parse_fatbin_container_header(bytes.substr(0, 15)));
  CHECK_FALSE(gd::parse_fatbin_entry_header(bytes.substr(16, 63)));
}

TEST_CASE("fatbin: arch variants come from the entry flags", "[probes][fatbin]") {
  gd::FatbinEntryHeader entry;
  entry.arch = 90;
  entry.flags = 0x8011;
  CHECK(gd::fatbin_entry_arch(entry) == FatbinArch{90, ArchVariant::plain});
  entry.flags = 0x108011;
  CHECK(gd::fatbin_entry_arch(entry) == FatbinArch{90, ArchVariant::arch_specific});
  entry.arch = 100;
  entry.flags = 0x1208011;  // as CUDA 13 writes sm_100f (0x1000000: a feature-data header tail)
  CHECK(gd::fatbin_entry_arch(entry) == FatbinArch{100, ArchVariant::family_specific});

  CHECK(gd::fatbin_arch_name("sm", {90, ArchVariant::plain}) == "sm_90");
  CHECK(gd::fatbin_arch_name("sm", {90, ArchVariant::arch_specific}) == "sm_90a");
  CHECK(gd::fatbin_arch_name("compute", {100, ArchVariant::family_specific}) == "compute_100f");
  // Sorted by number first, so sm_90 < sm_90a < sm_100.
  CHECK(FatbinArch{90, ArchVariant::plain} < FatbinArch{90, ArchVariant::arch_specific});
  CHECK(FatbinArch{90, ArchVariant::family_specific} < FatbinArch{100, ArchVariant::plain});
}

TEST_CASE("fatbin: two containers with PTX and cubin entries", "[probes][fatbin]") {
  auto scan = scan_bytes(elf_with({{".text", "\x90\x90\x90\x90"}, {".nv_fatbin", two_containers()}}));
  INFO(scan.error);
  REQUIRE(scan.status == FatbinStatus::ok);
  CHECK(scan.sections == std::vector<std::string>{".nv_fatbin"});
  CHECK(scan.containers == 2);
  CHECK(scan.entries == 6);
  CHECK(scan.other_entries == 0);
  CHECK_FALSE(scan.compressed);
  CHECK(scan.sass == archs({{80, ArchVariant::plain},
                            {90, ArchVariant::arch_specific},
                            {100, ArchVariant::family_specific},
                            {120, ArchVariant::plain}}));
  CHECK(scan.ptx == archs({{90, ArchVariant::arch_specific}, {120, ArchVariant::plain}}));
  CHECK(gd::sass_arch_names(scan) == std::vector<std::string>{"sm_80", "sm_90a", "sm_100f", "sm_120"});
  CHECK(gd::ptx_arch_names(scan) == std::vector<std::string>{"compute_90a", "compute_120"});
  // ELF header, section table, names, and the whole small section in one window.
  CHECK(scan.reads == 4);
}

TEST_CASE("fatbin: duplicates collapse, compression and other kinds are noted", "[probes][fatbin]") {
  std::string section = container_bytes({{gd::k_fatbin_kind_elf, 86, k_host_flags | gd::k_fatbin_flag_zstd, 40, ""},
                                         {gd::k_fatbin_kind_elf, 75, k_host_flags, 40, ""}}) +
                        container_bytes({{gd::k_fatbin_kind_elf, 86, k_host_flags | gd::k_fatbin_flag_lz4, 40, ""},
                                         {8, 90, k_host_flags | 0x10000, 40, ""},  // LTO IR (lto_90)
                                         {gd::k_fatbin_kind_elf, 75, k_host_flags, 40, ""}});
  auto scan = scan_bytes(elf_with({{".nv_fatbin", section}}));
  REQUIRE(scan.status == FatbinStatus::ok);
  CHECK(scan.entries == 5);
  CHECK(scan.other_entries == 1);
  CHECK(scan.compressed);
  CHECK(gd::sass_arch_names(scan) == std::vector<std::string>{"sm_75", "sm_86"});
  CHECK(scan.ptx.empty());

  std::string lz4_ptx = container_bytes({{gd::k_fatbin_kind_ptx, 52, k_host_flags | gd::k_fatbin_flag_lz4, 8, ""}});
  auto lz4_only = scan_bytes(elf_with({{".nv_fatbin", lz4_ptx}}));
  REQUIRE(lz4_only.status == FatbinStatus::ok);
  CHECK(lz4_only.compressed);
  CHECK(gd::ptx_arch_names(lz4_only) == std::vector<std::string>{"compute_52"});
}

TEST_CASE("fatbin: ELF32, big-endian and aarch64 section tables", "[probes][fatbin]") {
  const std::string section = two_containers();
  for (bool is_64 : {false, true}) {
    for (bool little : {true, false}) {
      INFO("64-bit " << is_64 << ", little endian " << little);
      // The fat binary itself is little endian whatever the ELF file says.
      auto scan = scan_bytes(elf_with({{".nv_fatbin", section}}, is_64, little, is_64 ? 183 : 3));
      REQUIRE(scan.status == FatbinStatus::ok);
      CHECK(scan.containers == 2);
      CHECK(gd::sass_arch_names(scan) == std::vector<std::string>{"sm_80", "sm_90a", "sm_100f", "sm_120"});
    }
  }
}

TEST_CASE("fatbin: zero padding between containers is skipped", "[probes][fatbin]") {
  std::string one = container_bytes({{gd::k_fatbin_kind_elf, 80, k_host_flags, 56, ""}});
  std::string two = container_bytes({{gd::k_fatbin_kind_elf, 89, k_host_flags, 56, ""}});
  auto scan = scan_bytes(elf_with({{".nv_fatbin", one + std::string(24, '\0') + two + std::string(8, '\0')}}));
  INFO(scan.error);
  REQUIRE(scan.status == FatbinStatus::ok);
  CHECK(scan.containers == 2);
  CHECK(gd::sass_arch_names(scan) == std::vector<std::string>{"sm_80", "sm_89"});

  gd::FatbinScanLimits tight;
  tight.max_padding = 16;
  auto too_much = scan_bytes(elf_with({{".nv_fatbin", one + std::string(24, '\0') + two}}), tight);
  CHECK(too_much.status == FatbinStatus::corrupt);
  CHECK_THAT(too_much.error, Catch::Contains("zero bytes"));
  CHECK(too_much.containers == 1);  // what came before the gap is kept
}

TEST_CASE("fatbin: an empty section has no containers", "[probes][fatbin]") {
  auto scan = scan_bytes(elf_with({{".nv_fatbin", ""}}));
  CHECK(scan.status == FatbinStatus::ok);
  CHECK(scan.containers == 0);
  CHECK(scan.sass.empty());
}

TEST_CASE("fatbin: -rdc code, linked .nv_fatbin and pre-link __nv_relfatbin both count", "[probes][fatbin]") {
  // As nvcc -rdc lays it out: the device linker keeps the cubins and drops the PTX, which stays
  // in the pre-link images only (and the driver JIT-links it where no cubin fits).
  std::string linked = container_bytes({{gd::k_fatbin_kind_elf, 80, k_host_flags, 40, ""}});
  std::string relocatable = container_bytes({{gd::k_fatbin_kind_elf, 80, k_host_flags, 40, ""},
                                             {gd::k_fatbin_kind_ptx, 80, k_host_flags, 40, ""}});
  auto both = scan_bytes(elf_with({{"__nv_relfatbin", relocatable}, {".nv_fatbin", linked}}));
  REQUIRE(both.status == FatbinStatus::ok);
  CHECK(both.sections == std::vector<std::string>{".nv_fatbin", "__nv_relfatbin"});
  CHECK(both.containers == 2);
  CHECK(both.entries == 3);
  CHECK(gd::sass_arch_names(both) == std::vector<std::string>{"sm_80"});
  CHECK(gd::ptx_arch_names(both) == std::vector<std::string>{"compute_80"});

  auto rdc_object = scan_bytes(elf_with({{".text", "\xc3"}, {"__nv_relfatbin", relocatable}}));
  REQUIRE(rdc_object.status == FatbinStatus::ok);
  CHECK(rdc_object.sections == std::vector<std::string>{"__nv_relfatbin"});
  CHECK(gd::ptx_arch_names(rdc_object) == std::vector<std::string>{"compute_80"});

  // Damage in the second section is reported; the first section's findings stay.
  auto damaged = scan_bytes(elf_with({{".nv_fatbin", linked}, {"__nv_relfatbin", relocatable + "garbage!"}}));
  CHECK(damaged.status == FatbinStatus::corrupt);
  CHECK(damaged.sections == std::vector<std::string>{".nv_fatbin", "__nv_relfatbin"});
  CHECK(gd::ptx_arch_names(damaged) == std::vector<std::string>{"compute_80"});
}

TEST_CASE("fatbin: files without fat binaries", "[probes][fatbin]") {
  auto text = scan_bytes("INPUT(libtorch_cuda.so.2)\n");  // a linker script
  CHECK(text.status == FatbinStatus::not_elf);
  CHECK(text.error == "not an ELF file");

  auto plain = scan_bytes(elf_with({{".text", "\xc3"}, {".rodata", "hello"}}));
  CHECK(plain.status == FatbinStatus::no_fatbin);
  CHECK(plain.error == "no .nv_fatbin or __nv_relfatbin section");
  CHECK(plain.reads == 3);

  auto stripped = scan_bytes(elf_with({{".nv_fatbin", two_containers(), 8}}));  // SHT_NOBITS
  CHECK(stripped.status == FatbinStatus::no_fatbin);
  CHECK_THAT(stripped.error, Catch::Contains("no content"));

  Capture capture;
  capture.identity = gd::Identity{1000, 1000, {}};
  capture.paths[k_path].read = std::unexpected(gd::IoError{EACCES});
  gd::ReplayHost denied(std::move(capture));
  auto no_access = gd::scan_fat_binaries(denied, k_path);
  CHECK(no_access.status == FatbinStatus::unreadable);
  CHECK_THAT(no_access.error, Catch::Contains("needs root"));
}

TEST_CASE("fatbin: corrupt sizes and magics give an error, not a crash", "[probes][fatbin]") {
  const std::string good = container_bytes({{gd::k_fatbin_kind_elf, 80, k_host_flags, 64, ""},
                                            {gd::k_fatbin_kind_ptx, 80, k_host_flags, 64, ""}});
  const std::size_t first_entry = 16;
  const std::size_t second_entry = 16 + 64 + 64;
  auto with = [&](std::size_t at, const std::string& bytes) {
    std::string section = good;
    section.replace(at, bytes.size(), bytes);
    return scan_bytes(elf_with({{".nv_fatbin", section}}));
  };
  struct Case {
    const char* what;
    std::size_t at;
    std::string bytes;
    const char* error;
  };
  const std::vector<Case> cases = {
      {"wrong magic", 0, le(0x466243B1, 4), "no fat binary at"},
      {"wrong version", 4, le(2, 2), "version 2"},
      {"container header size 0", 6, le(0, 2), "runs past the section end"},
      {"container size past the section", 8, le(good.size(), 8), "runs past the section end"},
      {"container size near 2^64", 8, le(~0ULL - 7, 8), "runs past the section end"},
      {"entry header size 0", first_entry + 4, le(0, 4), "header size of 0"},
      {"entry header size past the container", first_entry + 4, le(0x7fffffff, 4), "header size of"},
      {"entry payload past the container", second_entry + 8, le(65, 8), "runs past its container"},
      {"entry payload near 2^64", first_entry + 8, le(~0ULL, 8), "runs past its container"},
      {"container too short for its last entry header", 8, le(128 + 32, 8), "cut short by its container"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    auto scan = with(c.at, c.bytes);
    CHECK(scan.status == FatbinStatus::corrupt);
    CHECK_THAT(scan.error, Catch::Contains(c.error));
  }
  // Garbage after a good container: the good part is kept, with the error.
  auto tail = scan_bytes(elf_with({{".nv_fatbin", good + "garbage!"}}));
  CHECK(tail.status == FatbinStatus::corrupt);
  CHECK(tail.containers == 1);
  CHECK(gd::sass_arch_names(tail) == std::vector<std::string>{"sm_80"});
  CHECK(gd::ptx_arch_names(tail) == std::vector<std::string>{"compute_80"});
  auto cut = scan_bytes(elf_with({{".nv_fatbin", good + le(gd::k_fatbin_magic, 4) + "1234"}}));
  CHECK(cut.status == FatbinStatus::corrupt);
  CHECK_THAT(cut.error, Catch::Contains("cut short by the section end"));
}

TEST_CASE("fatbin: a section or file that lies about its size", "[probes][fatbin]") {
  // The section header says the fat binaries run past the end of the file.
  const std::string file = elf_with({{".nv_fatbin", two_containers()}});
  std::string past_end = file;
  // Section 1's sh_size (at 0x20 of its 64-byte header) becomes the whole file's size.
  const std::size_t table_at = static_cast<std::size_t>(read_le64(file, 0x28));
  past_end.replace(table_at + 64 + 0x20, 8, le(file.size(), 8));
  auto scan = scan_bytes(past_end);
  CHECK(scan.status == FatbinStatus::corrupt);
  CHECK_THAT(scan.error, Catch::Contains("runs past the end of the file"));

  // The file shrinks while it is read: stat says one size, reads give less.
  Capture capture;
  capture.identity = gd::Identity{0, 0, {}};
  gd::FileStat st;
  st.kind = gd::FileKind::regular;
  st.size = file.size();
  capture.paths[k_path].stat = st;
  const std::size_t section_at = 64;  // the only section's data follows the ELF header
  capture.paths[k_path].read = file;
  capture.paths[k_path].ranges.push_back({section_at, file.substr(section_at, 4)});
  gd::ReplayHost host(std::move(capture));
  auto short_read = gd::scan_fat_binaries(host, k_path);
  CHECK(short_read.status == FatbinStatus::corrupt);
  CHECK_THAT(short_read.error, Catch::Contains("file cut short"));
}

TEST_CASE("fatbin: limits on containers and entries", "[probes][fatbin]") {
  const std::string file = elf_with({{".nv_fatbin", two_containers()}});
  gd::FatbinScanLimits one_container;
  one_container.max_containers = 1;
  auto containers = scan_bytes(file, one_container);
  CHECK(containers.status == FatbinStatus::corrupt);
  CHECK_THAT(containers.error, Catch::Contains("more than 1 fat binary containers"));
  CHECK(containers.containers == 1);

  gd::FatbinScanLimits four_entries;
  four_entries.max_entries = 4;
  auto entries = scan_bytes(file, four_entries);
  CHECK(entries.status == FatbinStatus::corrupt);
  CHECK(entries.entries == 4);
}

TEST_CASE("fatbin: payloads are skipped, not read", "[probes][fatbin]") {
  // Three 1 MB cubins: only their headers come in.
  constexpr std::size_t k_payload = 1024 * 1024;
  std::string section = container_bytes({{gd::k_fatbin_kind_elf, 80, k_host_flags, k_payload, ""},
                                         {gd::k_fatbin_kind_elf, 90, k_host_flags, k_payload, ""}}) +
                        container_bytes({{gd::k_fatbin_kind_elf, 100, k_host_flags, k_payload, ""}});
  std::string file = elf_with({{".nv_fatbin", section}});
  gd::FatbinScanLimits limits;
  auto host = host_with(file);
  auto scan = gd::scan_fat_binaries(host, k_path, limits);
  REQUIRE(scan.status == FatbinStatus::ok);
  CHECK(gd::sass_arch_names(scan) == std::vector<std::string>{"sm_80", "sm_90", "sm_100"});
  // 3 for the ELF tables, then one per header behind a long payload (the first container
  // header and its first entry share a read).
  CHECK(scan.reads == 3 + 3);
  CHECK(scan.bytes_read < 4 * limits.read_window + 8 * 1024);

  limits.read_window = 64;  // the smallest: one header per read
  auto narrow = gd::scan_fat_binaries(host, k_path, limits);
  REQUIRE(narrow.status == FatbinStatus::ok);
  CHECK(narrow.reads == 3 + 5);
}

TEST_CASE("fatbin: random damage never hangs or crashes the scan", "[probes][fatbin]") {
  const std::string file = elf_with({{".nv_fatbin", two_containers() + two_containers()}});
  const std::size_t section_at = 64;
  const std::size_t section_size = 2 * two_containers().size();
  std::uint64_t state = 0x9e3779b97f4a7c15ULL;
  auto next = [&state]() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  int ok = 0, corrupt = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string damaged = file;
    int edits = 1 + static_cast<int>(next() % 4);
    for (int i = 0; i < edits; ++i) {
      std::size_t at = section_at + next() % section_size;
      damaged[at] = static_cast<char>(next() & 0xff);
    }
    auto scan = scan_bytes(damaged);
    REQUIRE((scan.status == FatbinStatus::ok || scan.status == FatbinStatus::corrupt));
    REQUIRE(scan.reads < 64);
    REQUIRE(scan.entries <= section_size / 64);  // an entry header takes 64 bytes at least
    (scan.status == FatbinStatus::ok ? ok : corrupt) += 1;
  }
  CHECK(ok > 0);  // damage inside payloads is invisible to a header scan
  CHECK(corrupt > 0);
}

// ---- real fat binaries from the CUDA toolkit, where one is installed ----

namespace {

using gd::test::k_cuda_bin;

bool run(const std::string& command) {
  return std::system((command + " >/dev/null 2>&1").c_str()) == 0;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// A kernel small enough to write by hand: stores 42 through its pointer argument.
std::string ptx_kernel(std::string_view target) {
  return ".version 8.0\n.target " + std::string(target) +
         "\n.address_size 64\n"
         ".visible .entry gd_fatbin_test(.param .u64 out)\n{\n"
         "  .reg .b64 %rd<2>;\n  .reg .b32 %r<2>;\n"
         "  ld.param.u64 %rd1, [out];\n  mov.u32 %r1, 42;\n  st.global.u32 [%rd1], %r1;\n  ret;\n}\n";
}

/// Cubins and PTX from the toolkit, combined by `fatbinary` with `options`; empty on failure.
std::string toolkit_fatbin(const gd::test::TempTree& tree, const std::string& options) {
  const std::string bin = k_cuda_bin;
  tree.file("/k75.ptx", ptx_kernel("sm_75"));
  tree.file("/k90a.ptx", ptx_kernel("sm_90a"));
  std::string images;
  for (const char* sm : {"80", "90", "90a", "100f", "120"}) {
    std::string cubin = tree.at(std::string("/k") + sm + ".cubin");
    if (!run(bin + "/ptxas -arch=sm_" + sm + " " + tree.at("/k75.ptx") + " -o " + cubin)) {
      return "";
    }
    images += std::string(" --image3=kind=elf,sm=") + sm + ",file=" + cubin;
  }
  images += " --image3=kind=ptx,sm=75,file=" + tree.at("/k75.ptx");
  images += " --image3=kind=ptx,sm=90a,file=" + tree.at("/k90a.ptx");
  std::string out = tree.at("/out.fatbin");
  if (!run(bin + "/fatbinary --create=" + out + " " + options + images)) {
    return "";
  }
  return slurp(out);
}

const std::vector<std::string> k_toolkit_sass = {"sm_80", "sm_90", "sm_90a", "sm_100f", "sm_120"};
const std::vector<std::string> k_toolkit_ptx = {"compute_75", "compute_90a"};

}  // namespace

TEST_CASE("fatbin: real fat binaries from ptxas and fatbinary", "[probes][fatbin][needs-cuda-toolkit]") {
  REQUIRE(gd::test::have("cuda-toolkit"));
  gd::test::TempTree tree;
  gd::RealHost host("/", {});
  struct Variant {
    const char* options;
    bool compressed;
  };
  // Default: PTX compressed; --compress-all: cubins too (Zstd); speed mode: LZ4; none at all. An
  // older toolkit may not know one of these options and skips that variant,
  // but the default one must build, and what was left out is named.
  int checked = 0;
  std::string refused;
  for (const Variant& v : {Variant{"", true}, Variant{"--compress-all", true},
                           Variant{"--compress-all --compress-mode=speed", true}, Variant{"--compress=false", false}}) {
    INFO("fatbinary " << v.options);
    std::string fatbin = toolkit_fatbin(tree, v.options);
    if (fatbin.empty()) {
      REQUIRE(*v.options != '\0');  // the toolkit refused its own defaults: fail, not skip
      refused += std::string(refused.empty() ? "" : ", ") + v.options;  // (never the defaults: required above)
      continue;
    }
    ++checked;
    tree.file("/libreal.so", elf_with({{".text", "\xc3"}, {".nv_fatbin", fatbin}}));
    auto scan = gd::scan_fat_binaries(host, tree.at("/libreal.so"));
    INFO(scan.error);
    REQUIRE(scan.status == FatbinStatus::ok);
    CHECK(scan.containers == 1);
    CHECK(scan.entries == 7);
    CHECK(scan.compressed == v.compressed);
    CHECK(gd::sass_arch_names(scan) == k_toolkit_sass);
    CHECK(gd::ptx_arch_names(scan) == k_toolkit_ptx);
  }
  INFO("variants this toolkit refused: " << (refused.empty() ? "none" : refused));
  REQUIRE(checked >= 1);
}

TEST_CASE("fatbin: a fat binary embedded by objcopy", "[probes][fatbin][needs-objcopy]") {
  REQUIRE(gd::test::have("objcopy"));
  gd::test::TempTree tree;
  gd::RealHost host("/", {});
  std::string fatbin = toolkit_fatbin(tree, "");
  REQUIRE_FALSE(fatbin.empty());
  tree.file("/base.so", elf_with({{".text", "\xc3"}}));
  REQUIRE(run("objcopy --add-section .nv_fatbin=" + tree.at("/out.fatbin") +
              " --set-section-flags .nv_fatbin=alloc,readonly " + tree.at("/base.so") + " " + tree.at("/objcopied.so")));
  auto scan = gd::scan_fat_binaries(host, tree.at("/objcopied.so"));
  INFO(scan.error);
  REQUIRE(scan.status == FatbinStatus::ok);
  CHECK(gd::sass_arch_names(scan) == k_toolkit_sass);
  CHECK(gd::ptx_arch_names(scan) == k_toolkit_ptx);
}

TEST_CASE("fatbin: a fat binary built by nvcc", "[probes][fatbin][needs-nvcc]") {
  REQUIRE(gd::test::have("nvcc"));
  gd::test::TempTree tree;
  gd::RealHost host("/", {});
  // A shared library with relocatable device code: the device-linked .nv_fatbin and the
  // pre-link __nv_relfatbin, both written by the real toolchain and host linker.
  tree.file("/k.cu", "__global__ void gd_fatbin_test(int* p) { p[threadIdx.x] = 42; }\n");
  const std::string so = tree.at("/libnvcc.so");
  REQUIRE(run(std::string(k_cuda_bin) + "/nvcc -shared -Xcompiler -fPIC -rdc=true -gencode arch=compute_80,code=sm_80 " +
              "-gencode arch=compute_90a,code=[sm_90a,compute_90a] " + tree.at("/k.cu") + " -o " + so));
  auto scan = gd::scan_fat_binaries(host, so);
  INFO(scan.error);
  REQUIRE(scan.status == FatbinStatus::ok);
  CHECK(scan.sections == std::vector<std::string>{".nv_fatbin", "__nv_relfatbin"});
  CHECK(gd::sass_arch_names(scan) == std::vector<std::string>{"sm_80", "sm_90a"});
  CHECK(gd::ptx_arch_names(scan) == std::vector<std::string>{"compute_90a"});
}

}  // namespace GD_UNITY_ID
