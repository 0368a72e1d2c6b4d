#!/usr/bin/env bash
# Two scikit-learn code steps (logistic regression; a 100-tree random forest;
# 200 training rows of the breast_cancer seed), each run as a cold sandboxed
# step, a warm sandboxed step and plain `python main.py` outside any sandbox.
# Usage: sandmle-exec/benches/warm_python.sh [PYTHON] [RUNS]
#   PYTHON: an interpreter or virtualenv with pandas and scikit-learn
#           (default $SANDMLE_PYTHON, else python3 on PATH); RUNS: per cell (11).
set -euo pipefail
cd "$(dirname "$0")/../.."
python="${1:-${SANDMLE_PYTHON:-$(command -v python3)}}"
runs="${2:-11}"
cargo run --release -p sandmle-exec --example warm_python -- "$python" "$runs"
