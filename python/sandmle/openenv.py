"""``sandmle serve`` from a trainer's side: OpenEnv's protocol, as the server
speaks it.

- :func:`client` builds openenv-core's ``GenericEnvClient`` with a message
  timeout above the server's step limit (a code step may run 300 s; the
  client's default timeout is 60 s);
- :func:`play` plays one episode with a policy callable (messages in, the
  assistant's text out) and returns the :class:`Episode`;
- :func:`list_tasks` reads ``GET /tasks`` (servers that have it);
- :class:`Session` is one episode over ``/ws`` with nothing but the
  ``websockets`` package (``sandmle.trl`` uses it);
- :func:`episode_reward` reads an episode's total reward and its components
  from its steps' ``info``.

::

    from sandmle.openenv import play

    def policy(messages):           # the conversation so far -> the assistant's text
        return "<think>Done.</think><answer>submission.csv</answer>"

    episode = play("http://127.0.0.1:8000", policy, task_id="wine", max_turns=4)
    print(episode.total_reward, episode.reward_components, episode.termination)

Rewards: each step's ``reward`` is an increment; the increments of an
episode add up to its ``info["total_reward"]`` on the last step.
"""

from __future__ import annotations

import json
import math
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

#: ``sandmle serve``'s default limit of one code step, in seconds.
STEP_LIMIT_S = 300.0

#: What a client waits for one reply by default: the step limit, plus a
#: margin for killing the program and removing its files.
MESSAGE_TIMEOUT_S = STEP_LIMIT_S + 60.0

__all__ = [
    "MESSAGE_TIMEOUT_S",
    "STEP_LIMIT_S",
    "Episode",
    "ServerError",
    "Session",
    "client",
    "episode_reward",
    "http_url",
    "list_tasks",
    "play",
    "reset_prompt",
    "ws_url",
]


class ServerError(RuntimeError):
    """An ``{"type": "error"}`` reply: ``code`` is OpenEnv's error code
    (``CAPACITY_REACHED``, ``VALIDATION_ERROR``, ``EXECUTION_ERROR``, ...)."""

    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def http_url(base_url: str) -> str:
    """``base_url`` as ``http(s)://host:port`` (a ``ws(s)://`` one converted,
    no trailing slash, no ``/ws``)."""
    url = base_url.rstrip("/")
    if url.endswith("/ws"):
        url = url[: -len("/ws")]
    if url.startswith("ws://"):
        url = "http://" + url[len("ws://") :]
    elif url.startswith("wss://"):
        url = "https://" + url[len("wss://") :]
    return url


def ws_url(base_url: str) -> str:
    """The server's episode endpoint, ``ws(s)://host:port/ws``."""
    url = http_url(base_url)
    if url.startswith("https://"):
        return "wss://" + url[len("https://") :] + "/ws"
    if url.startswith("http://"):
        return "ws://" + url[len("http://") :] + "/ws"
    return "ws://" + url + "/ws"


def list_tasks(
    base_url: str, *, split: Optional[str] = None, band: Optional[int] = None, timeout_s: float = 30.0
) -> List[Dict[str, Any]]:
    """The server's environments, from ``GET /tasks``: one dict per task with
    at least ``task_id`` (and ``name``, ``split``, ``difficulty`` where the
    server knows them). ``split`` keeps the tasks of that split only,
    ``band`` those of that difficulty band (1 to 5). A server without
    ``GET /tasks`` raises ``LookupError``: pass task ids yourself."""
    url = http_url(base_url) + "/tasks"
    query = {k: v for k, v in (("split", split), ("band", band)) if v is not None}
    if query:
        url += "?" + urllib.parse.urlencode(query)
    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as response:
            body = json.load(response)
    except urllib.error.HTTPError as e:
        if e.code in (404, 405):
            raise LookupError(f"{url}: this server does not list its tasks (HTTP {e.code}); pass task ids") from None
        raise
    tasks = body.get("tasks") if isinstance(body, dict) else body
    if not isinstance(tasks, list):
        raise ValueError(f"{url}: expected {{'tasks': [...]}}, got {str(body)[:200]}")
    if split is not None:
        tasks = [t for t in tasks if t.get("split") == split]
    if band is not None:
        tasks = [t for t in tasks if (t.get("difficulty") or {}).get("band") == band]
    return tasks


