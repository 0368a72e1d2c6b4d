"""``sandmle.trl``: TRL's GRPOTrainer trains on ``sandmle serve`` episodes.

A tiny random Qwen2 and a BPE tokenizer are built here (no download); the
server serves the bundled wine seed. Two GRPO steps run on CPU with the
model generating every turn (its random text calls no tool: each step's
observation has no message), then one step whose turns come from a scripted
generator through the ``generate=`` hook (copy the sample submission, Score,
answer: observations with messages, a valid submission). Each completion's
reward must be what the server logged for that episode.
"""

import functools
import os
from types import SimpleNamespace

import pytest

import serve_helper

serve_helper.require("trl")
serve_helper.require("websockets")
torch = serve_helper.require("torch")

os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")

from datasets import Dataset  # noqa: E402
from trl import GRPOConfig, GRPOTrainer  # noqa: E402

import tiny_lm  # noqa: E402
from sandmle.openenv import list_tasks, reset_prompt  # noqa: E402
from sandmle.trl import (  # noqa: E402
    component_reward,
    env_reward,
    make_rollout_func,
    task_dataset,
    transformers_generate,
)

EPISODE = {"codec": "sandmle_react", "tools": ["python", "pipeline"]}


@pytest.fixture(scope="module")
def server(tmp_path_factory, sandmle_bin):
    s = serve_helper.start(tmp_path_factory.mktemp("envs"), sandmle_bin)
    yield s
    serve_helper.stop(s)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory, server):
    """The tiny model's folder; its tokenizer is trained on the task's prompt
    too, so that the prompt is a few hundred tokens."""
    prompt = reset_prompt(server.url, task_id="wine", max_turns=2, **EPISODE)["messages"]
    return tiny_lm.build(str(tmp_path_factory.mktemp("tiny")), corpus=[m["content"] for m in prompt])


def config(tmp_path, **kw):
    base = dict(
        output_dir=str(tmp_path / "out"), max_steps=2, per_device_train_batch_size=4, num_generations=4,
        learning_rate=1e-3, logging_steps=1, report_to="none", bf16=False, gradient_checkpointing=False,
        save_strategy="no", max_completion_length=96, beta=0.0, seed=0,
    )
    base.update(kw)
    return GRPOConfig(**base)


def recording(rollout, calls):
    def wrapped(prompts, trainer):
        out = rollout(prompts, trainer)
        calls.append((list(prompts), out))
        return out
    return wrapped


def test_the_dataset_comes_from_the_server(server):
    try:
        tasks = list_tasks(server.url)
    except LookupError:  # a server without GET /tasks: the ids are the caller's
        with pytest.raises(LookupError, match="task_ids"):
            task_dataset(server.url)
        ds = task_dataset(server.url, task_ids=["wine"], max_turns=2, **EPISODE)
        assert ds["task_id"] == ["wine"]
    else:
        ds = task_dataset(server.url, max_turns=2, **EPISODE)
        assert ds["task_id"] == [t["task_id"] for t in tasks]
    prompt = ds[0]["prompt"]
    assert [m["role"] for m in prompt] == ["system", "user"]
    assert "wine" in prompt[1]["content"].lower()
    assert len(task_dataset(server.url, task_ids=["wine"], repeat=3, max_turns=2)) == 3


def test_grpo_trains_two_steps_on_served_episodes(server, tiny, tmp_path):
    """The model plays: random text, so each turn calls no tool and its
    observation has no message; the default generator, asked for
    log-probabilities."""
    with_logprobs = functools.partial(transformers_generate, logprobs=True)
    model, tok = tiny_lm.load(tiny)
    calls, seen = [], []

    def reward(completions, **kw):
        seen.append(kw)
        return env_reward(completions, **kw)

    trainer = GRPOTrainer(
        model=model, processing_class=tok, args=config(tmp_path),
        train_dataset=task_dataset(server.url, task_ids=["wine"], max_turns=2, **EPISODE),
        rollout_func=recording(make_rollout_func(server.url, max_turn_tokens=16, max_turns=2, generate=with_logprobs,
                                                 **EPISODE), calls),
        reward_funcs=reward,
    )
    played_before = len(server.played())
    trainer.train()

    assert trainer.state.global_step == 2
    assert len(calls) == 2 and all(len(prompts) == 4 for prompts, _ in calls)
    totals = []
    for prompts, out in calls:
        n = len(prompts)
        for key in ("prompt_ids", "completion_ids", "env_mask", "sandmle_reward", "sandmle_reward_components",
                    "task_id", "sandmle_turns", "sandmle_done"):
            assert len(out[key]) == n, key
        for ids, mask, lps, turns, done in zip(out["completion_ids"], out["env_mask"], out["logprobs"],
                                               out["sandmle_turns"], out["sandmle_done"]):
            assert len(mask) == len(ids) == len(lps) and set(mask) <= {0, 1}
            assert all(lp < 0 for lp, m in zip(lps, mask) if m) and all(lp == 0 for lp, m in zip(lps, mask) if not m)
            assert 1 <= sum(mask) <= 2 * 16 and len(ids) <= 96
            assert ids[-1] == tok.eos_token_id
            assert done and turns == 2  # max_turns ends each episode
        assert out["task_id"] == ["wine"] * n
        assert set(out["sandmle_termination"]) == {"max_turns"}
        for total, comps in zip(out["sandmle_reward"], out["sandmle_reward_components"]):
            assert sum(comps.values()) == pytest.approx(total)
        totals += out["sandmle_reward"]
    # The reward function got the rollouts' own values ...
    assert [r for kw in seen for r in kw["sandmle_reward"]] == totals
    # ... which are the server's: one logged session per completion, same rewards.
    played = server.played_since(played_before, len(totals))
    assert sorted(s["reward"] for s in played) == pytest.approx(sorted(totals))
    assert all(s["steps"] == 2 and s["termination"] == "max_turns" for s in played)
    logged = [h for h in trainer.state.log_history if "reward" in h]
    assert len(logged) == 2


