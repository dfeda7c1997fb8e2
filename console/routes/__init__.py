"""The console's pages, one module a family; each module's ``ROUTES`` are composed by the app factory."""
