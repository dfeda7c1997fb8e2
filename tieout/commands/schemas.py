"""``tieout schemas``: write the records' JSON Schemas, or register the topics' in a schema registry.

The records' models and the registry client are imported inside the commands: every command module is
imported for every command, and building the models costs the others' start-up (the services' restarts).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table as RichTable

from adapters.settings import DEFAULT_ENV_FILE, Settings, read_env_file
from tieout.commands import common
from tieout.commands.common import console, fail

__all__ = ["app", "register", "schemas"]

app = typer.Typer(help="The records' JSON Schemas: write them, or register the topics' in a registry.")


@app.callback(invoke_without_command=True)
def schemas(
    ctx: typer.Context,
    out: Annotated[Path, typer.Option("--out", help="Folder for the JSON Schema files.")] = Path(
        "schemas/json"
    ),
) -> None:
    """Write the JSON Schema of every record (`tieout schemas register`: the topics' into a registry)."""
    if ctx.invoked_subcommand is not None:
        return
    from schemas.export import write_json_schemas

    for p in write_json_schemas(out):
        console.print(f"wrote {p}")


@app.command("register")
def register(
    registry: Annotated[
        str | None,
        typer.Option(
            "--registry",
            help="Schema registry API root (Confluent-compatible), e.g. "
            "http://127.0.0.1:8080/apis/ccompat/v7. "
            "Default: SCHEMA_REGISTRY_URL, else the one in .tieout/registry.env (infra/registry.sh up).",
        ),
    ] = None,
    compatibility: Annotated[
        str, typer.Option(help="Level set on subjects that have none of their own.")
    ] = "BACKWARD",
    env_file: common.EnvFile = None,
) -> None:
    """Register every topic's JSON Schema under <topic>-value; idempotent (same schema, same id).

    Every topic but landing: the object store writes its records (S3 event JSON), with no schema id.
    """
    from adapters.registry import RegistryError, SchemaRegistry, register_topics, topic_schemas

    settings = Settings.load(env_file)
    local = (env_file or DEFAULT_ENV_FILE).with_name("registry.env")  # infra/registry.sh writes it
    url = registry or settings.schema_registry_url or read_env_file(local).get("SCHEMA_REGISTRY_URL")
    if not url:
        raise fail("no registry: pass --registry URL, set SCHEMA_REGISTRY_URL or run infra/registry.sh up", 2)

    async def go() -> dict[str, int]:
        async with SchemaRegistry(url) as client:
            return await register_topics(client, topic_schemas(settings.topic), compatibility=compatibility)

    try:
        ids = asyncio.run(go())
    except RegistryError as exc:
        raise fail(f"{type(exc).__name__}: {exc}", 1) from exc
    table = RichTable(title=f"registered in {url}")
    table.add_column("subject")
    table.add_column("schema id", justify="right")
    for topic, schema_id in ids.items():
        table.add_row(f"{topic}-value", str(schema_id))
    Console().print(table)
