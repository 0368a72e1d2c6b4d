"""SandMLE-rs from Python: micro-scale ML-engineering RL environments.

The native module (Rust, pyo3) gives:

- ``Env(env_dir, codec=..., reward=..., reward_mode=..., max_turns=...,
  step_timeout_s=..., episode_timeout_s=..., tools=..., unsandboxed=...)``
  with ``reset(seed=None, rollout_idx=0) -> (messages, info)``,
  ``step(text) -> (messages, reward, terminated, truncated, info)``,
  ``call_tool(name, args, call_id=None)``, ``tools``, ``system_prompt``,
  ``transcript()``, ``record()`` and ``close()``;
- ``evaluate(env_dir, submission_path) -> dict`` (``sandmle evaluate``'s keys),
  ``generate(out, per_seed=..., seed=..., seeds_dir=..., shard=...)``
  (``sandmle generate``), ``reindex(out)``, ``seeds()``;
- ``rollout_group(env_dir, policy=..., group=..., seed=...)`` (one group of
  ``sandmle rollout``), ``write_trajectories(path, rows)``,
  ``group_advantages(rewards, estimator=..., std=..., eps=...)``;
- exceptions named after the command line's failure kinds, subclasses of
  ``SandmleError``: ``InvalidSubmission``, ``SolutionFailed``,
  ``BadArguments``, ``BrokenEnvironment``, ``SystemFault``.

Long calls release the interpreter lock; returns are plain dicts and lists.
``sandmle.gym`` adapts ``Env`` to gymnasium and ``sandmle.ray`` spreads
generation and rollouts over a Ray cluster (both imported on demand).
"""

from ._sandmle import (
    CODECS,
    REWARD_SCHEMES,
    BadArguments,
    BrokenEnvironment,
    Env,
    InvalidSubmission,
    SandmleError,
    SolutionFailed,
    SystemFault,
    __version__,
    evaluate,
    generate,
    group_advantages,
    reindex,
    rollout_group,
    seeds,
    write_trajectories,
)

__all__ = [
    "CODECS",
    "REWARD_SCHEMES",
    "BadArguments",
    "BrokenEnvironment",
    "Env",
    "InvalidSubmission",
    "SandmleError",
    "SolutionFailed",
    "SystemFault",
    "__version__",
    "evaluate",
    "generate",
    "group_advantages",
    "reindex",
    "rollout_group",
    "seeds",
    "write_trajectories",
]
