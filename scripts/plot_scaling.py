#!/usr/bin/python3
"""Plot particle-steps/s against particle count N from Google Benchmark JSON.

usage: scripts/plot_scaling.py [-o PNG] [--title T] [--match REGEX]...
                               [--hline VALUE:LABEL]... BENCH.json [BENCH.json ...]

Each input comes from `--benchmark_out=F --benchmark_out_format=json`. A benchmark
named `<scenario>/<backend>/<law>[/...]/<N>[/min_time:2.000/real_time...]` gives the
point (N, particle_steps_per_s) of the series `<scenario>/<backend>/<law>[/...]`.
With repetitions the median aggregate is used, else the mean of the iterations.
A markdown table of the plotted points is printed to stdout.
"""
import argparse
import json
import os
import re
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

RATE, BPP = "particle_steps_per_s", "bytes_per_particle"
AGG_SUFFIX = re.compile(r"_(mean|median|stddev|cv)$")
GB_SUFFIXES = {"real_time", "process_time", "manual_time"}


def split_name(run_name):
    """'a/b/c/1000/min_time:2.000/real_time' -> ('a/b/c', 1000), or (None, None)."""
    parts = [p for p in run_name.split("/") if ":" not in p and p not in GB_SUFFIXES]
    numeric = [i for i, p in enumerate(parts) if p.isdigit()]
    if not numeric:
        return None, None
    i = numeric[-1]
    return "/".join(parts[:i] + parts[i + 1:]), int(parts[i])


def load(path):
    """Return {run_name: {"iter": [entry...], "median": entry, "mean": entry}}."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"plot_scaling.py: cannot read {path}: {e}")
    benches = doc.get("benchmarks") if isinstance(doc, dict) else None
    if not isinstance(benches, list):
        sys.exit(f"plot_scaling.py: {path}: no \"benchmarks\" array")
    runs = {}
    for b in benches:
        if not isinstance(b, dict) or not isinstance(b.get(RATE), (int, float)):
            continue  # e.g. copy_bandwidth: no throughput counter
        name = b.get("name", "")
        run = runs.setdefault(b.get("run_name") or AGG_SUFFIX.sub("", name), {"iter": []})
        agg = b.get("aggregate_name") if b.get("run_type") == "aggregate" else None
        if agg is None and "run_type" not in b and AGG_SUFFIX.search(name):
            agg = AGG_SUFFIX.search(name).group(1)
        if agg is None:
            run["iter"].append(b)
        else:
            run[agg] = b
    return runs


def summarise(run):
    """(rate, bytes_per_particle or None): median aggregate, else mean of iterations."""
    chosen = [run["median"]] if "median" in run else run["iter"] or [run.get("mean")]
    chosen = [e for e in chosen if e]
    if not chosen:
        return None, None
    bpp = [e[BPP] for e in chosen if isinstance(e.get(BPP), (int, float))]
    return statistics.fmean(e[RATE] for e in chosen), (statistics.fmean(bpp) if bpp else None)


def sig3(v):
    mantissa, exponent = f"{v:.2e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def parse_hline(text):
    value, _, label = text.partition(":")
    try:
        v = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected VALUE:LABEL, got {text!r}")
    if v <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: value must be > 0 on a log axis")
    return v, label or sig3(v)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("json", nargs="+", help="Google Benchmark JSON output file(s)")
    ap.add_argument("-o", "--output", default="docs/bench/scaling.png", help="PNG path")
    ap.add_argument("--title", default="dem: throughput against N")
    ap.add_argument("--match", action="append", default=[], metavar="REGEX",
                    help="keep series whose name matches (repeatable, any)")
    ap.add_argument("--hline", action="append", default=[], type=parse_hline,
                    metavar="VALUE:LABEL", help="horizontal reference line (repeatable)")
    args = ap.parse_args()
    try:
        patterns = [re.compile(p) for p in args.match]
    except re.error as e:
        sys.exit(f"plot_scaling.py: bad --match regex: {e}")

    per_file = []  # [(file stem, {series: {N: (rate, bpp)}})]
    for path in args.json:
        series = {}
        for run_name, run in load(path).items():
            name, n = split_name(run_name)
            if n is None:
                print(f"plot_scaling.py: warning: {path}: no N in {run_name!r}, skipped",
                      file=sys.stderr)
                continue
            if patterns and not any(p.search(name) for p in patterns):
                continue
            rate, bpp = summarise(run)
            if rate is not None:
                series.setdefault(name, {})[n] = (rate, bpp)
        per_file.append((os.path.splitext(os.path.basename(path))[0], series))

    # A series present in several files is labelled with the file it came from.
    files_of = {}
    for _, series in per_file:
        for name in series:
            files_of[name] = files_of.get(name, 0) + 1
    lines = {}
    for stem, series in per_file:
        for name, pts in series.items():
            lines[name if files_of[name] == 1 else f"{name} [{stem}]"] = pts
    if not lines:
        sys.exit("plot_scaling.py: no series with particle_steps_per_s"
                 + (" matching --match" if patterns else ""))

    fig, ax = plt.subplots(figsize=(9, 6))
    markers = "osD^v<>px*h"
    for i, (label, pts) in enumerate(sorted(lines.items())):
        ns = sorted(pts)
        ax.plot(ns, [pts[n][0] for n in ns], marker=markers[i % len(markers)], label=label)
    for j, (value, label) in enumerate(args.hline):
        ax.axhline(value, color=f"{0.15 + 0.2 * (j % 3):.2f}",
                   linestyle=["--", ":", "-."][j % 3], linewidth=1.2, label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("particles N")
    ax.set_ylabel("particle-steps per second")
    ax.set_title(args.title)
    ax.grid(True, which="major", alpha=0.6)
    ax.grid(True, which="minor", alpha=0.2)
    ax.legend(fontsize="small")
    fig.tight_layout()
    if os.path.dirname(args.output):
        os.makedirs(os.path.dirname(args.output), exist_ok=True)
    fig.savefig(args.output, dpi=120)
    print(f"plot_scaling.py: wrote {args.output}", file=sys.stderr)

    with_bpp = any(b is not None for pts in lines.values() for _, b in pts.values())
    print("| series | N | particle-steps/s |" + (" bytes/particle |" if with_bpp else ""))
    print("|---|---:|---:|" + ("---:|" if with_bpp else ""))
    for label, pts in sorted(lines.items()):
        for n in sorted(pts):
            rate, bpp = pts[n]
            row = f"| {label} | {n} | {sig3(rate)} |"
            if with_bpp:
                row += f" {'' if bpp is None else f'{bpp:.4g}'} |"
            print(row)


if __name__ == "__main__":
    main()
