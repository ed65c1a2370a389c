"""Record models and Faker field specs from the genson schemas of logged records.

:func:`model_source` writes pydantic model classes (Python source) for a table's JSON Schema;
:func:`field_spec` describes how to fake each field (used by the generated entity factory
through :func:`pipeline.scaffold.runtime.fake_value`). Both treat an object whose keys are all
ids (every key holds a run of 3+ digits, e.g. ``{"credit_card_4421486": {...}}``) as a map from
id to one value shape, not as a record with those fields.
"""
from __future__ import annotations

import keyword
import re
from collections import Counter
from typing import Any

from genson import SchemaBuilder

_DIGITS = re.compile(r"\d{3,}")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2})?")
_TIME = re.compile(r"^\d{2}:\d{2}(:\d{2})?$")
_EMAIL = re.compile(r"^[\w.+-]+@[\w-]+(\.[\w-]+)+$")
#: Field names whose values are open sets (never faked as a choice among the logged values).
_OPEN_FIELDS = ("name", "email", "phone", "address", "street", "city", "zip", "note", "reason", "description")


def is_map(schema: dict[str, Any]) -> bool:
    """An object schema whose property names are all ids (a run of 3+ digits in each)."""
    props = schema.get("properties") or {}
    return schema.get("type") == "object" and bool(props) and all(_DIGITS.search(k) for k in props)


def _merged_values(schema: dict[str, Any]) -> dict[str, Any]:
    b = SchemaBuilder(schema_uri=None)
    for sub in (schema.get("properties") or {}).values():
        b.add_schema(sub)
    return b.to_schema()


def _camel(*parts: str) -> str:
    words = [w for p in parts for w in re.split(r"[^A-Za-z0-9]+", p) if w]
    name = "".join(w[:1].upper() + w[1:] for w in words) or "Record"
    return name if not name[0].isdigit() else "R" + name


def _ident(name: str) -> str:
    s = re.sub(r"\W", "_", name)
    if not s or s[0].isdigit():
        s = "f_" + s
    return s + "_" if keyword.iskeyword(s) else s


class _Writer:
    def __init__(self) -> None:
        self.classes: list[str] = []
        self.names: set[str] = set()

    def annotation(self, schema: dict[str, Any], hint: str) -> str:
        if "anyOf" in schema:
            opts = [self.annotation(s, hint) for s in schema["anyOf"]]
            return " | ".join(dict.fromkeys(opts))
        t = schema.get("type")
        if isinstance(t, list):
            return " | ".join(dict.fromkeys(self.annotation({**schema, "type": x}, hint) for x in t))
        if t == "string":
            return "str"
        if t == "integer":
            return "int"
        if t == "number":
            return "float"
        if t == "boolean":
            return "bool"
        if t == "null":
            return "None"
        if t == "array":
            items = schema.get("items")
            return f"list[{self.annotation(items, hint) if isinstance(items, dict) else 'Any'}]"
        if t == "object":
            if is_map(schema):
                return f"dict[str, {self.annotation(_merged_values(schema), hint)}]"
            if not schema.get("properties"):
                return "dict[str, Any]"
            return self.model(schema, hint)
        return "Any"

    def model(self, schema: dict[str, Any], name: str) -> str:
        cls = _camel(name)
        base, k = cls, 1
        while cls in self.names:
            k += 1
            cls = f"{base}{k}"
        self.names.add(cls)
        required = set(schema.get("required") or [])
        lines = [f"class {cls}(_Strict):", f'    """{name} (fields inferred from the logs)."""', ""]
        body = []
        for prop, sub in (schema.get("properties") or {}).items():
            ann = self.annotation(sub, f"{name}_{prop}")
            py = _ident(prop)
            alias = f", alias={prop!r}" if py != prop else ""
            if prop in required:
                body.append(f"    {py}: {ann}" + (f" = Field({alias[2:]})" if alias else ""))
            else:
                opt = ann if "None" in ann.split(" | ") else f"{ann} | None"
                body.append(f"    {py}: {opt} = Field(None{alias})")
        lines += body or ["    pass"]
        self.classes.append("\n".join(lines))
        return cls


def model_source(table: str, schema: dict[str, Any]) -> tuple[str, str]:
    """``(python source, root class name)`` of pydantic models for one table's record schema (a
    genson object schema): nested objects become their own classes, id-keyed objects
    ``dict[str, ...]``, fields missing from some versions optional. The source expects ``Any``,
    ``Field`` and ``_Strict`` (a pydantic base with ``extra="forbid"``) in scope."""
    w = _Writer()
    singular = table[:-3] + "y" if table.endswith("ies") else table[:-1] if table.endswith("s") else table
    root = w.model(schema, singular)
    return "\n\n\n".join(w.classes), root


