# Convenience front end over CMake; the README's commands use these targets.
BUILD ?= build
JOBS  ?= 2

.PHONY: all deps build demo test test-asan bench install clean
all: build

deps:
	bash tools/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	bash tools/demo.sh $(BUILD)

# The tests labelled full (the rest of the 16-process matrix, the open
# interrupted-allocation fault test) run with CTEST_ARGS= or `bash armada.sh test full`.
CTEST_ARGS ?= -LE full

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) $(CTEST_ARGS)

test-asan: deps
	cmake -S . -B $(BUILD)-asan -DCMAKE_BUILD_TYPE=Debug -DARMADA_SANITIZE=ON >/dev/null
	cmake --build $(BUILD)-asan -j $(JOBS)
	cd $(BUILD)-asan && ctest --output-on-failure -j $(JOBS) -LE 'nosan|full' $(CTEST_ASAN_ARGS)

bench: build
	python3 tools/bench/armada_bench.py --build $(BUILD) --default

clean:
	rm -rf $(BUILD) $(BUILD)-asan
