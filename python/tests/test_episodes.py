"""``sandmle.Env``: a full episode in each codec, the record and transcript,
and the results of ``sandmle.evaluate`` against ``sandmle evaluate``."""

import csv
import json

import pytest
import sandmle

from conftest import WINE, run_cli, without_timing

COPY = "import shutil\nshutil.copy('sample_submission.csv', 'submission.csv')\nprint('copied')\n"
SPEC = {
    "steps": [{"op": "impute", "strategy": "median"}, {"op": "scale", "method": "standard"}],
    "model": {"type": "logistic_regression", "c": 1.0},
}


def tool_text(codec: str, name: str, args: dict) -> str:
    """An assistant turn calling ``name`` in a text codec."""
    if codec == "sandmle_react" and name == "PythonInterpreter":
        return f"<think>Run it.</think>\n<tool_call>\npython\n<code>\n{args['code']}</code>\n</tool_call>"
    return f"<think>Call {name}.</think>\n<tool_call>{json.dumps({'name': name, 'arguments': args})}</tool_call>"


def act(env, codec: str, name: str, args: dict):
    if codec == "openai_tools":
        return env.call_tool(name, args)
    return env.step(tool_text(codec, name, args))


@pytest.mark.parametrize("codec", sandmle.CODECS)
def test_an_episode_in_each_codec(codec, unsandboxed):
    env = sandmle.Env(str(WINE), codec=codec, tools=["python", "pipeline"], max_turns=8, unsandboxed=unsandboxed)
    messages, info = env.reset(seed=3)
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[0]["content"] == env.system_prompt
    assert info["codec"] == codec and info["task_id"] == env.task_id
    assert info["tools"] == ["PythonInterpreter", "RunPipeline", "Score"]
    names = sorted(t.get("name") or t["function"]["name"] for t in env.tools)
    assert names == ["PythonInterpreter", "RunPipeline", "Score"]

    rewards = []
    obs, r, term, trunc, info = act(env, codec, "PythonInterpreter", {"code": COPY})
    rewards.append(r)
    assert "copied" in obs[0]["content"] and info["status"] == "completed", (obs, info)
    assert (term, trunc) == (False, False)
    obs, r, *_ = act(env, codec, "Score", {})
    rewards.append(r)
    assert "Submission OK" in obs[0]["content"]
    obs, r, _, _, info = act(env, codec, "RunPipeline", {"spec": SPEC})
    rewards.append(r)
    assert info["action"] == "run_pipeline" and info["status"] == "completed", info
    obs, r, _, _, info = act(env, codec, "Score", {})
    rewards.append(r)
    scored = info["grade"]
    assert scored["valid_submission"] is True
    obs, r, term, trunc, info = env.step("<think>Done.</think><answer>submission.csv</answer>")
    rewards.append(r)
    assert (term, trunc) == (True, False) and info["termination"] == "answer"
    assert obs == []
    # Delta rewards add up to the episode's reward.
    assert sum(rewards) == pytest.approx(info["total_reward"])
    # The graded submission is the last one scored (the release's rule).
    assert info["final_grade"] == scored

    record = env.record()
    assert record["schema"] == "sandmle.trajectory/v1"
    assert record["codec"] == codec and record["episode_id"] == f"{env.task_id}:0"
    assert record["reward"] == pytest.approx(info["total_reward"])
    assert [s["action"] for s in record["steps"]] == ["run_code", "score", "run_pipeline", "score", "finish"]
    assert record["prompt"] + record["completion"] == env.transcript()
    env.close()
    assert env.closed


def test_record_is_refused_before_the_end_and_steps_after_it():
    env = sandmle.Env(str(WINE), tools=["pipeline"], max_turns=2)
    with pytest.raises(sandmle.BadArguments):
        env.step("<think>early</think>")
    env.reset()
    with pytest.raises(sandmle.BadArguments):
        env.record()
    env.step("<think>nothing</think>")
    _, _, term, trunc, info = env.step("<think>still nothing</think>")
    assert (term, trunc) == (False, True) and info["termination"] == "max_turns"
    assert env.record()["truncated"] is True
    with pytest.raises(sandmle.BadArguments):
        env.step("<think>too late</think>")


