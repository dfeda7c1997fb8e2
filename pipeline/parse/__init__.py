"""Page geometry to typed tables and chunks.

Sniffing, words and lines, table finding, stitching across pages, scales, typed cells, pdfplumber's
second opinion on ruled tables, and heading-aware chunks.
"""
