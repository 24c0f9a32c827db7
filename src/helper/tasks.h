/* Work that runs in its own thread (one GPU's proof, NVML) and is waited for with a deadline: a
 * task that has not finished by then is reported as stuck in the step it was in, and the helper
 * still completes its reply. A task that crashes (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT inside
 * libcuda) is parked in its signal handler and reported as crashed, so one GPU's crash does not
 * end the proof of the others. */
#ifndef GD_HELPER_TASKS_H
#define GD_HELPER_TASKS_H

#include <pthread.h>
#include <signal.h>

struct gd_task {
  const char* prefix;             /* reply key prefix: "cuda.device.3", "nvml" */
  void (*run)(struct gd_task*);   /* the work; calls task_stage() before each step */
  void* arg;
  int index;                      /* the GPU index for device tasks, -1 otherwise */
  /* Written by the task, read by the supervisor. */
  volatile const char* step;      /* the step in progress ("context", "kernel", ...) */
  volatile sig_atomic_t finished; /* 1 when run() returned */
  volatile sig_atomic_t crashed;  /* the signal number when it crashed */
  int started;                    /* pthread_create succeeded */
  pthread_t thread;
  char key[48];                   /* prefix storage for device tasks */
};

/* Installs the crash handler (once, before any task starts). */
void tasks_install_crash_handler(void);
/* Starts the task in its own thread; on failure it is run in the calling thread. */
void task_start(struct gd_task* task);
/* Announces a step of the task: `<prefix>.stage <name>` and remembers it for a stuck report. */
void task_stage(struct gd_task* task, const char* name);
/* Waits until every task finished or crashed, or until `deadline_us` (since g_start_us); then
 * writes `<prefix>.stuck <step>` for each task still running. Returns how many were stuck. */
int tasks_wait(struct gd_task* tasks, int count, long long deadline_us);

#endif
