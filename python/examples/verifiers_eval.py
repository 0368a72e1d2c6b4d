# A verifiers evaluation of `sandmle serve` episodes: python python/examples/verifiers_eval.py
import asyncio
import json
import os

from verifiers.v1.cli.eval.runner import run_eval
from verifiers.v1.configs.cli.eval import EvalConfig

import sandmle.verifiers  # noqa: F401  (registers the taskset id "sandmle")

taskset = {
    "id": "sandmle",
    "base_url": os.environ.get("SANDMLE_URL", "http://127.0.0.1:8000"),  # sandmle serve --envs out/
    "reset": {"codec": "sandmle_react", "tools": ["python", "pipeline"], "max_turns": 6},
}
if "TASK_IDS" in os.environ:  # otherwise every task GET /tasks lists
    taskset["task_ids"] = os.environ["TASK_IDS"].split(",")
config = EvalConfig.model_validate({
    "env": {"taskset": taskset},  # the player: verifiers' `null` harness (plain chat), run locally
    "model": os.environ.get("MODEL", "Qwen/Qwen3-8B"),
    "client": {"type": "eval", "base_url": os.environ.get("OPENAI_BASE_URL", "http://127.0.0.1:8001/v1"),
               "api_key_var": "OPENAI_API_KEY"},
    "num_rollouts": 4, "rich": None, "push": False,
})
for episode in asyncio.run(run_eval(config)):  # also written to outputs/
    for trace in episode.traces:
        print(json.dumps({"reward": trace.reward, "metrics": trace.metrics, **trace.info["sandmle"]}))
