"""Figures as printed, and what they mean.

Numbers (sign, scale, unit), periods, rounding-aware comparison, the metric taxonomy, table rows as a
grid, key facts from cells and narrative claims from sentences.
"""
