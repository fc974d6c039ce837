#!/usr/bin/env python3
"""Runs the run-time benchmarks and prints dimgraph's time against the hand loop and the peers.

Runs each binary given (dimgraph_bench_elementwise, _math, _reduce, _chain, _lstm) with
  --benchmark_format=json --benchmark_repetitions=N --benchmark_report_aggregates_only=true
(N = 5 unless --repetitions), --runs times (1 unless given), and, unless --no-interleave,
--benchmark_enable_random_interleaving=true (the repetitions of all sides run in a random
order, so that a change in machine load during the run touches every side alike). A binary
names its benchmarks "<workload>/<side>"; the sides are dimgraph, hand (the hand-written
loop), eigen and torch (when the binary was built with them), plus extra references such
as hand_stream or dimgraph_2t. A workload may time Eigen in more than one formulation
(eigen, eigen_<how>): its eigen column is the fastest of them. Each binary checks every side against its hand loop before
timing; its stderr is passed through.

Prints one markdown table of the median times per workload and the ratios
  dimgraph / hand
  dimgraph / min(eigen, hand)    the bar: the faster of Eigen and the hand loop
  dimgraph / torch
  dimgraph / best peer           best peer: the faster of Eigen and LibTorch
  cv dg, hand                    the spread of dimgraph's and the hand loop's repetitions
                                 (coefficient of variation): a ratio within a few of these
                                 percent of 1.0 is parity, not a difference
("-" where a side is missing), then a table of the extra references: their median, their
time over the hand loop's, and dimgraph's time over theirs (with every Eigen formulation of
a workload that has several; for a side on 2 threads, "<name>_2t", dimgraph_2t's time when
there is one).

With --runs R > 1, each median is the smallest of the R runs' medians ("min of medians": on
a noisy machine, where the medians of the same binary differ by 10-20% between runs, the
least disturbed run of each side), and each spread the largest of the R runs' spreads.

    python3 bench/runtime/ratios.py build/bench-gcc-O2/bench/dimgraph_bench_elementwise \\
        build/bench-gcc-O2/bench/dimgraph_bench_math --title "g++ -O2"
    python3 bench/runtime/ratios.py <binary> --time cpu_time -- --benchmark_min_time=1
    taskset -c 1 python3 bench/runtime/ratios.py <binary> --runs 3 -- --benchmark_filter='W4a/'

Exits with a binary's status when it fails (1 when a signal ends it), and with 1 when a
workload lacks its dimgraph or hand median, or when no workload has any.
"""

import argparse
import json
import subprocess
import sys

# Workloads in this order first, the rest by name.
ORDER = ["W1a", "W1b", "W2", "W3", "W4a", "W4b", "W4c", "W4d", "W4e", "W5", "W6", "W6b", "W7", "W8.exp", "W8.tanh",
         "W8.sigmoid", "W8.gelu", "W9.relu", "W9.where", "W9.relu_btf", "W9.where_btf",
         "tanh_affine", "scale_add"]
MAIN_SIDES = ["dimgraph", "hand", "eigen", "torch"]
NANOSECONDS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def run_benchmarks(binary, repetitions, interleave, extra):
    command = [binary, "--benchmark_format=json", f"--benchmark_repetitions={repetitions}",
               "--benchmark_report_aggregates_only=true"]
    if interleave:
        command.append("--benchmark_enable_random_interleaving=true")
    command += extra
    print("$ " + " ".join(command), file=sys.stderr, flush=True)
    run = subprocess.run(command, stdout=subprocess.PIPE, text=True)
    if run.returncode != 0:
        how = (f"was killed by signal {-run.returncode}" if run.returncode < 0
               else f"failed with exit status {run.returncode}")
        print(f"ratios.py: {binary} {how}", file=sys.stderr)
        sys.exit(run.returncode if run.returncode > 0 else 1)
    return json.loads(run.stdout)


def aggregates(report, time_key, name):
    """{workload: {side: value}} from the `name` aggregates of `report` (for "median" in
    nanoseconds; for "cv" the fraction Google Benchmark gives)."""
    found = {}
    for bench in report["benchmarks"]:
        if bench.get("run_type") != "aggregate" or bench.get("aggregate_name") != name:
            continue
        # run_name is "<workload>/<side>" plus suffixes such as "/repeats:5".
        parts = bench["run_name"].split("/")
        if len(parts) < 2:
            continue
        value = bench[time_key]
        if name != "cv":
            value *= NANOSECONDS[bench["time_unit"]]
        found.setdefault(parts[0], {})[parts[1]] = value
    return found


def show_spread(cv):
    return "-" if cv is None else f"{100 * cv:.1f}%"


def show_time(ns):
    if ns is None:
        return "-"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3f} {unit}"
    return f"{ns:.2f} ns"


def ratio(num, den):
    if num is None or den is None:
        return "-"
    r = num / den
    return f"{r:.2f}" if r >= 0.1 else f"{r:.2g}"


