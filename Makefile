# wickfs: one static musl binary. `make help` lists the targets.

ifeq ($(origin CC),default)
CC := musl-gcc
endif
STATIC ?= 1
# STRIP=0 keeps the symbol table in a static build (scripts/bloat.sh and
# debuggers need it); any other value, or none, strips.
STRIP ?= 1
ARCH ?=
PREFIX ?= /usr/local
DESTDIR ?=
V ?= 0

# ARCH=X (scripts/cross-arch.sh lists them): the toolchain scripts/cross.sh
# builds under build/.
TRIPLE_aarch64 := aarch64-linux-gnu
TRIPLE_armv7 := arm-linux-gnueabihf
TRIPLE_i386 := i686-linux-gnu
TRIPLE_ppc64le := powerpc64le-linux-gnu
TRIPLE_s390x := s390x-linux-gnu
TRIPLE_riscv64 := riscv64-linux-gnu
# Flags the target's musl was built with (scripts/cross-arch.sh).
ARCH_CFLAGS_ppc64le := -mlong-double-64
ifneq ($(ARCH),)
ifeq ($(TRIPLE_$(ARCH)),)
$(error unknown ARCH=$(ARCH): aarch64 armv7 i386 ppc64le s390x riscv64)
endif
CC := build/musl-$(ARCH)/bin/musl-gcc
AR := $(TRIPLE_$(ARCH))-ar
override CFLAGS += $(ARCH_CFLAGS_$(ARCH))
# 4 KiB pages suffice for a static binary; a default 64 KiB alignment
# pads the file by tens of KB.
LDFLAGS += -Wl,-z,max-page-size=4096
endif

B := build
OBJ := $(B)/obj$(if $(ARCH),-$(ARCH))$(if $(filter 0,$(STATIC)),-dyn)
GEN := $(B)/gen
ZLIB := $(B)/zlib$(if $(ARCH),-$(ARCH))

# Size first, speed where the time goes: the search loop, the regex
# engine, UTF-8 and JSON of big outputs (-O2). The rest at -Oz where the
# compiler has it (GCC 12, clang), else -Os, and without jump tables
# (compare chains are smaller): together 4.5 KB less than plain -Os, the
# daemon's round trip the same (bench/daemon.sh's load, A/B). A CFLAGS
# given by the user comes after these and wins.
OPT := $(shell $(CC) -Oz -x c -c -o /dev/null /dev/null 2>/dev/null && \
	echo -Oz || echo -Os) -fno-jump-tables
HOT_SRCS := lib/grep.c lib/bytes.c lib/re/dfa.c lib/re/regex.c lib/re/pike.c \
	    lib/utf8.c lib/json.c
override CFLAGS += -std=gnu11 -Wall -Wextra -Werror -Iinclude -I$(GEN) \
	  -ffunction-sections -fdata-sections -fno-asynchronous-unwind-tables \
	  -D_GNU_SOURCE -MMD -MP
# No page padding between the code and the read-only data: 8 KB less.
# No RELRO: a static musl program never makes it read-only (only the
# dynamic loader would), and its page alignment padded the file by up to
# 4 KB. A small common page size: the data segment starts in the file
# right after the code (the loader maps that page twice, the second
# copy writable), not at the next 4 KB boundary: the size moves by the
# byte, not in 4 KB steps.
override LDFLAGS += -Wl,--gc-sections -Wl,-z,noseparate-code -Wl,-z,norelro \
	-Wl,-z,common-page-size=64
LIBS := -lpthread
ifeq ($(STATIC),1)
# lib/fmt.c's printf family instead of musl's: 10 KB less (no floats).
# Position-dependent code: the static link is at a fixed address anyway
# (not static-pie), and an address then loads as a 32-bit immediate, not
# RIP-relative: 7 KB less (GCC defaults to -fPIE on Debian).
override CFLAGS += -I$(ZLIB)/include -DWFS_OWN_PRINTF -fno-pie
override LDFLAGS += -static -no-pie $(if $(filter 0,$(STRIP)),,-s)
# x86: arrays aligned as the ABI asks, not to 32 bytes for vector loads;
# sections sorted by alignment, so less padding between them (500 bytes).
ifneq ($(filter x86_64 i386 i486 i586 i686,$(firstword $(subst -, ,$(shell $(CC) -dumpmachine 2>/dev/null)))),)
override CFLAGS += -malign-data=abi
endif
override LDFLAGS += -Wl,--sort-section=alignment
LIBS += $(ZLIB)/lib/libz.a
else
LIBS += -lz
endif

ifeq ($(V),0)
Q := @
else
Q :=
endif

LIB_SRCS := $(sort $(wildcard lib/*.c lib/*/*.c))
LIB_OBJS := $(LIB_SRCS:%.c=$(OBJ)/%.o)

