"""The planted-errors benchmark, module by module; :mod:`bench.planted_errors` is its command line."""
