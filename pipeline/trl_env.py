"""TRL GRPO over the trajpipe sandbox: a reward function and an environment factory.

* :func:`grpo_reward` is a TRL custom reward function (``GRPOTrainer(reward_funcs=...)``): TRL
  calls ``reward_func(prompts=..., completions=..., completion_ids=..., **columns)`` with every
  dataset column as a keyword list, and expects one float per completion. It reads the rl
  dataset's ``reward_model`` column (``ground_truth``) and scores each completion with
  :func:`pipeline.rewards.compute_score` (or, when TRL passes ``environments``, from the calls the
  environment really ran).
* :func:`environment_factory` returns the zero-argument callable TRL's
  ``GRPOTrainer(environment_factory=...)`` expects (TRL >= 1.x, experimental): each instance has
  ``reset(**row)`` (TRL passes the dataset row), one public method per domain tool (type-hinted,
  Google-style docstring, as TRL's tool calling requires) and ``get_reward()`` (the verifier's
  score of the sandbox state the tool calls reached).

Nothing here trains; the rl dataset plus these two plug into TRL as they are::

    trainer = GRPOTrainer(model=..., train_dataset=load_dataset("parquet", data_files="rl.parquet")["train"],
                          reward_funcs=grpo_reward, environment_factory=environment_factory("airline"))
"""
from __future__ import annotations

import inspect
import json
from typing import Any, Callable

from pipeline.rewards import compute_score, load_ground_truth, replay, score_trajectory, segments

_PY_TYPES = {"string": str, "integer": int, "number": float, "boolean": bool, "array": list, "object": dict}


def completion_text(completion: Any) -> str:
    """A TRL completion as Hermes text: a string stays as is; a conversational completion (a list
    of messages, possibly with structured ``tool_calls`` and ``tool`` results) is rendered with
    :func:`pipeline.rollout.prompting.render_for_model` and joined."""
    if isinstance(completion, str):
        return completion
    from pipeline.rollout.prompting import render_for_model

    msgs = []
    for m in completion or []:
        m = dict(m)
        for tc in m.get("tool_calls") or []:
            fn = tc.get("function") or {}
            if not isinstance(fn.get("arguments"), str):
                fn["arguments"] = json.dumps(fn.get("arguments") or {})
        msgs.append(m)
    return "\n".join(m["content"] for m in render_for_model(msgs) if m.get("content"))


def _ground_truth_of(kwargs: dict[str, Any], i: int) -> Any:
    rm = kwargs.get("reward_model")
    if rm is not None:
        row = rm[i]
        return row["ground_truth"] if isinstance(row, dict) else row
    gt = kwargs.get("ground_truth")
    if gt is not None:
        return gt[i]
    raise ValueError("grpo_reward needs the rl dataset's `reward_model` (or a `ground_truth`) column")


def grpo_reward(completions: list[Any], **kwargs: Any) -> list[float]:
    """TRL GRPO reward: the verifier's combined reward (:func:`pipeline.rewards.compute_score`
    ``["score"]``, in [0, 1]) of each completion.

    ``kwargs`` are the dataset columns TRL forwards (``reward_model``, ``data_source``, ...); when
    TRL passes ``environments`` (environment_factory runs), a completion is scored from the calls
    its :class:`SandboxEnv` actually executed. Raises ValueError when no ground truth is given.
    """
    envs = kwargs.get("environments")
    sources = kwargs.get("data_source") or [""] * len(completions)
    out = []
    for i, c in enumerate(completions):
        env = envs[i] if envs else None
        if isinstance(env, SandboxEnv) and env.gt is not None:
            texts = [v for k, v in segments(completion_text(c)) if k == "text"]
            out.append(env._score(texts[-1] if texts else "")["score"])
        else:
            out.append(compute_score(sources[i], completion_text(c), _ground_truth_of(kwargs, i))["score"])
    return out


