"""JSON Schemas in schemas/ stay in step with the record models, and reason codes are documented."""
import json

from pipeline.records import RECORD_TYPES
from pipeline.verify.reasons import REASONS
from tests.conftest import ROOT


def test_generated_schemas_match_models():
    for name, model in RECORD_TYPES.items():
        path = ROOT / "schemas" / "generated" / f"{name}.schema.json"
        assert path.exists(), f"missing {path}: run python -m pipeline.records"
        assert json.loads(path.read_text()) == model.model_json_schema(), f"{path} is stale: run python -m pipeline.records"


def test_every_reason_code_in_use_is_documented():
    import pipeline.dedupe as dd
    import pipeline.ingest as ing
    import pipeline.select as sel
    used = {v for m in (ing, sel, dd) for k, v in vars(m).items()
            if k.isupper() and isinstance(v, str) and v.isupper() and "_" in v and k == v}
    assert used, "no reason-code constants found"
    assert used <= set(REASONS), used - set(REASONS)
    doc = (ROOT / "docs" / "reason-codes.md").read_text()
    for code in REASONS:
        assert f"`{code}`" in doc