def scripted_generator(tok, turns):
    """A ``generate=`` hook replying with ``turns`` in order (by how many
    assistant turns each context holds)."""
    def generate(contexts, trainer, max_new_tokens):
        out = []
        for ctx in contexts:
            done = tok.decode(ctx).count("<|im_start|>assistant") - 1
            ids = tok(turns[done], add_special_tokens=False)["input_ids"] + [tok.eos_token_id]
            out.append((ids[:max_new_tokens], None))
        return out
    return generate


def test_a_generator_hook_plays_a_scored_episode(server, tiny, tmp_path):
    model, tok = tiny_lm.load(tiny)
    calls, seen = [], []

    def valid(completions, **kw):
        seen.append(kw)
        return component_reward("valid")(completions, **kw)

    rollout = make_rollout_func(server.url, max_turns=4, generate=scripted_generator(tok, serve_helper.GOOD_EPISODE),
                                **EPISODE)
    trainer = GRPOTrainer(
        model=model, processing_class=tok,
        args=config(tmp_path, max_steps=1, per_device_train_batch_size=2, num_generations=2,
                    max_completion_length=1024, reward_weights=[1.0, 0.0]),
        train_dataset=task_dataset(server.url, task_ids=["wine"], max_turns=4, **EPISODE),
        rollout_func=recording(rollout, calls), reward_funcs=[env_reward, valid],
    )
    played_before = len(server.played())
    trainer.train()
    assert trainer.state.global_step == 1

    (prompts, out), = calls
    played = server.played_since(played_before, len(out["sandmle_reward"]))
    assert sorted(s["reward"] for s in played) == pytest.approx(sorted(out["sandmle_reward"]))
    for ids, mask, total, comps, term in zip(out["completion_ids"], out["env_mask"], out["sandmle_reward"],
                                             out["sandmle_reward_components"], out["sandmle_termination"]):
        assert term == "answer" and total > 0
        assert comps["valid"] > 0 and sum(comps.values()) == pytest.approx(total)
        model_text = tok.decode([t for t, m in zip(ids, mask) if m])
        env_text = tok.decode([t for t, m in zip(ids, mask) if not m])
        assert "shutil.copy" in model_text and "<answer>submission.csv</answer>" in model_text
        assert "copied" in env_text and "Submission OK" in env_text  # the tool's replies, masked out
        assert "shutil.copy" not in env_text
    assert seen[0]["sandmle_reward_components"] == out["sandmle_reward_components"]


def fake_trainer(tok, dataset, max_completion_length=64):
    args = SimpleNamespace(max_completion_length=max_completion_length)
    return SimpleNamespace(processing_class=tok, args=args, max_completion_length=max_completion_length,
                           train_dataset=dataset, eval_dataset=None)


def test_a_prompt_of_no_known_task_is_a_clear_error(server, tiny):
    _, tok = tiny_lm.load(tiny)
    rollout = make_rollout_func(server.url, generate=lambda c, t, n: [])
    trainer = fake_trainer(tok, Dataset.from_dict({"prompt": [[{"role": "user", "content": "a"}]]}))
    with pytest.raises(KeyError, match="task_id"):
        rollout([[{"role": "user", "content": "b"}]], trainer)


def test_a_generator_returning_too_few_turns_is_a_clear_error(server, tiny):
    _, tok = tiny_lm.load(tiny)
    rows = task_dataset(server.url, task_ids=["wine"], max_turns=2, **EPISODE)
    rollout = make_rollout_func(server.url, generate=lambda contexts, trainer, n: [], max_turns=2, **EPISODE)
    with pytest.raises(RuntimeError, match="returned 0 turns for 2 contexts"):
        rollout([rows[0]["prompt"]] * 2, fake_trainer(tok, rows))


def test_task_ids_come_from_prompts_not_reset_options(server):
    with pytest.raises(ValueError, match="task_id"):
        make_rollout_func(server.url, task_id="wine")
    with pytest.raises(ValueError, match="text codec"):
        make_rollout_func(server.url, codec="openai_tools")


@pytest.mark.parametrize("template", ["qwen2_5", "qwen3"])
def test_observations_render_as_the_chat_template_continues(template):
    """An observation's tokens are what the template puts after an assistant
    turn, up to the next assistant header, with or without messages. Qwen3's
    own template drops an earlier turn's empty think block (not a prefix of
    its continuation): TRL's training template for it renders instead."""
    import trl
    from pathlib import Path

    from sandmle.trl import _Renderer

    path = Path(trl.__file__).parent / "chat_templates" / f"{template}.jinja"
    if not path.exists():
        pytest.skip(f"this TRL ships no {template}.jinja")
    tok = tiny_lm.build_tokenizer()
    tok.chat_template = path.read_text()
    renderer = _Renderer(SimpleNamespace(processing_class=tok), template_tools=False)
    reply = "<tool_response>\n[Output]\ncopied\n</tool_response>"
    assert tok.decode(renderer.observation([{"role": "user", "content": reply}])) == (
        f"\n<|im_start|>user\n{reply}<|im_end|>\n<|im_start|>assistant\n"
    )
    assert tok.decode(renderer.observation([])) == "\n<|im_start|>assistant\n"
