# gpuperfd — one entry point for building, running, testing and installing.
#
#   make            build build/gpuperfd and build/gpuperf
#   make run        install missing packages, build, start the daemon on `sim`
#   make test       install missing packages, build, run every test suite
#   make bench      benchmarks (ratios against a reference run in the same process;
#                   BENCH_BASE=REV: the ingest also against revision REV's code)
#   make coverage   the whole suite on a gcov build: lines and branches per
#                   folder and the files under their goal (build/coverage)
#   make fuzz       build the libFuzzer targets and fuzz each for FUZZ_SECONDS
#                   (60) on every core (FUZZ_JOBS processes)
#   make mutate     bugs put into the sources one at a time: which the tests
#                   catch (tests/mutate; MUTATIONS=text runs those whose id
#                   holds it); make mutate-web: Stryker on the UI's modules
#   make install    install under $(DESTDIR)$(PREFIX) (make uninstall)
#   make image      the container image, as an oci-archive (IMAGE, by
#                   default $(BUILD)/gpuperfd-image.tar; deploy/image)
#   make deps       install the Debian packages the build and tests need
#
# With npm installed, `make` also builds the browser UI into web/www.
#   make clean
#
# SAN=1 builds everything with ASan+UBSan under build/san, COV=1 with gcov
# counters under build/coverage; CI=true turns warnings into errors.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
DATADIR ?= $(PREFIX)/share/gpuperf
# The service's files: its unit names $(SYSCONFDIR)/gpuperfd.conf.
SYSCONFDIR ?= /etc
UNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
MANDIR ?= $(PREFIX)/share/man
SHARED ?= $(abspath $(CURDIR)/../shared)

ifeq ($(SAN),1)
BUILD ?= build/san
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else ifeq ($(COV),1)
# make coverage: gcov's counters, unoptimized so lines map one to one.
BUILD ?= build/coverage
SAN_FLAGS := --coverage
OPT := -O0
else
BUILD ?= build
SAN_FLAGS :=
endif

CC ?= cc
PKG_CONFIG ?= pkg-config
PKGS := expat libuv libwebsockets libprotobuf-c libdrm libcap libseccomp zlib

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wno-unused-parameter -Wformat=2 -Wvla
ifeq ($(CI),true)
WARN += -Werror
endif

OPT ?= -O2
VERSION := 0.1.0
CPPFLAGS += -D_GNU_SOURCE -I. -I$(BUILD) -DGPM_DATADIR='"$(DATADIR)"' -DGPM_LIBDIR='"$(LIBDIR)"' \
	-DGPUPERF_VERSION='"$(VERSION)"'
CFLAGS += -std=gnu11 $(OPT) -g -fPIC $(WARN) $(SAN_FLAGS) \
	$(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
LDFLAGS += $(SAN_FLAGS)
LDLIBS += $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null) -lm

CHECK_CFLAGS := $(shell $(PKG_CONFIG) --cflags check 2>/dev/null)
CHECK_LIBS := $(shell $(PKG_CONFIG) --libs check 2>/dev/null)

# Debian packages needed to build, test and fuzz.
DEB_PACKAGES := build-essential pkg-config libexpat1-dev libuv1-dev check libsubunit-dev jq \
	libwebsockets-dev libwebsockets-evlib-uv libprotobuf-c-dev protobuf-c-compiler \
	libdrm-dev clang intel-gpu-tools prometheus openssl libcap-dev libseccomp-dev systemd strace \
	tmux zlib1g-dev protobuf-compiler gcovr groff-base curl python3-prometheus-client \
	python3-yaml umoci skopeo
# The browser tests' chromium, without the recommends (cups, avahi, ...)
# that a headless browser has no use for.
BROWSER_PACKAGES := chromium

