/* Threads with a deadline and crash containment for gpudoctor-cuda-helper (tasks.h). */
#define _GNU_SOURCE
#include "tasks.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "reply.h"

static __thread struct gd_task* t_current; /* the task this thread runs, for the crash handler */
static pthread_mutex_t g_done_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_done;              /* signalled when a task finishes (CLOCK_MONOTONIC) */

static const char* signal_text(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
    case SIGABRT: return "SIGABRT";
    default: return "signal";
  }
}

/* A task's thread that crashed writes one line and parks here for good (pause() is
 * async-signal-safe); the process goes on. Any other thread crashing ends the process as before,
 * with the signal, so the parent sees the crash and the last stage. */
static void on_crash(int sig) {
  struct gd_task* task = t_current;
  if (task == NULL) {
    signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  char key[64];
  size_t n = strlen(task->prefix);
  if (n > 50) n = 50;
  memcpy(key, task->prefix, n);
  memcpy(key + n, ".crashed", 9);
  char value[96];
  const char* name = signal_text(sig);
  const char* step = task->step ? (const char*)task->step : "start";
  size_t pos = 0;
  for (const char* p = name; *p && pos < 40; ++p) value[pos++] = *p;
  memcpy(value + pos, " in ", 4);
  pos += 4;
  for (const char* p = step; *p && pos < 90; ++p) value[pos++] = *p;
  value[pos] = '\0';
  emit_from_signal(key, value);
  task->crashed = sig;
  for (;;) {
    pause();
  }
}

void tasks_install_crash_handler(void) {
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&g_done, &attr);
  pthread_condattr_destroy(&attr);

  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_crash;
  action.sa_flags = SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  const int signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
  for (size_t i = 0; i < sizeof signals / sizeof signals[0]; ++i) {
    sigaction(signals[i], &action, NULL);
  }
}

static void* task_main(void* arg) {
  struct gd_task* task = arg;
  /* The handler runs on its own stack, so a stack overflow in libcuda is contained too. */
  stack_t alt;
  alt.ss_size = 64 * 1024;
  alt.ss_sp = malloc(alt.ss_size);
  alt.ss_flags = 0;
  if (alt.ss_sp != NULL) sigaltstack(&alt, NULL);
  t_current = task;
  task->run(task);
  t_current = NULL;
  pthread_mutex_lock(&g_done_lock);
  task->finished = 1;
  pthread_cond_broadcast(&g_done);
  pthread_mutex_unlock(&g_done_lock);
  return NULL;
}

void task_start(struct gd_task* task) {
  task->step = "start";
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  task->started = pthread_create(&task->thread, &attr, task_main, task) == 0;
  pthread_attr_destroy(&attr);
  if (!task->started) {
    task_main(task); /* no thread to be had: the work still gets done, one after another */
  }
}

void task_stage(struct gd_task* task, const char* name) {
  task->step = name;
  stage_of(task->prefix, name);
}

int tasks_wait(struct gd_task* tasks, int count, long long deadline_us) {
  long long deadline_abs_us = g_start_us + deadline_us;
  pthread_mutex_lock(&g_done_lock);
  for (;;) {
    int open = 0;
    for (int i = 0; i < count; ++i) {
      if (!tasks[i].finished && !tasks[i].crashed) ++open;
    }
    if (open == 0) break;
    /* A crash does not signal the condition (the handler takes no lock): look again every 20 ms. */
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long long now_abs = (long long)now.tv_sec * 1000000 + now.tv_nsec / 1000;
    if (now_abs >= deadline_abs_us) break;
    long long slice_abs = now_abs + 20000 < deadline_abs_us ? now_abs + 20000 : deadline_abs_us;
    struct timespec slice = {(time_t)(slice_abs / 1000000), (long)((slice_abs % 1000000) * 1000)};
    pthread_cond_timedwait(&g_done, &g_done_lock, &slice);
  }
  pthread_mutex_unlock(&g_done_lock);
  int stuck = 0;
  for (int i = 0; i < count; ++i) {
    if (!tasks[i].finished && !tasks[i].crashed) {
      emit_sub(tasks[i].prefix, "stuck", tasks[i].step ? (const char*)tasks[i].step : "start");
      ++stuck;
    }
  }
  return stuck;
}