def _template(value: str) -> str:
    return re.sub(r"\d", "#", value)


def field_spec(name: str, values: list[Any]) -> dict[str, Any]:
    """How to fake a field from the values the logs show (a JSON-able spec for
    :func:`pipeline.scaffold.runtime.fake_value`): ``enum`` (2-6 distinct short strings, one seen
    at least twice, in a field whose name is not an open set such as a name or an address),
    ``faker`` (a Faker provider chosen by the field name or the value shape: email, first/last
    name, city, zip, street address, date), ``pattern`` (digits redrawn in a logged value's shape,
    e.g. ``#W#######``, ``555-####`` for phones), ``time`` (``HH:MM`` within the logged hours, on
    the logged minutes), ``int``/``float`` ranges, ``bool``, ``object``, ``map`` (id-keyed), ``list``,
    ``text``, ``null``."""
    vals = [v for v in values if v is not None]
    if not vals:
        return {"kind": "null"}
    if all(isinstance(v, bool) for v in vals):
        return {"kind": "bool", "p": round(sum(vals) / len(vals), 3)}
    if all(isinstance(v, int) and not isinstance(v, bool) for v in vals):
        return {"kind": "int", "min": min(vals), "max": max(vals)}
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
        return {"kind": "float", "min": float(min(vals)), "max": float(max(vals))}
    if all(isinstance(v, dict) for v in vals):
        keys = [k for v in vals for k in v]
        if keys and all(_DIGITS.search(k) for k in keys):
            return {"kind": "map", "key": field_spec("id", [k for v in vals for k in v]),
                    "value": field_spec(name, [x for v in vals for x in v.values()]),
                    "max": max(len(v) for v in vals)}
        counts = Counter(keys)
        return {"kind": "object", "fields": {k: field_spec(k, [v[k] for v in vals if k in v]) for k in counts},
                "optional": sorted(k for k, c in counts.items() if c < len(vals))}
    if all(isinstance(v, list) for v in vals):
        return {"kind": "list", "item": field_spec(name, [x for v in vals for x in v]),
                "min": min(len(v) for v in vals), "max": max(len(v) for v in vals)}
    if not all(isinstance(v, str) for v in vals):
        return {"kind": "choice", "values": sorted({repr(v): v for v in vals}.values(), key=repr)[:20]}
    n = name.lower()
    distinct = sorted(set(vals))
    if (2 <= len(distinct) <= 6 and len(vals) > len(distinct) and not any(_DIGITS.search(v) for v in distinct)
            and all(len(v.split()) <= 3 for v in distinct) and not any(k in n for k in _OPEN_FIELDS)):
        return {"kind": "enum", "values": distinct}
    if all(_EMAIL.match(v) for v in vals):
        return {"kind": "faker", "provider": "email"}
    if all(_DATE.match(v) for v in vals):
        return {"kind": "date", "min": min(vals), "max": max(vals)}
    if all(_DATETIME.match(v) for v in vals):
        return {"kind": "datetime", "min": min(vals), "max": max(vals)}
    if all(_TIME.match(v) for v in vals):
        hours = [int(v[:2]) for v in vals]
        return {"kind": "time", "hours": [min(hours), max(hours)], "minutes": sorted({v[3:5] for v in vals})}
    for key, provider in (("first_name", "first_name"), ("last_name", "last_name"), ("full_name", "name"),
                          ("email", "email"), ("city", "city"), ("zip", "zipcode"),
                          ("postcode", "zipcode"), ("address1", "street_address"), ("street", "street_address"),
                          ("address2", "secondary_address"), ("company", "company"), ("country", "country")):
        if key in n:
            return {"kind": "faker", "provider": provider}
    if n in ("name", "customer", "patient", "contact", "owner") and all(len(v.split()) in (2, 3) for v in vals):
        return {"kind": "faker", "provider": "name"}
    if n in ("state", "province") and all(len(v) == 2 and v.isupper() for v in vals):
        return {"kind": "faker", "provider": "state_abbr"}
    if any(re.search(r"\d", v) for v in vals) and all(len(v) <= 40 for v in vals):
        return {"kind": "pattern", "templates": sorted({_template(v) for v in vals})[:20]}
    words = [len(v.split()) for v in vals]
    return {"kind": "text", "min_words": min(words), "max_words": max(max(words), 1)}
