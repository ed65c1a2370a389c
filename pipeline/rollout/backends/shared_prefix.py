"""Shared-prefix ("cascade") attention for batched decoding on transformers.

All rows of a batch that share a prompt prefix (the system prompt) attend to ONE batch-1 copy of
that prefix's keys/values instead of each carrying its own: :class:`SharedPrefixCache` keeps the
prefix K/V per layer with batch 1 and only the per-row tails (padding + own tokens + generated
tokens) in an ordinary ``DynamicCache``; :func:`shared_prefix_attention` computes one softmax
over ``[prefix | tail]`` scores (the prefix part as one matmul per KV head for the whole batch).
The idea is the shared-prefix / cascade attention of FlashInfer (Ye et al., 2024) and
Hydragen (Juravsky et al., 2024), done here in plain torch for CPU decoding: a decode step's
memory traffic no longer grows with ``batch x prefix length``.

Registered with transformers' ``AttentionInterface`` / ``AttentionMaskInterface`` under
:data:`ATTN_NAME`; outside a :func:`active` block (e.g. the prefix prefill) it falls back to
transformers' SDPA attention, so a model switched to it stays usable everywhere.
"""
from __future__ import annotations

import contextlib
from typing import Any, Iterator

import torch

ATTN_NAME = "trajpipe_shared_prefix"
_ACTIVE: list["SharedPrefixCache"] = []


class SharedPrefixCache:
    """Factory of a ``DynamicCache`` subclass instance holding only row tails, plus ``prefix``:
    a list per layer of ``(keys, values)`` with shape ``(1, kv_heads, P, head_dim)``."""

    def __new__(cls, prefix: list[tuple[torch.Tensor, torch.Tensor]], config: Any):
        from transformers.cache_utils import DynamicCache

        class _Cache(DynamicCache):
            def get_seq_length(self, layer_idx: int = 0) -> int:
                return self.prefix_len + super().get_seq_length(layer_idx)

            def get_mask_sizes(self, query_length: int, layer_idx: int = 0) -> tuple[int, int]:
                kv_length, offset = super().get_mask_sizes(query_length, layer_idx)
                return kv_length + self.prefix_len, offset

        c = _Cache(config=config)
        c.prefix = prefix
        c.prefix_len = int(prefix[0][0].shape[-2]) if prefix else 0
        return c


def prefix_from_cache(cache: Any) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """``(keys, values)`` per layer of a batch-1 ``DynamicCache`` (no copy)."""
    return [(layer.keys, layer.values) for layer in cache.layers]


@contextlib.contextmanager
def active(cache: Any) -> Iterator[None]:
    """Route :func:`shared_prefix_attention` to ``cache``'s prefix for the duration of a generate."""
    _ACTIVE.append(cache)
    try:
        yield
    finally:
        _ACTIVE.pop()


def shared_prefix_attention(module: Any, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
                            attention_mask: torch.Tensor | None, scaling: float | None = None,
                            dropout: float = 0.0, **kwargs: Any) -> tuple[torch.Tensor, None]:
    """Attention over ``[shared prefix | row tail]``.

    ``query``: (B, Hq, Tq, D); ``key``/``value``: the tails (B, Hkv, T, D) as the cache returns
    them; the prefix (1, Hkv, P, D) comes from the active :class:`SharedPrefixCache`.
    ``attention_mask``: transformers' SDPA-style mask over the full length (B, 1, Tq, P + T),
    boolean (True = attend) or additive float; its prefix columns are all-attend by construction
    (layout ``[prefix][padding][tail]``) and are not read. Returns (B, Tq, Hq, D) as the
    attention interface expects."""
    if not _ACTIVE or getattr(_ACTIVE[-1], "prefix_len", 0) == 0:
        from transformers.integrations.sdpa_attention import sdpa_attention_forward
        return sdpa_attention_forward(module, query, key, value, attention_mask, dropout=dropout,
                                      scaling=scaling, **kwargs)
    cache = _ACTIVE[-1]
    kp, vp = cache.prefix[module.layer_idx]
    b, hq, tq, d = query.shape
    hkv = key.shape[1]
    g = hq // hkv
    p = kp.shape[-2]
    scale = scaling if scaling is not None else d ** -0.5
    q = query.reshape(b, hkv, g, tq, d)
    # prefix part: one matmul per KV head for the whole batch (the prefix is read once)
    qp = q.permute(1, 0, 2, 3, 4).reshape(hkv, b * g * tq, d)
    sp = torch.bmm(qp, kp[0].transpose(1, 2)).mul_(scale)  # (hkv, b*g*tq, p)
    sp = sp.reshape(hkv, b, g, tq, p).permute(1, 0, 2, 3, 4)  # (b, hkv, g, tq, p)
    st = torch.matmul(q, key[:, :, None].transpose(-1, -2)).mul_(scale)  # (b, hkv, g, tq, t)
    if attention_mask is not None:
        m = attention_mask[..., p:]
        if m.dtype == torch.bool:
            st = st.masked_fill(~m[:, :, None], float("-inf"))
        else:
            st = st + m[:, :, None]
    probs = torch.softmax(torch.cat([sp, st], dim=-1), dim=-1)
    pp, pt = probs[..., :p], probs[..., p:]
    op = torch.bmm(pp.permute(1, 0, 2, 3, 4).reshape(hkv, b * g * tq, p), vp[0])  # (hkv, b*g*tq, d)
    op = op.reshape(hkv, b, g, tq, d).permute(1, 0, 2, 3, 4)
    ot = torch.matmul(pt, value[:, :, None])  # (b, hkv, g, tq, d)
    out = (op + ot).reshape(b, hq, tq, d).transpose(1, 2).contiguous()
    return out, None


def _mask(*args: Any, **kwargs: Any):
    """SDPA mask, always materialized (never skipped as 'plain causal'): the tail needs it."""
    from transformers.masking_utils import sdpa_mask

    kwargs["allow_is_causal_skip"] = False
    return sdpa_mask(*args, **kwargs)


def register() -> str:
    """Register the attention and mask functions with transformers; returns :data:`ATTN_NAME`."""
    from transformers import AttentionInterface, AttentionMaskInterface

    AttentionInterface.register(ATTN_NAME, shared_prefix_attention)
    AttentionMaskInterface.register(ATTN_NAME, _mask)
    return ATTN_NAME
