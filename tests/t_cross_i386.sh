#!/usr/bin/env bash
# The i386 build under qemu-user against the x86_64 one: tests/cross.sh.
CROSS_ARCH=i386 . "$(dirname "$0")/cross.sh"
