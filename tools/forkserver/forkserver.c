/* A fork server preloaded into a compiler tool (clang, ld.lld): AFL's fork server, for a
 * reducer's oracle.
 *
 * Every test of a reduction starts the same few executables, and each start of clang or lld
 * costs 10-25 ms of CPU before any work: the dynamic loader relocating libLLVM and
 * libclang-cpp, their static constructors registering thousands of options. On a small kernel
 * a test is 50-300 ms, so that is a tenth to a third of it. Preloaded with FORKSERVER_FD set,
 * this library takes the process over once the executable is initialised, just before its
 * `main`, and serves jobs from that socket: for each it forks a child, which runs `main` with
 * the job's arguments, environment, directory and standard streams. The child is in the state
 * a fresh exec reaches at `main`, without paying for it again.
 *
 * Protocol: one SOCK_SEQPACKET message a job, "cwd\0argc\0arg...\0envc\0var...\0", with four
 * descriptors attached (SCM_RIGHTS): the child's stdin, stdout and stderr, and the write end of
 * a status pipe. On it the server writes "pid N\n" once the child exists (or "error ERRNO\n"),
 * then "status S\n" (the wait status) when it ends, and closes it. The child leads a new
 * session, so the client can kill it and whatever it starts as one group. The server ends when
 * the client closes its end of the socket.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

typedef int (*main_fn)(int, char **, char **);
typedef int (*start_fn)(main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void), void *);

extern char **environ;
static main_fn real_main;

#define MAX_MSG (4 << 20)
#define MAX_JOBS 256

static struct { pid_t pid; int status_fd; } jobs[MAX_JOBS];

static void say(int fd, const char *what, long n) {
  char line[64];
  int len = snprintf(line, sizeof line, "%s %ld\n", what, n);
  if (write(fd, line, len) < 0) { /* the client is gone: nobody to tell */ }
}

/* "count\0item\0item..." at p -> a NULL-terminated vector; the position after it, or NULL. */
static char *vector(char *p, char *end, char ***out) {
  if (p >= end) return NULL;
  long n = strtol(p, NULL, 10);
  p += strlen(p) + 1;
  if (n < 0 || n > MAX_MSG) return NULL;
  char **v = calloc(n + 1, sizeof *v);
  for (long i = 0; i < n; i++) {
    if (!v || p >= end) return NULL;
    v[i] = p;
    p += strlen(p) + 1;
  }
  *out = v;
  return p;
}

static void child(char *msg, char *end, int fds[4], int sock, int sigfd, const sigset_t *mask) {
  close(sock);
  close(sigfd);
  close(fds[3]);
  for (int i = 0; i < MAX_JOBS; i++)  /* other jobs' status pipes: their clients wait for EOF too */
    if (jobs[i].pid) close(jobs[i].status_fd);
  sigprocmask(SIG_SETMASK, mask, NULL);
  setsid();
  char **argv, **envp;
  char *p = vector(msg + strlen(msg) + 1, end, &argv);
  if (!p || !vector(p, end, &envp) || !argv[0]) _exit(127);
  for (int i = 0; i < 3; i++)
    if (dup2(fds[i], i) < 0) _exit(127);
  for (int i = 0; i < 3; i++)
    if (fds[i] > 2) close(fds[i]);
  if (chdir(msg) != 0) _exit(127);
  int argc = 0;
  while (argv[argc]) argc++;
  environ = envp;
  exit(real_main(argc, argv, environ));
}

static void reap(void) {
  int status;
  pid_t pid;
  while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
    for (int i = 0; i < MAX_JOBS; i++)
      if (jobs[i].pid == pid) {
        say(jobs[i].status_fd, "status", status);
        close(jobs[i].status_fd);
        jobs[i].pid = 0;
      }
}

static int serve(int sock) {
  sigset_t chld, old;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, &old);
  int sigfd = signalfd(-1, &chld, SFD_CLOEXEC);
  char *msg = malloc(MAX_MSG);
  if (sigfd < 0 || !msg) return 1;
  for (;;) {
    struct pollfd p[2] = {{sock, POLLIN, 0}, {sigfd, POLLIN, 0}};
    if (poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return 1;
    }
    if (p[1].revents & POLLIN) {
      struct signalfd_siginfo info;
      if (read(sigfd, &info, sizeof info) < 0) { /* reap() finds every child that ended anyway */ }
      reap();
    }
    if (!(p[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    char control[CMSG_SPACE(4 * sizeof(int))];
    struct iovec iov = {msg, MAX_MSG - 1};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
    ssize_t n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
    if (n <= 0) return 0;
    msg[n] = 0;
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    if (!c || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(4 * sizeof(int))) continue;
    int fds[4];
    memcpy(fds, CMSG_DATA(c), sizeof fds);
    int slot = -1;
    for (int i = 0; i < MAX_JOBS && slot < 0; i++)
      if (!jobs[i].pid) slot = i;
    pid_t pid = slot < 0 ? (errno = EAGAIN, -1) : fork();
    if (pid == 0) child(msg, msg + n, fds, sock, sigfd, &old);
    int err = errno;
    for (int i = 0; i < 3; i++) close(fds[i]);
    if (pid < 0) {
      say(fds[3], "error", err);
      close(fds[3]);
      continue;
    }
    jobs[slot].pid = pid;
    jobs[slot].status_fd = fds[3];
    say(fds[3], "pid", pid);
  }
}

/* Runs where the executable's `main` would, after its initialisers. */
static int server_main(int argc, char **argv, char **envp) {
  const char *fd = getenv("FORKSERVER_FD");
  if (!fd) return real_main(argc, argv, envp);
  int sock = atoi(fd);
  unsetenv("FORKSERVER_FD");
  unsetenv("LD_PRELOAD");
  return serve(sock);
}

int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void), void (*fini)(void),
                      void (*rtld_fini)(void), void *stack_end) {
  start_fn start = (start_fn)dlsym(RTLD_NEXT, "__libc_start_main");
  real_main = main;
  return start(server_main, argc, argv, init, fini, rtld_fini, stack_end);
}
