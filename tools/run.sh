#!/usr/bin/env bash
# Set up, build and run dimgraph. Installs the Debian packages it needs when they are missing.
#
#   bash tools/run.sh examples     build every example with GCC and run it
#   bash tools/run.sh tests        build and run the whole test suite with GCC
#   bash tools/run.sh bench [PRESET...]
#                                  run-time benchmarks against hand loops, Eigen and LibTorch, one
#                                  table per build (default: bench-gcc-O2, bench-gcc-native,
#                                  bench-clang-O2, bench-clang-native; bench-gcc-native-omp adds
#                                  OpenMP), then, with no PRESET, the compile-time benchmarks
#   bash tools/run.sh bench-compile [ARGS...]
#                                  compile-time benchmarks only (ARGS go to bench/compile/run.py)
#   bash tools/run.sh format       check formatting with clang-format-16
#   bash tools/run.sh format-fix   reformat in place with clang-format-16
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
jobs="$(nproc)"

usage() {
  sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  exit 2
}

# shellcheck source=tools/packages.sh
source "$root/tools/packages.sh"

base_packages=(cmake g++ make libboost-dev doctest-dev nlohmann-json3-dev)

# The C++ sources that clang-format owns (generated single_include/ excluded).
format_sources() {
  find include tests examples bench -type f \( -name '*.hpp' -o -name '*.cpp' \) | sort
}

command="${1:-}"
case "$command" in
  examples)
    ensure_packages "${base_packages[@]}"
    cmake --preset gcc -DDIMGRAPH_BUILD_TESTS=OFF -DDIMGRAPH_BUILD_EXAMPLES=ON
    cmake --build --preset gcc -j "$jobs"
    ran=0 failed=0
    while IFS= read -r program; do
      echo
      echo "== example: $(basename "$program")"
      ran=$((ran + 1))
      status=0
      "$program" || status=$?
      if ((status != 0)); then
        echo "!! example $(basename "$program") failed (exit status $status)"
        failed=$((failed + 1))
      fi
    done <build/gcc/examples/examples.txt
    echo
    echo "examples: $ran run, $failed failed"
    ((ran > 0 && failed == 0))
    ;;
  tests)
    # (clang-16: the codegen checks also hold Clang's kernels to the SIMD-loop rule.)
    ensure_packages "${base_packages[@]}" python3 clang-16
    cmake --preset gcc -DDIMGRAPH_BUILD_TESTS=ON -DDIMGRAPH_BUILD_EXAMPLES=ON
    cmake --build --preset gcc -j "$jobs"
    ctest --preset gcc -j "$jobs" --output-on-failure
    ;;
  bench)
    # Eigen is a peer in every table; LibTorch (libtorch-dev, large) is one when installed.
    ensure_packages "${base_packages[@]}" python3 libbenchmark-dev libopenblas-dev libeigen3-dev
    shift
    presets=("$@")
    if ((${#presets[@]} == 0)); then
      presets=(bench-gcc-O2 bench-gcc-native bench-clang-O2 bench-clang-native)
    fi
    for preset in "${presets[@]}"; do
      echo
      echo "== $preset"
      cmake --preset "$preset"
      cmake --build --preset "$preset" -j "$jobs"
      bin="build/$preset/bench"
      # One CPU for every side (the last one); the OpenMP build needs them all.
      pin=()
      if [[ "$preset" != *-omp ]] && command -v taskset >/dev/null && (($(nproc) > 1)); then
        pin=(taskset -c "$(($(nproc) - 1))")
      fi
      "${pin[@]}" python3 bench/runtime/ratios.py --title "$preset" \
        "$bin/dimgraph_bench_elementwise" "$bin/dimgraph_bench_math" \
        "$bin/dimgraph_bench_reduce" "$bin/dimgraph_bench_short_rows" "$bin/dimgraph_bench_chain" \
        "$bin/dimgraph_bench_lstm" "$bin/dimgraph_bench_gru"
      # GEMV and GEMM: dimgraph, the hand loop and single-threaded OpenBLAS (medians of 5, FLOP/s).
      "${pin[@]}" "$bin/dimgraph_bench_contract" --benchmark_enable_random_interleaving=true
    done
    if (($# == 0)); then
      python3 bench/compile/run.py
    fi
    ;;
  bench-compile)
    ensure_packages "${base_packages[@]}" python3 libeigen3-dev
    shift
    python3 bench/compile/run.py "$@"
    ;;
  format | format-fix)
    ensure_packages clang-format-16
    mapfile -t sources < <(format_sources)
    if ((${#sources[@]} == 0)); then
      echo "no sources to format"
      exit 0
    fi
    if [[ "$command" == format ]]; then
      clang-format-16 --dry-run -Werror "${sources[@]}"
      echo "formatting ok (${#sources[@]} files)"
    else
      clang-format-16 -i "${sources[@]}"
      echo "formatted ${#sources[@]} files"
    fi
    ;;
  *)
    usage
    ;;
esac