CONFIG_GOALS := defconfig allnoconfig allyesconfig oldconfig menuconfig \
		clean distclean help deps demo
ifeq ($(filter $(CONFIG_GOALS),$(MAKECMDGOALS)),)
-include $(GEN)/applets.mk
endif
APPLET_OBJS := $(APPLET_SRCS:%.c=$(OBJ)/%.o) $(OBJ)/applets/main.o \
	       $(OBJ)/gen/applets.o $(OBJ)/gen/mcp_text.o

BIN := $(B)/wickfs$(if $(ARCH),-$(ARCH))$(if $(filter 0,$(STATIC)),-dyn)

.PHONY: all help deps defconfig allnoconfig allyesconfig oldconfig \
	menuconfig test test-cross demo release install bench clean distclean fuzz fuzz-smoke

all: $(BIN)

help:
	@echo "make [CC=.. STATIC=0 STRIP=0 ARCH=aarch64|armv7|i386|ppc64le|s390x|riscv64]  build $(B)/wickfs"
	@echo "make defconfig|allnoconfig|allyesconfig|oldconfig|menuconfig"
	@echo "make demo       install deps, build, drive every applet and the daemon"
	@echo "make test       install deps, build, run tests/run"
	@echo "make release    build/release/wickfs_linux_<arch> for every platform, SHA256SUMS"
	@echo "make test-cross the applet scripts under qemu-user for every cross platform"
	@echo "make install PREFIX=/usr/local DESTDIR="
	@echo "make bench      benchmarks against peers (bench/)"
	@echo "make fuzz       libFuzzer targets (tests/fuzz/) into $(B)/fuzz/ (clang)"
	@echo "make fuzz-smoke build them and run each briefly on its corpus"

deps:
	$(Q)sh scripts/deps.sh
ifneq ($(ARCH),)
	$(Q)sh scripts/cross.sh $(ARCH)
endif

