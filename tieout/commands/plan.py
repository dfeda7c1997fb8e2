"""``tieout plan``: partitions, replicas and lag recovery from the benchmarks' measured costs.

PyYAML is imported where the command writes Helm values, and the planner where it plans: every command
module is imported for every command, and the services' restarts should not pay for them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from tieout.commands.common import console

__all__ = ["plan"]


def plan(
    docs_per_hour: Annotated[float, typer.Option(help="Documents arriving per hour (steady rate).")],
    pages_per_doc: Annotated[float, typer.Option(help="Mean pages per document.")],
    model_tier: Annotated[str, typer.Option(help="Model stage tier: none, standard or deep.")] = "none",
    burst_docs: Annotated[int, typer.Option(help="Documents arriving at once on top of the rate.")] = 0,
    outage_hours: Annotated[
        float, typer.Option(help="Longest consumer outage the topics' retention must absorb.")
    ] = 72.0,
    target_utilisation: Annotated[float, typer.Option(help="Share of each replica planned busy.")] = 0.7,
    as_json: Annotated[bool, typer.Option("--json", help="Print the plan as JSON.")] = False,
    helm_values: Annotated[
        Path | None, typer.Option(help="Write the Helm chart's topics/stages values fragment here.")
    ] = None,
    results: Annotated[
        Path | None, typer.Option(help="Folder of the benchmarks' result files (default bench/results).")
    ] = None,
) -> None:
    """Partitions, replicas and lag recovery from the per-page costs the benchmarks measured."""
    import yaml

    from adapters.deploy.capacity import RESULTS, load_costs
    from adapters.deploy.planning import Demand, PlanError, Policy, format_plan, make_plan, plan_dict
    from adapters.deploy.planning import helm_values as values

    try:
        demand = Demand(docs_per_hour, pages_per_doc, model_tier, burst_docs)
        policy = Policy(target_utilisation=target_utilisation, outage_hours=outage_hours)
        made = make_plan(demand, load_costs(results or RESULTS), policy)
    except PlanError as exc:
        raise typer.BadParameter(str(exc)) from exc
    typer.echo(json.dumps(plan_dict(made), indent=2) if as_json else "\n".join(format_plan(made)))
    if helm_values is not None:
        helm_values.write_text(yaml.safe_dump(values(made), sort_keys=False), encoding="utf-8")
        sys.stdout.flush()  # the plan first, then the note on stderr
        console.print(f"wrote {helm_values}")
