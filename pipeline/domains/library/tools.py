"""The loans desk's tools: each behaviour function beside its OpenAI function schema.

The tools check data integrity (member, loan exist; a returned loan cannot be renewed or
returned again). They do NOT enforce the renewal rules of ``policy.md`` (at most two renewals,
no renewal of an overdue loan): the agent must keep those, and
:func:`pipeline.domains.library.rules.rule_violations` detects every break.
"""
from __future__ import annotations

import datetime as _dt
import json
from typing import Any

from pipeline.domains.base import Tool, ToolError
from pipeline.domains.common import get_record, object_params, tool_registry

from .state import RENEWAL_DAYS

TOOLS: dict[str, Tool] = {}


#: Decorator ``_register(schema, writes=False)``: the tool function beside its schema goes into :data:`TOOLS`.
_register = tool_registry(TOOLS)
#: A tool's JSON-schema ``parameters`` (every property required unless ``required`` says otherwise).
_params = object_params


_LOAN_ID = {"type": "string", "description": "The loan id, such as 'L12345'."}


def _loan(state: dict[str, Any], loan_id: str) -> dict[str, Any]:
    return get_record(state, "loans", loan_id, "loan")


@_register({
    "name": "find_member",
    "description": "Find a member by email: returns the member id, name and the ids of their loans.",
    "parameters": _params({"email": {"type": "string", "description": "The member's email address."}}),
})
def find_member(state: dict[str, Any], email: str) -> str:
    """The member record as JSON text. ToolError("member not found")."""
    for member in state["members"].values():
        if member["email"].lower() == email.strip().lower():
            return json.dumps(member)
    raise ToolError("member not found")


@_register({
    "name": "get_loan",
    "description": "Get a loan: book (title, author), member, due date, renewals so far and status.",
    "parameters": _params({"loan_id": _LOAN_ID}),
})
def get_loan(state: dict[str, Any], loan_id: str) -> str:
    """The loan with its book's title and author as JSON text. ToolError("loan not found")."""
    loan = _loan(state, loan_id)
    book = state["books"].get(loan["book_id"], {})
    return json.dumps({**loan, "title": book.get("title"), "author": book.get("author")})


@_register({
    "name": "renew_loan",
    "description": "Renew an active loan: the due date moves 14 days later and the renewal count "
                   "grows by one. The agent must check the policy's renewal rules and get the "
                   "member's confirmation first.",
    "parameters": _params({"loan_id": _LOAN_ID}),
}, writes=True)
def renew_loan(state: dict[str, Any], loan_id: str) -> str:
    """Due date + RENEWAL_DAYS, renewals + 1; return the loan JSON. ToolError for an unknown or
    returned loan. Does not check the renewal limit or overdue status (agent's rules)."""
    loan = _loan(state, loan_id)
    if loan["status"] != "active":
        raise ToolError("loan already returned")
    due = _dt.date.fromisoformat(loan["due_date"]) + _dt.timedelta(days=RENEWAL_DAYS)
    loan["due_date"] = due.isoformat()
    loan["renewals"] += 1
    return json.dumps(loan)


@_register({
    "name": "return_book",
    "description": "Record the return of the book of an active loan (status becomes 'returned'). "
                   "Get the member's confirmation first.",
    "parameters": _params({"loan_id": _LOAN_ID}),
}, writes=True)
def return_book(state: dict[str, Any], loan_id: str) -> str:
    """Set the loan's status to 'returned'; return the loan JSON. ToolError for an unknown or
    already returned loan."""
    loan = _loan(state, loan_id)
    if loan["status"] != "active":
        raise ToolError("loan already returned")
    loan["status"] = "returned"
    return json.dumps(loan)


WRITE_TOOLS: frozenset[str] = frozenset(n for n, t in TOOLS.items() if t.writes)
READ_TOOLS: frozenset[str] = frozenset(n for n, t in TOOLS.items() if not t.writes)