def fastest(*times):
    present = [t for t in times if t is not None]
    return min(present) if present else None


def print_table(rows):
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for i, row in enumerate(rows):
        cells = [cell.ljust(widths[c]) if c == 0 else cell.rjust(widths[c])
                 for c, cell in enumerate(row)]
        print("| " + " | ".join(cells) + " |")
        if i == 0:
            print("|" + "|".join("-" * (w + 2) if c == 0 else "-" * (w + 1) + ":"
                                 for c, w in enumerate(widths)) + "|")


def same_threads(sides, side, mine):
    """dimgraph's time to set against `side`: dimgraph_2t's for another side on 2 threads
    (a name ending in _2t), when the binary has it; else dimgraph's."""
    if side.endswith("_2t") and side != "dimgraph_2t" and "dimgraph_2t" in sides:
        return sides["dimgraph_2t"]
    return mine


def workload_key(name):
    return (ORDER.index(name), "") if name in ORDER else (len(ORDER), name)


def main():
    parser = argparse.ArgumentParser(
        description="dimgraph's run-time benchmark medians against the hand loop and the peers",
        epilog="Flags after -- go to every binary (Google Benchmark flags).")
    parser.add_argument("binaries", nargs="+", metavar="binary", help="benchmark binaries")
    parser.add_argument("--title", default="", help="a line printed above the tables")
    parser.add_argument("--time", choices=["real_time", "cpu_time"], default="real_time",
                        help="which time to compare (default: real_time)")
    parser.add_argument("--repetitions", type=int, default=5,
                        help="repetitions of every benchmark (default: 5; at least 5 for the "
                        "reported medians)")
    parser.add_argument("--runs", type=int, default=1,
                        help="run every binary this many times and keep each side's smallest "
                        "median (default: 1)")
    parser.add_argument("--no-interleave", action="store_true",
                        help="run the repetitions of each benchmark back to back")
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:cut])
    args.extra = argv[cut + 1:]

    times = {}
    spreads = {}
    context = {}
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    for binary in args.binaries:
        for _ in range(args.runs):
            report = run_benchmarks(binary, args.repetitions, not args.no_interleave, args.extra)
            for workload, sides in aggregates(report, args.time, "median").items():
                kept = times.setdefault(workload, {})
                for side, value in sides.items():
                    kept[side] = min(value, kept.get(side, value))
            for workload, sides in aggregates(report, args.time, "cv").items():
                kept = spreads.setdefault(workload, {})
                for side, value in sides.items():
                    kept[side] = max(value, kept.get(side, value))
            context = context or report.get("context", {})

    if not times:
        print("ratios.py: no workload has medians (filtered out?)", file=sys.stderr)
        return 1

    main_rows = [("workload", "dimgraph", "hand", "eigen", "torch", "dg/hand",
                  "dg/min(eigen,hand)", "dg/torch", "dg/best peer", "cv dg, hand")]
    extra_rows = [("workload", "side", "median", "side/hand", "dimgraph/side")]
    incomplete = []
    for workload in sorted(times, key=workload_key):
        sides = times[workload]
        mine, hand, torch = sides.get("dimgraph"), sides.get("hand"), sides.get("torch")
        eigen = fastest(*(t for s, t in sides.items() if s == "eigen" or s.startswith("eigen_")))
        if mine is None or hand is None:
            incomplete.append(workload)
        main_rows.append((workload, show_time(mine), show_time(hand), show_time(eigen),
                          show_time(torch), ratio(mine, hand), ratio(mine, fastest(eigen, hand)),
                          ratio(mine, torch), ratio(mine, fastest(eigen, torch)),
                          show_spread(spreads.get(workload, {}).get("dimgraph")) + ", " +
                          show_spread(spreads.get(workload, {}).get("hand"))))
        # Every Eigen formulation where there are several, the other extra references.
        extras = [s for s in sides if s not in MAIN_SIDES]
        if "eigen" in sides and any(s.startswith("eigen_") for s in extras):
            extras.append("eigen")
        for side in sorted(extras):
            extra_rows.append((workload, side, show_time(sides[side]), ratio(sides[side], hand),
                               ratio(same_threads(sides, side, mine), sides[side])))

    if args.title:
        print(f"### {args.title}")
    load = " ".join(f"{x:.2f}" for x in context.get("load_avg", []))
    runs = f"the smallest of {args.runs} runs' " if args.runs > 1 else ""
    print(f"{args.time}, {runs}medians of {args.repetitions} "
          f"{'' if args.no_interleave else 'interleaved '}repetitions; "
          f"{context.get('num_cpus', '?')} CPUs at {context.get('mhz_per_cpu', '?')} MHz, "
          f"load average {load or '?'}")
    print()
    print_table(main_rows)
    if len(extra_rows) > 1:
        print()
        print_table(extra_rows)
    print(flush=True)
    if incomplete:
        print(f"ratios.py: no dimgraph or no hand median for {', '.join(incomplete)}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