# Each room builds an archive of its non-main objects; binaries link main.o
# with the archives. Tests link all archives.
METRICS_SRCS := $(wildcard metrics/*.c)
METRICS_ASM := $(wildcard metrics/*.S)
DAEMON_SRCS := $(filter-out daemon/main.c,$(shell find daemon -name '*.c'))
# The preload's ioctl() goes into the commands gpuperf run starts, never
# into gpuperf.
PRELOAD_MAIN := client/preload/preload.c
CLIENT_SRCS := $(filter-out client/main.c $(PRELOAD_MAIN),$(shell find client -name '*.c'))
SIM_XML := $(wildcard metrics/sim/*.xml)
NVIDIA_XML := $(wildcard metrics/nvidia/*.xml)

# proto/*.proto -> $(BUILD)/proto/*.pb-c.[ch], included as "proto/x.pb-c.h".
PROTO_SRCS := $(wildcard proto/*.proto)
PROTO_C := $(PROTO_SRCS:%.proto=$(BUILD)/%.pb-c.c)
PROTO_OBJS := $(PROTO_C:%.c=%.o)
# Generated sources are kept: make would otherwise delete them as intermediates.
.SECONDARY: $(PROTO_C) $(PROTO_C:%.c=%.h)

METRICS_OBJS := $(METRICS_SRCS:%.c=$(BUILD)/%.o) $(METRICS_ASM:%.S=$(BUILD)/%.o)
DAEMON_OBJS := $(DAEMON_SRCS:%.c=$(BUILD)/%.o)
CLIENT_OBJS := $(CLIENT_SRCS:%.c=$(BUILD)/%.o)

LIBGPM := $(BUILD)/libgpm.a
LIBPROTO := $(BUILD)/libgpuperf-proto.a
LIBDAEMON := $(BUILD)/libgpuperfd.a
LIBCLIENT := $(BUILD)/libgpuperf-cli.a

# Integration tests are scripts printing "checks: N passed, F failed";
# tests/layers checks every #include against DEPS.
SCRIPT_TESTS := $(sort $(wildcard tests/cli/test-*.sh tests/integration/test-*.sh \
	tests/layers/test-*.sh tests/web/test-*.sh))
# The fake kernel: an LD_PRELOAD library answering DRM ioctls from the OA model.
FAKE_KERNEL_SRCS := $(wildcard tests/fake-kernel/*.c)
FAKE_KERNEL := $(if $(FAKE_KERNEL_SRCS),$(BUILD)/tests/libfake-kernel.so)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
BENCH_SRCS := $(wildcard tests/bench/bench_*.c)
BENCH_BINS := $(BENCH_SRCS:tests/bench/%.c=$(BUILD)/bench/%)
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(FUZZ_SRCS:tests/fuzz/%.c=build/fuzz/%)
FUZZ_SECONDS ?= 60
# make test replays each fuzz target's seeds and the inputs that once
# crashed it (tests/fuzz/regressions/NAME) with the ordinary compiler.
FUZZ_REPLAY_BINS := $(patsubst tests/fuzz/seeds/%,$(BUILD)/tests/replay_%,\
	$(wildcard tests/fuzz/seeds/fuzz_*))

.PHONY: all run test unit-tests bench fuzz mutate mutate-web coverage install clean deps
.DEFAULT_GOAL := all

# The browser UI: npm ci when the lock file changed, the protobuf module
# generated from the one schema (never committed), then one bundle.
NPM := $(shell command -v npm 2>/dev/null)
WEB_SRCS := $(wildcard web/src/*.js)
WEB_APP := $(if $(NPM),web/www/app.js)
WEB_FILES := web/www/index.html web/www/gpuperf.css web/www/favicon.svg \
	web/www/app.js web/www/app.css
WEB_NODE_MODULES := web/node_modules/.package-lock.json

all: $(BUILD)/gpuperfd $(BUILD)/gpuperf $(WEB_APP)

$(WEB_NODE_MODULES): web/package.json web/package-lock.json
	cd web && npm ci --no-audit --no-fund
web/gen/gpuperf.js: proto/gpuperf.proto $(WEB_NODE_MODULES)
	@mkdir -p $(dir $@)
	cd web && node_modules/.bin/pbjs -t static-module -w es6 --no-beautify \
		--no-comments --no-verify --no-convert --no-delimited --no-typeurl \
		-o gen/gpuperf.js ../proto/gpuperf.proto
web/www/app.js: $(WEB_SRCS) web/gen/gpuperf.js $(WEB_NODE_MODULES)
	cd web && node_modules/.bin/esbuild src/main.js --bundle --format=iife \
		--minify --log-level=warning --outfile=www/app.js

$(BUILD)/%.o: %.c | $(PROTO_C)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/proto/%.pb-c.c $(BUILD)/proto/%.pb-c.h: proto/%.proto
	@mkdir -p $(dir $@)
	protoc-c --c_out=$(BUILD) $<
# Generated code is not ours to warn about.
$(BUILD)/proto/%.pb-c.o: $(BUILD)/proto/%.pb-c.c
	$(CC) $(CPPFLAGS) -std=gnu11 $(OPT) -g -fPIC $(SAN_FLAGS) \
		$(shell $(PKG_CONFIG) --cflags libprotobuf-c) -c -o $@ $<
$(LIBPROTO): $(PROTO_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

# The sim metric definitions are embedded so the binaries need no data files.
$(BUILD)/metrics/sim_builtin.o: metrics/sim_builtin.S $(SIM_XML)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(SAN_FLAGS) -c -o $@ $<

$(BUILD)/metrics/nvidia_builtin.o: metrics/nvidia_builtin.S $(NVIDIA_XML)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(SAN_FLAGS) -c -o $@ $<

# Report-pair deltas are replay's inner loop; -O3 vectorizes their loops.
$(BUILD)/metrics/oa_delta.o: OPT := -O3

$(LIBGPM): $(METRICS_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^
$(LIBDAEMON): $(DAEMON_OBJS) | $(BUILD)/daemon
	rm -f $@ && $(AR) rcs $@ $^
$(LIBCLIENT): $(CLIENT_OBJS) | $(BUILD)/client
	rm -f $@ && $(AR) rcs $@ $^
$(BUILD)/daemon $(BUILD)/client:
	mkdir -p $@

$(BUILD)/gpuperfd: $(BUILD)/daemon/main.o $(LIBDAEMON) $(LIBGPM) $(LIBPROTO)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(BUILD)/gpuperf: $(BUILD)/client/main.o $(LIBCLIENT) $(LIBGPM) $(LIBPROTO)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# libgpuperf-preload.so, which gpuperf run --own-contexts preloads into
# its command (client/preload): it exports ioctl() alone. Never built with
# the sanitizers, whose runtimes must come first in a process: it goes
# into commands that have none.
PRELOAD_SRCS := $(PRELOAD_MAIN) client/preload/offer.c
LIBPRELOAD := $(BUILD)/libgpuperf-preload.so
all: $(LIBPRELOAD)
$(LIBPRELOAD): $(PRELOAD_SRCS) client/preload/offer.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -std=gnu11 $(OPT) -g -fPIC -fvisibility=hidden $(WARN) \
		$(shell $(PKG_CONFIG) --cflags libdrm 2>/dev/null) -shared -o $@ \
		$(PRELOAD_SRCS) -ldl

# libgpuperf, the installable client library: client/lib and the wire
# code, with client/include/gpuperf.h and a pkg-config file. The shared
# library exports only the gpc_ API.
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
GPC_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(wildcard client/lib/*.c))
GPC_SONAME := libgpuperf.so.0
LIBGPC_SO := $(BUILD)/libgpuperf.so
LIBGPC_A := $(BUILD)/libgpuperf.a
all: $(LIBGPC_SO) $(LIBGPC_A) $(BUILD)/gpuperf.pc
$(LIBGPC_A): $(GPC_OBJS) $(PROTO_OBJS)
	rm -f $@ && $(AR) rcs $@ $^
$(LIBGPC_SO): $(GPC_OBJS) $(PROTO_OBJS) client/lib/libgpuperf.map
	$(CC) $(LDFLAGS) -shared -Wl,-soname,$(GPC_SONAME) \
		-Wl,--version-script,client/lib/libgpuperf.map -o $@ \
		$(GPC_OBJS) $(PROTO_OBJS) \
		$(shell $(PKG_CONFIG) --libs libwebsockets libuv libprotobuf-c 2>/dev/null) -lm
$(BUILD)/gpuperf.pc: client/lib/gpuperf.pc.in Makefile
	sed -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
		-e 's|@VERSION@|$(VERSION)|' $< >$@
.PHONY: install-libgpuperf
install: install-libgpuperf
install-libgpuperf: $(LIBGPC_SO) $(LIBGPC_A) $(BUILD)/gpuperf.pc
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR)
	install -m 0755 $(LIBGPC_SO) $(DESTDIR)$(LIBDIR)/libgpuperf.so.$(VERSION)
	ln -sf libgpuperf.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(GPC_SONAME)
	ln -sf $(GPC_SONAME) $(DESTDIR)$(LIBDIR)/libgpuperf.so
	install -m 0644 $(LIBGPC_A) $(DESTDIR)$(LIBDIR)/
	install -m 0644 client/include/gpuperf.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 0644 $(BUILD)/gpuperf.pc $(DESTDIR)$(PKGCONFIGDIR)/

# libgpuperf-cuda-activity.so: CUDA loads it into a process named by
# CUDA_INJECTION64_PATH (gpuperf run --cuda-activity), where it measures
# the process's own kernel time with CUPTI and reports it to gpuperfd
# (cuda_activity/). CUDA and CUPTI are loaded at run time: it builds
# without them. It exports InitializeInjection alone.
CUDA_ACTIVITY_SRCS := $(wildcard cuda_activity/*.c)
CUDA_ACTIVITY_OBJS := $(CUDA_ACTIVITY_SRCS:%.c=$(BUILD)/%.o)
LIBCUDA_ACTIVITY := $(BUILD)/libgpuperf-cuda-activity.a
CUDA_ACTIVITY_SO := $(BUILD)/libgpuperf-cuda-activity.so
all: $(CUDA_ACTIVITY_SO)
# The tests take its parts but the entry point (with the sanitizers under
# SAN=1, and the warnings checked there).
$(LIBCUDA_ACTIVITY): $(filter-out %/injection.o,$(CUDA_ACTIVITY_OBJS))
	rm -f $@ && $(AR) rcs $@ $^
# The library itself never has the sanitizers, whose runtimes must come
# first in a process: it goes into applications that have none.
$(CUDA_ACTIVITY_SO): $(CUDA_ACTIVITY_SRCS) $(wildcard cuda_activity/*.h) \
		$(BUILD)/proto/gpuperf.pb-c.c cuda_activity/libgpuperf-cuda-activity.map
	$(CC) $(CPPFLAGS) -std=gnu11 $(OPT) -g -fPIC -fvisibility=hidden \
		$(shell $(PKG_CONFIG) --cflags libprotobuf-c 2>/dev/null) -shared \
		-Wl,--version-script,cuda_activity/libgpuperf-cuda-activity.map \
		-o $@ $(CUDA_ACTIVITY_SRCS) $(BUILD)/proto/gpuperf.pb-c.c \
		$(shell $(PKG_CONFIG) --libs libprotobuf-c 2>/dev/null) -ldl -lpthread
.PHONY: install-cuda-activity
install: install-cuda-activity
install-cuda-activity: $(CUDA_ACTIVITY_SO)
	install -d $(DESTDIR)$(LIBDIR)
	install -m 0755 $(CUDA_ACTIVITY_SO) $(DESTDIR)$(LIBDIR)/

# Trace writing in metrics/ packs with the generated code: proto last.
ALL_LIBS := $(LIBCLIENT) $(LIBDAEMON) $(LIBCUDA_ACTIVITY) $(LIBGPM) $(LIBPROTO)
$(BUILD)/tests/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(CHECK_CFLAGS) -o $@ $< \
		$(ALL_LIBS) $(LDFLAGS) $(LDLIBS) $(CHECK_LIBS)

# The archives' symbols stay private to the library: the daemon it is
# preloaded into has its own copies of the OA model and the metric code.
$(BUILD)/tests/libfake-kernel.so: $(FAKE_KERNEL_SRCS) $(wildcard tests/fake-kernel/*.h) \
		$(LIBDAEMON) $(LIBGPM)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -shared -o $@ $(FAKE_KERNEL_SRCS) \
		$(LIBDAEMON) $(LIBGPM) $(LDFLAGS) -Wl,--exclude-libs,ALL $(LDLIBS) -ldl

unit-tests: $(UNIT_BINS) $(FUZZ_REPLAY_BINS) $(FAKE_KERNEL) $(BUILD)/tests/server-checks \
	$(BUILD)/tests/trace-check $(BUILD)/tests/gpu-metrics-table \
	$(BUILD)/tests/daemon-proxy $(BUILD)/tests/episodes-recording \
	$(BUILD)/tests/libhold-open.so $(BUILD)/tests/rgp-capture \
	$(BUILD)/tests/context-app $(BUILD)/tests/libxe-exec-queue.so

# Writes amdgpu gpu_metrics tables for the fake sysfs trees.
$(BUILD)/tests/gpu-metrics-table: tests/integration/gpu_metrics_table.c \
		tests/unit/gpu_metrics_tables.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(LDFLAGS)

# Stands between gpuperf and gpuperfd and changes what the daemon says
# (tests/cli/test-client-meddled.sh).
$(BUILD)/tests/daemon-proxy: tests/cli/daemon_proxy.c $(LIBPROTO)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(LIBPROTO) $(LDFLAGS) -lprotobuf-c

# Writes recordings with known episodes of loss and of GpuBusy
# (tests/cli/test-trigger.sh, tests/integration/test-daemon-triggers.sh).
$(BUILD)/tests/episodes-recording: tests/cli/episodes_recording.c $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(ALL_LIBS) $(LDFLAGS) $(LDLIBS)

# Writes RGP captures by radv's rules (tests/cli/test-replay-rgp.sh).
$(BUILD)/tests/rgp-capture: tests/cli/rgp_capture.c tests/unit/rgp_writer.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(LDFLAGS)

# An application making GPU contexts, and a stand-in for xe's exec queue
# create (tests/integration/test-own-contexts.sh).
$(BUILD)/tests/context-app: tests/integration/context_app.c tests/integration/xe_queue_create.h \
		daemon/xe/xe_uapi.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(LDFLAGS)
$(BUILD)/tests/libxe-exec-queue.so: tests/integration/xe_exec_queue.c \
		tests/integration/xe_queue_create.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -shared -o $@ $< $(LDFLAGS) -ldl

# Holds one open() of a process back (tests/integration/test-daemon-triggers.sh).
$(BUILD)/tests/libhold-open.so: tests/integration/hold_open.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -shared -o $@ $< $(LDFLAGS) -ldl

# Reads the Perfetto traces the tests write (tests/perfetto/check-trace.sh).
$(BUILD)/tests/trace-check: tests/perfetto/trace_check.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(LDFLAGS) -lz -lm

# The WebSocket test client, shared by the server's integration checks and
# its benchmark.
WS_CLIENT := tests/integration/ws_client.c tests/integration/ws_client.h
$(BUILD)/tests/server-checks: tests/integration/server_checks.c $(WS_CLIENT) $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(filter %.c,$(WS_CLIENT)) \
		$(ALL_LIBS) $(LDFLAGS) $(LDLIBS)

# A fuzz target with its inputs' replay driver (tests/fuzz/replay.c).
$(BUILD)/tests/replay_%: tests/fuzz/%.c tests/fuzz/replay.c \
		$(wildcard tests/fuzz/*.h) $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -DFUZZ_TARGET='"$*"' -o $@ \
		$(filter %.c,$^) $(ALL_LIBS) $(LDFLAGS) $(LDLIBS)
$(BUILD)/tests/replay_fuzz_session: tests/fuzz/wire_check.c

# Sessions over a real socket, read by the WebSocket test client.
$(BUILD)/tests/test_ws_session: tests/unit/test_ws_session.c $(WS_CLIENT) \
		$(wildcard tests/unit/*.h) $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(CHECK_CFLAGS) -o $@ $< \
		$(filter %.c,$(WS_CLIENT)) $(ALL_LIBS) $(LDFLAGS) $(LDLIBS) \
		$(CHECK_LIBS)

test: deps
	$(MAKE) all unit-tests
	GPM_SHARED_DIR=$(SHARED) GPM_BUILD_DIR=$(BUILD) sh tests/run-tests.sh \
		$(UNIT_BINS) $(FUZZ_REPLAY_BINS) $(SCRIPT_TESTS)

# As root, the daemon serves as the service's user (nobody before `make
# install` made it), keeping CAP_PERFMON alone: never as root.
RUN_USER = $(if $(filter 0,$(shell id -u)),--user $(if $(shell getent passwd gpuperf),gpuperf,nobody))
# make run DEVICE=sim:amd (or any --device SPEC) serves another device.
DEVICE ?= sim
run: deps
	$(MAKE) all
	$(BUILD)/gpuperfd --device $(DEVICE) $(if $(WEB_APP),--web-root web/www) $(RUN_USER) $(RUN_ARGS)

$(BUILD)/bench/%: tests/bench/%.c $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -O2 -o $@ $< $(ALL_LIBS) $(LDFLAGS) $(LDLIBS)

# The server's benchmark drives it with the WebSocket test client.
$(BUILD)/bench/bench_ws: tests/bench/bench_ws.c $(WS_CLIENT) $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -O2 -o $@ $< $(filter %.c,$(WS_CLIENT)) \
		$(ALL_LIBS) $(LDFLAGS) $(LDLIBS)

# make bench BENCH_BASE=REV: bench_ingest measures the code of revision REV
# too, in turn with this one: REV's libraries are built from `git archive`
# under $(BUILD)/bench-base and this bench compiled against them and their
# headers.
BENCH_BASE_DIR := $(BUILD)/bench-base
$(BENCH_BASE_DIR)/bench_ingest: tests/bench/bench_ingest.c
	rm -rf $(BENCH_BASE_DIR) && mkdir -p $(BENCH_BASE_DIR)/src
	git archive $(BENCH_BASE) | tar -x -C $(BENCH_BASE_DIR)/src
	$(MAKE) -C $(BENCH_BASE_DIR)/src BUILD=build $(ALL_LIBS:$(BUILD)/%=build/%)
	$(CC) $(subst -I. -I$(BUILD) ,-I$(BENCH_BASE_DIR)/src -I$(BENCH_BASE_DIR)/src/build ,$(CPPFLAGS)) \
		$(CFLAGS) -O2 -o $@ $< $(ALL_LIBS:$(BUILD)/%=$(BENCH_BASE_DIR)/src/build/%) \
		$(LDFLAGS) $(LDLIBS)

# The page's work per animation frame is measured in chromium, where node
# is installed.
NODE := $(shell command -v node 2>/dev/null)
bench: all $(BENCH_BINS) $(if $(BENCH_BASE),$(BENCH_BASE_DIR)/bench_ingest)
	@for b in $(BENCH_BINS); do GPM_SHARED_DIR=$(SHARED) GPM_BUILD_DIR=$(BUILD) \
		$(if $(BENCH_BASE),GPM_INGEST_BASE=$(BENCH_BASE_DIR)/bench_ingest) $$b || exit 1; done
	$(if $(NODE),@GPM_BUILD_DIR=$(BUILD) node tests/bench/bench_ui.mjs)

# Counters start from zero; the suite's result is reported, not fatal, as
# the figures are what is asked for.
coverage: deps
	find build/coverage -name '*.gcda' -delete 2>/dev/null || true
	$(MAKE) COV=1 all unit-tests
	-GPM_SHARED_DIR=$(SHARED) GPM_BUILD_DIR=build/coverage nice -n 19 sh tests/run-tests.sh \
		$(UNIT_SRCS:tests/unit/%.c=build/coverage/tests/%) \
		$(FUZZ_REPLAY_BINS:$(BUILD)/%=build/coverage/%) $(SCRIPT_TESTS)
	sh tests/coverage/summary.sh build/coverage

# The mutations run under nice in a copy of the tree (build/mutate), never
# in the checkout.
mutate:
	GPM_SHARED_DIR=$(SHARED) nice -n 19 sh tests/mutate/mutate.sh $(MUTATIONS)

# Stryker (web/stryker.config.json) on the UI's pure modules, against the
# tests of web/test; fails under 80% killed.
mutate-web: $(WEB_NODE_MODULES) web/gen/gpuperf.js
	cd web && nice -n 19 node_modules/.bin/stryker run

# libFuzzer needs clang; the library is rebuilt with coverage instrumentation.
FUZZ_CFLAGS := -std=gnu11 -g -O1 -fno-omit-frame-pointer \
	-fsanitize=fuzzer-no-link,address,undefined \
	$(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
# Trace writing in metrics/ packs with the generated Perfetto code.
FUZZ_LIB_OBJS := $(METRICS_SRCS:%.c=build/fuzz/%.o) build/fuzz/metrics/sim_builtin.o \
	build/fuzz/proto/perfetto_trace.pb-c.o
build/fuzz/%.o: %.c | $(PROTO_C)
	@mkdir -p $(dir $@)
	clang $(CPPFLAGS) $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<
build/fuzz/metrics/sim_builtin.o: metrics/sim_builtin.S $(SIM_XML)
	@mkdir -p $(dir $@)
	clang $(CPPFLAGS) -c -o $@ $<
build/fuzz/%: tests/fuzz/%.c $(FUZZ_LIB_OBJS)
	clang $(CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

# The daemon's fuzz targets (the request decoder, whole sessions) follow
# coverage where their inputs steer: the network layer, subscriptions, the
# device and recordings. The sources and the metric engine under them run
# with the sanitizers alone (build/fuzz/plain), which keeps sessions fast.
FUZZ_PLAIN_CFLAGS := $(filter-out -fsanitize=fuzzer-no-link%,$(FUZZ_CFLAGS)) \
	-fsanitize=address,undefined
FUZZ_COVERED_SRCS := $(filter daemon/net/%,$(DAEMON_SRCS)) daemon/subscription.c \
	daemon/device.c daemon/recorder.c
FUZZ_DAEMON_OBJS := $(FUZZ_COVERED_SRCS:%.c=build/fuzz/%.o) \
	$(patsubst %.c,build/fuzz/plain/%.o,$(filter-out $(FUZZ_COVERED_SRCS),$(DAEMON_SRCS))) \
	$(METRICS_SRCS:%.c=build/fuzz/plain/%.o) build/fuzz/metrics/sim_builtin.o \
	$(PROTO_SRCS:proto/%.proto=build/fuzz/proto/%.pb-c.o) \
	build/fuzz/metrics/nvidia_builtin.o
build/fuzz/plain/%.o: %.c | $(PROTO_C)
	@mkdir -p $(dir $@)
	clang $(CPPFLAGS) $(FUZZ_PLAIN_CFLAGS) -MMD -MP -c -o $@ $<
build/fuzz/proto/%.pb-c.o: $(BUILD)/proto/%.pb-c.c
	@mkdir -p $(dir $@)
	clang $(CPPFLAGS) $(FUZZ_PLAIN_CFLAGS) -c -o $@ $<
build/fuzz/metrics/nvidia_builtin.o: metrics/nvidia_builtin.S $(NVIDIA_XML)
	@mkdir -p $(dir $@)
	clang $(CPPFLAGS) -c -o $@ $<
build/fuzz/fuzz_ws_request: tests/fuzz/fuzz_ws_request.c $(FUZZ_DAEMON_OBJS)
	clang $(CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)
# The session fuzzer's bytes pick requests from tables: the operands of
# the daemon's comparisons are never among them (but in RAW messages),
# and tracing every comparison (the token check's constant-time loop,
# folding per-context sums) was a sixth of a sequence. Its covered
# objects count edges alone (build/fuzz/session); strcmp and memcmp
# still hand libFuzzer the names they compare. Its checks of what it is
# sent steer nothing: built without coverage.
FUZZ_SESSION_CFLAGS := $(FUZZ_CFLAGS) -fno-sanitize-coverage=trace-cmp
FUZZ_SESSION_OBJS := $(FUZZ_COVERED_SRCS:%.c=build/fuzz/session/%.o) \
	$(filter-out $(FUZZ_COVERED_SRCS:%.c=build/fuzz/%.o),$(FUZZ_DAEMON_OBJS)) \
	build/fuzz/plain/tests/fuzz/wire_check.o
build/fuzz/session/%.o: %.c | $(PROTO_C)
	@mkdir -p $(dir $@)
	clang $(CPPFLAGS) $(FUZZ_SESSION_CFLAGS) -MMD -MP -c -o $@ $<
build/fuzz/fuzz_session: tests/fuzz/fuzz_session.c $(FUZZ_SESSION_OBJS)
	clang $(CPPFLAGS) $(FUZZ_SESSION_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)
# Kept between runs of make fuzz.
.SECONDARY: $(FUZZ_LIB_OBJS) $(FUZZ_DAEMON_OBJS) $(FUZZ_SESSION_OBJS)

# tests/fuzz/NAME.flags: libFuzzer options of one target. The session
# fuzzer's sequences each reach thousands of features, and the entropic
# schedule's bookkeeping of them took half its time. Each target fuzzes
# in FUZZ_JOBS processes (every core) over one corpus; each rereads it
# every 10 s for the others' finds (every second, the default, was 4%).
# -fork would restart its jobs and replay their share of the corpus at
# each start: 540 sequences per CPU second where this gave 2,177. What
# a target finds is build/fuzz/NAME-crash-*; its processes' logs are
# build/fuzz/jobs/NAME/fuzz-N.log. A target without seeds (fuzz_spm)
# starts from its corpus alone.
FUZZ_JOBS ?= $(shell nproc)
fuzz: $(FUZZ_BINS)
	@for f in $(FUZZ_BINS); do \
		name=$$(basename $$f); jobs=build/fuzz/jobs/$$name; \
		mkdir -p build/fuzz/corpus/$$name $$jobs; rm -f $$jobs/fuzz-*.log; \
		echo "fuzzing $$name for $(FUZZ_SECONDS) s in $(FUZZ_JOBS) processes"; \
		(cd $$jobs && $(CURDIR)/$$f -jobs=$(FUZZ_JOBS) -workers=$(FUZZ_JOBS) \
			-max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 -reload=10 \
			-artifact_prefix=$(CURDIR)/build/fuzz/$$name- \
			$$(cat $(CURDIR)/tests/fuzz/$$name.flags 2>/dev/null) \
			$(CURDIR)/build/fuzz/corpus/$$name \
			$$(test -d $(CURDIR)/tests/fuzz/seeds/$$name && echo $(CURDIR)/tests/fuzz/seeds/$$name)) \
			>build/fuzz/$$name.log 2>&1 || \
			{ tail -n 40 $$jobs/fuzz-*.log; exit 1; }; \
		sed -n 's/^stat::number_of_executed_units: *//p' $$jobs/fuzz-*.log | \
			awk -v n=$$name -v t=$(FUZZ_SECONDS) \
			'{ runs += $$1; p++ } END { printf "%s: %d runs in %d s, %d processes, %d/s\n", n, runs, t, p, runs / t }'; \
	done

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/metrics $(DESTDIR)$(LIBDIR)
	install -m 0755 $(BUILD)/gpuperfd $(BUILD)/gpuperf $(DESTDIR)$(BINDIR)/
	install -m 0755 $(LIBPRELOAD) $(DESTDIR)$(LIBDIR)/
	install -m 0644 $(SIM_XML) $(NVIDIA_XML) $(DESTDIR)$(DATADIR)/metrics/
ifneq ($(WEB_APP),)
	install -d $(DESTDIR)$(DATADIR)/web
	install -m 0644 $(WEB_FILES) $(DESTDIR)$(DATADIR)/web/
endif

# The service: its unit (with the installed paths), its user, the
# configuration example (also as $(SYSCONFDIR)/gpuperfd.conf unless one
# is there) and the man pages.
.PHONY: install-service uninstall
install: install-service
install-service:
	install -d $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(SYSCONFDIR) \
		$(DESTDIR)$(DATADIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man8
	sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
		systemd/gpuperfd.service.in >$(DESTDIR)$(UNITDIR)/gpuperfd.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/gpuperfd.service
	install -m 0644 systemd/gpuperfd.sysusers $(DESTDIR)$(SYSUSERSDIR)/gpuperfd.conf
	install -m 0644 systemd/gpuperfd.conf.example systemd/gpuperfd-processes.conf \
		$(DESTDIR)$(DATADIR)/
	test -e $(DESTDIR)$(SYSCONFDIR)/gpuperfd.conf || \
		install -m 0644 systemd/gpuperfd.conf.example $(DESTDIR)$(SYSCONFDIR)/gpuperfd.conf
	install -m 0644 man/gpuperf.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 man/gpuperfd.8 $(DESTDIR)$(MANDIR)/man8/

# The container image: gpuperfd, the CLI, the UI, the metric definitions
# and exactly the libraries they load, with no base image, as an
# oci-archive (deploy/image/build-image.sh says how to load it).
IMAGE ?= $(BUILD)/gpuperfd-image.tar
IMAGE_NAME ?= gpuperfd:$(VERSION)
.PHONY: image
image: all
	MAKE="$(MAKE)" BUILD="$(BUILD)" BINDIR="$(BINDIR)" DATADIR="$(DATADIR)" \
		sh deploy/image/build-image.sh $(IMAGE) $(IMAGE_NAME)

# Removes what install put there; an edited $(SYSCONFDIR)/gpuperfd.conf
# stays.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/gpuperfd $(DESTDIR)$(BINDIR)/gpuperf \
		$(DESTDIR)$(LIBDIR)/libgpuperf-preload.so
	rm -f $(addprefix $(DESTDIR)$(DATADIR)/metrics/,$(notdir $(SIM_XML) $(NVIDIA_XML)))
	rm -f $(addprefix $(DESTDIR)$(DATADIR)/web/,$(notdir $(WEB_FILES)))
	rm -f $(DESTDIR)$(DATADIR)/gpuperfd.conf.example \
		$(DESTDIR)$(DATADIR)/gpuperfd-processes.conf
	rmdir --ignore-fail-on-non-empty $(DESTDIR)$(DATADIR)/metrics \
		$(DESTDIR)$(DATADIR)/web $(DESTDIR)$(DATADIR) 2>/dev/null || true
	rm -f $(DESTDIR)$(LIBDIR)/libgpuperf.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(GPC_SONAME) \
		$(DESTDIR)$(LIBDIR)/libgpuperf.so $(DESTDIR)$(LIBDIR)/libgpuperf.a \
		$(DESTDIR)$(INCLUDEDIR)/gpuperf.h $(DESTDIR)$(PKGCONFIGDIR)/gpuperf.pc
	rm -f $(DESTDIR)$(LIBDIR)/libgpuperf-cuda-activity.so
	rm -f $(DESTDIR)$(UNITDIR)/gpuperfd.service $(DESTDIR)$(SYSUSERSDIR)/gpuperfd.conf \
		$(DESTDIR)$(MANDIR)/man1/gpuperf.1 $(DESTDIR)$(MANDIR)/man8/gpuperfd.8
	if cmp -s systemd/gpuperfd.conf.example $(DESTDIR)$(SYSCONFDIR)/gpuperfd.conf; then \
		rm -f $(DESTDIR)$(SYSCONFDIR)/gpuperfd.conf; fi

# Installs what is missing; never touches what is there.
# $(1): the packages, $(2): apt-get options.
define install-missing
	@missing=""; for p in $(1); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ]; then \
			echo "installing:$$missing"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(2) $$missing >/dev/null || exit 1; \
		else \
			echo "missing packages:$$missing"; \
			echo "run: sudo apt-get install -y$(if $(2), $(2))$$missing"; exit 1; \
		fi; \
	fi
endef

deps:
	$(call install-missing,$(DEB_PACKAGES),)
	$(call install-missing,$(BROWSER_PACKAGES),--no-install-recommends)

clean:
	rm -rf build web/gen web/www/app.js web/www/app.css

# build/mutate holds a copy of the tree with builds of its own.
-include $(shell find $(BUILD) -path build/mutate -prune -o -name '*.d' -print 2>/dev/null)
