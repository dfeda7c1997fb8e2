"""I/O adapters: object storage, sinks, the model server's client, service settings, dataset export.

They depend on ``pipeline`` and ``schemas``, never on the services or the CLI (the layer contract in
``pyproject.toml`` checks it).
"""