# ---- configuration ----
KCONF_ENV := KCONFIG_CONFIG=.config
$(GEN)/Kconfig.applets: $(wildcard applets/*.c) scripts/gen-applets.sh
	$(Q)sh scripts/gen-applets.sh $(GEN) .config

defconfig: $(GEN)/Kconfig.applets
	$(Q)$(KCONF_ENV) kconfig-conf -s --alldefconfig Kconfig
allnoconfig: $(GEN)/Kconfig.applets
	$(Q)$(KCONF_ENV) kconfig-conf -s --allnoconfig Kconfig
allyesconfig: $(GEN)/Kconfig.applets
	$(Q)$(KCONF_ENV) kconfig-conf -s --allyesconfig Kconfig
oldconfig: $(GEN)/Kconfig.applets
	$(Q)$(KCONF_ENV) kconfig-conf --oldconfig Kconfig
menuconfig: $(GEN)/Kconfig.applets
	$(Q)$(KCONF_ENV) kconfig-mconf Kconfig

# No .config yet: everything on. New applets get their default without
# a question.
$(GEN)/config.stamp: $(wildcard .config) $(GEN)/Kconfig.applets Kconfig
	$(Q)test -f .config || $(KCONF_ENV) kconfig-conf -s --alldefconfig Kconfig
	$(Q)$(KCONF_ENV) kconfig-conf -s --olddefconfig Kconfig
	$(Q)sh scripts/gen-applets.sh $(GEN) .config
	$(Q)touch $@

$(GEN)/applets.c $(GEN)/applets.mk: $(GEN)/config.stamp
	@:

# ---- build ----
$(HOT_SRCS:%.c=$(OBJ)/%.o): OPT := -O2

# musl's version for --version: the cross musl's VERSION file
# (scripts/cross.sh keeps it), else Debian's musl-dev package.
ifeq ($(STATIC),1)
MUSL_VERSION := $(shell cat $(B)/musl-$(ARCH)/VERSION 2>/dev/null || \
	dpkg-query -W -f='$${Version}' musl-dev 2>/dev/null | sed 's/-[^-]*$$//')
ifneq ($(MUSL_VERSION),)
$(OBJ)/applets/main.o: override CFLAGS += -DWFS_MUSL_VERSION='"$(MUSL_VERSION)"'
endif
endif

$(OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(filter 0,$(V)),echo "  CC $<")
	$(Q)$(CC) $(OPT) $(CFLAGS) -c -o $@ $<

$(OBJ)/gen/%.o: $(GEN)/%.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(OPT) $(CFLAGS) -c -o $@ $<

# What MCP's tools/list says of each tool, gzip'ed (lib/mcp/table.c).
$(GEN)/mcp_text.c: lib/mcp/tools.txt scripts/gzblob.sh
	@mkdir -p $(dir $@)
	$(Q)sh scripts/gzblob.sh mcp_text lib/mcp/tools.txt >$@.tmp && mv $@.tmp $@

ifneq ($(ARCH),)
.PHONY: cross-$(ARCH)
cross-$(ARCH):
	$(Q)sh scripts/cross.sh $(ARCH)
$(LIB_OBJS) $(APPLET_OBJS): | cross-$(ARCH)
endif

# Every object depends on the flags it was built with: a change of CC,
# OPT, CFLAGS or LDFLAGS rebuilds them (a stale object once hid 2.6 KB
# of growth). $(OBJ)/flags is rewritten only when they change.
FLAGS_NOW := $(CC) $(OPT) $(CFLAGS) | $(LDFLAGS)
ifneq ($(file <$(OBJ)/flags),$(FLAGS_NOW))
$(shell mkdir -p $(OBJ))
$(file >$(OBJ)/flags,$(FLAGS_NOW))
endif
$(LIB_OBJS) $(APPLET_OBJS): $(OBJ)/flags

# The applets include build/gen/applet_opts.h: generate it first.
$(APPLET_OBJS): | $(GEN)/config.stamp

$(OBJ)/libwickfs.a: $(LIB_OBJS)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(BIN): $(GEN)/config.stamp $(APPLET_OBJS) $(OBJ)/libwickfs.a
	@echo "  LD $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $(APPLET_OBJS) $(OBJ)/libwickfs.a $(LIBS)

# ---- tests, install, bench ----
test:
	$(Q)sh scripts/deps.sh
	$(Q)test -f .config || $(MAKE) --no-print-directory defconfig
	$(Q)$(MAKE) --no-print-directory all
	$(Q)[ "$${WICKFS_TEST_AARCH64:-1}" = 0 ] || $(MAKE) --no-print-directory ARCH=aarch64 all || \
		echo "make test: make ARCH=aarch64 failed; tests/t_cross_aarch64.sh reports it" >&2
	$(Q)sh tests/run

demo:
	$(Q)sh scripts/demo.sh

# Every platform of Docker's official images: build/release/ (scripts/release.sh).
release:
	$(Q)sh scripts/deps.sh
	$(Q)test -f .config || $(MAKE) --no-print-directory defconfig
	$(Q)sh scripts/release.sh

# The applet scripts under qemu-user for every cross platform.
test-cross:
	$(Q)sh scripts/deps.sh
	$(Q)test -f .config || $(MAKE) --no-print-directory defconfig
	$(Q)$(MAKE) --no-print-directory all
	$(Q)sh tests/cross-run

install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/wickfs
	ln -sf wickfs $(DESTDIR)$(PREFIX)/bin/wick-daemon

bench: $(BIN)
	sh bench/run

# ---- fuzzing: clang's libFuzzer with ASan and UBSan (tests/fuzz/) ----
# Its own objects: the library instrumented for coverage. applets/main.c
# gives applet_find, which the daemon's request parser needs; its main()
# is renamed out of libFuzzer's way.
FUZZ_B := $(B)/fuzz
FUZZ_CC := clang
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS := -std=gnu11 -O1 -g -fno-omit-frame-pointer -Wall -Wextra -Werror \
	       -Iinclude -I$(GEN) -D_GNU_SOURCE -MMD -MP $(FUZZ_SAN)
FUZZ_TARGETS := $(sort $(basename $(notdir $(wildcard tests/fuzz/*.c))))
FUZZ_BINS := $(FUZZ_TARGETS:%=$(FUZZ_B)/%)
FUZZ_OBJS := $(LIB_OBJS:$(OBJ)/%=$(FUZZ_B)/obj/%) \
	     $(APPLET_OBJS:$(OBJ)/%=$(FUZZ_B)/obj/%)

fuzz: $(FUZZ_BINS)

fuzz-smoke: fuzz
	$(Q)sh tests/fuzz/smoke.sh

$(FUZZ_B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(filter 0,$(V)),echo "  FUZZCC $<")
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link \
		$(if $(filter applets/main.c,$<),-Dmain=wfs_cli_main) -c -o $@ $<

$(FUZZ_B)/obj/gen/%.o: $(GEN)/%.c
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_B)/libfuzzwickfs.a: $(FUZZ_OBJS)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(FUZZ_BINS): $(FUZZ_B)/%: tests/fuzz/%.c $(FUZZ_B)/libfuzzwickfs.a
	@echo "  FUZZLD $@"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< \
		$(FUZZ_B)/libfuzzwickfs.a -lz -lpthread

clean:
	rm -rf $(B)/obj* $(GEN) $(B)/wickfs* $(B)/test $(B)/release $(B)/bloat $(FUZZ_B)

distclean: clean
	rm -rf $(B) .config .config.old

-include $(shell find $(OBJ) $(FUZZ_B) -name '*.d' 2>/dev/null)
