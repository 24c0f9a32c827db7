/* The reply writer of gpudoctor-cuda-helper (reply.h). */
#define _GNU_SOURCE
#include "reply.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int g_reply_fd = -1;
long long g_start_us;

static pthread_mutex_t g_reply_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile sig_atomic_t g_ended;

/* Writes all of buf, retrying on EINTR and short writes (async-signal-safe). */
static void write_all(const char* buf, size_t len) {
  while (len > 0) {
    ssize_t n = write(g_reply_fd, buf, len);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      _exit(3); /* the reader is gone: nobody is left to tell */
    }
    buf += n;
    len -= (size_t)n;
  }
}

/* One protocol line, `key<TAB>value<LF>`, value escaped, in a single write(2). */
void emit(const char* key, const char* value) {
  char line[128 + 2 * k_max_value + 4];
  size_t pos = 0;
  size_t key_len = strlen(key);
  if (key_len > 128) {
    key_len = 128;
  }
  memcpy(line, key, key_len);
  pos = key_len;
  line[pos++] = '\t';
  for (size_t i = 0; value != NULL && value[i] != '\0' && i < k_max_value; ++i) {
    char c = value[i];
    if (c == '\\' || c == '\t' || c == '\n') {
      line[pos++] = '\\';
      c = c == '\t' ? 't' : c == '\n' ? 'n' : '\\';
    }
    line[pos++] = c;
  }
  line[pos++] = '\n';
  pthread_mutex_lock(&g_reply_lock);
  if (!g_ended) {
    write_all(line, pos);
  }
  pthread_mutex_unlock(&g_reply_lock);
}

void emit_end(void) {
  pthread_mutex_lock(&g_reply_lock);
  if (!g_ended) {
    write_all("end\tok\n", 7);
    g_ended = 1;
  }
  pthread_mutex_unlock(&g_reply_lock);
}

void emit_from_signal(const char* key, const char* value) {
  char line[256];
  size_t pos = 0;
  for (const char* p = key; *p != '\0' && pos < 120; ++p) line[pos++] = *p;
  line[pos++] = '\t';
  for (const char* p = value; *p != '\0' && pos < 250; ++p) line[pos++] = *p;
  line[pos++] = '\n';
  if (!g_ended) {
    write_all(line, pos);
  }
}

void emit_int(const char* key, long long value) {
  char text[32];
  snprintf(text, sizeof text, "%lld", value);
  emit(key, text);
}

void emit_sub(const char* prefix, const char* suffix, const char* value) {
  char key[128];
  snprintf(key, sizeof key, "%s%s%s", prefix, suffix[0] ? "." : "", suffix);
  emit(key, value);
}

void emit_sub_int(const char* prefix, const char* suffix, long long value) {
  char text[32];
  snprintf(text, sizeof text, "%lld", value);
  emit_sub(prefix, suffix, text);
}

void emit_missing(const char* key, const char* symbol) {
  char text[160];
  emit_sub_int(key, "result", -1);
  snprintf(text, sizeof text, "missing symbol %s", symbol);
  emit_sub(key, "error", text);
}

void* load(void* lib, const char* name) { return lib ? dlsym(lib, name) : NULL; }

void emit_library_path(const char* key, void* symbol) {
  Dl_info info;
  char resolved[PATH_MAX];
  if (symbol != NULL && dladdr(symbol, &info) != 0 && info.dli_fname != NULL) {
    emit(key, realpath(info.dli_fname, resolved) ? resolved : info.dli_fname);
  }
}

long long now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void stage(const char* name) {
  emit("stage", name);
  emit_int("stage.at_us", now_us() - g_start_us);
}

void stage_of(const char* prefix, const char* name) {
  emit_sub(prefix, "stage", name);
  emit_sub_int(prefix, "stage.at_us", now_us() - g_start_us);
}

void format_uuid_bytes(const unsigned char* bytes, char* out) {
  static const char k_hex[] = "0123456789abcdef";
  char* p = out;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) *p++ = '-';
    *p++ = k_hex[bytes[i] >> 4];
    *p++ = k_hex[bytes[i] & 15];
  }
  *p = '\0';
}
