"""TRL's ``GRPOTrainer`` on ``sandmle serve`` episodes (TRL >= 0.29, whose
``rollout_func(prompts, trainer)`` runs without vLLM; tested with 1.16).

Three pieces::

    from sandmle.trl import env_reward, make_rollout_func, task_dataset

    URL = "http://127.0.0.1:8000"                    # sandmle serve --envs out/
    dataset = task_dataset(URL, max_turns=4)          # one row per environment: prompt, task_id
    trainer = GRPOTrainer(
        model=model, processing_class=tokenizer, args=GRPOConfig(...),
        train_dataset=dataset,
        rollout_func=make_rollout_func(URL, max_turns=4, max_turn_tokens=512),
        reward_funcs=env_reward)

**Which episode a prompt is.** TRL hands ``rollout_func`` the prompts only
(each repeated ``num_generations`` times). The rollout function finds each
prompt's ``task_id`` in the trainer's own datasets (``trainer.train_dataset``
and ``trainer.eval_dataset``): a row's prompt (its messages' roles and
texts) names its ``task_id`` column. :func:`task_dataset` builds such rows
from the server (``GET /tasks``, or the ids you pass); any dataset with a
``prompt`` and a ``task_id`` column works (e.g. ``sandmle rollout --verl``'s
rows, mapped). ``task_of=`` replaces the lookup with your own function
(prompt -> task id), for streaming datasets. What the model sees is the
server's reset observation (system and user messages) for that task, so the
dataset's prompt is a key, and the episode's settings are the rollout
function's ``reset_options``.

**An episode.** One WebSocket session per completion: ``reset``, then per
turn the model's reply is generated from the conversation's tokens so far,
decoded and sent as the step ``{"content": text}``; the observation's
messages (the tool's reply; none when the turn called no tool) are rendered
with the tokenizer's chat template and appended with ``env_mask`` 0, up to
the next assistant header, so that only the model's tokens are trained on.
The episode ends when the server says ``done`` (an answer, ``max_turns``,
the time limit) or when ``max_completion_length`` is spent (then its reward
is the sum of the steps' rewards so far, ``sandmle_done`` False). A turn cut
at its token limit is closed with an EOS token (``env_mask`` 0).

The episodes of one call run side by side: each turn the active episodes'
replies are generated as one batch on the trainer's device, then their steps
run concurrently (threads, one WebSocket each). ``max_concurrent`` caps the
sessions open at once (the server refuses those over its
``--max-sessions`` with ``CAPACITY_REACHED``).

**Returned keys** (one entry per prompt): ``prompt_ids``, ``completion_ids``,
``logprobs`` (``None`` unless the generator gives them), ``env_mask``, and,
passed on to reward functions by TRL, ``sandmle_reward`` (the episode's total
reward, the server's ``total_reward``), ``sandmle_reward_components`` (name ->
contribution to the total), ``sandmle_termination``, ``sandmle_turns``,
``sandmle_done`` and ``task_id``. :func:`env_reward` returns the total (and
logs each component's mean as ``sandmle/<name>``); :func:`component_reward`
makes one reward function per component, for ``reward_weights``.

**Another generator.** ``generate=`` takes ``fn(contexts, trainer,
max_new_tokens)``: ``contexts`` are the token ids of each active episode so
far (prompt, completion), and it returns, for each, the new token ids (ending
with EOS when the turn finished) and their log-probabilities or ``None``.
The default, :func:`transformers_generate`, calls the trainer's model's
``generate`` with the trainer's sampling settings. With TRL's vLLM server
mode (``use_vllm=True, vllm_mode="server"``, one training process; TRL syncs
the weights before each ``rollout_func`` call), a sketch (not run by the
tests: it needs vLLM and a GPU)::

    def vllm_generate(contexts, trainer, max_new_tokens):
        out = trainer.vllm_generation.vllm_client.generate(
            prompts=contexts, max_tokens=max_new_tokens, temperature=trainer.temperature,
            top_p=trainer.top_p, top_k=trainer.top_k, logprobs=0)
        return [(ids, [lp[0] for lp in lps]) for ids, lps in zip(out["completion_ids"], out["logprobs"])]

    make_rollout_func(URL, generate=vllm_generate, max_turns=4)
"""

