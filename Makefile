# leapclock: this Makefile only wraps CMake.
#   make          build (build/)
#   make run      the leap-second reproducer on its built-in scenario
#   make check    every test twice (-Werror build, ASan+UBSan build), TSan on
#                 the concurrent-reader tests, a clang -Werror build, with
#                 CAP_SYS_TIME dropped when root
#   make bench    benchmarks (results go in BENCHMARKS.md by hand)
#   make bench-load  NTP server load: leapclockd against chronyd and NTPsec's
#                 ntpd, basic, keyed and NTS (as root: its own netns)
#   make fuzz     libFuzzer targets for FUZZ_SECONDS each (clang)
#   make install  PREFIX=/usr/local by default
#   make vm-test  every face of leapclock through real leaps on Debian's kernel in qemu (CI runs it)

BUILD ?= build
PREFIX ?= /usr/local
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE ?= cmake
CLANG ?= $(shell command -v clang 2>/dev/null)
FUZZ_SECONDS ?= 60

# As root, run tests without CAP_SYS_TIME so no bug can reach the host clock.
ifeq ($(shell id -u),0)
NOCLOCK := setpriv --bounding-set=-sys_time --inh-caps=-sys_time --
else
NOCLOCK :=
endif

# ThreadSanitizer runs the concurrent-reader tests (tests/test_concurrency_*.c).
TSAN_TESTS := $(basename $(notdir $(wildcard tests/test_concurrency_*.c)))

.PHONY: all build run check check-main check-asan check-tsan check-clang \
        bench bench-load fuzz install vm-test clean

all: build

build:
	$(CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	$(CMAKE) --build $(BUILD) -j $(JOBS)

# Quietly: builds only the tool, its output kept in a log shown on failure,
# so that the table is what the user sees (issue 16).
run:
	@echo "make run: building $(BUILD)/leapclock (log: $(BUILD)/make-run.log)"
	@$(CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@$(CMAKE) --build $(BUILD) -j $(JOBS) --target leapclock_cli \
	  >$(BUILD)/make-run.log 2>&1 || { cat $(BUILD)/make-run.log; exit 1; }
	@$(NOCLOCK) ./$(BUILD)/leapclock simulate

check: check-main check-asan check-tsan check-clang
	@echo "make check: all suites passed"

check-main:
	$(CMAKE) -S . -B build-check -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLC_WERROR=ON >/dev/null
	$(CMAKE) --build build-check -j $(JOBS)
	cd build-check && LC_EXPECT_NO_SYS_TIME=$(if $(NOCLOCK),1,0) $(NOCLOCK) ctest --output-on-failure -j $(JOBS)

check-asan:
	$(CMAKE) -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DLC_WERROR=ON \
	  -DLC_SANITIZE=address,undefined >/dev/null
	$(CMAKE) --build build-asan -j $(JOBS)
	cd build-asan && LC_SANITIZED=1 LC_EXPECT_NO_SYS_TIME=$(if $(NOCLOCK),1,0) $(NOCLOCK) ctest --output-on-failure -j $(JOBS)

check-tsan:
	$(CMAKE) -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLC_WERROR=ON \
	  -DLC_SANITIZE=thread -DLC_BENCH=OFF >/dev/null
	$(CMAKE) --build build-tsan -j $(JOBS) --target $(TSAN_TESTS)
	cd build-tsan && LC_SANITIZED=1 $(NOCLOCK) ctest --output-on-failure -L concurrency

# The whole tree must also compile clean with clang -Werror.
check-clang:
	@if [ -z "$(CLANG)" ]; then echo "check-clang: skipped: clang is not installed (Debian package clang)"; \
	else CC=$(CLANG) $(CMAKE) -S . -B build-clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLC_WERROR=ON >/dev/null && \
	  $(CMAKE) --build build-clang -j $(JOBS); fi

bench: build
	$(NOCLOCK) ./tools/run-benchmarks $(BUILD)

# Debian's ntpsec conflicts with chrony: an unpacked copy of the package is
# measured (apt-get download, no install), unless NTPD names another ntpd.
NTPSEC_DIR := $(BUILD)/ntpsec
bench-load: build
	@if [ -z "$$NTPD" ] && [ ! -x $(NTPSEC_DIR)/usr/sbin/ntpd ] && command -v apt-get >/dev/null; then \
	  mkdir -p $(NTPSEC_DIR) && (cd $(NTPSEC_DIR) && apt-get download ntpsec >/dev/null && \
	  dpkg-deb -x ntpsec_*.deb .) || echo "bench-load: could not fetch ntpsec; ntpd is skipped"; fi
	for mode in "" KEYED=1 NTS=1; do \
	  env $$mode NTPD=$${NTPD:-$(abspath $(NTPSEC_DIR))/usr/sbin/ntpd} \
	    $(NOCLOCK) ./tools/run-load-bench $(BUILD) || exit 1; done

fuzz:
	@if [ -z "$(CLANG)" ]; then echo "make fuzz needs clang (Debian package clang)"; exit 1; fi
	CC=$(CLANG) $(CMAKE) -S . -B build-fuzz -DLC_FUZZ=ON -DLC_BENCH=OFF -DBUILD_TESTING=OFF >/dev/null
	$(CMAKE) --build build-fuzz -j $(JOBS)
	$(NOCLOCK) ./tools/run-fuzzers build-fuzz $(FUZZ_SECONDS)

install: build
	$(CMAKE) --install $(BUILD) --prefix $(PREFIX)

# Every clock it sets is the VM's; the host's CAP_SYS_TIME is dropped anyway.
vm-test:
	$(NOCLOCK) ./tools/vm-kernel-test

clean:
	rm -rf $(BUILD) build-check build-asan build-tsan build-clang build-fuzz
