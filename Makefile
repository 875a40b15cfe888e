# SPDX-License-Identifier: GPL-2.0
#
#   make                 iolat.ko (against KDIR) and the iolat CLI
#   make module | cli    one of them
#   make check           every test (installs what it needs; see README)
#   make demo            iolat on a real workload in a guest
#   make bench           overhead against no tracing and blktrace (docs/bench.md)
#   make install         CLI and man page into $(PREFIX); the module via
#                        DKMS (README) or `make modules_install`

VERSION := $(shell cat VERSION)
KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
BUILD ?= build
PREFIX ?= /usr/local

CC ?= cc
CFLAGS ?= -O2 -g
PKG_CONFIG ?= pkg-config
NL_CFLAGS = $(shell $(PKG_CONFIG) --cflags libnl-genl-3.0)
NL_LIBS = $(shell $(PKG_CONFIG) --libs libnl-genl-3.0)
# export's protobuf exposition: metrics.proto's code, made by protoc-c
PB_CFLAGS = $(shell $(PKG_CONFIG) --cflags libprotobuf-c)
PB_LIBS = $(shell $(PKG_CONFIG) --libs libprotobuf-c)
PROTOC_C ?= protoc-c
CLI_CFLAGS = -std=gnu11 -Wall -Wextra -Iinclude/uapi -Iuser -I$(BUILD)/gen \
	     -DIOLAT_VERSION='"$(VERSION)"' $(NL_CFLAGS) $(PB_CFLAGS) $(CFLAGS) $(EXTRA_CFLAGS)
CLI_LIBS = $(NL_LIBS) $(PB_LIBS) -lpopt -lm

