"""Library loans-desk state: plain JSON-serialisable dicts, with pydantic validation.

::

    {"members": {member_id: Member}, "books": {book_id: Book}, "loans": {loan_id: Loan}}

* **Member** ``{"member_id", "name", "email", "loans": [loan_id, ...]}``.
* **Book** ``{"book_id", "title", "author"}``.
* **Loan** ``{"loan_id", "member_id", "book_id", "due_date": "YYYY-MM-DD", "renewals": int
  (renewals made so far), "status": "active"|"returned"}``. A loan is *overdue* when it is
  active and its due date is before :data:`TODAY`.

:data:`TODAY` is the policy's current date; nothing here reads the clock.
"""
from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from pipeline.domains.common import StrictModel as _Strict, check_record, copy_state  # noqa: F401

#: The policy's "today" (every overdue check uses it).
TODAY = "2024-05-15"
#: Days a renewal adds to the due date.
RENEWAL_DAYS = 14


def empty_state() -> dict[str, Any]:
    """A state with no members, books or loans."""
    return {"members": {}, "books": {}, "loans": {}}


class Member(_Strict):
    """A library member."""

    member_id: str
    name: str
    email: str
    loans: list[str]


class Book(_Strict):
    """A book of the catalogue."""

    book_id: str
    title: str
    author: str


class Loan(_Strict):
    """A loan of one book to one member."""

    loan_id: str
    member_id: str
    book_id: str
    due_date: str = Field(pattern=r"^\d{4}-\d{2}-\d{2}$")
    renewals: int = Field(ge=0)
    status: Literal["active", "returned"]


def validate_state(state: dict[str, Any]) -> None:
    """Check shapes and cross-references (keys equal ids; a loan's member and book exist and the
    member lists it). Raises ValueError on the first problem."""
    if not isinstance(state, dict) or set(state) != {"members", "books", "loans"}:
        raise ValueError("state must have exactly members/books/loans")
    for table, model, key in (("members", Member, "member_id"), ("books", Book, "book_id"), ("loans", Loan, "loan_id")):
        for k, rec in state[table].items():
            check_record(model, rec, k, key, table)
    for lid, loan in state["loans"].items():
        member = state["members"].get(loan["member_id"])
        if member is None or lid not in member["loans"]:
            raise ValueError(f"loan {lid}: member {loan['member_id']} missing or does not list it")
        if loan["book_id"] not in state["books"]:
            raise ValueError(f"loan {lid}: book {loan['book_id']} not found")
