# shellcheck shell=sh
# scripts/cross-arch.sh - sourced: what each cross ARCH is called by
# Debian (compiler triple), by qemu-user, and by Docker's platforms (the
# release name the Go DockerBackend looks for: wickfs_linux_<release>).
#
#   cross_arch ARCH   sets triple, qemu, release, musl_cflags; 1 if unknown

CROSS_ARCHES="aarch64 armv7 i386 ppc64le s390x riscv64"

cross_arch() {
	musl_cflags=""
	case $1 in
	aarch64) triple=aarch64-linux-gnu qemu=aarch64 release=arm64 ;;
	# Debian's armhf compiler defaults to ARMv7-A, VFPv3-D16, hard float.
	armv7) triple=arm-linux-gnueabihf qemu=arm release=arm ;;
	i386) triple=i686-linux-gnu qemu=i386 release=386 ;;
	# musl's powerpc64 ABI has a 64-bit long double; Debian's compiler
	# defaults to 128 bits.
	ppc64le) triple=powerpc64le-linux-gnu qemu=ppc64le release=ppc64le
		musl_cflags=-mlong-double-64 ;;
	s390x) triple=s390x-linux-gnu qemu=s390x release=s390x ;;
	riscv64) triple=riscv64-linux-gnu qemu=riscv64 release=riscv64 ;;
	*) return 1 ;;
	esac
	return 0
}