LIB_SRCS := lib/hist.c lib/record.c lib/busy.c lib/nvme_names.c
# The CLI: main.c and its layers, a folder each (docs/design.md; make
# check's cycles stage holds each to those below it).
CLI_SRCS := user/main.c $(sort $(wildcard user/*/*.c))
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/%.o) $(BUILD)/gen/metrics.pb-c.o

# kselftest_harness.h comes from the kernel source (tests/guest/kernels.sh);
# tests use it as the kernel's selftests do (-Wall: its handler has an
# unused parameter, and EXPECT_EQ(1, unsigned) is the idiom).
KSFT_DIR ?=
TEST_CFLAGS = $(CLI_CFLAGS) -I$(KSFT_DIR) -Wno-unused-parameter -Wno-sign-compare
UNIT_TESTS := $(BUILD)/tests/unit/hist_test $(BUILD)/tests/unit/busy_test \
	      $(BUILD)/tests/unit/cli_test \
	      $(BUILD)/tests/unit/report_test $(BUILD)/tests/unit/stats_test \
	      $(BUILD)/tests/unit/recfile_test $(BUILD)/tests/unit/expo_test \
	      $(BUILD)/tests/unit/batch_test
GUEST_TESTS := $(BUILD)/tests/kselftest/records_test $(BUILD)/tests/kselftest/filter_test \
	       $(BUILD)/tests/kselftest/output_test $(BUILD)/tests/kselftest/acct_test \
	       $(BUILD)/tests/kselftest/nvme_test $(BUILD)/tests/kselftest/analysis_test \
	       $(BUILD)/tests/kselftest/bench_test $(BUILD)/tests/kselftest/fuzz_test \
	       $(BUILD)/tests/kselftest/life_test $(BUILD)/tests/kselftest/part_test \
	       $(BUILD)/tests/kselftest/upper_test $(BUILD)/tests/kselftest/scale_test \
	       $(BUILD)/tests/iolat-abi-next

.PHONY: all module cli modules_install install check demo bench deps clean \
	unit-tests guest-tests dkms-src dkms-install install-service deb rpm

all: module cli

module:
	@if [ ! -d "$(KDIR)" ]; then \
		echo "iolat: no kernel build directory at $(KDIR):" \
		     "install linux-headers-$(KVER), or run make KDIR=/path/to/kernel/build" >&2; \
		exit 1; fi
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

modules_install: module
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install

cli: $(BUILD)/iolat

$(BUILD)/iolat: $(CLI_OBJS) $(LIB_OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(CLI_LIBS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CLI_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/gen/%.pb-c.c $(BUILD)/gen/%.pb-c.h: user/out/%.proto
	@mkdir -p $(dir $@)
	$(PROTOC_C) --proto_path=user/out --c_out=$(BUILD)/gen $<

$(BUILD)/gen/%.o: $(BUILD)/gen/%.c
	$(CC) $(CPPFLAGS) $(CLI_CFLAGS) -c -o $@ $<

# before the first build's dependency files say so
$(BUILD)/user/out/expo_pb.o: $(BUILD)/gen/metrics.pb-c.h

unit-tests: $(UNIT_TESTS)
guest-tests: $(GUEST_TESTS)

$(BUILD)/tests/unit/hist_test: tests/unit/hist_test.c $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -o $@ $^ -lm

$(BUILD)/tests/unit/busy_test: tests/unit/busy_test.c $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -o $@ $^ -lm

$(BUILD)/tests/unit/cli_test: tests/unit/cli_test.c $(BUILD)/user/dev/device.o \
			      $(BUILD)/user/dev/dev_lookup.o \
			      $(BUILD)/user/nl/decode.o $(BUILD)/user/dev/diskstats.o \
			      $(BUILD)/user/util/json.o $(BUILD)/user/out/nvme_fields.o \
			      $(BUILD)/user/out/table.o $(BUILD)/user/util/msg.o \
			      $(BUILD)/user/util/parse.o $(BUILD)/user/dev/cgroup.o \
			      $(BUILD)/user/util/grow.o $(BUILD)/user/util/clock.o $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -o $@ $^ -lm

EXPO_OBJS := $(BUILD)/user/out/expo.o $(BUILD)/user/out/expo_pb.o \
	     $(BUILD)/user/out/prom_buckets.o $(BUILD)/gen/metrics.pb-c.o \
	     $(BUILD)/user/util/grow.o $(BUILD)/user/util/msg.o

$(BUILD)/tests/unit/expo_test: tests/unit/expo_test.c $(EXPO_OBJS) $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -o $@ $^ $(PB_LIBS) -lm

RECFILE_OBJS := $(BUILD)/user/file/recfile.o $(BUILD)/user/file/recfile_read.o \
		$(BUILD)/user/file/crc32c.o $(BUILD)/user/util/msg.o \
		$(BUILD)/user/session/alloc.o $(BUILD)/user/util/grow.o \
		$(BUILD)/user/dev/cgroup.o $(BUILD)/user/util/clock.o

$(BUILD)/tests/unit/report_test: tests/unit/report_test.c $(RECFILE_OBJS) \
				 $(LIB_OBJS) $(BUILD)/iolat
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -o $@ $(filter %.c %.o,$^) -lm

$(BUILD)/tests/unit/recfile_test: tests/unit/recfile_test.c $(RECFILE_OBJS) \
				  $(LIB_OBJS) $(BUILD)/iolat
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -o $@ $(filter %.c %.o,$^) -lm

$(BUILD)/tests/unit/stats_test: tests/unit/stats_test.c $(RECFILE_OBJS) \
				$(BUILD)/user/nl/session_stats.o $(BUILD)/user/util/json.o \
				$(LIB_OBJS) $(BUILD)/iolat
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -o $@ $(filter %.c %.o,$^) -lm

# The stream's runs against records one by one: every CLI object but main.o.
$(BUILD)/tests/unit/batch_test: tests/unit/batch_test.c $(filter-out $(BUILD)/user/main.o,$(CLI_OBJS)) $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -o $@ $^ $(CLI_LIBS) -lm

# The CLI's ingest rate (tests/bench/ingest.c): every CLI object but main.o.
$(BUILD)/tests/bench/ingest: tests/bench/ingest.c $(filter-out $(BUILD)/user/main.o,$(CLI_OBJS)) $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CLI_CFLAGS) -o $@ $^ $(CLI_LIBS)

# The guest sees the host's files at the same paths, so the test reads the
# kernel-report patterns that check.sh uses from this tree.
KSFT_HELPERS := tests/kselftest/helpers.c tests/kselftest/helpers.h tests/kernel-reports
$(BUILD)/tests/kselftest/%_test: tests/kselftest/%_test.c $(KSFT_HELPERS)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -DIOLAT_KERNEL_REPORTS='"$(CURDIR)/tests/kernel-reports"' \
		-DIOLAT_KSFT_DIR='"$(CURDIR)/tests/kselftest"' \
		-o $@ $(filter %.c,$^) $(NL_LIBS) -lm

# upper_test's rows and their pairing with blktrace and btt
$(BUILD)/tests/kselftest/upper_test: tests/kselftest/upper_rows.c \
				     tests/kselftest/upper_rows.h

# The CLI as if of the next ABI, against which the module's is checked
# (life_test's version mismatch).
$(BUILD)/tests/abi-next/nlsock.o: user/nl/nlsock.c
	@mkdir -p $(dir $@)
	$(CC) $(CLI_CFLAGS) -DIOLAT_CLI_ABI='(IOLAT_ABI_VERSION + 1)' -c -o $@ $<

$(BUILD)/tests/iolat-abi-next: $(BUILD)/tests/abi-next/nlsock.o \
			       $(filter-out $(BUILD)/user/nl/nlsock.o,$(CLI_OBJS)) $(LIB_OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(CLI_LIBS)

# The module's sources alone, as DKMS wants them in /usr/src/iolat-VERSION.
DKMS_SRC = $(BUILD)/dkms/iolat-$(VERSION)
KMOD_SRCS = Kbuild VERSION dkms.conf \
	    $(filter-out kmod/features.h,$(wildcard kmod/*.[ch] lib/*.[ch])) \
	    $(wildcard kmod/tests/*.[ch]) \
	    kmod/features.sh $(wildcard kmod/features/*.c) \
	    include/uapi/linux/iolat.h include/uapi/linux/iolat_stats.h

dkms-src:
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)
	cp --parents $(KMOD_SRCS) $(DKMS_SRC)/

# Replaces the source DKMS has for this version (for every kernel) and
# installs it for each kernel in KVER, which may name several.
dkms-install: dkms-src
	-dkms remove iolat/$(VERSION) --all >/dev/null 2>&1
	rm -rf /usr/src/iolat-$(VERSION)
	dkms add $(DKMS_SRC)
	for k in $(KVER); do dkms install iolat/$(VERSION) -k $$k || exit 1; done

install: cli
	install -D -m 0755 $(BUILD)/iolat $(DESTDIR)$(PREFIX)/sbin/iolat
	install -D -m 0644 man/iolat.8 $(DESTDIR)$(PREFIX)/share/man/man8/iolat.8
	install -D -m 0644 docs/output.md $(DESTDIR)$(PREFIX)/share/doc/iolat/output.md
	install -D -m 0644 docs/abi.md $(DESTDIR)$(PREFIX)/share/doc/iolat/abi.md
	install -D -m 0644 -t $(DESTDIR)$(PREFIX)/share/iolat/prometheus \
		pkg/prometheus/iolat.rules.yml pkg/prometheus/iolat.rules.test.yml
	install -D -m 0644 pkg/grafana/iolat.json $(DESTDIR)$(PREFIX)/share/iolat/grafana/iolat.json

# The exporter's and the flight recorder's services, their settings and
# the module's loading at boot (pkg/), as the packages install them.
UNITDIR ?= /lib/systemd/system
SYSCONFDIR ?= /etc
MODULESLOADDIR ?= /usr/lib/modules-load.d
install-service:
	install -D -m 0644 pkg/iolat-exporter.service $(DESTDIR)$(UNITDIR)/iolat-exporter.service
	install -D -m 0644 pkg/exporter.conf $(DESTDIR)$(SYSCONFDIR)/iolat/exporter.conf
	install -D -m 0644 pkg/iolat-watch.service $(DESTDIR)$(UNITDIR)/iolat-watch.service
	install -D -m 0644 pkg/watch.conf $(DESTDIR)$(SYSCONFDIR)/iolat/watch.conf
	install -D -m 0644 pkg/modules-load.conf $(DESTDIR)$(MODULESLOADDIR)/iolat.conf

# The Debian packages (debian/), built from a copy of this tree in
# $(BUILD)/pkg/deb: iolat-dkms and iolat, and iolat's debug symbols.
PKG_TREE = tar -c --exclude=./build --exclude=./.git --exclude='./build-*' .
deb:
	rm -rf $(BUILD)/pkg/deb
	mkdir -p $(BUILD)/pkg/deb/iolat-$(VERSION)
	$(PKG_TREE) | tar -x -C $(BUILD)/pkg/deb/iolat-$(VERSION)
	cd $(BUILD)/pkg/deb/iolat-$(VERSION) && dpkg-buildpackage -b -us -uc

# The RPMs (rpm/iolat.spec), from a tarball of this tree, in
# $(BUILD)/pkg/rpm.  Off RHEL (make check, on Debian) the build
# dependencies are this machine's own, not rpm's to check: --nodeps.
RPM_TOP = $(abspath $(BUILD)/pkg/rpm)
rpm:
	rm -rf $(RPM_TOP)
	mkdir -p $(RPM_TOP)/SOURCES
	$(PKG_TREE) --transform 's,^\.,iolat-$(VERSION),' | \
		gzip -n >$(RPM_TOP)/SOURCES/iolat-$(VERSION).tar.gz
	rpmbuild -ba $(if $(wildcard /etc/redhat-release),,--nodeps) \
		--define '_topdir $(RPM_TOP)' rpm/iolat.spec

check:
	tests/check.sh

demo:
	tests/demo.sh

bench:
	tests/bench/run.sh

deps:
	tests/deps.sh

clean:
	rm -rf $(BUILD)
	-[ -d "$(KDIR)" ] && $(MAKE) -C $(KDIR) M=$(CURDIR) clean

-include $(CLI_OBJS:.o=.d) $(LIB_OBJS:.o=.d)
