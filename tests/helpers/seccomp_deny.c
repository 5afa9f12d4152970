/* seccomp_deny.c - run a command where one system call fails, as under a
 * strict or dated container seccomp profile: unshare(2) with EPERM
 * (Docker's default for unprivileged containers), openat2(2) with
 * ENOSYS (a profile, or a kernel, older than Linux 5.6), or
 * fchmodat2(2) with ENOSYS (older than Linux 6.6).
 *
 * usage: seccomp_deny unshare|openat2|fchmodat2 CMD [ARGS...]
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#else
#error "seccomp_deny: unknown architecture"
#endif

#ifndef __NR_openat2
#define __NR_openat2 437
#endif
#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452
#endif

int main(int argc, char **argv)
{
	unsigned nr, err;

	if (argc < 3) {
		fprintf(stderr, "usage: seccomp_deny unshare|openat2|fchmodat2 CMD [ARGS...]\n");
		return 2;
	}
	if (!strcmp(argv[1], "unshare")) {
		nr = __NR_unshare;
		err = EPERM;
	} else if (!strcmp(argv[1], "openat2")) {
		nr = __NR_openat2;
		err = ENOSYS;
	} else if (!strcmp(argv[1], "fchmodat2")) {
		nr = __NR_fchmodat2;
		err = ENOSYS;
	} else {
		fprintf(stderr, "seccomp_deny: no rule for %s\n", argv[1]);
		return 2;
	}
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | err),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {sizeof(f) / sizeof(f[0]), f};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		fprintf(stderr, "seccomp_deny: seccomp: %s\n", strerror(errno));
		return 1;
	}
	execvp(argv[2], argv + 2);
	fprintf(stderr, "seccomp_deny: %s: %s\n", argv[2], strerror(errno));
	return 127;
}
