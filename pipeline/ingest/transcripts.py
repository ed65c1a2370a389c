"""Reader for flattened conversation transcripts (format name ``"transcript"``).

Input: JSONL, one ``{"messages_display": "user: ...\\nassistant: ...\\ntool: ..."}`` object per
line, as in ``shared/data/tau-bench/logs/{airline,retail}-transcripts.jsonl``. A line that
starts with ``user:`` / ``assistant:`` / ``tool:`` / ``system:`` opens a message; other lines
continue the previous one. ``assistant: None`` is a hidden tool call whose name and arguments
the transcript does not show; the ``tool:`` line(s) after it are its result.

What is inferred (documented in docs/domains.md, "Logs without tool names"): each hidden call
becomes an assistant message with one ``tool_calls`` entry, and its result a ``tool`` message
with a matching ``tool_call_id``. The tool *name* is inferred from the shape of the result,
and for writes from how it differs from the last version of the same record seen earlier in
the conversation (retail and airline shapes):

* a bare user id (``first_last_1234``), or ``Error: user not found`` -> ``find_user_id_by_email``
  (an email in the customer's last turn) or ``find_user_id_by_name_zip`` (a zip in it);
* a user profile -> ``get_user_details`` (``modify_user_address`` when the address differs
  from the version seen before);
* an order -> ``get_order_details``, or ``cancel_pending_order`` / ``return_delivered_order_items``
  / ``exchange_delivered_order_items`` / ``modify_pending_order_items`` /
  ``modify_pending_order_address`` / ``modify_pending_order_payment`` when, compared with the
  version seen before, the status, address or payment history changed that way (arguments are
  read from the changed record: reason, item ids, new item ids, payment method, address);
  ``Error: order not found`` -> ``get_order_details``;
* a product (``variants``) -> ``get_product_details``; a ``{name: product id}`` map ->
  ``list_all_product_types``; a number -> ``calculate``; ``Transfer successful`` ->
  ``transfer_to_human_agents``; an empty result -> ``think``;
* a reservation (``reservation_id``) -> ``get_reservation_details``.

A ``tool:`` turn right after assistant text (the agent spoke and called in one turn) is
attached to that assistant message as its call. Anything else gets the name ``"unknown"``. Arguments that cannot be recovered (a calculation's
expression, a transfer summary) are left out; ``metadata`` counts ``inferred_tool_calls``,
``unknown_tool_calls`` and lists ``args_missing`` (names of calls with unrecovered arguments).
Inferred names are a best effort for blueprint extraction, not ground truth.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterable, Iterator

_TURN = re.compile(r"^(user|assistant|tool|system): ?(.*)$")
_USER_ID = re.compile(r"^[a-z]+(?:_[a-z]+)+_\d{3,5}$")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_ZIP = re.compile(r"\b\d{5}\b")
_ORDER_ID = re.compile(r"#?W\d{7}\b")


def is_transcript_line(obj: Any) -> bool:
    """True for a JSON object with a string ``messages_display`` (this reader's format)."""
    return isinstance(obj, dict) and isinstance(obj.get("messages_display"), str)


def split_turns(display: str) -> list[dict[str, Any]]:
    """``[{"role", "content"}]`` per turn of a flattened transcript (``assistant: None`` gives
    content None). Text before the first role prefix becomes a user turn."""
    messages: list[dict[str, Any]] = []
    for line in display.split("\n"):
        m = _TURN.match(line)
        if m:
            messages.append({"role": m.group(1), "content": m.group(2)})
        elif messages:
            messages[-1]["content"] += "\n" + line
        elif line.strip():
            messages.append({"role": "user", "content": line})
    for m in messages:
        if m["role"] == "assistant" and m["content"] == "None":
            m["content"] = None
    return messages


def guess_domain(display: str, hint: str | None = None) -> str:
    """``hint`` when given, else "retail" (orders ``#W...``) or "airline" (reservations) from
    the text, else "unknown"."""
    if hint:
        return hint
    if '"order_id"' in display or re.search(r"#W\d{7}", display):
        return "retail"
    if '"reservation_id"' in display or "flight" in display.lower():
        return "airline"
    return "unknown"


class _Inferrer:
    """Keeps the last seen version of each record and names each hidden call from its result."""

    def __init__(self) -> None:
        self.orders: dict[str, dict[str, Any]] = {}
        self.users: dict[str, dict[str, Any]] = {}  # email -> profile
        self.last_user_id: str | None = None
        self.last_user_text = ""

    def identity(self, found: str | None) -> tuple[str, dict[str, Any]]:
        email = _EMAIL.search(self.last_user_text)
        if email:
            return "find_user_id_by_email", {"email": email.group(0)}
        args: dict[str, Any] = {}
        if found and _USER_ID.match(found):
            parts = found.split("_")
            args = {"first_name": parts[0].capitalize(), "last_name": parts[-2].capitalize()}
        z = _ZIP.search(self.last_user_text)
        if z:
            args["zip"] = z.group(0)
        return "find_user_id_by_name_zip", args

    def order_call(self, new: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        oid = new["order_id"]
        old = self.orders.get(oid)
        self.orders[oid] = new
        if old is None or old == new:
            return "get_order_details", {"order_id": oid}
        st, was = new.get("status"), old.get("status")
        if st == "cancelled" and was != "cancelled":
            return "cancel_pending_order", {"order_id": oid, "reason": new.get("cancel_reason")}
        if st == "return requested" and was != st:
            return "return_delivered_order_items", {"order_id": oid, "item_ids": new.get("return_items"),
                                                    "payment_method_id": new.get("return_payment_method_id")}
        if st == "exchange requested" and was != st:
            return "exchange_delivered_order_items", {
                "order_id": oid, "item_ids": new.get("exchange_items"), "new_item_ids": new.get("exchange_new_items"),
                "payment_method_id": new.get("exchange_payment_method_id")}
        if st and st.startswith("pending (item") and not (was or "").startswith("pending (item"):
            old_ids = [i.get("item_id") for i in old.get("items", [])]
            new_ids = [i.get("item_id") for i in new.get("items", [])]
            changed = [(a, b) for a, b in zip(old_ids, new_ids) if a != b]
            added = new.get("payment_history", [])[len(old.get("payment_history", [])):]
            args = {"order_id": oid, "item_ids": [a for a, _ in changed], "new_item_ids": [b for _, b in changed]}
            if added:
                args["payment_method_id"] = added[-1].get("payment_method_id")
            return "modify_pending_order_items", args
        if new.get("address") != old.get("address"):
            return "modify_pending_order_address", {"order_id": oid, **(new.get("address") or {})}
        added = new.get("payment_history", [])[len(old.get("payment_history", [])):]
        pays = [t for t in added if t.get("transaction_type") == "payment"]
        if pays:
            return "modify_pending_order_payment", {"order_id": oid, "payment_method_id": pays[0].get("payment_method_id")}
        return "get_order_details", {"order_id": oid}

    def name(self, result: str) -> tuple[str, dict[str, Any] | None]:
        """``(tool name, arguments or None when unrecoverable)`` for one hidden call's result."""
        text = result.strip()
        if _USER_ID.match(text):
            self.last_user_id = text
            return self.identity(text)
        if text == "Error: user not found":
            return self.identity(None)
        if text == "Error: order not found":
            m = _ORDER_ID.search(self.last_user_text)
            oid = m.group(0) if m else None
            return "get_order_details", ({"order_id": oid if oid.startswith("#") else "#" + oid} if oid else None)
        if text == "Transfer successful":
            return "transfer_to_human_agents", None
        if text == "":
            return "think", {"thought": ""}
        try:
            value = json.loads(text)
        except (json.JSONDecodeError, RecursionError):
            return "unknown", None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return "calculate", None
        if not isinstance(value, dict):
            return "unknown", None
        if "order_id" in value:
            return self.order_call(value)
        if "variants" in value and "product_id" in value:
            return "get_product_details", {"product_id": value["product_id"]}
        if "reservation_id" in value:
            return "get_reservation_details", {"reservation_id": value["reservation_id"]}
        if "payment_methods" in value and "email" in value:
            old = self.users.get(value["email"])
            self.users[value["email"]] = value
            uid = self.last_user_id
            if old is not None and old.get("address") != value.get("address"):
                return "modify_user_address", ({"user_id": uid, **(value.get("address") or {})} if uid else None)
            return "get_user_details", ({"user_id": uid} if uid else None)
        if value and all(isinstance(v, str) and v.isdigit() for v in value.values()):
            return "list_all_product_types", {}
        return "unknown", None


def transcript_to_canonical(display: str, rid: str, domain: str | None = None,
                            guess: bool = True) -> dict[str, Any]:
    """One flattened transcript -> a canonical conversation dict (``id``, OpenAI ``messages``,
    ``metadata`` with ``source_format="transcript"``, ``domain`` and the inference counts).

    ``domain`` (the file's named domain) is written to ``metadata.domain``, and an inferred name
    that domain has no tool of (the inference knows retail and airline shapes) becomes
    ``"unknown"``; without it, ``guess=True`` guesses from the text (:func:`guess_domain`) and
    ``guess=False`` leaves ``metadata.domain`` out (ingest then routes by the inferred tools).
    Raises ValueError when the transcript has no user or assistant turn (the caller
    quarantines it)."""
    turns = split_turns(display)
    if not any(t["role"] in ("user", "assistant") for t in turns):
        raise ValueError("transcript has no user or assistant turn")
    inf = _Inferrer()
    out: list[dict[str, Any]] = []
    n_inferred = n_unknown = 0
    missing: list[str] = []
    i = 0
    while i < len(turns):
        t = turns[i]
        if t["role"] == "user":
            inf.last_user_text = t["content"] or ""
        if t["role"] == "assistant" and t["content"] is None and i + 1 < len(turns) and turns[i + 1]["role"] == "tool":
            result = turns[i + 1]["content"] or ""
            name, args = inf.name(result)
            call_id = f"call_{len(out):03d}"
            if name == "unknown":
                n_unknown += 1
            else:
                n_inferred += 1
            if args is None:
                missing.append(name)
                args = {}
            out.append({"role": "assistant", "content": None, "tool_calls": [
                {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]})
            out.append({"role": "tool", "tool_call_id": call_id, "name": name, "content": result})
            i += 2
            continue
        if t["role"] == "tool":  # a result right after assistant text: the call was made in that turn
            result = t["content"] or ""
            name, args = inf.name(result)
            n_unknown += name == "unknown"
            n_inferred += name != "unknown"
            if args is None:
                missing.append(name)
                args = {}
            call_id = f"call_{len(out):03d}"
            call = {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
            if out and out[-1]["role"] == "assistant" and not out[-1].get("tool_calls"):
                out[-1]["tool_calls"] = [call]
            else:
                out.append({"role": "assistant", "content": None, "tool_calls": [call]})
            out.append({"role": "tool", "tool_call_id": call_id, "name": name, "content": result})
        else:
            out.append({"role": t["role"], "content": t["content"]})
        i += 1
    if domain:
        n_renamed = _unname_foreign(out, domain)
        n_inferred -= n_renamed
        n_unknown += n_renamed
    meta = {"source_format": "transcript", "inferred_tool_calls": n_inferred, "unknown_tool_calls": n_unknown,
            "args_missing": missing}
    if domain or guess:
        meta = {"source_format": "transcript", "domain": guess_domain(display, domain), **meta}
    return {"id": rid, "messages": out, "metadata": meta}


def _unname_foreign(messages: list[dict[str, Any]], domain: str) -> int:
    """Rename, in place, inferred calls (and their results) to ``"unknown"`` when ``domain`` (a
    registered name; others are left alone) has no tool of that name: the shape rules are shared
    by retail and airline, so an airline ``Error: user not found`` must not become retail's
    ``find_user_id_by_name_zip``. Returns the number of calls renamed."""
    from pipeline.domains import get_domain, known_domains
    from pipeline.domains.base import SHARED_TOOLS

    if domain not in known_domains():
        return 0
    tools = set(get_domain(domain).tools) | SHARED_TOOLS | {"unknown"}
    renamed: set[str] = set()
    for m in messages:
        for tc in m.get("tool_calls") or []:
            if tc["function"]["name"] not in tools:
                tc["function"]["name"] = "unknown"
                renamed.add(tc["id"])
        if m.get("role") == "tool" and m.get("tool_call_id") in renamed:
            m["name"] = "unknown"
    return len(renamed)


def domain_hint_from_path(path: str | Path) -> str | None:
    """"retail" / "airline" when the file name says so (e.g. ``retail-transcripts.jsonl``)."""
    stem = Path(path).name.lower()
    for d in ("retail", "airline"):
        if d in stem:
            return d
    return None


def iter_transcripts(path: str | Path, rows: Iterable[tuple[int, Any, str | None, str | None]],
                     domain: str | None = None, guess: bool = True
                     ) -> Iterator[tuple[int, Any, dict[str, Any] | None, str | None, str | None]]:
    """For each ``(position, raw, error_code, error)`` JSONL row (see
    ``pipeline.ingest._iter_canonical``), yield ``(position, raw, candidate, error_code,
    error)``: a candidate canonical dict (codes None), or None with the reason code
    (the row's own, ``INGEST_SCHEMA`` for an object without ``messages_display``,
    ``INGEST_EMPTY`` for a transcript without turns) and message. Ids are
    ``transcript-<file stem>-<position>``; ``domain`` (else the file name) sets metadata.domain;
    without either, ``guess`` as in :func:`transcript_to_canonical`."""
    hint = domain or domain_hint_from_path(path)
    stem = re.sub(r"[^a-z0-9]+", "-", Path(path).stem.lower()).strip("-")
    for pos, raw, code, err in rows:
        if code:
            yield pos, raw, None, code, err
            continue
        if not is_transcript_line(raw):
            yield pos, raw, None, "INGEST_SCHEMA", "not a transcript: expected an object with a string 'messages_display'"
            continue
        try:
            cand = transcript_to_canonical(raw["messages_display"], f"transcript-{stem}-{pos:04d}", hint, guess)
        except ValueError as exc:
            yield pos, raw, None, "INGEST_EMPTY", str(exc)
            continue
        yield pos, raw, cand, None, None