def test_the_same_turns_give_the_same_record():
    def play():
        with sandmle.Env(str(WINE), tools=["pipeline"], reward="paper_dense", reward_mode="terminal") as env:
            env.reset(seed=11, rollout_idx=2)
            env.step(tool_text("sandmle_react", "RunPipeline", {"spec": SPEC}))
            env.step("<think>Done.</think><answer>x</answer>")
            return env.record()

    first, second = play(), play()
    assert without_timing(first) == without_timing(second)
    assert first["rollout_idx"] == 2 and first["group_id"].endswith(":11")
    assert [s["reward"] for s in first["steps"]][0] == 0.0  # terminal mode


def test_evaluate_gives_the_command_lines_object(tmp_path, sandmle_bin):
    sub = tmp_path / "submission.csv"
    sub.write_text((WINE / "prepared" / "public" / "sample_submission.csv").read_text())
    ours = sandmle.evaluate(str(WINE), str(sub))
    cli = json.loads(run_cli(sandmle_bin, "evaluate", "--env", str(WINE), "--submission_path", str(sub)).stdout)
    assert ours == cli
    for key in ("score", "is_lower_better", "gold_threshold", "silver_threshold", "bronze_threshold",
                "median_threshold", "valid_submission", "medal", "above_median", "human_rank", "score_raw"):
        assert key in ours


def test_an_invalid_submission_raises_with_the_report(tmp_path, sandmle_bin):
    rows = list(csv.reader((WINE / "prepared" / "public" / "sample_submission.csv").open()))
    sub = tmp_path / "short.csv"
    with sub.open("w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows[:-3])  # rows missing
    with pytest.raises(sandmle.InvalidSubmission) as e:
        sandmle.evaluate(str(WINE), str(sub))
    assert isinstance(e.value, sandmle.SandmleError) and e.value.kind == "invalid_submission"
    assert e.value.report["valid_submission"] is False and e.value.report["score"] is None
    cli = run_cli(sandmle_bin, "evaluate", "--env", str(WINE), "--submission_path", str(sub), check=False)
    assert cli.returncode == 1
    assert json.loads(cli.stdout)["error"] == e.value.report["error"]


IMAGE_SEED = WINE.parent / "digits_png"

#: Reads every row's PNG in the workspace with the standard library and
#: writes the most common training label for each test row.
READ_IMAGES = """import csv, os, struct, zlib
names = sorted(os.listdir('images'))
sizes = set()
for n in names:
    data = open('images/' + n, 'rb').read()
    assert data[:8] == b'\\x89PNG\\r\\n\\x1a\\n', n
    w, h = struct.unpack('>II', data[16:24])
    sizes.add((w, h))
train = list(csv.DictReader(open('train.csv')))
test = list(csv.DictReader(open('test.csv')))
assert all(os.path.exists('images/' + r['id'] + '.png') for r in train + test)
labels = [r['label'] for r in train]
top = max(set(labels), key=labels.count)
with open('submission.csv', 'w') as f:
    f.write('id,label\\n' + ''.join(r['id'] + ',' + top + '\\n' for r in test))
print('images', len(names), 'sizes', sorted(sizes))
"""


def test_an_image_task_shows_its_images_to_the_agent(unsandboxed):
    env = sandmle.Env(str(IMAGE_SEED), codec="openai_tools", tools=["python"], max_turns=4, unsandboxed=unsandboxed)
    messages, _ = env.reset(seed=0)
    assert "images/" in messages[1]["content"] and "images/<id>.png" in messages[1]["content"]
    obs, _, _, _, info = env.call_tool("PythonInterpreter", {"code": READ_IMAGES})
    assert info["status"] == "completed", (obs, info)
    assert "images 1797 sizes [(8, 8)]" in obs[0]["content"], obs
    obs, _, _, _, info = env.call_tool("Score", {})
    assert info["grade"]["valid_submission"] is True, info