from __future__ import annotations

import contextlib
import inspect
import json
from concurrent.futures import ThreadPoolExecutor, wait
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from .openenv import MESSAGE_TIMEOUT_S, Session, episode_reward, list_tasks, reset_prompt

__all__ = [
    "component_reward",
    "env_reward",
    "make_rollout_func",
    "task_dataset",
    "transformers_generate",
]

#: The keys ``rollout_func`` adds for reward functions.
REWARD_KEY = "sandmle_reward"
COMPONENTS_KEY = "sandmle_reward_components"

#: A turn's token limit when nothing else bounds it (no ``max_completion_length``).
DEFAULT_TURN_TOKENS = 1024

Generation = Tuple[List[int], Optional[List[float]]]
Generator = Callable[[List[List[int]], Any, int], Sequence[Generation]]


# --------------------------------------------------------------------------- dataset


def _messages(messages: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """Messages as plain ``{"role", "content"}`` dicts (the keys a dataset
    column keeps, whatever else the server sent)."""
    return [{"role": m["role"], "content": m.get("content") or ""} for m in messages]


def task_dataset(
    base_url: str,
    task_ids: Optional[Sequence[str]] = None,
    *,
    split: Optional[str] = None,
    repeat: int = 1,
    **reset_options: Any,
):
    """A ``datasets.Dataset`` with one row per environment of the server:
    ``prompt`` (the reset observation's system and user messages, as a reset
    with ``reset_options`` gives them) and ``task_id``. The tasks are
    ``task_ids``, else every task ``GET /tasks`` lists (of ``split``, when
    given); ``repeat`` repeats the rows (a longer epoch). One stateless
    ``POST /reset`` per task; no session is kept."""
    from datasets import Dataset

    if task_ids is None:
        try:
            task_ids = [t["task_id"] for t in list_tasks(base_url, split=split)]
        except LookupError as e:
            raise LookupError(f"{e}: call task_dataset(url, task_ids=[...])") from None
    task_ids = list(task_ids)
    if not task_ids:
        raise ValueError(f"no tasks{f' in split {split!r}' if split else ''} on {base_url}")
    prompts = [_messages(reset_prompt(base_url, task_id=t, **reset_options)["messages"]) for t in task_ids]
    return Dataset.from_dict({"prompt": prompts * repeat, "task_id": task_ids * repeat})


def _prompt_key(prompt: Any) -> str:
    if isinstance(prompt, str):
        return prompt
    return json.dumps([[m.get("role"), m.get("content")] for m in prompt], sort_keys=True, default=str)


class _TaskIndex:
    """Prompt -> task id, read from the trainer's datasets (cached per
    dataset object)."""

    def __init__(self) -> None:
        self._seen: Dict[int, Dict[str, str]] = {}

    def _index(self, dataset: Any) -> Dict[str, str]:
        key = id(dataset)
        if key not in self._seen:
            names = getattr(dataset, "column_names", None) or []
            if "task_id" not in names or "prompt" not in names:
                self._seen[key] = {}
            else:
                table: Dict[str, str] = {}
                for prompt, task in zip(dataset["prompt"], dataset["task_id"]):
                    k = _prompt_key(prompt)
                    if table.get(k, task) != task:
                        raise ValueError(
                            f"two rows share a prompt but name different tasks ({table[k]!r}, {task!r}); "
                            "pass task_of= to make_rollout_func"
                        )
                    table[k] = task
                self._seen[key] = table
        return self._seen[key]

    def lookup(self, trainer: Any, prompt: Any) -> str:
        datasets = [getattr(trainer, "train_dataset", None)]
        evals = getattr(trainer, "eval_dataset", None)
        datasets += list(evals.values()) if isinstance(evals, dict) else [evals]
        key = _prompt_key(prompt)
        for ds in datasets:
            if ds is None:
                continue
            task = self._index(ds).get(key)
            if task is not None:
                return task
        raise KeyError(
            "sandmle.trl: no task_id for this prompt: the trainer's datasets need a `task_id` column beside "
            "`prompt` (sandmle.trl.task_dataset builds one), or pass task_of=lambda prompt: ... to "
            f"make_rollout_func. Prompt: {key[:300]}"
        )


# --------------------------------------------------------------------------- generation


def _tokenizer(trainer: Any) -> Any:
    processing_class = trainer.processing_class
    return getattr(processing_class, "tokenizer", processing_class)


def _eos_ids(trainer: Any, tok: Any) -> List[int]:
    ids = list(getattr(trainer, "eos_token_ids", None) or [])
    if tok.eos_token_id is not None and tok.eos_token_id not in ids:
        ids.insert(0, tok.eos_token_id)
    return ids


def _generation_kwargs(trainer: Any, tok: Any) -> Dict[str, Any]:
    kwargs = getattr(trainer, "generation_kwargs", None)
    if isinstance(kwargs, dict):
        return dict(kwargs)
    args = trainer.args
    kwargs = {
        "do_sample": True,
        "pad_token_id": tok.pad_token_id,
        "eos_token_id": _eos_ids(trainer, tok),
        "temperature": args.temperature,
        "top_p": args.top_p,
        "top_k": args.top_k,
        "min_p": args.min_p,
        "repetition_penalty": args.repetition_penalty,
    }
    kwargs.update(getattr(args, "generation_kwargs", None) or {})
    return kwargs


def _unwrapped(trainer: Any):
    """TRL's ``unwrap_model_for_generation`` (DeepSpeed, FSDP, gradient
    checkpointing handled) where it exists, else the accelerator's plain
    unwrapped model."""
    try:
        from trl.models import unwrap_model_for_generation
    except ImportError:
        unwrap_model_for_generation = None
    if unwrap_model_for_generation is not None:
        wanted = {
            "gather_deepspeed3_params": getattr(trainer.args, "ds3_gather_for_generation", True),
            "gradient_checkpointing_kwargs": getattr(trainer.args, "gradient_checkpointing_kwargs", None),
        }
        params = inspect.signature(unwrap_model_for_generation).parameters
        kwargs = {k: v for k, v in wanted.items() if k in params}
        model = getattr(trainer, "model_wrapped", None) or trainer.model
        return unwrap_model_for_generation(model, trainer.accelerator, **kwargs)
    return contextlib.nullcontext(trainer.accelerator.unwrap_model(trainer.model))


def transformers_generate(
    contexts: List[List[int]], trainer: Any, max_new_tokens: int, *, logprobs: bool = False
) -> List[Generation]:
    """The default generator: one ``generate`` call of the trainer's model
    over the left-padded ``contexts``, with the trainer's sampling settings
    (``temperature``, ``top_p``, ``top_k``, ``min_p``, ``repetition_penalty``,
    ``generation_kwargs``). Each row is cut after its first EOS. With
    ``logprobs=True`` each token's log-probability under the model (logits
    over ``temperature``) is returned too (``functools.partial`` it in);
    TRL needs them only for vLLM's importance sampling."""
    import torch

    tok = _tokenizer(trainer)
    pad_id = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
    eos = set(_eos_ids(trainer, tok))
    width = max(len(c) for c in contexts)
    input_ids = torch.full((len(contexts), width), pad_id, dtype=torch.long)
    attention_mask = torch.zeros((len(contexts), width), dtype=torch.long)
    for i, ctx in enumerate(contexts):
        input_ids[i, width - len(ctx) :] = torch.tensor(ctx, dtype=torch.long)
        attention_mask[i, width - len(ctx) :] = 1
    device = trainer.accelerator.device
    kwargs = _generation_kwargs(trainer, tok)
    kwargs["max_new_tokens"] = max_new_tokens
    if kwargs.get("cache_implementation") is None:
        kwargs.pop("cache_implementation", None)
    with _unwrapped(trainer) as model, torch.no_grad():
        out = model.generate(
            input_ids=input_ids.to(device),
            attention_mask=attention_mask.to(device),
            return_dict_in_generate=True,
            output_logits=logprobs,
            **kwargs,
        )
    new = out.sequences[:, width:].tolist()
    results: List[Generation] = []
    temperature = float(kwargs.get("temperature") or 1.0)
    for i, row in enumerate(new):
        end = next((j + 1 for j, t in enumerate(row) if t in eos), len(row))
        ids = row[:end]
        lps = None
        if logprobs:
            logits = torch.stack([step[i] for step in out.logits[:end]]).float() / temperature
            lps = torch.log_softmax(logits, -1).gather(-1, torch.tensor(ids, device=logits.device)[:, None])
            lps = lps[:, 0].tolist()
        results.append((ids, lps))
    return results


# --------------------------------------------------------------------------- rendering

_AFTER_ASSISTANT = [{"role": "user", "content": "dummy"}, {"role": "assistant", "content": "dummy"}]
_AFTER_USER = [{"role": "user", "content": "dummy"}]


class _Renderer:
    """Token ids of the prompt, and of observation messages after an
    assistant turn up to the next assistant header, with the trainer's chat
    template: what the template adds after a short conversation ending with
    an EOS (as TRL renders tool replies; ``apply_chat_template([])`` raises in
    transformers 5, and an empty observation still opens a new assistant
    turn). Templates that do not render a conversation as a prefix of its
    continuation (Qwen3's drops an empty ``<think>`` block from earlier
    assistant turns) are tried with TRL's training template for them, then
    after a user message."""

    def __init__(self, trainer: Any, template_tools: bool):
        self.tok = _tokenizer(trainer)
        self.kwargs = dict(getattr(trainer, "chat_template_kwargs", None) or {})
        template = getattr(trainer, "chat_template", None)
        if template is not None:
            self.kwargs["chat_template"] = template
        self.template_tools = template_tools
        self._strategy: Dict[Tuple[str, ...], int] = {}
        self._empty: Optional[List[int]] = None

    def _ids(self, messages: List[Dict[str, Any]], add_generation_prompt: bool, **kwargs: Any) -> List[int]:
        ids = self.tok.apply_chat_template(
            messages, add_generation_prompt=add_generation_prompt, tokenize=True, return_dict=False,
            **{**self.kwargs, **kwargs},
        )
        if isinstance(ids, dict) or hasattr(ids, "keys"):
            ids = ids["input_ids"]
        return list(ids)

    def prompt(self, messages: List[Dict[str, Any]], tools: Any) -> List[int]:
        kwargs = {"tools": tools} if tools and self.template_tools else {}
        return self._ids(_clean(messages), True, **kwargs)

    def _strategies(self) -> List[Tuple[List[Dict[str, Any]], Dict[str, Any]]]:
        out: List[Tuple[List[Dict[str, Any]], Dict[str, Any]]] = [(_AFTER_ASSISTANT, {})]
        try:
            from trl.chat_template_utils import get_training_chat_template

            training = get_training_chat_template(self.tok)
        except Exception:  # older TRL, or a template it cannot patch
            training = None
        if training is not None:
            out.append((_AFTER_ASSISTANT, {"chat_template": training}))
        out.append((_AFTER_USER, {}))
        return out

    def _suffix(self, head: List[Dict[str, Any]], kwargs: Dict[str, Any], messages: List[Dict[str, Any]]) -> List[int]:
        prefix = self._ids(head, False, **kwargs)
        eos = [i for i, t in enumerate(prefix) if t == self.tok.eos_token_id]
        if eos:
            prefix = prefix[: eos[-1] + 1]
        full = self._ids(head + messages, True, **kwargs)
        if full[: len(prefix)] != prefix:
            raise ValueError("not a prefix")
        return full[len(prefix) :]

    def observation(self, messages: List[Dict[str, Any]]) -> List[int]:
        if not messages and self._empty is not None:
            return list(self._empty)
        messages = _clean(messages)
        roles = tuple(m["role"] for m in messages)
        strategies = self._strategies()
        order = [self._strategy[roles]] if roles in self._strategy else range(len(strategies))
        errors = []
        for i in order:
            head, kwargs = strategies[i]
            try:
                ids = self._suffix(head, kwargs, messages)
            except Exception as e:  # a template error, or not a prefix: the next way
                errors.append(f"{type(e).__name__}: {e}")
                continue
            self._strategy[roles] = i
            if not messages:
                self._empty = list(ids)
            return ids
        raise ValueError(
            "sandmle.trl: the chat template renders no observation after an assistant turn as a continuation "
            f"({'; '.join(errors)}); pass observation_ids=fn(messages, tokenizer) to make_rollout_func"
        )


def _clean(messages: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    return [{k: v for k, v in m.items() if v is not None} for m in messages]


# --------------------------------------------------------------------------- rollout


class _Episode:
    def __init__(self, prompt: Any, task_id: str, eos_id: int):
        self.prompt = prompt
        self.eos_id = eos_id
        self.task_id = task_id
        self.session: Optional[Session] = None
        self.prompt_ids: List[int] = []
        self.completion: List[int] = []
        self.logprobs: List[float] = []
        self.has_logprobs = True
        self.mask: List[int] = []
        self.rewards: List[Optional[float]] = []
        self.infos: List[Dict[str, Any]] = []
        self.done = False
        self.active = True
        self.turns = 0

    def add(self, ids: List[int], lps: Optional[List[float]], mask: int) -> None:
        self.completion += ids
        self.mask += [mask] * len(ids)
        if lps is None:
            if mask:
                self.has_logprobs = False
            lps = [0.0] * len(ids)
        self.logprobs += list(lps)

    def close(self) -> None:
        if self.session is not None:
            self.session.close()
            self.session = None


def _all(pool: ThreadPoolExecutor, fn: Callable[[Any], Any], items: List[Any]) -> List[Any]:
    """``fn`` over ``items`` on ``pool``; every call finishes before the
    first failure is raised (so that no session opens after the cleanup)."""
    futures = [pool.submit(fn, item) for item in items]
    wait(futures)
    return [f.result() for f in futures]


class _Rollout:
    """The ``rollout_func`` :func:`make_rollout_func` returns."""

    def __init__(self, base_url: str, reset_options: Dict[str, Any], *, max_turn_tokens: Optional[int],
                 generate: Generator, task_of: Optional[Callable[[Any], str]], max_concurrent: Optional[int],
                 message_timeout_s: float, template_tools: bool,
                 observation_ids: Optional[Callable[[List[Dict[str, Any]], Any], List[int]]]):
        self.base_url = base_url
        self.reset_options = reset_options
        self.max_turn_tokens = max_turn_tokens
        self.generate = generate
        self.task_of = task_of
        self.max_concurrent = max_concurrent
        self.message_timeout_s = message_timeout_s
        self.template_tools = template_tools
        self.observation_ids = observation_ids
        self.index = _TaskIndex()

    def __call__(self, prompts: List[Any], trainer: Any) -> Dict[str, Any]:
        tok = _tokenizer(trainer)
        episodes = [
            _Episode(p, self.task_of(p) if self.task_of else self.index.lookup(trainer, p), tok.eos_token_id)
            for p in prompts
        ]
        width = self.max_concurrent or len(episodes) or 1
        with ThreadPoolExecutor(max_workers=max(1, min(width, len(episodes)))) as pool:
            for start in range(0, len(episodes), width):
                chunk = episodes[start : start + width]
                try:
                    self._play(chunk, pool, trainer)
                finally:
                    for e in chunk:
                        e.close()
        out = _output(episodes)
        for key, values in out.items():
            if isinstance(values, list) and len(values) != len(prompts):
                raise RuntimeError(f"sandmle.trl: {key} has {len(values)} rows for {len(prompts)} prompts")
        return out

    def _open(self, e: _Episode) -> Dict[str, Any]:
        e.session = Session(self.base_url, message_timeout_s=self.message_timeout_s)
        return e.session.reset(task_id=e.task_id, **self.reset_options)

    def _cap(self, e: _Episode, budget: Optional[int]) -> Optional[int]:
        """The most tokens ``e``'s next turn may take (None: no bound)."""
        cap = self.max_turn_tokens
        if budget is not None:
            left = budget - len(e.completion)
            cap = left if cap is None else min(cap, left)
        return cap

    def _play(self, chunk: List[_Episode], pool: ThreadPoolExecutor, trainer: Any) -> None:
        """Plays ``chunk``'s episodes in lockstep: one batched generation per
        turn, then their steps side by side."""
        tok = _tokenizer(trainer)
        renderer = _Renderer(trainer, self.template_tools)
        if self.observation_ids is not None:
            render_obs = lambda messages: list(self.observation_ids(messages, tok))  # noqa: E731
        else:
            render_obs = renderer.observation
        budget = getattr(trainer, "max_completion_length", None) or getattr(trainer.args, "max_completion_length", None)
        eos = set(_eos_ids(trainer, tok))

        for e, first in zip(chunk, _all(pool, self._open, chunk)):
            obs = first.get("observation") or {}
            e.prompt_ids = renderer.prompt(obs.get("messages") or [], obs.get("tools"))
            e.done = bool(first.get("done"))
            e.active = not e.done
        while True:
            for e in chunk:
                cap = self._cap(e, budget)
                if e.active and cap is not None and cap <= 0:
                    e.active = False  # the completion budget is spent
            live = [e for e in chunk if e.active]
            if not live:
                return
            caps = [self._cap(e, budget) for e in live]
            widest = max((c for c in caps if c is not None), default=DEFAULT_TURN_TOKENS)
            generations = list(self.generate([e.prompt_ids + e.completion for e in live], trainer, widest))
            if len(generations) != len(live):
                raise RuntimeError(
                    f"sandmle.trl: the generator returned {len(generations)} turns for {len(live)} contexts"
                )
            texts = []
            for e, cap, (ids, lps) in zip(live, caps, generations):
                ids = list(ids)[:cap]
                lps = list(lps)[:cap] if lps is not None else None
                e.add(ids, lps, 1)
                if not ids or ids[-1] not in eos:
                    e.add([e.eos_id], [0.0], 0)  # close a cut turn; not sampled, not trained on
                texts.append(tok.decode(ids, skip_special_tokens=True))
                e.turns += 1
            steps = _all(pool, lambda pair: pair[0].session.step(pair[1]), list(zip(live, texts)))
            for e, step in zip(live, steps):
                obs = step.get("observation") or {}
                e.rewards.append(step.get("reward"))
                e.infos.append(dict(obs.get("info") or {}))
                if step.get("done"):
                    e.done, e.active = True, False
                    continue
                ids = render_obs(obs.get("messages") or [])
                if budget is not None and len(e.completion) + len(ids) >= budget:
                    e.active = False  # no room for the observation and another turn
                    continue
                e.add(ids, None, 0)


def make_rollout_func(
    base_url: str,
    *,
    max_turn_tokens: Optional[int] = None,
    generate: Optional[Generator] = None,
    task_of: Optional[Callable[[Any], str]] = None,
    max_concurrent: Optional[int] = None,
    message_timeout_s: float = MESSAGE_TIMEOUT_S,
    template_tools: bool = False,
    observation_ids: Optional[Callable[[List[Dict[str, Any]], Any], List[int]]] = None,
    **reset_options: Any,
) -> Callable[[List[Any], Any], Dict[str, Any]]:
    """``rollout_func(prompts, trainer)`` for ``GRPOTrainer`` playing each
    prompt's episode on the ``sandmle serve`` at ``base_url`` (see the module
    documentation).

    - ``reset_options``: the server's (``codec``, ``reward``, ``max_turns``,
      ``tools``, ``step_timeout_s``, ``seed``, ...); ``task_id`` comes from
      the prompt. A text codec (``sandmle_react``, ``hermes_json``).
    - ``max_turn_tokens``: the most tokens of one model turn (default: what is
      left of ``max_completion_length``, which bounds the whole completion,
      observations included).
    - ``generate``: the generator hook (default :func:`transformers_generate`).
    - ``task_of``: prompt -> task id (default: the trainer's datasets' ``task_id``).
    - ``max_concurrent``: sessions open at once (default: every prompt of the call).
    - ``message_timeout_s``: the longest wait for one server reply.
    - ``template_tools``: pass the reset's tool schemas to the chat template
      (for templates that render tools; sandmle's codecs describe them in the
      system prompt already).
    - ``observation_ids``: ``fn(messages, tokenizer) -> ids`` replaces the
      chat-template rendering of observations (after the model's EOS, up to
      and with the next assistant header).
    """
    if reset_options.get("codec") == "openai_tools":
        raise ValueError("sandmle.trl sends the assistant's text: use a text codec (sandmle_react, hermes_json)")
    if "task_id" in reset_options:
        raise ValueError("task_id comes from each prompt's dataset row (or task_of=), not from the reset options")
    return _Rollout(
        base_url, reset_options, max_turn_tokens=max_turn_tokens, generate=generate or transformers_generate,
        task_of=task_of, max_concurrent=max_concurrent, message_timeout_s=message_timeout_s,
        template_tools=template_tools, observation_ids=observation_ids,
    )


def _output(episodes: List[_Episode]) -> Dict[str, Any]:
    totals, components = [], []
    for e in episodes:
        if not e.completion:  # an episode over at its reset: TRL needs a token
            e.add([e.eos_id], [0.0], 0)
        total, comps = episode_reward(e.infos, e.rewards)
        totals.append(total)
        components.append(comps)
    with_logprobs = all(e.has_logprobs for e in episodes)
    return {
        "prompt_ids": [e.prompt_ids for e in episodes],
        "completion_ids": [e.completion for e in episodes],
        "logprobs": [e.logprobs for e in episodes] if with_logprobs else None,
        "env_mask": [e.mask for e in episodes],
        REWARD_KEY: totals,
        COMPONENTS_KEY: components,
        "sandmle_termination": [e.infos[-1].get("termination") if e.infos else None for e in episodes],
        "sandmle_turns": [e.turns for e in episodes],
        "sandmle_done": [e.done for e in episodes],
        "task_id": [e.task_id for e in episodes],
    }


# --------------------------------------------------------------------------- rewards


def env_reward(
    completions: List[Any], log_metric: Optional[Callable[[str, float], None]] = None, **kwargs: Any
) -> List[float]:
    """The episode's total reward, as the server computed it (the
    ``sandmle_reward`` key of :func:`make_rollout_func`'s output); logs the
    mean of each reward component as the metric ``sandmle/<name>``."""
    if REWARD_KEY not in kwargs:
        raise KeyError(f"env_reward reads `{REWARD_KEY}`: make sandmle.trl.make_rollout_func the rollout_func")
    totals = [float(r) for r in kwargs[REWARD_KEY]]
    comps = kwargs.get(COMPONENTS_KEY) or []
    if log_metric is not None and comps:
        names = sorted({n for c in comps for n in (c or {})})
        for name in names:
            log_metric(f"sandmle/{name}", sum(float((c or {}).get(name, 0.0)) for c in comps) / len(comps))
    return totals


def component_reward(name: str) -> Callable[..., List[float]]:
    """A reward function returning one component's contribution to each
    episode's total (0 where the episode has no such component), named
    ``sandmle_<name>`` in TRL's logs. The components of an episode add up to
    its total, so ``[component_reward(n) for n in names]`` with
    ``reward_weights`` reweights them."""

    def reward(completions: List[Any], **kwargs: Any) -> List[float]:
        if COMPONENTS_KEY not in kwargs:
            raise KeyError(f"component_reward reads `{COMPONENTS_KEY}`: use sandmle.trl.make_rollout_func")
        return [float((c or {}).get(name, 0.0)) for c in kwargs[COMPONENTS_KEY]]

    reward.__name__ = f"sandmle_{name}"
    return reward
