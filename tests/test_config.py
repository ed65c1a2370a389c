"""One definition per option: RunConfig's fields are the CLI options (run and every stage command),
the Prefect flow's parameter and prefect.yaml's parameters; bad values get clear errors."""
from __future__ import annotations

import inspect
import typing
from pathlib import Path

import pytest
import typer
import yaml
from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.cli_config import TOP, flag_names
from pipeline.config import SECTIONS, ConfigError, RunConfig, load_config

ROOT = Path(__file__).resolve().parents[1]


def _leaf_fields(sections):
    for section in sections:
        model = RunConfig if section == TOP else SECTIONS[section]
        for name, info in model.model_fields.items():
            if section == TOP and name in SECTIONS:
                continue
            yield section, name, info


def _command(name: str):
    group = typer.main.get_command(app)
    return group.commands[name]


def _opts(cmd) -> dict[str, object]:
    out = {}
    for p in cmd.params:
        for o in list(p.opts) + list(getattr(p, "secondary_opts", []) or []):
            out[o] = p
    return out


def test_run_options_are_exactly_the_config_fields():
    cmd = _command("run")
    opts = _opts(cmd)
    expected = {"--config"}
    for section, name, info in _leaf_fields([TOP, *SECTIONS]):
        flags = flag_names(section, name, info)
        expected.update(flags)
        p = opts.get(flags[0])
        assert p is not None, f"{section}.{name}: no {flags[0]} on `trajpipe run`"
        assert p.help.startswith(info.description), f"{section}.{name}: help is not the field's description"
        default = info.get_default(call_default_factory=True)
        assert f"[default: {default if default is not None else 'none'}]" in p.help
        ann = info.annotation
        if typing.get_origin(ann) is typing.Literal:  # choices come from the Literal
            choices = [m.value for m in p.type_descriptor.annotation]
            assert sorted(choices) == sorted(map(str, typing.get_args(ann))), f"{section}.{name}"
    long_opts = {o for o in opts if not o.startswith("--no-")}
    assert long_opts == expected, long_opts ^ expected


def test_every_field_has_one_flag_and_a_description():
    seen = {}
    for section, name, info in _leaf_fields([TOP, *SECTIONS]):
        assert info.description and len(info.description) > 10, f"{section}.{name} has no help text"
        for flag in flag_names(section, name, info):
            assert flag not in seen, f"{flag} is both {seen[flag]} and {section}.{name}"
            seen[flag] = f"{section}.{name}"


@pytest.mark.parametrize("width", [80, 100])
def test_help_never_cuts_an_option_name_or_word(width):
    """At 80 columns rich cropped ``--tasks-per-blueprint`` to ``--tasks-per-blu…``; option names and
    help words now wrap instead (pipeline.cli._tidy_help_tables)."""
    from typer.testing import CliRunner

    from pipeline.cli import app

    for cmd in (["run", "--help"], ["rollout", "--help"], ["synthesize", "--help"]):
        res = CliRunner().invoke(app, cmd, env={"COLUMNS": str(width), "TERMINAL_WIDTH": str(width)},
                                 terminal_width=width)
        assert res.exit_code == 0, res.output
        assert max(len(line) for line in res.output.splitlines()) <= width
        assert "…" not in res.output, [line for line in res.output.splitlines() if "…" in line][:3]
    assert "--tasks-per-blue" in res.output  # the long option is there, folded if need be


@pytest.mark.parametrize("command,sections", [
    ("ingest", ["ingest"]), ("anonymize", ["anonymize"]), ("blueprints", ["blueprints"]),
    ("synthesize", ["synthesize"]), ("verify", ["verify"]), ("rollout", ["rollout"]),
    ("export", ["select", "export"])])
def test_stage_commands_take_their_own_section(command, sections):
    opts = _opts(_command(command))
    for section, name, info in _leaf_fields([TOP, *sections]):
        assert flag_names(section, name, info)[0] in opts, f"trajpipe {command}: no option for {section}.{name}"
    own = {f for sec, name, info in _leaf_fields([TOP, *sections]) for f in flag_names(sec, name, info)}
    foreign = {f for sec, name, info in _leaf_fields([s for s in SECTIONS if s not in sections])
               for f in flag_names(sec, name, info)} - own
    assert not foreign & set(opts), f"trajpipe {command} takes options of other sections: {foreign & set(opts)}"


def test_flow_takes_a_runconfig_and_prefect_yaml_is_one():
    from prefect.utilities.callables import parameter_schema

    from flows.trajpipe_flow import trajpipe_run

    sig = inspect.signature(trajpipe_run.fn)
    assert list(sig.parameters) == ["config"]
    schema = parameter_schema(trajpipe_run.fn).model_dump()
    assert "config" in schema["properties"]
    defs = schema.get("definitions") or schema.get("$defs") or {}
    assert "RunConfig" in defs and set(SECTIONS) <= set(defs["RunConfig"]["properties"])
    doc = yaml.safe_load((ROOT / "prefect.yaml").read_text())
    import importlib

    import pipeline.stages  # noqa: F401  (registers the stages)
    from pipeline.runner import STAGES

    for dep in doc["deployments"]:
        path, fn_name = dep["entrypoint"].split(":")
        mod = importlib.import_module(path.removesuffix(".py").replace("/", "."))
        fn = getattr(mod, fn_name)  # every entrypoint imports and is a flow
        assert hasattr(fn, "fn") and hasattr(fn, "deploy"), dep["entrypoint"]
        params = dep.get("parameters") or {}
        allowed = set(inspect.signature(fn.fn).parameters)
        assert set(params) <= allowed, f"{dep['name']}: unknown parameters {set(params) - allowed}"
        assert set(params) - {"stage"} <= {"config"}, f"{dep['name']}: parameters outside RunConfig"
        cfg = RunConfig.model_validate(params.get("config") or {})
        assert cfg.ingest.input_path  # a deployment names its input
        if "stage" in params:
            assert params["stage"] in STAGES


