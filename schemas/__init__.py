"""The records: frozen pydantic models of every record, event and topic payload, and their JSON Schemas."""
