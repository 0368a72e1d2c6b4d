"""``sandmle serve`` episodes as a verifiers environment (verifiers >= 0.4,
its ``verifiers.v1`` API).

A taskset plugin as verifiers' loader wants one: this module's ``__all__``
exports one ``Taskset`` (:class:`SandmleTaskset`) and one ``Env``
(:class:`SandmleEnv`). Each task is one environment of the server (from
``GET /tasks``, or the ``task_ids`` you give); each rollout opens ``/ws``,
resets that task, hands the observation's messages (system, user) to the
model as its first turn, sends each reply as the step ``{"content": text}``,
hands the tool's reply back as the next user turn (no message when the reply
called no tool), and stops when the server says ``done``. The trace's reward
is the episode's total reward, as the server computed it (``sandmle``);
its components are metrics (``sandmle/<name>``), with ``sandmle/turns`` and
``sandmle/done``, and ``trace.info["sandmle"]`` keeps the task id, the
termination, the final grade and the components.

Importing this module registers it as verifiers' taskset ``sandmle``
(verifiers imports a taskset id ``X`` as ``verifiers.v1.tasksets.X`` or as
the top-level module ``X``, so a dotted id such as ``sandmle.verifiers``
cannot name it)::

    import sandmle.verifiers  # registers the taskset id "sandmle"

    config = EvalConfig.model_validate({
        "env": {"taskset": {"id": "sandmle", "base_url": "http://127.0.0.1:8000",
                            "reset": {"max_turns": 4}}},
        "model": "my-model", "client": {"type": "eval", "base_url": "http://127.0.0.1:8001/v1"},
        "num_rollouts": 4, "rich": None, "push": False})
    episodes = await run_eval(config)

For verifiers' command line (``vf-eval``), which imports ids itself, put a
module on the path that re-exports the classes, e.g. ``sandmle_env.py``::

    from sandmle.verifiers import SandmleEnv, SandmleTaskset, __all__

and name it: ``PYTHONPATH=. vf-eval sandmle_env --env.taskset.base-url
http://127.0.0.1:8000 -m MODEL --client.base-url URL -r 4``.

The player's default harness is ``null`` (plain chat: the model only talks;
the server runs the code) in the ``subprocess`` runtime, so nothing needs a
remote sandbox; verifiers runs every harness program with ``uv``, which must
be on ``PATH``. The reset options (``codec``, ``tools``, ``max_turns``,
``reward``, ``step_timeout_s``, ...) are the taskset's ``reset``; use a text
codec (``sandmle_react``, the server's default, or ``hermes_json``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any, Dict, List, Optional

import aiohttp
import verifiers.v1 as vf
from pydantic import Field
from verifiers.v1.harnesses.null import NullHarnessConfig

from .openenv import MESSAGE_TIMEOUT_S, ServerError, episode_reward, list_tasks, ws_url

__all__ = ["SandmleEnv", "SandmleTaskset"]


class SandmleTasksetConfig(vf.TasksetConfig):
    base_url: str = "http://127.0.0.1:8000"
    """The ``sandmle serve`` to play (``http://host:port``)."""
    task_ids: Optional[List[str]] = None
    """The tasks (environment ids or directory names); default: ``GET /tasks``."""
    split: Optional[str] = None
    """With ``GET /tasks``: only the tasks of this split (train, validation, test)."""
    reset: Dict[str, Any] = Field(default_factory=dict)
    """Reset options for every episode: codec, tools, max_turns, reward, step_timeout_s, seed, ..."""
    message_timeout_s: float = MESSAGE_TIMEOUT_S
    """The longest wait for one reply of the server (above its step limit)."""


class SandmleData(vf.TaskData):
    base_url: str
    task_id: str
    reset: Dict[str, Any]
    message_timeout_s: float


class SandmleTask(vf.Task[SandmleData]):
    pass


class SandmleEnvConfig(vf.EnvConfig):
    player: vf.AgentConfig = vf.AgentConfig(harness=NullHarnessConfig(id="null"), runtime=vf.SubprocessConfig())


def _turn(messages: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    return [{"role": m["role"], "content": m.get("content") or ""} for m in messages]


class SandmleEnv(vf.Env[SandmleEnvConfig]):
    """One ``sandmle serve`` episode per rollout (see the module documentation)."""

    async def run(self, task, agents):
        data = task.data
        rewards: List[Optional[float]] = []
        infos: List[Dict[str, Any]] = []
        done = False
        timeout = aiohttp.ClientTimeout(total=None, connect=30)
        async with aiohttp.ClientSession(timeout=timeout) as http, http.ws_connect(
            ws_url(data.base_url), max_msg_size=0, heartbeat=20
        ) as ws:

            async def call(message: Dict[str, Any]) -> Dict[str, Any]:
                await ws.send_str(json.dumps(message))
                reply = json.loads(await ws.receive_str(timeout=data.message_timeout_s))
                if reply.get("type") == "error":
                    err = reply.get("data") or {}
                    raise ServerError(str(err.get("code", "ERROR")), str(err.get("message", err)))
                return reply.get("data") or {}

            first = await call({"type": "reset", "data": {**data.reset, "task_id": data.task_id}})
            done = bool(first.get("done"))
            async with agents.player.interaction(task) as interaction:
                segment = await interaction.turn(_turn((first.get("observation") or {}).get("messages") or []))
                while not segment.terminated and not done:
                    step = await call({"type": "step", "data": {"content": segment.last_reply}})
                    observation = step.get("observation") or {}
                    rewards.append(step.get("reward"))
                    infos.append(dict(observation.get("info") or {}))
                    done = bool(step.get("done"))
                    if done:
                        termination = (observation.get("info") or {}).get("termination") or "done"
                        interaction.trace.stop(f"sandmle_{termination}")
                        break
                    segment = await interaction.turn(_turn(observation.get("messages") or []))
            try:
                await ws.send_str(json.dumps({"type": "close"}))
            except Exception:
                pass
        total, components = episode_reward(infos, rewards)
        trace = interaction.trace
        trace.record_reward("sandmle", total)
        metrics = {f"sandmle/{name}": value for name, value in components.items()}
        metrics["sandmle/turns"] = float(len(infos))
        metrics["sandmle/done"] = float(done)
        trace.record_metrics(metrics)
        last = infos[-1] if infos else {}
        trace.info["sandmle"] = {
            "task_id": data.task_id,
            "total_reward": total,
            "reward_components": components,
            "termination": last.get("termination"),
            "final_grade": last.get("final_grade"),
            "done": done,
        }


class SandmleTaskset(vf.Taskset[SandmleTask, SandmleTasksetConfig]):
    """The server's environments, one task each."""

    def load(self) -> Iterator[SandmleTask]:
        config = self.config
        if config.task_ids is not None:
            tasks = [{"task_id": t} for t in config.task_ids]
        else:
            try:
                tasks = list_tasks(config.base_url, split=config.split)
            except LookupError as e:
                raise LookupError(f"{e}: set the taskset's task_ids") from None
        for t in tasks:
            yield SandmleTask(
                SandmleData(
                    id=t["task_id"],
                    name=t.get("name") or t["task_id"],
                    prompt=None,  # the server's reset observation opens the conversation
                    base_url=config.base_url,
                    task_id=t["task_id"],
                    reset=dict(config.reset),
                    message_timeout_s=config.message_timeout_s,
                ),
                config.task,
            )


# verifiers resolves the taskset id "sandmle" to `verifiers.v1.tasksets.sandmle` when that name is importable.
sys.modules.setdefault("verifiers.v1.tasksets.sandmle", sys.modules[__name__])
