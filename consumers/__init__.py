"""The Kafka services, thin handlers around the stages.

Handlers in :mod:`.services`, one runner and checkpoint for all of them (:mod:`.runner`), the transports
(:mod:`.kafka`, :mod:`.memory`) and the operator's tools (:mod:`.ops`).
"""
