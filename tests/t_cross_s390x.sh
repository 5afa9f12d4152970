#!/usr/bin/env bash
# The s390x build under qemu-user against the x86_64 one: tests/cross.sh.
CROSS_ARCH=s390x . "$(dirname "$0")/cross.sh"
