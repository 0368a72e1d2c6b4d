"""OpenEnv's own checks and client against `sandmle serve` and its exports.

- ``openenv validate --url`` (openenv-core's CLI) passes every check against
  a running server, ``/mcp`` included.
- ``sandmle export --format openenv --lock`` writes a package that
  ``openenv validate <dir>`` passes (``uv`` must be on ``PATH``).
- A code step of 120 s completes under openenv-core's ``GenericEnvClient``
  with its default keepalive (a ping every 20 s, 20 s to answer): the
  server answers pings while the step runs.
- ``sandmle export --format harbor`` writes tasks that Harbor's own
  ``harbor lint`` passes and its ``Task`` loader reads (Harbor needs
  Python 3.12 or later: ``$SANDMLE_HARBOR_PYTHON``, the interpreter of a
  virtualenv with ``harbor`` installed); each task's reference solution and
  verifier, run in a bubblewrap stand-in for Harbor's containers (``/app``,
  ``/tests``, ``/solution``, ``/logs`` bound as Harbor mounts them), write a
  ``reward.json`` that the solution earns.
"""

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from conftest import REPO, bwrap_works

GUARD_S = 600


@pytest.fixture(scope="module")
def served(tmp_path_factory, sandmle_bin):
    envs = tmp_path_factory.mktemp("envs")
    shutil.copytree(REPO / "examples" / "seeds" / "wine", envs / "wine")
    cmd = [str(sandmle_bin), "--json", "serve", "--envs", str(envs), "--port", "0", "--step-timeout", "300"]
    if not bwrap_works():
        cmd.append("--unsandboxed")
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    lines: "queue.Queue[str]" = queue.Queue()
    threading.Thread(target=lambda: lines.put(proc.stdout.readline()), daemon=True).start()
    info = json.loads(lines.get(timeout=120))
    yield info["listening"]
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=120)


def openenv_cli() -> str:
    exe = Path(sys.executable).with_name("openenv")
    if not exe.exists():
        pytest.skip("openenv-core's CLI is not installed")
    return str(exe)


def test_openenv_validate_url_passes_every_check(served):
    out = subprocess.run([openenv_cli(), "validate", "--url", served], capture_output=True, text=True, timeout=120)
    report = json.loads(out.stdout)
    failed = [c["id"] for c in report["criteria"] if not c["passed"]]
    assert report["passed"] and not failed, failed
    ids = {c["id"] for c in report["criteria"]}
    assert {"mcp_endpoint", "schema_endpoint", "mode_endpoint_consistency"} <= ids


