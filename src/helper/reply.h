/* The reply channel of gpudoctor-cuda-helper (protocol v1, docs/helper-protocol.md): one
 * `key<TAB>value<LF>` line per write(2), values escaped and cut so that every line stays below
 * PIPE_BUF, and the stage markers that show where a hang or crash happened. Lines come from
 * several threads (one per GPU, one for NVML); each is written whole under a lock, and nothing is
 * written after the `end` line. Also the dlsym helpers that the CUDA and NVML parts share. */
#ifndef GD_HELPER_REPLY_H
#define GD_HELPER_REPLY_H

#include <stddef.h>
#include <string.h>

enum {
  k_max_value = 1024,      /* longer values are cut: keeps every line below PIPE_BUF (atomic) */
  k_max_devices = 1024,    /* the parser ignores larger indices anyway */
  k_text_buffer = 256,     /* > NVML_DEVICE_NAME_V2_BUFFER_SIZE (96), NVML_SYSTEM_DRIVER_..(80) */
};

extern int g_reply_fd;       /* set by main() from --reply-fd */
extern long long g_start_us; /* when main() began: stage times are offsets from it */

void emit(const char* key, const char* value);
void emit_int(const char* key, long long value);
/* Writes `prefix.suffix`; suffix may be empty. */
void emit_sub(const char* prefix, const char* suffix, const char* value);
void emit_sub_int(const char* prefix, const char* suffix, long long value);
/* A symbol the library lacks: `<key>.result -1` and `<key>.error missing symbol NAME`. */
void emit_missing(const char* key, const char* symbol);
/* The real path of the library that holds `symbol`, as `key`. */
void emit_library_path(const char* key, void* symbol);
/* The closing `end<TAB>ok` line; every later emit is dropped (a thread still inside libcuda
 * cannot add lines after it). */
void emit_end(void);
/* For signal handlers: `key<TAB>value<LF>` with one write(2), no lock, no stdio (key and value
 * plain ASCII without tabs or newlines). Dropped after the end line. */
void emit_from_signal(const char* key, const char* value);
long long now_us(void);
/* Each step is announced with its start time, so a slow cuInit or context creation shows up. */
void stage(const char* name);
/* `<prefix>.stage <name>` and `<prefix>.stage.at_us`: the step of one GPU or of NVML. */
void stage_of(const char* prefix, const char* name);

/* 16 bytes (a CUuuid, NVML's clusterUuid) as "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx": `out` holds 37. */
void format_uuid_bytes(const unsigned char* bytes, char* out);

void* load(void* lib, const char* name);
/* Function pointers from dlsym without the ISO C object-to-function cast warning. */
#define LOAD_FN(var, lib, name) do { void* p_ = load(lib, name); memcpy(&(var), &p_, sizeof p_); } while (0)

#endif
