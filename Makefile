# Makefile: short names for the CMake build (CMake does the real work).
#
#   make demo       build and predict scenarios/quickstart.json
#   make build      configure and build build/
#   make test       build and run every test (ctest) in build/
#   make sanitize   ASan+UBSan build in build-asan/, unit and golden tests
#   make fuzz       libFuzzer build (clang) in build-fuzz/, each target FUZZ_SECONDS
#   make bench      build and run the benchmarks (tests/bench/bench_*.c) in build/
#   make deb        build and package build/stepcast_VERSION_ARCH.deb (CPack)
#   make install    install build/ under PREFIX (default /usr/local; DESTDIR honoured)
#   make clean      remove the build directories
#
# Every target except clean first runs scripts/deps (once per make run), which
# installs missing Debian packages and does nothing when all are present.

JOBS ?= $(shell nproc 2>/dev/null || echo 2)
FUZZ_SECONDS ?= 60
BUILD_TYPE ?= RelWithDebInfo
CMAKE ?= cmake
CTEST ?= ctest
CPACK ?= cpack

.PHONY: all deps build demo test sanitize fuzz bench deb install clean

all: build

deps:
	@scripts/deps

build: deps
	$(CMAKE) -S . -B build -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DSTEPCAST_WERROR=ON
	$(CMAKE) --build build -j$(JOBS)

demo: build
	./build/stepcast predict scenarios/quickstart.json

test: build
	$(CTEST) --test-dir build --output-on-failure -j$(JOBS)

sanitize: deps
	$(CMAKE) -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSTEPCAST_WERROR=ON -DSTEPCAST_SANITIZE=ON
	$(CMAKE) --build build-asan -j$(JOBS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		$(CTEST) --test-dir build-asan --output-on-failure -j$(JOBS) -L 'unit|golden'

# Benchmarks print their own numbers; they are not pass/fail on time.
bench: build
	$(CMAKE) --build build -j$(JOBS) --target stepcast_bench
	@for b in build/tests/bench/bench_*; do [ -x "$$b" ] || continue; echo "== $$b"; "$$b" || exit 1; done

# The Debian package: what cmake/StepcastInstall.cmake installs, under /usr.
deb: build
	cd build && rm -f stepcast_*.deb && $(CPACK) -G DEB >cpack.log || { cat cpack.log; exit 1; }
	@ls build/stepcast_*.deb

PREFIX ?= /usr/local
install: build
	$(CMAKE) --install build --prefix $(PREFIX)

# CC is set on the configure line only; a build dir configured with another
# compiler keeps it, so `make clean` (or rm -r build-fuzz) to switch.
fuzz: deps
	CC=clang CXX=clang++ $(CMAKE) -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTEPCAST_FUZZ=ON \
		-DFUZZ_SECONDS=$(FUZZ_SECONDS)
	$(CMAKE) --build build-fuzz -j$(JOBS) --target stepcast_fuzz
	$(CTEST) --test-dir build-fuzz --output-on-failure -j$(JOBS) -L fuzz

clean:
	rm -rf build build-asan build-fuzz
