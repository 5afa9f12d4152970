#!/bin/sh
# scripts/release.sh - `make release`: the static binary for every platform
# of Docker's official images, named as the Go DockerBackend looks for
# them, with SHA256SUMS and a size table:
#
#   build/release/wickfs_linux_{amd64,arm64,arm,386,ppc64le,s390x,riscv64}
#   build/release/SHA256SUMS   (sha256sum -c SHA256SUMS verifies them)
#   build/release/SIZES        bytes per platform
#
#   scripts/release.sh [ARCH...]   only these (cross names, or amd64)
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
# shellcheck source=scripts/cross-arch.sh
. "$top/scripts/cross-arch.sh"
out=build/release
# Run from make, our MAKEFLAGS must not reach the sub-makes' ARCH.
unset MAKEFLAGS MFLAGS MAKELEVEL

arches=${*:-"amd64 $CROSS_ARCHES"}
mkdir -p "$out"
for a in $arches; do
	if [ "$a" = amd64 ]; then
		make -s --no-print-directory all
		src=build/wickfs
		name=amd64
	else
		cross_arch "$a" || { echo "release: unknown ARCH $a" >&2; exit 2; }
		make -s --no-print-directory ARCH="$a" all
		src=build/wickfs-$a
		name=$release
	fi
	cp "$src" "$out/wickfs_linux_$name.tmp"
	mv "$out/wickfs_linux_$name.tmp" "$out/wickfs_linux_$name"
	echo "release: $out/wickfs_linux_$name" >&2
done

# Sums and sizes of every binary present, so a partial rebuild keeps the
# others listed.
(
	cd "$out"
	sha256sum wickfs_linux_* >SHA256SUMS.tmp && mv SHA256SUMS.tmp SHA256SUMS
	for f in wickfs_linux_*; do
		printf '%-24s %9s bytes\n' "$f" "$(stat -c %s "$f")"
	done >SIZES.tmp && mv SIZES.tmp SIZES
)
cat "$out/SIZES"