def test_defaults_are_defined_once():
    """The harness, the sampling parameters and the library's rollout_stage take their defaults
    from RolloutSection (they had drifted: max_turns 5/6/8, max_new_tokens 64/128)."""
    from pipeline.config import RolloutSection
    from pipeline.rollout.backends.base import SamplingConfig
    from pipeline.rollout.harness import RolloutConfig
    from pipeline.stages import rollout_stage

    d = RolloutSection()
    h = RolloutConfig()
    assert (h.k, h.max_turns, h.constrain, h.grounded, h.prompt_style, h.user_sim, h.tool_format) == \
        (d.k, d.max_turns, d.constrain, d.grounded, d.prompt_style, d.user_sim, d.tool_format)
    assert (SamplingConfig().max_new_tokens, SamplingConfig().temperature) == (d.max_new_tokens, d.temperature)
    params = inspect.signature(rollout_stage).parameters
    for name in ("k", "max_turns", "max_new_tokens", "temperature", "constrain", "batch_size", "prompt_style",
                 "user_sim", "tool_format", "fault_rate", "max_concurrency", "grounded", "backend", "max_retries",
                 "backoff_s", "request_timeout_s"):
        assert params[name].default == getattr(d, name), name


def test_backend_retry_settings_come_from_the_run_config(tmp_path):
    """rollout.max_retries / backoff_s / request_timeout_s (run.yaml or --max-retries ...) reach the
    openai backend the rollout stage builds; the defaults are the backend's own."""
    import httpx

    from pipeline.rollout.backends.openai_compat import OpenAICompatBackend
    from pipeline.stages import load_rollout_backend

    p = tmp_path / "run.yaml"
    p.write_text("rollout: {backend: openai, base_url: 'http://127.0.0.1:9/v1', model: m, max_retries: 2}\n")
    cfg = load_config(p, {"rollout": {"backoff_s": 0.25, "request_timeout_s": 7.5}})
    be = load_rollout_backend(cfg.rollout, seed=0)
    try:
        assert (be.max_retries, be.backoff_s) == (2, 0.25)
        assert be._client.timeout == httpx.Timeout(7.5)
    finally:
        be.close()
    d = RunConfig().rollout
    init = inspect.signature(OpenAICompatBackend.__init__).parameters
    assert (d.max_retries, d.backoff_s, d.request_timeout_s) == \
        (init["max_retries"].default, init["backoff_s"].default, init["timeout_s"].default)
    with pytest.raises(Exception, match="max_retries"):
        load_config(None, {"rollout": {"max_retries": -1}})


def test_yaml_file_plus_overrides(tmp_path):
    p = tmp_path / "run.yaml"
    p.write_text("seed: 3\nrollout: {k: 8, hints: plan}\nexport: {out_dir: o}\n")
    cfg = load_config(p, {"rollout": {"k": 2}})
    assert (cfg.seed, cfg.rollout.k, cfg.rollout.hints, cfg.export.out_dir) == (3, 2, "plan", "o")
    assert cfg.rollout.max_turns == RunConfig().rollout.max_turns
    assert cfg.run_id() == load_config(p, {"rollout": {"k": 2}}).run_id() != RunConfig().run_id()


@pytest.mark.parametrize("data,needle", [
    ({"rollout": {"k": 0}}, "rollout.k"),
    ({"rollout": {"hints": "sometimes"}}, "rollout.hints"),
    ({"rollout": {"backend": "openai"}}, "--base-url"),
    ({"rollout": {"hints": "guided", "constrain": "none"}}, "grammar"),
    ({"rollout": {"fault_kinds": "boom"}}, "fault kind"),
    ({"verify": {"difficulty_band": "1,0"}}, "verify.difficulty_band"),
    ({"export": {"split_by": "customer,galaxy"}}, "galaxy"),
    ({"ingest": {"domain": "spaceport"}}, "unknown domain"),
    ({"rollout": {"kk": 3}}, "rollout.kk"),
    ({"select": {"dedupe_threshold": 0}}, "select.dedupe_threshold"),
])
def test_bad_values_name_the_field(data, needle):
    with pytest.raises(ConfigError) as exc:
        load_config(None, data)
    assert needle in str(exc.value)


def test_bad_config_file_and_cli_errors(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "nope.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("- a list\n")
    with pytest.raises(ConfigError, match="mapping"):
        load_config(bad)
    r = CliRunner().invoke(app, ["run", "--config", str(bad)])
    assert r.exit_code == 2 and "mapping" in r.output
    r = CliRunner().invoke(app, ["run", "--k", "0", "--work", str(tmp_path / "w")])
    assert r.exit_code == 2 and "rollout.k" in r.output
    r = CliRunner().invoke(app, ["rollout", "--hints", "sometimes"])
    assert r.exit_code == 2 and "sometimes" in r.output


def test_bad_yaml_names_the_file_line_and_column(tmp_path):
    """PyYAML's own message said ``in "<unicode string>", line 3`` over several lines: the error
    names the config file, the line and the column, on one line (run config and PII config)."""
    from pipeline.anonymize.config import PiiConfig, PiiConfigError

    bad = tmp_path / "run.yaml"
    bad.write_text("rollout:\n  k: [1,\n  bad: : x\n", encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_config(bad)
    msg = str(err.value)
    assert msg.startswith(f"not valid YAML: {bad}, line 3, column ") and "<unicode string>" not in msg
    assert "\n" not in msg
    with pytest.raises(PiiConfigError, match=rf"not valid YAML: {bad}, line 3, column \d+: "):
        PiiConfig.load(bad)
