"""The benchmark harness's shared parts: haul_daemon.py, the `haul serve` both
Benchmarks/run (serve-small) and Benchmarks/serve/run start."""