def reset_prompt(base_url: str, timeout_s: float = MESSAGE_TIMEOUT_S, **reset_options: Any) -> Dict[str, Any]:
    """The observation a reset with ``reset_options`` returns (its
    ``messages``: system and user; ``tools``; ``info``), from the stateless
    ``POST /reset``: no session is kept."""
    request = urllib.request.Request(
        http_url(base_url) + "/reset",
        data=json.dumps(reset_options).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            body = json.load(response)
    except urllib.error.HTTPError as e:
        detail = e.read().decode(errors="replace")[:500]
        raise ServerError(f"HTTP {e.code}", f"POST /reset {reset_options}: {detail}") from None
    return body["observation"]


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-6)


def _component_rewards(components: Any) -> Dict[str, float]:
    """``{name: {"weight", "value", "reward"}}`` (or ``{name: number}``) as
    ``{name: reward}``."""
    out: Dict[str, float] = {}
    if not isinstance(components, dict):
        return out
    for name, c in components.items():
        if isinstance(c, dict):
            if "reward" in c:
                out[name] = float(c["reward"])
            elif "weight" in c and "value" in c:
                out[name] = float(c["weight"]) * float(c["value"])
        elif isinstance(c, (int, float)):
            out[name] = float(c)
    return out


def episode_reward(infos: List[Dict[str, Any]], rewards: Optional[List[Optional[float]]] = None) -> tuple:
    """``(total, components)`` of an episode from its steps' ``info`` dicts
    (in order) and, optionally, their ``reward`` fields.

    ``total`` is the last step's ``total_reward`` when it has one (a finished
    episode), else the sum of ``rewards``. ``components`` maps each reward
    component to its contribution to the total: the last step's
    ``reward_components`` (each one's ``reward``, its weight times its value)
    when they add up to the total; else every step's ``reward_components``
    added up, when those do; else the last step's ``reward_breakdown``.
    """
    rewards = [r for r in (rewards or []) if r is not None]
    last = infos[-1] if infos else {}
    total = last.get("total_reward")
    total = float(total) if total is not None else float(sum(rewards))
    if "reward_components" in last:
        comps = _component_rewards(last["reward_components"])
        if _close(sum(comps.values()), total):
            return total, comps
        summed: Dict[str, float] = {}
        for info in infos:
            for name, value in _component_rewards(info.get("reward_components")).items():
                summed[name] = summed.get(name, 0.0) + value
        if _close(sum(summed.values()), total):
            return total, summed
    if isinstance(last.get("reward_breakdown"), dict):
        return total, {k: float(v) for k, v in last["reward_breakdown"].items()}
    if "reward_components" in last:
        return total, _component_rewards(last["reward_components"])
    return total, {}


@dataclass
class Episode:
    """One played episode: the whole conversation (``messages``), each
    step's ``rewards`` and ``infos``, whether it finished (``done``), and
    what :func:`episode_reward` reads from them."""

    task_id: Optional[str]
    messages: List[Dict[str, Any]]
    rewards: List[float] = field(default_factory=list)
    infos: List[Dict[str, Any]] = field(default_factory=list)
    done: bool = False
    tools: List[Dict[str, Any]] = field(default_factory=list)

    @property
    def total_reward(self) -> float:
        return episode_reward(self.infos, self.rewards)[0]

    @property
    def reward_components(self) -> Dict[str, float]:
        return episode_reward(self.infos, self.rewards)[1]

    @property
    def termination(self) -> Optional[str]:
        return self.infos[-1].get("termination") if self.infos else None

    @property
    def final_grade(self) -> Optional[Dict[str, Any]]:
        return self.infos[-1].get("final_grade") if self.infos else None


