#!/usr/bin/env python3
"""Draws latest.png from latest.json: one panel per workload, one bar per tool.

Small-file workloads are plotted in files/s, the others in MB/s; the workload's reference tool
(curl --parallel, curl -o, curl -T) is drawn in grey, haul's transports in blue and orange
(the 2-loop curl engine in light blue).

    Benchmarks/plot.py Benchmarks/results/latest.json Benchmarks/results/latest.png
"""

import json
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLOURS = {"haul-curl": "#1f77b4", "haul-curl-1loop": "#aec7e8", "haul-urlsession": "#ff7f0e",
           "multi-ref": "#2ca02c", "aria2c": "#9467bd", "wget2": "#8c564b", "rclone": "#e377c2"}


def main(source, target):
    with open(source) as file:
        data = json.load(file)
    workloads = data["workloads"]
    columns = 3
    rows = math.ceil(len(workloads) / columns)
    figure, axes = plt.subplots(rows, columns, figsize=(5 * columns, 3.6 * rows), squeeze=False)
    for axis in axes.flat[len(workloads):]:
        axis.axis("off")
    for axis, workload in zip(axes.flat, workloads):
        by_files = workload["files"] >= 100 and workload["bytes"] / workload["files"] < (1 << 20)
        key, unit = ("files_per_s", "files/s") if by_files else ("mb_per_s", "MB/s")
        tools = [t for t in workload["tools"] if key in t]
        names = [t["tool"] for t in tools]
        values = [t[key] for t in tools]
        colours = ["#7f7f7f" if n == workload["reference"] else COLOURS.get(n, "#bcbd22")
                   for n in names]
        bars = axis.bar(range(len(values)), values, color=colours)
        for bar, tool in zip(bars, tools):
            ratio = tool.get("ratio_to_reference")
            if ratio is not None:
                axis.annotate(f"{ratio:.2f}x", (bar.get_x() + bar.get_width() / 2,
                                                bar.get_height()),
                              ha="center", va="bottom", fontsize=8)
        axis.set_xticks(range(len(names)))
        axis.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
        axis.set_title(f"{workload['name']}: {workload['title']}", fontsize=9)
        axis.set_ylabel(unit)
        axis.margins(y=0.15)
    meta = data["machine"]
    figure.suptitle(f"haul vs peers ({meta['date']}, {data['options']['rounds']} round(s), "
                    f"-j {data['options']['j']}; ratio to the grey reference)", fontsize=10)
    figure.tight_layout()
    figure.savefig(target, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
