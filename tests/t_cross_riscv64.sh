#!/usr/bin/env bash
# The riscv64 build under qemu-user against the x86_64 one: tests/cross.sh.
CROSS_ARCH=riscv64 . "$(dirname "$0")/cross.sh"
