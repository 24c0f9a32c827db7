#!/usr/bin/env python3
"""Writes the hostile inputs of test_memory_bounds.sh (issue 24 item 6). They are made at run
time, never committed: each is megabytes of nothing.

Usage:
  make_memory_bombs.py ld-cache OUT [SIZE]  a glibc-ld.so.cache1.1 file of SIZE bytes (16 MiB, the
      most gpudoctor reads) whose header claims as many entries as fit (about 700,000), every one
      "libcuda.so.1" => one path of 4,095 bytes. Each offset lies inside the file, so the loader
      would read it; a reader that copies the strings per entry holds 700,000 x 8 KiB (5.7 GB).
  make_memory_bombs.py nested OUT SIZE     '[' * SIZE/2 then ']' * SIZE/2: nesting SIZE/2 deep.
  make_memory_bombs.py wide OUT SIZE       one array of about SIZE/8 objects {"a":0} (SIZE bytes).
"""
import struct
import sys

CHUNK = 1 << 20


def ld_cache(out, size):
    header = 48       # struct cache_file_new (sysdeps/generic/dl-cache.h)
    entry = 24        # struct file_entry_new
    key = b"libcuda.so.1"
    path = b"/usr/lib/x86_64-linux-gnu/" + b"a" * (4095 - 26 - len(key) - 1) + b"/" + key
    strings = path + b"\0"  # the key is the path's tail, as ldconfig's tail merging writes it
    nlibs = (size - header - len(strings)) // entry
    string_at = header + nlibs * entry
    head = b"glibc-ld.so.cache1.1" + struct.pack("<IIBBBBIIIIIIII", nlibs, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    head = head[:header].ljust(header, b"\0")
    # flags 0x303 (libc6,x86-64): the loader of x86_64 takes every one of them
    one = struct.pack("<iIIIQ", 0x0303, string_at + len(path) - len(key), string_at, 0, 0)
    with open(out, "wb") as f:
        f.write(head)
        batch = one * (CHUNK // entry)
        left = nlibs
        while left:
            n = min(left, CHUNK // entry)
            f.write(batch[: n * entry])
            left -= n
        f.write(strings)


def nested(out, size):
    half = size // 2
    with open(out, "wb") as f:
        for ch in (b"[", b"]"):
            left = half
            while left:
                n = min(left, CHUNK)
                f.write(ch * n)
                left -= n


def wide(out, size):
    item = b'{"a":0},'
    count = max(1, size // len(item))
    with open(out, "wb") as f:
        f.write(b"[")
        batch = item * (CHUNK // len(item))
        left = count - 1
        while left:
            n = min(left, CHUNK // len(item))
            f.write(batch[: n * len(item)])
            left -= n
        f.write(b'{"a":0}]')


def main():
    kind, out = sys.argv[1], sys.argv[2]
    if kind == "ld-cache":
        ld_cache(out, int(sys.argv[3]) if len(sys.argv) > 3 else 16 << 20)
    elif kind == "nested":
        nested(out, int(sys.argv[3]))
    elif kind == "wide":
        wide(out, int(sys.argv[3]))
    else:
        sys.exit("usage: make_memory_bombs.py ld-cache|nested|wide OUT [SIZE]")


if __name__ == "__main__":
    main()