class SandboxEnv:
    """Base class of the per-domain environments :func:`environment_factory` builds.

    ``reset(**row)`` starts a fresh sandbox from the row's ``reward_model.ground_truth`` (returns
    None: the prompt already holds the task); tool methods run one call each and return the tool
    result text; ``get_reward()`` scores the state reached. ``calls`` lists the executed calls.
    """

    domain_name = ""

    def __init__(self) -> None:
        from pipeline.domains import get_domain

        self.domain = get_domain(self.domain_name)
        self.gt: dict[str, Any] | None = None
        self.sandbox = None
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def reset(self, **row: Any) -> None:
        rm = row.get("reward_model") or {}
        gt = rm.get("ground_truth") if isinstance(rm, dict) else None
        gt = gt if gt is not None else row.get("ground_truth")
        self.gt = load_ground_truth(gt) if gt is not None else None
        from pipeline.sandbox import Sandbox

        self.sandbox = Sandbox(self.domain, self.gt["initial_state"]) if self.gt else None
        self.calls = []
        return None

    def _call(self, name: str, arguments: dict[str, Any]) -> str:
        if self.sandbox is None:
            raise RuntimeError("reset() the environment with an rl row before calling tools")
        self.calls.append((name, dict(arguments)))
        return self.sandbox.call(name, dict(arguments)).content

    def _score(self, final_text: str = "") -> dict[str, float]:
        """The verifier's score dict of the calls executed so far plus ``final_text`` (the agent's
        last words, used by refusal checks)."""
        segs = [("call_parsed", c) for c in self.calls] + ([("text", final_text)] if final_text else [])
        traj = replay(self.gt, self.domain, segs)
        return score_trajectory(traj, self.gt, self.domain)

    def get_reward(self) -> float:
        """The verifier's combined reward of the state the tool calls reached (TRL calls this once
        per finished rollout)."""
        if self.gt is None:
            return 0.0
        return self._score()["score"]


def _make_method(name: str, schema: dict[str, Any]) -> Callable[..., str]:
    fn_schema = schema.get("function", schema)
    params = fn_schema.get("parameters") or {}
    props = params.get("properties") or {}
    required = set(params.get("required") or [])

    def method(self, **kwargs: Any) -> str:
        return self._call(name, {k: v for k, v in kwargs.items() if v is not None or k in required})

    sig_params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    ann: dict[str, Any] = {"return": str}
    arg_docs = []
    for pname, p in props.items():
        t = _PY_TYPES.get(p.get("type") if isinstance(p.get("type"), str) else "", str)
        if pname not in required:
            t = t | None
        ann[pname] = t
        sig_params.append(inspect.Parameter(pname, inspect.Parameter.KEYWORD_ONLY,
                                            default=inspect.Parameter.empty if pname in required else None,
                                            annotation=t))
        desc = (p.get("description") or f"the {pname.replace('_', ' ')}").replace("\n", " ")
        arg_docs.append(f"    {pname}: {desc}")
    method.__name__ = name
    method.__qualname__ = name
    method.__signature__ = inspect.Signature(sig_params, return_annotation=str)
    method.__annotations__ = ann
    desc = (fn_schema.get("description") or name).strip()
    method.__doc__ = desc + "\n\n" + ("Args:\n" + "\n".join(arg_docs) + "\n\n" if arg_docs else "") + \
        "Returns:\n    The tool result text (an 'Error: ...' text when the call fails)."
    return method


def environment_class(domain_name: str) -> type[SandboxEnv]:
    """A :class:`SandboxEnv` subclass for ``domain_name`` with one method per domain tool.

    Raises ValueError for an unknown domain (from :func:`pipeline.domains.get_domain`) or a tool
    whose name clashes with ``reset`` / ``get_reward``."""
    from pipeline.domains import get_domain

    domain = get_domain(domain_name)
    attrs: dict[str, Any] = {"domain_name": domain_name, "__doc__": f"TRL environment over the {domain_name} sandbox."}
    for name, tool in domain.tools.items():
        if name in ("reset", "get_reward") or name.startswith("_"):
            raise ValueError(f"tool name {name!r} clashes with the environment's own methods")
        attrs[name] = _make_method(name, tool.schema)
    return type(f"{domain_name.title()}SandboxEnv", (SandboxEnv,), attrs)


