"""One front: the server and the Python package give the same step info
for the same step, take the same options, and raise the same kinds.

The step info used to be built twice, and the two had drifted (Python's
grades carried `medal`, the server's did not); the options were parsed
four times (Python took `graded` and the tool names `PythonInterpreter` and
`Score`, the server refused them).
"""

import json
import queue
import shutil
import signal
import subprocess
import threading

import pytest

import sandmle
from conftest import WINE

websockets = pytest.importorskip("websockets.sync.client")

SPEC = {"steps": [{"op": "impute", "strategy": "median"}], "model": {"type": "logistic_regression", "c": 1.0}}
TURNS = [
    "<think>fit</think><tool_call>" + json.dumps({"name": "RunPipeline", "arguments": {"spec": SPEC}}) + "</tool_call>",
    '<think>grade</think><tool_call>{"name": "Score", "arguments": {}}</tool_call>',
    "<think>done</think><answer>submission.csv</answer>",
]
OPTIONS = {"tools": ["RunPipeline", "Score"], "graded": "best", "max_turns": 5, "reward_mode": "delta"}


def without_times(info):
    info = json.loads(json.dumps(info))
    info.pop("wall_ms", None)
    return info


@pytest.fixture(scope="module")
def server(tmp_path_factory, sandmle_bin):
    envs = tmp_path_factory.mktemp("envs")
    shutil.copytree(WINE, envs / "wine")
    proc = subprocess.Popen([str(sandmle_bin), "--json", "serve", "--envs", str(envs), "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    lines: "queue.Queue[str]" = queue.Queue()
    threading.Thread(target=lambda: lines.put(proc.stdout.readline()), daemon=True).start()
    info = json.loads(lines.get(timeout=120))
    yield info["listening"].replace("http://", "ws://") + "/ws"
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=120)


def test_the_server_and_python_give_the_same_info_for_the_same_steps(server):
    with websockets.connect(server, max_size=None) as ws:
        ws.send(json.dumps({"type": "reset", "data": {"task_id": "wine", **OPTIONS}}))
        reset = json.loads(ws.recv())
        assert reset["type"] == "observation", reset
        served = []
        for turn in TURNS:
            ws.send(json.dumps({"type": "step", "data": {"content": turn}}))
            data = json.loads(ws.recv())["data"]
            served.append((data["reward"], without_times(data["observation"]["info"])))
    env = sandmle.Env(str(WINE), tools=OPTIONS["tools"], graded=OPTIONS["graded"], max_turns=OPTIONS["max_turns"])
    _, info = env.reset(seed=0)
    assert info["reward_weights"] == reset["data"]["observation"]["info"]["reward_weights"]
    local = []
    for turn in TURNS:
        _, reward, _, _, info = env.step(turn)
        local.append((reward, without_times(info)))
    env.close()
    assert local == served
    # The grades are the one view, with the medal by name.
    assert "medal" in served[1][1]["grade"] and "medal" in served[-1][1]["final_grade"]


def test_a_bad_option_is_the_callers_fault_in_both():
    with pytest.raises(sandmle.BadArguments) as e:
        sandmle.Env(str(WINE), tools=["bash"])
    assert e.value.kind == "bad_arguments" and "tools" in str(e.value)
    with pytest.raises(sandmle.BadArguments):
        sandmle.Env(str(WINE), graded="median")


def test_the_server_refuses_the_same_bad_option_as_a_validation_error(server):
    with websockets.connect(server, max_size=None) as ws:
        ws.send(json.dumps({"type": "reset", "data": {"task_id": "wine", "tools": ["bash"]}}))
        reply = json.loads(ws.recv())
        assert reply["type"] == "error" and reply["data"]["code"] == "VALIDATION_ERROR", reply
        assert "tools" in reply["data"]["message"]


def _tree(root):
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_python_and_the_command_line_take_the_same_mix(tmp_path, sandmle_bin):
    """``sandmle.generate(mix=...)`` is ``sandmle generate --mix``: the same
    tree, the mix recorded, a forecasting task grown from the wage seed."""
    from conftest import SEEDS, run_cli

    mix = "time_series=1,image=1"
    py, cli = tmp_path / "py", tmp_path / "cli"
    report = sandmle.generate(str(py), per_seed=3, seed=2, seeds_dir=str(SEEDS), seed_envs=["wage"], mix=mix)
    assert report["yield"]["settings"]["mix"]["name"] == mix
    assert "time_series" in report["yield"]["spread"]["modalities"], report["yield"]["spread"]
    run_cli(sandmle_bin, "generate", "--seeds", str(SEEDS), "--seed-env", "wage", "--per-seed", "3", "--seed", "2",
            "--mix", mix, "--out", str(cli))
    assert _tree(py) == _tree(cli)
