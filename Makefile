# The two set-up commands of the README:
#   make run   - install what is missing, build, run the bundled example
#   make test  - install what is missing, build, run every test
# Extra: make asan (tests under ASan+UBSan), make bench, make fuzz (build the
# libFuzzer targets), make fuzz-smoke (run each over its corpus, FUZZ_RUNS
# inputs; docs/fuzzing.md), make rebase, make format
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc)
CMAKE_GEN  := $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")

DEB_PACKAGES := cmake g++ make python3 libfmt-dev libcli11-dev nlohmann-json3-dev \
                libgtest-dev libgmock-dev googletest libbenchmark-dev ninja-build ccache \
                libzstd-dev liblz4-dev libdw-dev liblzma-dev
# libFuzzer's runtime is in the compiler-rt package of the installed clang's
# own version (libclang-rt-N-dev), so N is read from `clang --version`.
FUZZ_RUNS  ?= 3000

.PHONY: all deps build run test asan bench fuzz fuzz-smoke rebase format clean

all: build

# Install the Debian packages that are missing (we run as root on fresh machines).
deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=RelWithDebInfo

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

run: build
	./examples/run-example.sh $(BUILD)/bcusim

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

asan: deps
	cmake -S . -B $(ASAN_BUILD) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Debug -DBCUSIM_SANITIZE=ON -DBCUSIM_BENCH=OFF
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS)

bench: build
	@for b in $(BUILD)/bench/bench_*; do echo "== $$b"; $$b --benchmark_min_time=0.2; done

fuzz: deps
	@SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	installed() { dpkg-query -W -f='$${Status}' $$1 2>/dev/null | grep -q "ok installed"; }; \
	if ! command -v clang++ >/dev/null 2>&1; then \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq clang; \
	fi; \
	v=$$(clang++ --version | sed -n 's/.*clang version \([0-9][0-9]*\).*/\1/p' | head -n 1); \
	if [ -z "$$v" ]; then echo "cannot read the version of clang++"; exit 1; fi; \
	if ! installed libclang-rt-$$v-dev; then \
	  echo "installing: libclang-rt-$$v-dev (libFuzzer for clang $$v)"; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq libclang-rt-$$v-dev; \
	fi
	CXX=clang++ cmake -S . -B build-fuzz $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBCUSIM_FUZZ=ON -DBCUSIM_TESTS=OFF -DBCUSIM_BENCH=OFF
	cmake --build build-fuzz -j $(JOBS) --target fuzzers

# Each fuzz target for FUZZ_RUNS inputs, starting from fuzz/corpus/<target>/
# and the project's test inputs that fuzz/corpus/<target>.seeds names
# (new inputs go to a scratch directory, the committed corpus is not changed).
fuzz-smoke: fuzz
	fuzz/run-corpus.sh build-fuzz $(FUZZ_RUNS)

# Regenerate the expected output of the golden tests on purpose (review the diff!).
rebase: build
	python3 tests/golden/run_golden.py --bcusim $(BUILD)/bcusim --rebase tests/golden

format:
	clang-format -i $$(git ls-files '*.cpp' '*.h')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-fuzz