def environment_factory(domain_name: str) -> Callable[[], SandboxEnv]:
    """The zero-argument factory for ``GRPOTrainer(environment_factory=...)`` of the registered
    domain ``domain_name`` (no default: the rl rows name their domain): each call returns a fresh
    environment instance (TRL keeps one per rollout)."""
    cls = environment_class(domain_name)
    return cls


#: A ChatML training chat template for SFT with ``assistant_only_loss=True`` (TRL) /
#: ``return_assistant_tokens_mask=True`` (transformers): assistant turns, including their
#: ``<|im_end|>``, sit inside ``{% generation %}...{% endgeneration %}``, so the mask covers what the
#: agent says, its Hermes ``<tool_call>`` blocks and its stop token, and nothing of the system,
#: customer or tool-result turns. Renders exactly what the rollout harness showed the teacher
#: (:func:`pipeline.rollout.prompting.render_for_model` + SmolLM2's ChatML template); the tools
#: are already in the system prompt of trajpipe rows (a ``tools`` argument is only rendered when
#: there is no system message).
TRAINING_CHAT_TEMPLATE = (
    "{%- if tools and messages[0]['role'] != 'system' -%}"
    "{{- '<|im_start|>system\\n<tools>\\n' -}}{%- for t in tools -%}{{- t | tojson -}}{{- '\\n' -}}{%- endfor -%}"
    "{{- '</tools><|im_end|>\\n' -}}"
    "{%- endif -%}"
    "{%- for message in messages -%}"
    "{%- if message['role'] == 'assistant' -%}"
    "{{- '<|im_start|>assistant\\n' -}}"
    "{%- generation -%}"
    "{%- if message['content'] -%}{{- message['content'] -}}{%- endif -%}"
    "{%- if message['tool_calls'] -%}{%- for tc in message['tool_calls'] -%}"
    "{%- if message['content'] or not loop.first -%}{{- '\\n' -}}{%- endif -%}"
    "{{- '<tool_call>\\n{\"name\": \"' + tc['function']['name'] + '\", \"arguments\": ' -}}"
    "{%- if tc['function']['arguments'] is string -%}{{- tc['function']['arguments'] -}}"
    "{%- else -%}{{- tc['function']['arguments'] | tojson -}}{%- endif -%}"
    "{{- '}\\n</tool_call>' -}}"
    "{%- endfor -%}{%- endif -%}"
    "{{- '<|im_end|>' -}}"
    "{%- endgeneration -%}"
    "{{- '\\n' -}}"
    "{%- elif message['role'] == 'tool' -%}"
    "{{- '<|im_start|>tool\\n<tool_response>\\n' + (message['content'] or '') + '\\n</tool_response><|im_end|>\\n' -}}"
    "{%- else -%}"
    "{{- '<|im_start|>' + message['role'] + '\\n' + (message['content'] or '') + '<|im_end|>\\n' -}}"
    "{%- endif -%}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\\n' -}}{%- endif -%}"
)


def prepare_tokenizer(tokenizer: Any) -> Any:
    """Make a ChatML tokenizer (e.g. the bundled SmolLM2's) ready for TRL with trajpipe data.

    Sets :data:`TRAINING_CHAT_TEMPLATE` (assistant turns in ``{% generation %}`` for
    ``assistant_only_loss``; renders tool calls and tool results, as TRL's tool-calling check
    requires) and, for ``GRPOTrainer(environment_factory=...)``, the response parser of Hermes
    ``<tool_call>`` JSON blocks (TRL's ``qwen3_template``, the same ``<tool_call>`` format trajpipe
    prompts use) as ``tokenizer.response_template`` when the installed transformers supports it.
    Returns the same tokenizer.
    """
    tokenizer.chat_template = TRAINING_CHAT_TEMPLATE
    try:
        from trl.chat_template_utils import _SUPPORTS_RESPONSE_TEMPLATE, qwen3_schema, qwen3_template
    except ImportError:  # trl not installed or an older layout: SFT still works
        return tokenizer
    if _SUPPORTS_RESPONSE_TEMPLATE:
        tokenizer.response_template = qwen3_template
    else:  # pragma: no cover - transformers < 5.13
        tokenizer.response_schema = qwen3_schema
    return tokenizer
