"""Load vLLM serve configs the way ``vllm serve --config FILE`` does, without a GPU and without weights.

Runs inside the CPU vLLM venv (``$TIEOUT_CACHE/vllm/venv/bin/python``, installed by ``infra/model.sh fetch``),
so the parser, the config dataclasses and the model-config resolution are vLLM's own, of the pinned version:

1. the ``serve`` subcommand's parser (``FlexibleArgumentParser`` + ``make_arg_parser``, built by
   ``ServeSubcommand.subparser_init`` exactly as the ``vllm`` CLI builds it) reads ``["serve", "--config",
   FILE, *extra]``: every key becomes a flag, and an unknown key or an unknown field of a nested config
   (``structured-outputs-config``) is refused here, as at a real start;
2. ``ServeSubcommand.validate`` runs the serve checks made before loading;
3. ``AsyncEngineArgs.from_cli_args`` builds the engine arguments;
4. ``create_model_config`` resolves the model's ``config.json`` with the ``hf-overrides`` and checks
   ``max-model-len`` against the positions the (overridden) config allows. The Hugging Face repo id of the
   file is swapped for a local folder holding only the published ``config.json`` and
   ``generation_config.json`` (``infra/vllm/models/``): no download, no weights, tokenizer not loaded.

Usage (one process for several cases, because importing vLLM takes ~15 s)::

    python check_serve.py '[{"name": "deep", "config": "infra/vllm/serve-deep.yaml",
                            "model_dir": "infra/vllm/models/qwen2.5-14b-instruct", "extra": []}]'

Prints one JSON list: per case ``{"name", "ok", "stage", "error", "model", "served_model_name",
"max_model_len", "max_position_embeddings", "rope_parameters", "structured_outputs"}``. Exit status 0 when
every case was checked (whether it passed or not is in ``ok``), 2 on bad usage.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("VLLM_NO_USAGE_STATS", "1")


def check(case: dict[str, Any]) -> dict[str, Any]:
    """One config file (plus extra command-line flags, which win over it) through vLLM's own loading."""
    from vllm.engine.arg_utils import AsyncEngineArgs  # type: ignore[import-not-found]
    from vllm.entrypoints.cli.serve import ServeSubcommand  # type: ignore[import-not-found]
    from vllm.utils.argparse_utils import FlexibleArgumentParser  # type: ignore[import-not-found]

    out: dict[str, Any] = {"name": case["name"], "ok": False, "stage": "parse", "error": None}
    top = FlexibleArgumentParser(prog="vllm")
    subparsers = top.add_subparsers(dest="subparser")
    serve = ServeSubcommand()
    serve.subparser_init(subparsers)
    stderr = io.StringIO()
    try:
        with contextlib.redirect_stderr(stderr):
            args = top.parse_args(["serve", "--config", case["config"], *case.get("extra", [])])
    except SystemExit:  # argparse reports a refused value on stderr and exits
        out["error"] = stderr.getvalue().strip()
        return out
    except Exception as exc:  # whatever vLLM raises is the finding
        out["error"] = f"{type(exc).__name__}: {exc}"
        return out
    out["model"] = args.model
    out["served_model_name"] = args.served_model_name
    try:
        out["stage"] = "validate"
        serve.validate(args)
        if case.get("model_dir"):
            # As `vllm serve` does with a positional model: the local folder stands for the repo id.
            args.model = case["model_dir"]
            args.skip_tokenizer_init = True
        out["stage"] = "engine-args"
        engine_args = AsyncEngineArgs.from_cli_args(args)
        out["structured_outputs"] = str(engine_args.structured_outputs_config)
        if not case.get("model_dir"):
            out["ok"] = True
            return out
        out["stage"] = "model-config"
        model_config = engine_args.create_model_config()
    except Exception as exc:
        out["error"] = f"{type(exc).__name__}: {exc}"
        return out
    hf = model_config.hf_config
    out.update(
        ok=True,
        max_model_len=model_config.max_model_len,
        max_position_embeddings=getattr(hf, "max_position_embeddings", None),
        rope_parameters=getattr(hf, "rope_parameters", None),
    )
    return out


def main() -> int:
    """Check the cases given as a JSON list in argv[1]; print the results as a JSON list."""
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    cases = json.loads(sys.argv[1])
    print(json.dumps([check(c) for c in cases], default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
