#!/usr/bin/env python3
"""Runs the run-time benchmarks and prints dimgraph's time against the hand-written loop.

Runs each binary given (dimgraph_bench_elementwise, dimgraph_bench_reduce,
dimgraph_bench_lstm) with
  --benchmark_format=json --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
and, unless --no-interleave, --benchmark_enable_random_interleaving=true (repetitions of the
two sides alternate in a random order, so that a change in machine load during the run
touches both alike). Prints the median of each side and the ratio dimgraph / hand for
each workload the binaries report (W1a, W1b, W2, W3, W4a, W4b, W5, W6, W6b), in one table.
A workload is found by its benchmark names, "<workload>/dimgraph" and "<workload>/hand", so
any binary that names its pairs so can be given. Each binary checks every dimgraph result
against its hand loop before timing; its stderr is passed through.

    python3 bench/runtime/ratios.py build/bench/bench/dimgraph_bench_elementwise \
        build/bench/bench/dimgraph_bench_reduce build/bench/bench/dimgraph_bench_lstm
    python3 bench/runtime/ratios.py <binary> --time cpu_time -- --benchmark_min_time=1

Exits with a binary's status when it fails (1 when a signal ends it), and with 1 when a
workload has a median for only one side, or when no workload has any.
"""

import argparse
import json
import subprocess
import sys

WORKLOADS = ["W1a", "W1b", "W2", "W3", "W4a", "W4b", "W5", "W6", "W6b"]
SIDES = ["dimgraph", "hand"]
NANOSECONDS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def run_benchmarks(binary, interleave, extra):
    command = [binary, "--benchmark_format=json", "--benchmark_repetitions=5",
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


def medians(report, time_key):
    """{(workload, side): nanoseconds} from the median aggregates of `report`."""
    found = {}
    for bench in report["benchmarks"]:
        if bench.get("run_type") != "aggregate" or bench.get("aggregate_name") != "median":
            continue
        # run_name is "<workload>/<side>" plus suffixes such as "/repeats:5".
        parts = bench["run_name"].split("/")
        if len(parts) < 2:
            continue
        found[(parts[0], parts[1])] = bench[time_key] * NANOSECONDS[bench["time_unit"]]
    return found


def show_time(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3f} {unit}"
    return f"{ns:.3f} ns"


def main():
    parser = argparse.ArgumentParser(
        description="dimgraph / hand-written loop time ratios of the run-time benchmarks",
        epilog="Flags after -- go to every binary (Google Benchmark flags).")
    parser.add_argument("binaries", nargs="+", metavar="binary",
                        help="benchmark binaries (dimgraph_bench_elementwise, "
                        "dimgraph_bench_reduce, dimgraph_bench_lstm)")
    parser.add_argument("--time", choices=["real_time", "cpu_time"], default="real_time",
                        help="which time to compare (default: real_time)")
    parser.add_argument("--no-interleave", action="store_true",
                        help="run the repetitions of each benchmark back to back")
    # Everything after the first "--" goes to the binaries.
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:cut])
    args.extra = argv[cut + 1:]

    times = {}
    context = {}
    for binary in args.binaries:
        report = run_benchmarks(binary, not args.no_interleave, args.extra)
        times.update(medians(report, args.time))
        context = context or report.get("context", {})

    rows = [("workload", "dimgraph median", "hand median", "ratio")]
    missing = []
    for workload in WORKLOADS:
        found = [(workload, side) in times for side in SIDES]
        if not all(found):
            if any(found):
                missing.append(workload)
            continue
        mine, hand = (times[(workload, side)] for side in SIDES)
        rows.append((workload, show_time(mine), show_time(hand), f"{mine / hand:.3f}"))

    if len(rows) == 1 and not missing:
        print("ratios.py: no workload has medians (filtered out?)", file=sys.stderr)
        return 1

    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    load = " ".join(f"{x:.2f}" for x in context.get("load_avg", []))
    print(f"# {args.time} medians of 5 repetitions; {context.get('num_cpus', '?')} CPUs, "
          f"load average {load or '?'}")
    for i, row in enumerate(rows):
        print(" | ".join(cell.ljust(widths[c]) if c == 0 else cell.rjust(widths[c])
                         for c, cell in enumerate(row)))
        if i == 0:
            print("-+-".join("-" * w for w in widths))
    if missing:
        print(f"ratios.py: a median for only one side of {', '.join(missing)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
