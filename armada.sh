#!/usr/bin/env bash
# Armada's front door. On a fresh Debian machine it installs what is missing
# (Debian packages only), builds, and then:
#   bash armada.sh demo   the showcase: armada-demo on one node and on two virtual nodes
#   bash armada.sh test   the tests: the normal build, the ASan/UBSan build, then
#                         the threaded tests in a ThreadSanitizer build;
#                         the tests labelled full (the rest of the 16-process
#                         matrix) are left out unless `bash armada.sh test full`
#   bash armada.sh bench  the benchmark report (report/bench-<date>/)
set -eu
cd "$(dirname "$0")"
cmd=${1:-demo}
scope=${2:-}
bash tools/install-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)

build() {  # build DIR [cmake args...]
  local dir=$1; shift
  cmake -S . -B "$dir" "$@" >/dev/null
  cmake --build "$dir" -j "$jobs"
}

tsan_works() {  # a threaded program built with -fsanitize=thread runs here
  local d
  d=$(mktemp -d)
  printf '#include <pthread.h>\nstatic void *f(void *a) { return a; }\nint main(void) { pthread_t t; pthread_create(&t, 0, f, 0); return pthread_join(t, 0); }\n' >"$d/t.c"
  cc -fsanitize=thread -o "$d/t" "$d/t.c" -lpthread >/dev/null 2>&1 && "$d/t" >/dev/null 2>&1
  local rc=$?
  rm -rf "$d"
  return $rc
}

case "$cmd" in
  demo)
    build build -DCMAKE_BUILD_TYPE=RelWithDebInfo
    bash tools/demo.sh build ;;
  test)
    case "$scope" in
      full) skip='^$'; skip_san='nosan' ;;
      # The sanitizer stage runs each variant at its smallest size and at 16
      # processes; the sizes between are the normal build's (decision 084).
      '') skip='full'; skip_san='nosan|full|midsize' ;;
      *) echo "usage: bash armada.sh test [full]" >&2; exit 2 ;;
    esac
    build build -DCMAKE_BUILD_TYPE=RelWithDebInfo
    (cd build && ctest --output-on-failure -j "$jobs" --timeout 600 -LE "$skip")
    build build-asan -DCMAKE_BUILD_TYPE=Debug -DARMADA_SANITIZE=ON \
          -DARMADA_BUILD_BENCH=OFF
    (cd build-asan && ctest --output-on-failure -j "$jobs" --timeout 900 -LE "$skip_san")
    # ThreadSanitizer cannot start on some kernels (a large mmap_rnd_bits):
    # a trivial program tells, and the stage says why it is skipped.
    if tsan_works; then
      build build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DARMADA_TSAN=ON \
            -DARMADA_BUILD_BENCH=OFF -DARMADA_BUILD_APPS=OFF
      (cd build-tsan && ctest --output-on-failure -j "$jobs" --timeout 900 -L tsan)
    else
      echo "armada.sh: ThreadSanitizer does not run on this machine; its stage is skipped" >&2
    fi ;;
  bench)
    build build -DCMAKE_BUILD_TYPE=RelWithDebInfo
    python3 tools/bench/armada_bench.py --build build --default ;;
  *)
    echo "usage: bash armada.sh demo|test [full]|bench" >&2; exit 2 ;;
esac
