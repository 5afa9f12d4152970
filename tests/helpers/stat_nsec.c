/* stat_nsec.c - tests/cross-run's probe of the emulator: prints the
 * nanoseconds of FILE's mtime as fstatat gives them (the call pack's walk
 * makes), so a qemu-user that drops them can be told from a pack bug.
 *
 *   stat_nsec FILE
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
	struct stat st;

	if (argc != 2 || fstatat(AT_FDCWD, argv[1], &st, AT_SYMLINK_NOFOLLOW)) {
		perror("stat_nsec");
		return 1;
	}
	printf("%ld\n", (long)st.st_mtim.tv_nsec);
	return 0;
}
