"""The runs summed up per workload and tool: medians, rates, CPU per GiB and per 1,000 files,
peak RSS, connections and the ratio to the workload's reference (summarize)."""

import statistics

from .common import GIB


def summarize(selected, runs):
    table = []
    for workload in selected:
        rows = {}
        for tool in workload.tools:
            if tool.skipped:
                rows[tool.name] = {"tool": tool.name, "ok": True, "skipped": tool.skipped}
                continue
            results = runs[workload.name][tool.name]
            good = [r for r in results if not r["error"]]
            if not good:
                rows[tool.name] = {"tool": tool.name, "ok": False,
                                   "error": results[0]["error"] if results else "not run"}
                continue
            wall = statistics.median(r["wall"] for r in good)
            cpu = statistics.median(r["cpu"] for r in good)
            rows[tool.name] = {
                "tool": tool.name, "ok": len(good) == len(results), "runs": len(results),
                "failed_runs": len(results) - len(good),
                "wall_s": wall, "wall_min_s": min(r["wall"] for r in good),
                "files_per_s": workload.files / wall,
                "mb_per_s": workload.bytes / wall / 1e6,
                "cpu_s": cpu, "user_s": statistics.median(r["user"] for r in good),
                "sys_s": statistics.median(r["sys"] for r in good),
                "cpu_s_per_gib": cpu / (workload.bytes / GIB),
                "cpu_s_per_1000_files": cpu / (workload.files / 1000),
                "peak_rss_mib": max(r["rss_mib"] for r in good),
                "walls_s": [r["wall"] for r in results],
            }
            counted = [r["connections"] for r in good if r.get("connections") is not None]
            if counted:
                rows[tool.name]["connections"] = statistics.median(counted)
                rows[tool.name]["connections_range"] = [min(counted), max(counted)]
        reference = rows.get(workload.reference)
        for row in rows.values():
            if row.get("files_per_s") and reference and reference.get("files_per_s"):
                row["ratio_to_reference"] = row["files_per_s"] / reference["files_per_s"]
        table.append({"name": workload.name, "title": workload.title, "kind": workload.kind,
                      "files": workload.files, "bytes": workload.bytes,
                      "reference": workload.reference, "passes": workload.passes,
                      "tools": list(rows.values())})
    return table
