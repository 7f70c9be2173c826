# The two set-up commands of the README:
#   make run   - install what is missing, build, run the bundled example
#   make test  - install what is missing, build, run every test
# Extra: make asan (tests under ASan+UBSan), make bench, make fuzz, make rebase, make format
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc)
CMAKE_GEN  := $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")

DEB_PACKAGES := cmake g++ make python3 libfmt-dev libcli11-dev nlohmann-json3-dev \
                libgtest-dev libgmock-dev googletest libbenchmark-dev ninja-build ccache \
                libzstd-dev liblz4-dev
FUZZ_PACKAGES := clang libclang-rt-14-dev

.PHONY: all deps build run test asan bench fuzz rebase format clean

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
	@for p in $(FUZZ_PACKAGES); do dpkg-query -W $$p >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq $(FUZZ_PACKAGES); break; }; done
	CXX=clang++ cmake -S . -B build-fuzz $(CMAKE_GEN) -DBCUSIM_FUZZ=ON -DBCUSIM_TESTS=OFF -DBCUSIM_BENCH=OFF
	cmake --build build-fuzz -j $(JOBS)

# Regenerate the expected output of the golden tests on purpose (review the diff!).
rebase: build
	python3 tests/golden/run_golden.py --bcusim $(BUILD)/bcusim --rebase tests/golden

format:
	clang-format -i $$(git ls-files '*.cpp' '*.h')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-fuzz