def client(base_url: str, *, message_timeout_s: float = MESSAGE_TIMEOUT_S, **kwargs: Any):
    """openenv-core's ``GenericEnvClient`` for ``base_url``, waiting up to
    ``message_timeout_s`` for a reply (above the server's step limit, so a
    long code step is not taken for a dead server). Other keywords go to
    ``GenericEnvClient``. Use it as OpenEnv documents: ``async with``, or
    ``with client(url).sync() as env``."""
    from openenv.core import GenericEnvClient

    return GenericEnvClient(base_url=http_url(base_url), message_timeout_s=message_timeout_s, **kwargs)


def play(
    base_url: str,
    policy: Callable[[List[Dict[str, Any]]], str],
    *,
    max_steps: Optional[int] = None,
    message_timeout_s: float = MESSAGE_TIMEOUT_S,
    **reset_options: Any,
) -> Episode:
    """Plays one episode with openenv-core's client: ``policy(messages)``
    gets the conversation so far (system, user, then each assistant turn and
    the tool's replies) and returns the assistant's raw text, sent as the
    step ``{"content": text}``; until the server says ``done`` (or
    ``max_steps`` steps, a guard; the server's ``max_turns`` ends episodes
    anyway). ``reset_options`` are the server's (``task_id``, ``seed``,
    ``codec``, ``reward``, ``max_turns``, ``tools``, ...)."""
    with client(base_url, message_timeout_s=message_timeout_s).sync() as env:
        result = env.reset(**reset_options)
        obs = result.observation
        episode = Episode(
            task_id=(obs.get("info") or {}).get("task_id"),
            messages=list(obs.get("messages") or []),
            tools=list(obs.get("tools") or []),
        )
        while not result.done and (max_steps is None or len(episode.rewards) < max_steps):
            text = policy(list(episode.messages))
            episode.messages.append({"role": "assistant", "content": text})
            result = env.step({"content": text})
            obs = result.observation
            episode.messages.extend(obs.get("messages") or [])
            episode.rewards.append(float(result.reward or 0.0))
            episode.infos.append(dict(obs.get("info") or {}))
        episode.done = bool(result.done)
        return episode


class Session:
    """One episode over ``/ws`` with the ``websockets`` package (its
    synchronous client; no openenv-core needed)::

        with Session(url) as s:
            first = s.reset(task_id="wine", max_turns=4)   # {"observation", "reward", "done"}
            step = s.step("<think>..</think><answer>submission.csv</answer>")

    ``reset`` and ``step`` return the reply's ``data``; an error reply raises
    :class:`ServerError`. Every wait is bounded by ``message_timeout_s``.
    """

    def __init__(self, base_url: str, *, message_timeout_s: float = MESSAGE_TIMEOUT_S, open_timeout_s: float = 30.0):
        from websockets.sync.client import connect

        self.url = ws_url(base_url)
        self.message_timeout_s = message_timeout_s
        # `__enter__` gives the connection whether `connect` returns it (websockets < 17's default) or a
        # connecting context manager (websockets >= 17 warns when the connection is not entered).
        self._ws = connect(self.url, max_size=None, open_timeout=open_timeout_s, close_timeout=5).__enter__()

    def _call(self, message: Dict[str, Any]) -> Dict[str, Any]:
        self._ws.send(json.dumps(message))
        reply = json.loads(self._ws.recv(timeout=self.message_timeout_s))
        if reply.get("type") == "error":
            data = reply.get("data") or {}
            raise ServerError(str(data.get("code", "ERROR")), str(data.get("message", data)))
        return reply.get("data") or {}

    def reset(self, **options: Any) -> Dict[str, Any]:
        return self._call({"type": "reset", "data": options})

    def step(self, content: str) -> Dict[str, Any]:
        return self._call({"type": "step", "data": {"content": content}})

    def close(self) -> None:
        try:
            self._ws.send(json.dumps({"type": "close"}))
        except Exception:
            pass
        try:
            self._ws.close()
        except Exception:
            pass

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
