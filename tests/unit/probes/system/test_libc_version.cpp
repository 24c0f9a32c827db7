#include "probes/system/libc_version.hpp"

#include <catch2/catch.hpp>

#include <string>

#include "ldconfig_tree.hpp"
#include "sys/real_host.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::test::TempTree;

TEST_CASE("libc: glibc versions from the banner, ldd and file names", "[probes][libc_version]") {
  // csu/version.c's banner, as Debian 12's libc.so.6 carries it, and the ld.so.cache generator.
  CHECK(gd::glibc_version_from_banner("GNU C Library (Debian GLIBC 2.36-9+deb12u14) stable release version 2.36.\n"
                                      "Copyright (C) 2022 Free Software Foundation, Inc.\n") == "2.36");
  CHECK(gd::glibc_version_from_banner(std::string("junk\0GNU C Library (GNU libc) development release version 2.41.9000.\n", 70)) ==
        "2.41.9000");
  CHECK(gd::glibc_version_from_banner("ldconfig (Ubuntu GLIBC 2.39-0ubuntu8.9) stable release version 2.39") == "2.39");
  CHECK_FALSE(gd::glibc_version_from_banner("GNU C Library without a version\n"));
  CHECK_FALSE(gd::glibc_version_from_banner(""));

  // elf/ldd.bash.in: echo 'ldd @PKGVERSION@@VERSION@' (observations.md of the real H200:
  // "ldd (Ubuntu GLIBC 2.39-0ubuntu8.9) 2.39"; Fedora's PKGVERSION is "(GNU libc) ").
  CHECK(gd::glibc_version_from_ldd("    --vers | --versi | --versio | --version)\n"
                                   "      echo 'ldd (Ubuntu GLIBC 2.39-0ubuntu8.9) 2.39'\n") == "2.39");
  CHECK(gd::glibc_version_from_ldd("echo 'ldd (GNU libc) 2.39'\n") == "2.39");
  CHECK(gd::glibc_version_from_ldd("ldd (Debian GLIBC 2.36-9+deb12u14) 2.36") == "2.36");
  CHECK_FALSE(gd::glibc_version_from_ldd("#!/bin/sh\nexec /lib/ld-musl-x86_64.so.1 --list \"$@\"\n"));
  CHECK_FALSE(gd::glibc_version_from_ldd("echo 'ldd (GNU libc)\n 2.39'"));

  CHECK(gd::glibc_version_from_file_name("libc-2.31.so") == "2.31");
  CHECK(gd::glibc_version_from_file_name("libc-2.17.so") == "2.17");
  CHECK_FALSE(gd::glibc_version_from_file_name("libc.so.6"));
  CHECK_FALSE(gd::glibc_version_from_file_name("libc-2.31-x.so"));
  CHECK_FALSE(gd::glibc_version_from_file_name("libc.musl-x86_64.so.1"));
}

TEST_CASE("libc: the banner inside this machine's libc.so.6", "[probes][libc_version][needs-debian-glibc]") {
  REQUIRE(gd::test::have("debian-glibc"));
  const char* path = gd::test::k_debian_libc;
  std::string own = gd::test::read_whole(path);
  auto expected = gd::glibc_version_from_banner(own.substr(own.find("GNU C Library "), 200));
  REQUIRE(expected);
  gd::RealHost host("/", {});
  CHECK(gd::glibc_version_from_libc_file(host, path) == expected);
  CHECK_FALSE(gd::glibc_version_from_libc_file(host, "/nonexistent/libc.so.6"));
  // The same answer from inside a root that holds a copy of it.
  TempTree tree;
  tree.file("/usr/lib/x86_64-linux-gnu/libc.so.6", own);
  tree.link("/lib", "usr/lib");
  tree.file("/usr/lib64/ld-linux-x86-64.so.2", "loader");
  tree.link("/lib64", "usr/lib64");
  gd::RealHost root(tree.root(), {});
  gd::LibcInfo info = gd::detect_libc(root, "x86_64", "");
  CHECK(info.libc == "glibc");
  CHECK(info.evidence == "/lib64/ld-linux-x86-64.so.2");
  CHECK(info.version == *expected);
  CHECK(info.source == "/lib/x86_64-linux-gnu/libc.so.6");
}

TEST_CASE("libc: which C library a root has", "[probes][libc_version]") {
  {  // An old distribution: libc.so.6 -> libc-2.17.so (CentOS 7).
    TempTree tree;
    tree.file("/usr/lib64/libc-2.17.so", "not read");
    tree.link("/usr/lib64/libc.so.6", "libc-2.17.so");
    tree.file("/usr/lib64/ld-2.17.so", "loader");
    tree.link("/usr/lib64/ld-linux-x86-64.so.2", "ld-2.17.so");
    tree.link("/lib64", "usr/lib64");
    gd::RealHost host(tree.root(), {});
    gd::LibcInfo info = gd::detect_libc(host, "x86_64", "");
    CHECK(info.libc == "glibc");
    CHECK(info.version == "2.17");
    CHECK(info.source == "/lib64/libc.so.6");
  }
  {  // Only the ldd script tells (a capture that recorded nothing else).
    TempTree tree;
    tree.file("/usr/bin/ldd", "#! /bin/bash\n      echo 'ldd (Ubuntu GLIBC 2.39-0ubuntu8.9) 2.39'\n");
    gd::RealHost host(tree.root(), {});
    gd::LibcInfo info = gd::detect_libc(host, "x86_64", "");
    CHECK(info.libc == "glibc");
    CHECK(info.version == "2.39");
    CHECK(info.source == "/usr/bin/ldd");
  }
  {  // The loader is there, the version only in the ld.so.cache generator string.
    TempTree tree;
    tree.file("/lib/ld-linux-aarch64.so.1", "loader");
    gd::RealHost host(tree.root(), {});
    gd::LibcInfo info = gd::detect_libc(host, "aarch64", "ldconfig (GNU libc) stable release version 2.40");
    CHECK(info.libc == "glibc");
    CHECK(info.version == "2.40");
    CHECK(info.source == "/etc/ld.so.cache");
  }
  {  // Alpine: musl's loader only.
    TempTree tree;
    tree.file("/lib/ld-musl-x86_64.so.1", "musl");
    tree.link("/usr/bin/ldd", "/lib/ld-musl-x86_64.so.1");
    gd::RealHost host(tree.root(), {});
    gd::LibcInfo info = gd::detect_libc(host, "x86_64", "");
    CHECK(info.libc == "musl");
    CHECK(info.version.empty());
    CHECK(info.evidence == "/lib/ld-musl-x86_64.so.1");
  }
  {  // Nothing at all (a scratch container).
    TempTree tree;
    gd::RealHost host(tree.root(), {});
    CHECK(gd::detect_libc(host, "x86_64", "").libc == "none");
    CHECK(gd::detect_libc(host, "riscv64", "").libc == "none");
  }
}

}  // namespace GD_UNITY_ID
