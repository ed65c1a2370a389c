"""The library loans-desk domain: a deliberately small domain written only from
docs/domains.md (members, books, loans; find_member, get_loan, renew_loan, return_book).

Usage::

    from pipeline.domains.library import DOMAIN
    task = DOMAIN.generate_task("renew_loan", seed=1)
"""
from __future__ import annotations

from pipeline.domains.common import ModuleDomain

from . import generator, rules, state, tools


class LibraryDomain(ModuleDomain):
    """The loans desk as a domain object (see docs/domains.md for every member); every member
    delegates to this package's modules through :class:`~pipeline.domains.common.ModuleDomain`."""

    name = "library"
    generator_module, rules_module, tools_module, state_module = generator, rules, tools, state

    #: Tools whose successful call establishes who the member is (verifier hook).
    identity_tools: set[str] = {"find_member"}
    #: The policy asks for an explicit "yes" before a write (verifier hook).
    confirmation_required: bool = True
    #: Free-text arguments the grounded-arguments check exempts (verifier hook): none, every
    #: library tool takes an email or a loan id, and no value is derived.
    free_text_arguments: dict[str, frozenset[str]] = {}


DOMAIN = LibraryDomain()

__all__ = ["LibraryDomain", "DOMAIN"]
