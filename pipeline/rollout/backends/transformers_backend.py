"""transformers teacher backend (the default on CPU): padded, batched ``generate``."""
from __future__ import annotations

import threading
import warnings
from typing import Any

from pipeline.rollout.backends.base import Generation, SamplingConfig, template_supports_tools
from pipeline.rollout.models import ModelSpec, ensure_safetensors


def tune_malloc() -> bool:
    """Keep per-step KV-cache tensors (up to 32 MiB each) on glibc's heap instead of fresh
    ``mmap`` pages: a batched decode step allocates a new K/V tensor per layer (DynamicCache
    concatenates), and with the default threshold every one of them page-faults in zeroed memory.
    Measured here (batch 16, 2,300-token shared prompt, 16 new tokens): 54 s -> 31 s per call.
    Sets M_MMAP_THRESHOLD=32 MiB, M_TRIM_THRESHOLD=4 GiB, M_TOP_PAD=512 MiB (``mallopt(3)``; the
    process returns freed memory to the OS less eagerly). Returns False where glibc is absent."""
    import ctypes
    import ctypes.util
    import sys

    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        m_trim_threshold, m_top_pad, m_mmap_threshold = -1, -2, -3
        ok = libc.mallopt(m_mmap_threshold, 32 * 1024 * 1024)
        libc.mallopt(m_trim_threshold, 4 * 1024 * 1024 * 1024 - 1)
        libc.mallopt(m_top_pad, 512 * 1024 * 1024)
        return bool(ok)
    except (OSError, AttributeError):
        return False


