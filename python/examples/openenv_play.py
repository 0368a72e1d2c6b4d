# One `sandmle serve` episode through OpenEnv's client, with a policy of your own:
# python python/examples/openenv_play.py
import json
import os

from sandmle.openenv import play

TURNS = [
    "<think>Start from the sample.</think>\n<tool_call>\npython\n<code>\n"
    "import shutil\nshutil.copy('sample_submission.csv', 'submission.csv')\n</code>\n</tool_call>",
    '<think>Grade it.</think><tool_call>{"name": "Score", "arguments": {}}</tool_call>',
    "<think>Done.</think><answer>submission.csv</answer>",
]


def policy(messages):  # the conversation so far -> the assistant's next text: call your model here
    return TURNS[min(sum(m["role"] == "assistant" for m in messages), len(TURNS) - 1)]


episode = play(os.environ.get("SANDMLE_URL", "http://127.0.0.1:8000"), policy, seed=0, max_turns=5)
print(json.dumps({"task_id": episode.task_id, "total_reward": episode.total_reward,
                  "reward_components": episode.reward_components, "termination": episode.termination}))