def test_the_exported_openenv_package_validates(tmp_path, sandmle_bin):
    if shutil.which("uv") is None:
        pytest.skip("uv is not on PATH (`--lock` runs `uv lock`)")
    envs = tmp_path / "envs"
    envs.mkdir()
    shutil.copytree(REPO / "examples" / "seeds" / "wine", envs / "wine")
    pkg = tmp_path / "sandmle_env"
    done = subprocess.run([str(sandmle_bin), "--json", "export", "--format", "openenv", "--envs", str(envs),
                           "--out", str(pkg), "--lock"], capture_output=True, text=True, timeout=GUARD_S)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["tasks"] == ["wine"]
    out = subprocess.run([openenv_cli(), "validate", str(pkg)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "[OK]" in out.stdout, out.stdout + out.stderr
    assert (pkg / "bin" / "sandmle").exists() and (pkg / "envs" / "wine" / "prepared").is_dir()
    dockerfile = (pkg / "Dockerfile").read_text()
    assert "bubblewrap" in dockerfile and "HEALTHCHECK" in dockerfile and "sandmle" in dockerfile


@pytest.mark.skipif(not bwrap_works(), reason="a code step needs the sandbox")
def test_a_120_second_step_completes_under_openenv_cores_client(served):
    from openenv.core import GenericEnvClient

    code = ("<think>wait</think>\n<tool_call>\npython\n<code>\nimport time, shutil\ntime.sleep(120)\n"
            "shutil.copy('sample_submission.csv', 'submission.csv')\nprint('slept')\n</code>\n</tool_call>")
    # The client's keepalive is websockets' default; only the reply timeout is raised.
    with GenericEnvClient(base_url=served, message_timeout_s=400).sync() as env:
        env.reset(task_id="wine", tools=["python"], step_timeout_s=200)
        r = env.step({"content": code})
        text = r.observation["messages"][0]["content"]
        assert "slept" in text and "submission.csv found" in text, text
        r = env.step({"content": '<think>grade</think><tool_call>{"name": "Score", "arguments": {}}</tool_call>'})
        assert r.observation["info"]["grade"]["valid_submission"] is True


def harbor_python():
    py = os.environ.get("SANDMLE_HARBOR_PYTHON")
    if not py:
        pytest.skip("SANDMLE_HARBOR_PYTHON (a Python >= 3.12 with harbor) is not set")
    return py


HARBOR_CHECK = """
import json, subprocess, sys
from pathlib import Path
from harbor.models.task.task import Task
root = Path(sys.argv[1])
tasks = sorted(p for p in root.iterdir() if p.is_dir())
lint = subprocess.run([str(Path(sys.executable).with_name("harbor")), "lint", "--json", *map(str, tasks)],
                      capture_output=True, text=True)
loaded = {t.name: Task(t).config.verifier.environment_mode.value for t in tasks}
print(json.dumps({"lint_rc": lint.returncode, "lint": lint.stdout, "loaded": loaded}))
"""


def speech_environment(tmp_path, sandmle_bin, envs):
    """A tensorflow-speech-like competition of WAV clips labelled by folder,
    imported and shrunk into ``envs/speech`` (an audio task for Harbor)."""
    import math
    import wave

    comp = tmp_path / "speech-competition"
    public = comp / "prepared" / "public"

    def clip(path, i):
        path.parent.mkdir(parents=True, exist_ok=True)
        pitch = 220.0 * 4.0 ** (((i * 37 + 11) % 101) / 101.0)
        frames = b"".join(int(0.3 * 32767 * math.sin(t * pitch * 2 * math.pi / 8000)).to_bytes(2, "little", signed=True)
                          for t in range(2000))
        with wave.open(str(path), "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(8000)
            w.writeframes(frames)

    word = lambda i: "yes" if (((i * 37 + 11) % 101) / 101.0 > 0.5) != (i % 7 == 0) else "no"  # noqa: E731
    for i in range(120):
        clip(public / "train" / "audio" / word(i) / f"{i:04d}_nohash_0.wav", i)
    sample, answers = ["fname,label"], ["fname,label"]
    for i in range(120, 160):
        clip(public / "test" / "audio" / f"clip_{i:04d}.wav", i)
        sample.append(f"clip_{i:04d}.wav,no")
        answers.append(f"clip_{i:04d}.wav,{word(i)}")
    (public / "sample_submission.csv").write_text("\n".join(sample) + "\n")
    (public / "description.md").write_text("# Speech\n")
    (comp / "prepared" / "private").mkdir(parents=True)
    (comp / "prepared" / "private" / "answers.csv").write_text("\n".join(answers) + "\n")
    imported, micro = tmp_path / "speech-env", tmp_path / "speech-micro"
    for args in (["import", "--competition", str(comp), "--metric", "accuracy", "--out", str(imported)],
                 ["shrink", "--seed-env", str(imported), "--seed", "1", "--out", str(micro)]):
        done = subprocess.run([str(sandmle_bin), "--json", *args], capture_output=True, text=True, timeout=GUARD_S)
        assert done.returncode == 0, (args[0], done.stdout[-500:], done.stderr[-500:])
    [env] = [d for d in micro.iterdir() if (d / "prepared").is_dir()]
    shutil.copytree(env, envs / "speech")


def test_harbor_lints_and_loads_every_exported_task_and_its_solution_earns_its_reward(tmp_path, sandmle_bin):
    py = harbor_python()
    envs = tmp_path / "envs"
    envs.mkdir()
    for seed in ("wine", "digits_png", "diabetes"):
        shutil.copytree(REPO / "examples" / "seeds" / seed, envs / seed)
    # Regression: the reference solution read every row's file as an image.
    speech_environment(tmp_path, sandmle_bin, envs)
    out = tmp_path / "harbor"
    done = subprocess.run([str(sandmle_bin), "--json", "export", "--format", "harbor", "--envs", str(envs),
                           "--out", str(out)], capture_output=True, text=True, timeout=GUARD_S)
    assert done.returncode == 0, done.stderr
    check = subprocess.run([py, "-c", HARBOR_CHECK, str(out)], capture_output=True, text=True, timeout=GUARD_S)
    assert check.returncode == 0, check.stderr
    report = json.loads(check.stdout)
    assert report["lint_rc"] == 0 and json.loads(report["lint"] or "[]") == [], report["lint"]
    assert report["loaded"] == {"wine": "separate", "digits_png": "separate", "diabetes": "separate",
                                "speech": "separate"}
    for task in ("wine", "digits_png", "diabetes", "speech"):
        root = out / task
        # The agent's image holds no answers.
        image = {p.name for p in (root / "environment").rglob("*")}
        assert "answers.csv" not in image and "grading.json" not in image
        assert (root / "tests" / "env" / "prepared" / "private" / "answers.csv").exists()
        if not bwrap_works():
            continue
        app, logs = tmp_path / f"app-{task}", tmp_path / f"logs-{task}"
        shutil.copytree(root / "environment" / "data", app)
        logs.mkdir()
        # Harbor's order: the agent's phase (here the reference solution),
        # then the verifier with /tests uploaded.
        python_dir = str(Path(sys.executable).parent)
        for script, mounts in (("/solution/solve.sh", ["--bind", str(root / "solution"), "/solution"]),
                               ("/tests/test.sh", ["--bind", str(root / "tests"), "/tests"])):
            run = subprocess.run(["bwrap", "--bind", "/", "/", "--bind", str(app), "/app", "--bind", str(logs), "/logs",
                                  *mounts, "--setenv", "PATH", f"{python_dir}:/usr/bin:/bin", "--", "bash", script],
                                 capture_output=True, text=True, timeout=GUARD_S)
            assert run.returncode == 0, (task, script, run.stdout, run.stderr)
        reward = json.loads((logs / "verifier" / "reward.json").read_text())
        assert all(isinstance(v, (int, float)) for v in reward.values()), reward
        assert reward["valid"] == 1.0 and reward["reward"] >= 0.2, (task, reward)
        assert float((logs / "verifier" / "reward.txt").read_text()) == reward["reward"]