class TransformersBackend:
    """Batched generation with transformers on CPU (or GPU if torch sees one).

    ``TransformersBackend(spec, batch_size=8, dtype="float32", logprobs=True)``: prompts are rendered with the
    tokenizer's chat template and generated in batches of ``batch_size``. float32 is the default:
    with the shared system prompt prefix-cached, decode dominates, and a batch-8 decode step of
    SmolLM2-135M over a 2,300-token cache took 0.34 s in float32 vs 0.68 s in bfloat16 here
    (bfloat16 only wins on long uncached prefill: 7 s vs 12 s for 2,300 tokens, one thread). The GGUF default teacher is
    converted once to a cached safetensors folder (fast reloads).

    ``shared_prefix_attention=True``: rows attend to one batch-1 copy of their shared prefix's K/V
    (``shared_prefix.py``); ``row_cache_entries``: how many per-episode tail K/V caches to keep so a
    conversation's next turn only prefills its new messages (0 disables; ``clear_row_cache()``).
    Both are exact (same tokens and logprobs as the plain path, within float rounding); see
    docs/rollout.md.
    """

    name = "transformers"

    def __init__(self, spec: ModelSpec, batch_size: int = 8, dtype: str = "float32",
                 prefix_caching: bool = True, min_prefix: int = 64, logprobs: bool = True,
                 max_cached_prefixes: int = 6, malloc_tuning: bool = True, shared_prefix_attention: bool = True,
                 row_cache_entries: int = 64, row_cache_tokens: int = 40_000):
        import torch

        if malloc_tuning:
            tune_malloc()
        from transformers import AutoModelForCausalLM, AutoTokenizer

        folder = ensure_safetensors(spec)
        self.model_id = spec.model_id
        self.tokenizer = AutoTokenizer.from_pretrained(folder)
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.model = AutoModelForCausalLM.from_pretrained(folder, dtype=getattr(torch, dtype))
        self.model.eval()
        # rows sharing a cached prefix attend to one batch-1 copy of it (shared_prefix.py)
        self.shared_prefix_attention = bool(shared_prefix_attention and prefix_caching)
        # per-episode KV reuse across turns: (shared prefix key, tail tokens) -> tail K/V (see _row_hits)
        self.row_cache_entries = row_cache_entries if self.shared_prefix_attention else 0
        self.row_cache_tokens = row_cache_tokens
        self._rows: dict[tuple, tuple[tuple, list]] = {}
        if self.shared_prefix_attention:
            from pipeline.rollout.backends.shared_prefix import register
            self.model.set_attn_implementation(register())
        from transformers.utils import logging as hf_logging
        hf_logging.set_verbosity_error()  # keep progress output readable; errors still surface
        self.batch_size = batch_size
        self._lock = threading.Lock()
        self._torch = torch
        # stop at the end-of-turn token of ChatML templates as well as at EOS
        stop = [self.tokenizer.eos_token_id]
        im_end = self.tokenizer.convert_tokens_to_ids("<|im_end|>")
        if isinstance(im_end, int) and im_end >= 0 and im_end != self.tokenizer.unk_token_id:
            stop.append(im_end)
        self.stop_ids = sorted({s for s in stop if s is not None})
        self._grammars = None  # pipeline.rollout.grammar compiled per tokenizer, built on first use
        self.prefix_caching = prefix_caching
        self.min_prefix = min_prefix
        self._kv: dict[tuple, Any] = {}  # shared prefix token ids -> DynamicCache (LRU)
        self.max_cached_prefixes = max_cached_prefixes
        self.logprobs = logprobs
        # one tool call per turn (the policy's rule): stop right after a closed call
        self.stop_strings = ("</tool_call>",)
        # transformers 5 logs a deprecation for this name but honours it (measured: 2x faster turns)
        self._cache_kwarg = "past_key_values"

    def _compile(self, structural_tag: str) -> Any:
        """The compiled XGrammar grammar of a structural-tag JSON text (compiler built once)."""
        if self._grammars is None:
            from pipeline.rollout.backends.xgrammar_hf import GrammarCompiler
            vocab = max(int(self.model.config.vocab_size), len(self.tokenizer))
            self._grammars = GrammarCompiler(self.tokenizer, vocab, self.stop_ids)
        return self._grammars.compile(structural_tag)

    def supports_tool_template(self) -> bool:
        """Whether the tokenizer's chat template renders ``tools=`` (see ``template_supports_tools``)."""
        return template_supports_tools(getattr(self.tokenizer, "chat_template", None))

    def render(self, messages: list[dict[str, Any]], prefix: str | None,
               tools: list[dict[str, Any]] | None = None) -> str:
        """Chat-template text of ``messages`` with the generation prompt and the forced prefix.

        ``tools`` (OpenAI tool schemas) are passed to ``apply_chat_template(tools=...)`` when the
        template supports them; messages may then carry ``tool_calls`` / ``tool`` roles natively."""
        kw: dict[str, Any] = {}
        if tools and self.supports_tool_template():
            kw["tools"] = tools
        text = self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True, **kw)
        return text + (prefix or "")

    def _prefix_cache(self, prefix_ids: list[int]):
        """KV cache of a shared prompt prefix (batch 1), kept for reuse (a few prefixes at once: the
        agent's system prompt, the simulated customer's, a task's opening). A new prefix that
        extends a cached one is computed incrementally: only its extra tokens are prefilled."""
        import copy

        key = tuple(prefix_ids)
        if key in self._kv:
            self._kv[key] = self._kv.pop(key)  # most recently used last
            return self._kv[key]
        base = max((k for k in self._kv if len(k) < len(key) and key[:len(k)] == k), key=len, default=None)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=FutureWarning)  # past_key_values naming
            if base is not None:
                past = copy.deepcopy(self._kv[base])
                out = self.model(self._torch.tensor([list(key[len(base):])]), past_key_values=past, use_cache=True)
            else:
                out = self.model(self._torch.tensor([prefix_ids]), use_cache=True)
        self._kv[key] = out.past_key_values
        while len(self._kv) > self.max_cached_prefixes:
            self._kv.pop(next(iter(self._kv)))
        return self._kv[key]

    def _first_message_end(self, ids: list[int]) -> int:
        """Index just past the first end-of-turn token (the end of the system prompt), or 0."""
        return next((j + 1 for j, t in enumerate(ids) if t in self.stop_ids), 0)

    def _groups(self, full: list[list[int]]) -> list[tuple[int, list[int]]]:
        """Split prompt rows into groups that share a long token prefix (rows whose first
        ``min_prefix`` ids agree); returns ``(shared prefix length, row indices)`` per group. The
        shared prefix of a group of one row is its first message (the system prompt), the part
        later calls share; 0 when caching is off or the shared part is shorter than ``min_prefix``."""
        if not self.prefix_caching:
            return [(0, list(range(len(full))))]
        by_key: dict[tuple, list[int]] = {}
        for i, f in enumerate(full):
            by_key.setdefault(tuple(f[:self.min_prefix]), []).append(i)
        out = []
        for idx in by_key.values():
            first = full[idx[0]]
            if len(idx) == 1:
                n = min(self._first_message_end(first), len(first) - 1)
            else:
                n = min(len(full[i]) for i in idx) - 1
                for i in idx[1:]:
                    f = full[i]
                    j = 0
                    while j < n and f[j] == first[j]:
                        j += 1
                    n = j
            out.append((n if n >= self.min_prefix else 0, idx))
        return out

    def _finish_row(self, new_ids: list[int], lps: list[float],
                    constrained: bool = False) -> tuple[str, list[int], list[float], str]:
        """Cut one generated row at its first stop token (kept, counted) or, unless the row was
        grammar-constrained (its grammar ends the turn), its first stop string (at the shortest
        token prefix whose text contains it). Returns text, ids, logprobs, finish."""
        cut = next((j for j, t in enumerate(new_ids) if t in self.stop_ids), None)
        ids = new_ids[:cut + 1] if cut is not None else list(new_ids)
        finish = "stop" if cut is not None else "length"
        text = self.tokenizer.decode(ids, skip_special_tokens=True)
        for stop in () if constrained else self.stop_strings:  # a stop string ends the turn (kept)
            if stop in text:
                lo = 1
                while lo < len(ids) and stop not in self.tokenizer.decode(ids[:lo], skip_special_tokens=True):
                    lo += 1
                ids = ids[:lo]
                text, finish = self.tokenizer.decode(ids, skip_special_tokens=True), "stop"
        return text, ids, lps[:len(ids)], finish

    def clear_row_cache(self) -> None:
        """Forget the per-episode tail KV caches (the shared prefix caches stay)."""
        self._rows.clear()

    def _row_hits(self, pkey: tuple, tails: list[list[int]]) -> list[tuple[int, list | None]]:
        """Per tail: the longest cached token prefix (under the same shared prefix) and its K/V
        per layer; at least one token of each tail is left to feed. A conversation's next turn
        re-sends its earlier turns verbatim, so only the new messages are prefilled."""
        out = []
        for t in tails:
            best, kv = 0, None
            for (pk, toks), (_, layers) in self._rows.items():
                if pk != pkey or not toks or toks[0] != t[0]:
                    continue
                m = min(len(toks), len(t) - 1)
                j = 0
                while j < m and toks[j] == t[j]:
                    j += 1
                if j > best:
                    best, kv = j, layers
            out.append((best, kv))
        return out

    def _prefill_rows(self, cache: Any, pkey: tuple, n: int, tails: list[list[int]]) -> None:
        """Prefill every row's uncached tail tokens except its last one, one row at a time on top of
        the shared prefix and the row's cached K/V, and keep the result in the row cache. A padded
        batch would prefill every row to the longest new part (tool results differ by hundreds of
        tokens); alone, each row computes exactly its own tokens, and the batched generate then
        feeds one token per row."""
        from pipeline.rollout.backends.shared_prefix import SharedPrefixCache, prefix_from_cache
        from pipeline.rollout.backends.shared_prefix import active as shared_prefix_active

        torch = self._torch
        prefix = prefix_from_cache(cache)
        for tail, (h, layers) in zip(tails, self._row_hits(pkey, tails)):
            if len(tail) - 1 - h < 1:
                continue
            c = SharedPrefixCache(prefix, self.model.config)
            if h:
                for li, (k, v) in enumerate(layers):
                    c.update(k[:, :, :h], v[:, :, :h], li)
            ids = torch.tensor([tail[h:-1]])
            att = torch.ones((1, n + len(tail) - 1), dtype=torch.long)
            with warnings.catch_warnings(), shared_prefix_active(c):
                warnings.filterwarnings("ignore", category=FutureWarning)
                self.model(input_ids=ids, attention_mask=att, past_key_values=c, use_cache=True,
                           logits_to_keep=1)
            self._row_store(pkey, tail[:-1], [(layer.keys, layer.values) for layer in c.layers])

    def _row_store(self, pkey: tuple, toks: list[int], layers: list) -> None:
        """Keep a row's tail K/V; entries it extends (the same episode's earlier turns) are dropped;
        least recently stored entries go first beyond ``row_cache_entries`` entries or
        ``row_cache_tokens`` tokens in all (memory: ~46 KB per token for SmolLM2-135M in float32)."""
        t = tuple(toks)
        for k in [k for k in self._rows if k[0] == pkey and len(k[1]) <= len(t) and t[:len(k[1])] == k[1]]:
            del self._rows[k]
        key = (pkey, t)
        self._rows[key] = (key, layers)
        while self._rows and (len(self._rows) > self.row_cache_entries or
                              sum(len(k[1]) for k in self._rows) > self.row_cache_tokens):
            self._rows.pop(next(iter(self._rows)))

    def generate(self, prompts: list[list[dict[str, Any]]], prefixes: list[str | None],
                 sampling: SamplingConfig, grammars: list[str | None] | None = None,
                 tools: list[list[dict[str, Any]] | None] | None = None) -> list[Generation]:
        """One Generation per prompt, in order (token ids, raw logprobs and prompt ids included).

        Prefix caching: rows are grouped by shared token prefix (the agent's system prompt, the
        simulated customer's); each group's prefix is prefilled once and its KV cache reused for
        every batch; each row is laid out as ``[shared prefix][padding][cached tail][padding][new
        tokens]`` (the cached tail from the row cache: the same conversation's earlier turn) with
        the padding masked out, so position ids (from the attention mask) stay exact. Sampling is
        seeded per batch from ``sampling.seed`` and the batch's first row index. ``grammars[i]``
        (optional): an XGrammar structural-tag JSON text (:mod:`pipeline.rollout.grammar`) that
        prompt i's output must match, enforced token by token by
        :class:`~pipeline.rollout.backends.xgrammar_hf.GrammarLogitsProcessor` (mask before
        temperature / top-p). Logprobs come from ``output_logits`` (raw logits, log-softmaxed)."""
        import contextlib
        import copy

        from pipeline.rollout.backends.shared_prefix import SharedPrefixCache, prefix_from_cache
        from pipeline.rollout.backends.shared_prefix import active as shared_prefix_active

        torch = self._torch
        n_in = len(prompts)
        tools = tools or [None] * n_in
        texts = [self.render(p, x, t) for p, x, t in zip(prompts, prefixes, tools)]
        grammars = grammars or [None] * n_in
        compiled = [self._compile(g) if g else None for g in grammars]
        full = [self.tokenizer(t, add_special_tokens=False)["input_ids"] for t in texts]
        pad = self.tokenizer.pad_token_id
        out: list[Generation | None] = [None] * n_in
        with self._lock, torch.inference_mode():
            for n, idx in self._groups(full):
                fm = self._first_message_end(full[idx[0]])
                if self.row_cache_entries and n and self.min_prefix <= fm <= n:
                    n = fm  # share the system prompt; each episode's own turns come from the row cache
                if self.min_prefix <= fm < n:  # the system prompt first: later prefixes extend it
                    self._prefix_cache(full[idx[0]][:fm])
                cache = self._prefix_cache(full[idx[0]][:n]) if n else None
                pkey = (n, hash(tuple(full[idx[0]][:n])))
                for start in range(0, len(idx), self.batch_size):
                    rows_i = idx[start:start + self.batch_size]
                    rows = [full[i] for i in rows_i]
                    tails = [f[n:] for f in rows]
                    use_rows = bool(cache is not None and self.row_cache_entries)
                    if use_rows:  # prefill each row's new tokens alone (no padding), then decode batched
                        self._prefill_rows(cache, pkey, n, tails)
                    hits = self._row_hits(pkey, tails) if use_rows else [(0, None)] * len(rows)
                    cw = max(h for h, _ in hits)  # cached part, left-padded to a common width
                    width = max(len(t) - h for t, (h, _) in zip(tails, hits))
                    ids = torch.full((len(rows), n + cw + width), pad, dtype=torch.long)
                    att = torch.zeros((len(rows), n + cw + width), dtype=torch.long)
                    if n:
                        ids[:, :n] = torch.tensor(rows[0][:n])
                        att[:, :n] = 1
                    for i, (tail, (h, _)) in enumerate(zip(tails, hits)):
                        if h:
                            ids[i, n + cw - h:n + cw] = torch.tensor(tail[:h])
                            att[i, n + cw - h:n + cw] = 1
                        ids[i, n + cw + width - (len(tail) - h):] = torch.tensor(tail[h:])
                        att[i, n + cw + width - (len(tail) - h):] = 1
                    prompt_len = n + cw + width
                    torch.manual_seed(sampling.seed + rows_i[0])
                    kwargs: dict[str, Any] = dict(max_new_tokens=sampling.max_new_tokens,
                                                  eos_token_id=self.stop_ids, pad_token_id=pad,
                                                  return_dict_in_generate=True, output_logits=self.logprobs)
                    if any(compiled[i] is None for i in rows_i):  # grammar rows end where their grammar ends
                        kwargs.update(stop_strings=list(self.stop_strings), tokenizer=self.tokenizer)
                    ctx: Any = contextlib.nullcontext()
                    if cache is not None and self.shared_prefix_attention:
                        c = SharedPrefixCache(prefix_from_cache(cache), self.model.config)
                        if cw:  # reused tails: [pad][cached K/V] per row, zeros (masked) in the pad
                            for li, (pk, pv) in enumerate(prefix_from_cache(cache)):
                                k = pk.new_zeros((len(rows), pk.shape[1], cw, pk.shape[3]))
                                v = pv.new_zeros((len(rows), pv.shape[1], cw, pv.shape[3]))
                                for i, (h, layers) in enumerate(hits):
                                    if h:
                                        k[i, :, cw - h:] = layers[li][0][0, :, :h]
                                        v[i, :, cw - h:] = layers[li][1][0, :, :h]
                                c.update(k, v, li)
                        kwargs[self._cache_kwarg] = c
                        ctx = shared_prefix_active(c)
                    elif cache is not None:
                        c = copy.deepcopy(cache)
                        c.batch_repeat_interleave(len(rows))
                        kwargs[self._cache_kwarg] = c
                    row_grammars = [compiled[i] for i in rows_i]
                    if any(g is not None for g in row_grammars):
                        from pipeline.rollout.backends.xgrammar_hf import GrammarLogitsProcessor, sampling_processors
                        gp = GrammarLogitsProcessor(self._grammars, row_grammars)
                        kwargs["logits_processor"] = sampling_processors(gp, sampling.temperature, sampling.top_p)
                        # the mask comes first, then temperature / top-p (our processors above)
                        kwargs.update(do_sample=sampling.temperature > 0, temperature=1.0, top_p=1.0, top_k=0)
                    elif sampling.temperature > 0:
                        kwargs.update(do_sample=True, temperature=sampling.temperature, top_p=sampling.top_p)
                    else:
                        kwargs.update(do_sample=False)
                    with warnings.catch_warnings(), ctx:
                        warnings.filterwarnings("ignore", category=FutureWarning)  # past_key_values naming
                        res = self.model.generate(input_ids=ids, attention_mask=att, **kwargs)
                    new = res.sequences[:, prompt_len:]
                    if self.logprobs and res.logits:
                        steps = len(res.logits)
                        lp = torch.stack([torch.log_softmax(res.logits[s].float(), dim=-1)
                                          .gather(1, new[:, s:s + 1]).squeeze(1) for s in range(steps)], dim=1)
                        lp_rows = lp.tolist()
                    else:
                        lp_rows = [[] for _ in rows]
                    new_rows = new.tolist()
                    done_rows = [self._finish_row(new_rows[j], lp_rows[j], compiled[i] is not None)
                                 for j, i in enumerate(rows_i)]
                    if use_rows:  # keep each row's tail K/V (its real tokens only) for its next turn
                        tail_kv = [(layer.keys, layer.values) for layer in c.layers]
                        span = att[:, n:].bool()
                        for j, (tail, done) in enumerate(zip(tails, done_rows)):
                            pos = span[j].nonzero().squeeze(1).tolist()
                            fed = max(0, min(len(done[1]) - 1, tail_kv[0][0].shape[2] - (cw + width)))
                            pos += list(range(cw + width, cw + width + fed))
                            sel = torch.tensor(pos)
                            self._row_store(pkey, tail + done[1][:fed],
                                            [(k[j:j + 1, :, sel].clone(), v[j:j + 1, :, sel].clone())
                                             for k, v in tail_kv])
                    for j, i in enumerate(rows_i):
                        text, tok, lps, finish = done_rows[j]
                        out[i] = Generation(text=text, prompt_tokens=len(full[i]), completion_tokens=len(tok),
                                            finish_reason=finish, token_ids=tok, logprobs=lps,
                                            prompt_token_ids=full[i])
        return out  # type: ignore[return-value]
