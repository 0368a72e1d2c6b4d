# GRPO with TRL on `sandmle serve` episodes: python python/examples/trl_grpo.py
import os

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer
from trl import GRPOConfig, GRPOTrainer

from sandmle.trl import env_reward, make_rollout_func, task_dataset

url = os.environ.get("SANDMLE_URL", "http://127.0.0.1:8000")  # sandmle serve --envs out/
model = os.environ.get("MODEL", "Qwen/Qwen3-1.7B")
tasks = os.environ["TASK_IDS"].split(",") if "TASK_IDS" in os.environ else None  # None: all of GET /tasks
turns, turn_tokens = int(os.environ.get("MAX_TURNS", 4)), int(os.environ.get("TURN_TOKENS", 1024))
episode = {"codec": "sandmle_react", "tools": ["python", "pipeline"], "max_turns": turns}

trainer = GRPOTrainer(
    model=AutoModelForCausalLM.from_pretrained(model),
    processing_class=AutoTokenizer.from_pretrained(model),
    args=GRPOConfig(
        output_dir="grpo-sandmle", max_steps=int(os.environ.get("TRAIN_STEPS", 200)), report_to="none",
        num_generations=4, per_device_train_batch_size=4, bf16=torch.cuda.is_available(),
        max_completion_length=turns * (turn_tokens + 512),  # the model's turns and the tool's replies
    ),
    train_dataset=task_dataset(url, tasks, **episode),  # one row per environment: prompt, task_id
    rollout_func=make_rollout_func(url, max_turn_tokens=turn_tokens, **episode),
    reward_funcs=env_reward,  # each episode's total reward, as the server computed it
)
trainer.train()
