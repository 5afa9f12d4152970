#!/usr/bin/env bash
# The ppc64le build under qemu-user against the x86_64 one: tests/cross.sh.
CROSS_ARCH=ppc64le . "$(dirname "$0")/cross.sh"
