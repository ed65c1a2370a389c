"""The retail domain: an in-process online store (users, orders, products) with the tools,
policy, rules and generators of :mod:`pipeline.domains.base`'s Domain protocol, behind one
object, :data:`DOMAIN`. Behaviour and policy follow the tau-bench retail system
(``shared/data/tau-bench/retail``, MIT licence), in our own wording and code.

Usage::

    from pipeline.domains.retail import DOMAIN
    task = DOMAIN.generate_task("return_delivered_items", seed=7)
    sb = Sandbox(DOMAIN, task.initial_state); sb.run(task.reference_solution)
    assert DOMAIN.rule_violations(task.initial_state, [...], sb.state) == []
"""
from __future__ import annotations

from typing import Any

from pipeline.domains.common import ModuleDomain
from pipeline.domains.shared import FREE_TEXT_ARGUMENTS

from . import answers, generator, rules, state, tools, transcripts


class RetailDomain(ModuleDomain):
    """The retail business system as a domain object.

    Attributes: ``name`` ("retail"), ``policy`` (markdown given to agents), ``tools`` (name ->
    :class:`Tool`), ``write_tools`` / ``read_tools``, ``rules`` (:class:`PolicyRule` list),
    ``task_kinds``, ``identity_tools`` (the lookups that establish who the customer is). Every
    method delegates to this package's modules (see :class:`~pipeline.domains.common.ModuleDomain`).
    """

    name = "retail"
    generator_module, rules_module, tools_module, state_module = generator, rules, tools, state
    #: Information requests (expected outcome "answer"): :mod:`pipeline.domains.retail.answers`.
    answers_module = answers

    #: The lookups that establish who the customer is (verifier hook).
    identity_tools: set[str] = {"find_user_id_by_email", "find_user_id_by_name_zip"}
    #: The policy requires an explicit "yes" before every write (verifier hook).
    confirmation_required: bool = True
    #: Free-text arguments the grounded-arguments check exempts (verifier hook). Retail needs no
    #: derivation rule: its tools take ids, names and addresses the customer or a lookup shows.
    free_text_arguments = FREE_TEXT_ARGUMENTS

    def transcript_call(self, text: str, value: Any, context: Any) -> tuple[str, dict[str, Any] | None] | None:
        """The retail tool a hidden call of a flattened transcript was, from its result
        (:mod:`pipeline.domains.retail.transcripts`)."""
        return transcripts.transcript_call(text, value, context)


DOMAIN = RetailDomain()

__all__ = ["RetailDomain", "DOMAIN"]
