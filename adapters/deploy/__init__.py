"""Deployment planning from measured costs.

Partitions, replicas and lag recovery (:mod:`.planning`) from the per-replica costs the benchmarks
measured (:mod:`.capacity`).
"""
