#!/usr/bin/env bash
# The armv7 build under qemu-user against the x86_64 one: tests/cross.sh.
CROSS_ARCH=armv7 . "$(dirname "$0")/cross.sh"
