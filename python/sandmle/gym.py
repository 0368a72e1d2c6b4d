"""A gymnasium environment over ``sandmle.Env``: text in, text out.

``SandmleEnv`` takes the same arguments as :class:`sandmle.Env`. The action
is the assistant's raw text; the observation is the text of the messages
the step returns (at reset: the system prompt and the task, joined by a
blank line; after a step: the tool's reply, empty when the codec lets a turn
pass without one). Both spaces are :class:`gymnasium.spaces.Text` over every
character of Unicode's Basic Multilingual Plane; a character beyond it
(an emoji a program printed, say) is shown as U+FFFD and an observation
longer than ``max_observation_chars`` is cut, while ``info["messages"]``
always holds the messages themselves. ``info`` carries the step's facts
(``turn``, ``action``, ``status``, and on the last step ``termination``,
``total_reward``, ``reward_breakdown``, ``final_grade``) without the wall
time, so equal actions give equal infos::

    import gymnasium
    from sandmle.gym import SandmleEnv

    env = SandmleEnv("examples/seeds/wine", tools=["pipeline"], max_turns=4)
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(
        '<think>Grade it.</think><tool_call>{"name": "Score", "arguments": {}}</tool_call>')
    env.close()
"""

from __future__ import annotations

from typing import Any

import gymnasium
from gymnasium import spaces

from . import _sandmle

#: Every character of the Basic Multilingual Plane but the surrogates.
BMP_CHARSET: frozenset[str] = frozenset(chr(c) for c in range(0x10000) if not 0xD800 <= c <= 0xDFFF)

#: Timing fields, dropped from ``info`` (they differ run to run).
_TIMING = ("wall_ms",)


def _text(messages: list[dict[str, Any]], limit: int) -> str:
    text = "\n\n".join(m.get("content") or "" for m in messages)
    if any(ord(c) > 0xFFFF or 0xD800 <= ord(c) <= 0xDFFF for c in text):
        text = "".join(c if c in BMP_CHARSET else "\ufffd" for c in text)
    return text[:limit]


class SandmleEnv(gymnasium.Env):
    """One SandMLE environment as a gymnasium ``Env`` (text spaces).

    ``max_observation_chars`` and ``max_action_chars`` bound the spaces;
    ``render_mode="ansi"`` makes ``render()`` return the transcript so far.
    Every other keyword goes to :class:`sandmle.Env`.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        env_dir: str,
        *,
        max_observation_chars: int = 1_000_000,
        max_action_chars: int = 100_000,
        render_mode: str | None = None,
        **env_kwargs: Any,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise _sandmle.BadArguments(f"render_mode: None or 'ansi', not {render_mode!r}")
        self.render_mode = render_mode
        self._limit = max_observation_chars
        self._env = _sandmle.Env(env_dir, **env_kwargs)
        self.observation_space = spaces.Text(max_length=max_observation_chars, min_length=0, charset=BMP_CHARSET)
        self.action_space = spaces.Text(max_length=max_action_chars, min_length=0, charset=BMP_CHARSET)

    @property
    def inner(self) -> _sandmle.Env:
        """The :class:`sandmle.Env` underneath (``record()``, ``tools``, ...)."""
        return self._env

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Starts an episode; ``options`` may hold ``rollout_idx``."""
        super().reset(seed=seed)
        rollout_idx = int((options or {}).get("rollout_idx", 0))
        messages, info = self._env.reset(seed=seed, rollout_idx=rollout_idx)
        info["messages"] = messages
        info["tools"] = self._env.tools
        return _text(messages, self._limit), info

    def step(self, action: str):
        """One assistant turn (its raw text)."""
        messages, reward, terminated, truncated, info = self._env.step(str(action))
        for key in _TIMING:
            info.pop(key, None)
        info["messages"] = messages
        return _text(messages, self._limit), float(reward), bool(terminated), bool(truncated), info

    def render(self) -> str | None:
        """The transcript so far as text (``render_mode="ansi"``)."""
        if self.render_mode != "ansi":
            return None
        return "\n\n".join(f"[{m['role']}]\n{m.get('content') or ''}" for m in self._env.transcript())

    def close(self) -> None:
        """Removes the episode's workspace."""
        self._env.close()
