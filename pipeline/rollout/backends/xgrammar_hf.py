"""XGrammar in transformers' ``generate``: per-row grammars in one batch.

``xgrammar.contrib.hf.LogitsProcessor`` assumes every row is constrained and that rows never stop
early; a rollout batch mixes constrained agent turns, free customer turns (a model-played
customer) and rows that end on a stop string (``</tool_call>``) while others go on. This wrapper
keeps one ``xgrammar.GrammarMatcher`` per constrained row, lets unconstrained rows through, and
stops constraining a row once its grammar has terminated or it has left the grammar (a finished
row that ``generate`` keeps padding). The bitmask is applied before temperature and top-p (see
:func:`sampling_processors`), so nucleus sampling never removes every admissible token.
"""
from __future__ import annotations

from typing import Any

import torch
import transformers


class GrammarCompiler:
    """Compiles structural-tag JSON (:mod:`pipeline.rollout.grammar`) for one tokenizer and keeps
    the results (LRU of ``max_cached`` grammars; compiling takes milliseconds to a few tens).

    ``vocab_size`` is the model's logits width (it can exceed ``len(tokenizer)``); ``stop_ids``
    are the tokens that end a turn (EOS, ``<|im_end|>``). Raises ImportError when xgrammar is not
    installed."""

    def __init__(self, tokenizer: Any, vocab_size: int, stop_ids: list[int], max_cached: int = 512):
        import xgrammar as xgr

        self.xgr = xgr
        self.info = xgr.TokenizerInfo.from_huggingface(tokenizer, vocab_size=vocab_size, stop_token_ids=stop_ids)
        self.compiler = xgr.GrammarCompiler(self.info)
        self.vocab_size = vocab_size
        self._cache: dict[str, Any] = {}
        self.max_cached = max_cached

    def compile(self, structural_tag: str) -> Any:
        """The compiled grammar of a structural-tag JSON text (cached)."""
        if structural_tag in self._cache:
            self._cache[structural_tag] = self._cache.pop(structural_tag)
            return self._cache[structural_tag]
        g = self.compiler.compile_structural_tag(structural_tag)
        self._cache[structural_tag] = g
        while len(self._cache) > self.max_cached:
            self._cache.pop(next(iter(self._cache)))
        return g


class GrammarLogitsProcessor(transformers.LogitsProcessor):
    """Masks each constrained row's logits to the tokens its grammar admits next.

    ``grammars[i]``: a compiled grammar for batch row ``i`` or None (free row). One instance per
    ``generate`` call (matchers carry state)."""

    def __init__(self, compiler: GrammarCompiler, grammars: list[Any | None]):
        xgr = compiler.xgr
        self.xgr = xgr
        self.vocab_size = compiler.vocab_size
        self.matchers = [xgr.GrammarMatcher(g) if g is not None else None for g in grammars]
        self.live = [m is not None for m in self.matchers]
        self.bitmask = xgr.allocate_token_bitmask(len(grammars), compiler.vocab_size)
        self.started = False
        #: rows whose sampled token the grammar refused (should not happen; kept as evidence)
        self.left_grammar: list[int] = []

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        if self.started:
            for i, m in enumerate(self.matchers):
                if not self.live[i]:
                    continue
                if m.is_terminated():
                    self.live[i] = False
                    continue
                if not m.accept_token(int(input_ids[i, -1])):
                    self.live[i] = False  # a finished row being padded, or a refused token
                    self.left_grammar.append(i)
        self.started = True
        rows = []
        for i, m in enumerate(self.matchers):
            if self.live[i] and not m.is_terminated():
                m.fill_next_token_bitmask(self.bitmask, i)
                rows.append(i)
        if rows:
            dev = scores.device
            s = scores.float().cpu() if dev.type != "cpu" or scores.dtype != torch.float32 else scores
            self.xgr.apply_token_bitmask_inplace(s, self.bitmask, vocab_size=self.vocab_size, indices=rows)
            if s is not scores:
                scores = s.to(device=dev, dtype=scores.dtype)
        return scores


def sampling_processors(grammar: GrammarLogitsProcessor, temperature: float, top_p: float) -> list[Any]:
    """The processor list for a constrained batch: the grammar mask first, then temperature and
    top-p (transformers would otherwise apply its own warpers before custom processors). Use with
    ``do_sample=True, temperature=1.0, top_p=1.0, top_k=0`` in ``generate`` (so it adds none)."""
    procs: list[Any] = [grammar]
    if temperature > 0:
        if temperature != 1.0:
            procs.append(transformers.TemperatureLogitsWarper(temperature))
        if top_p < 1.0:
            procs.append(transformers.TopPLogitsWarper(top_p))
    return procs
