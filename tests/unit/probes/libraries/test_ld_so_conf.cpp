#include "probes/libraries/ld_so_conf.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "ldconfig_tree.hpp"
#include "sys/real_host.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::glob_match;
using gd::parse_ld_so_conf;
using gd::test::TempTree;
using Dirs = std::vector<std::string>;

namespace {

/// The items as "dir X" / "include P".
Dirs items(std::string_view text) {
  Dirs out;
  for (const gd::LdSoConfItem& item : parse_ld_so_conf(text)) {
    out.push_back((item.include ? "include " : "dir ") + item.text);
  }
  return out;
}

}  // namespace

TEST_CASE("ld.so.conf: folders, comments, include and hwcap lines", "[probes][ld_so_conf]") {
  // Debian 12's /etc/ld.so.conf and /etc/ld.so.conf.d/x86_64-linux-gnu.conf, then odd spacing.
  CHECK(items("include /etc/ld.so.conf.d/*.conf\n\n") == Dirs{"include /etc/ld.so.conf.d/*.conf"});
  CHECK(items("# Multiarch support\n/usr/local/lib/x86_64-linux-gnu\n/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu\n") ==
        Dirs{"dir /usr/local/lib/x86_64-linux-gnu", "dir /lib/x86_64-linux-gnu", "dir /usr/lib/x86_64-linux-gnu"});
  CHECK(items("  /opt/a/lib/  # trailing comment\n\t/opt/b//\n/opt/c\r\n"
              "include\ta.conf  b/*.conf\nhwcap 1 nosegneg\nHWCAP 0 x\n/\n#/opt/hidden\ninclude\n/opt/d\n") ==
        Dirs{"dir /opt/a/lib", "dir /opt/b", "dir /opt/c", "include a.conf", "include b/*.conf",
             "dir include",  // a bare "include" is a (relative) folder name to ldconfig
             "dir /opt/d"});
  CHECK(items("").empty());
  CHECK(items("/no/newline") == Dirs{"dir /no/newline"});
}

TEST_CASE("ld.so.conf: glob patterns of include lines", "[probes][ld_so_conf]") {
  CHECK(glob_match("*.conf", "libc.conf"));
  CHECK(glob_match("*.conf", "x86_64-linux-gnu.conf"));
  CHECK_FALSE(glob_match("*.conf", "libc.conf.dpkg-old"));
  CHECK_FALSE(glob_match("*.conf", ".hidden.conf"));  // glob(3) without GLOB_PERIOD
  CHECK(glob_match(".*.conf", ".hidden.conf"));
  CHECK(glob_match("?.conf", "a.conf"));
  CHECK_FALSE(glob_match("?.conf", "ab.conf"));
  CHECK(glob_match("[a-c]*.conf", "b1.conf"));
  CHECK_FALSE(glob_match("[!a-c]*.conf", "b1.conf"));
  CHECK(glob_match("[!a-c]*.conf", "z1.conf"));
  CHECK(glob_match("nvidia.conf", "nvidia.conf"));
  CHECK(glob_match("*", "x"));
  CHECK_FALSE(glob_match("[abc", "a"));  // an unclosed set is a literal '['
  CHECK(glob_match("[abc", "[abc"));
}

TEST_CASE("ld.so.conf: includes are read in ldconfig's order", "[probes][ld_so_conf]") {
  TempTree tree;
  tree.file("/etc/ld.so.conf", "/first\ninclude /etc/ld.so.conf.d/*.conf\n/last\n");
  tree.file("/etc/ld.so.conf.d/b.conf", "/b\ninclude nested/*.conf\n");  // relative: from the including file's folder
  tree.file("/etc/ld.so.conf.d/a.conf", "/a\n/first\n");               // a folder named twice is kept once
  tree.file("/etc/ld.so.conf.d/a.conf.bak", "/not-included\n");
  tree.file("/etc/ld.so.conf.d/nested/n.conf", "/n\n");
  tree.file("/etc/ld.so.conf.d/loop.conf", "include /etc/ld.so.conf.d/loop.conf\n/loop\n");
  gd::RealHost host(tree.root(), {});
  gd::LdSoConf conf = gd::read_ld_so_conf(host, "/etc/ld.so.conf");
  CHECK(conf.dirs == Dirs{"/first", "/a", "/b", "/n", "/loop", "/last"});
  CHECK(conf.files.front() == "/etc/ld.so.conf");
  CHECK(conf.files.size() <= 256);
  CHECK(conf.unreadable.empty());
  CHECK_FALSE(conf.top_missing);

  TempTree empty;
  gd::RealHost none(empty.root(), {});
  gd::LdSoConf missing = gd::read_ld_so_conf(none, "/etc/ld.so.conf");
  CHECK(missing.top_missing);
  CHECK(missing.dirs.empty());
}

TEST_CASE("ld.so.conf: the same folders the real ldconfig reads", "[probes][ld_so_conf][needs-ldconfig]") {
  REQUIRE(gd::test::have("ldconfig"));
  TempTree tree;
  for (const char* dir : {"/opt/one/lib", "/opt/two/lib", "/opt/three", "/usr/local/nvidia/lib64"}) {
    tree.dir(dir);
  }
  tree.file("/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n/opt/three   # after the includes\n");
  tree.file("/etc/ld.so.conf.d/10-one.conf", "/opt/one/lib/\n");
  tree.file("/etc/ld.so.conf.d/20-nv.conf", "# NVIDIA\n/usr/local/nvidia/lib64\n/usr/local/nvidia/lib\n");
  // (No include inside an included file here: without root, ldconfig -r globs those outside the root.)
  tree.file("/etc/ld.so.conf.d/30-two.conf", "\t/opt/two/lib/ # two\n/opt/missing\n");
  // ldconfig -v names every folder it scans, "(from FILE:LINE)"; it skips folders that do not exist.
  std::string cmd = std::string(gd::test::k_ldconfig) + " -r '" + tree.root() + "' -v -N -X -f /etc/ld.so.conf > '" +
                    tree.at("/v.txt") + "' 2>/dev/null";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::string text = gd::test::tree_file(tree, "/v.txt");
  Dirs from_ldconfig;
  std::size_t pos = 0;
  // (As root ldconfig chroots and names files as /etc/...; otherwise with the root's prefix.)
  while ((pos = text.find(": (from ", pos)) != std::string::npos) {
    std::size_t start = text.rfind('\n', pos);
    start = start == std::string::npos ? 0 : start + 1;
    if (text.compare(pos, 18, ": (from <builtin>:") != 0) {
      from_ldconfig.push_back(text.substr(start, pos - start));
    }
    ++pos;
  }
  gd::RealHost host(tree.root(), {});
  Dirs ours;
  for (const std::string& dir : gd::read_ld_so_conf(host, "/etc/ld.so.conf").dirs) {
    if (host.stat(dir)) {
      ours.push_back(dir);
    }
  }
  CHECK(from_ldconfig == Dirs{"/opt/one/lib", "/usr/local/nvidia/lib64", "/opt/two/lib", "/opt/three"});
  CHECK(ours == from_ldconfig);
}

}  // namespace GD_UNITY_ID
