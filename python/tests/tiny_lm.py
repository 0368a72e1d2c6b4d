"""A tiny, randomly initialised causal LM and its tokenizer, built here with no
download: a byte-level BPE trained in-process (so every text round-trips),
wrapped as a ``PreTrainedTokenizerFast`` with a ChatML template, and a
two-layer ``Qwen2ForCausalLM`` (hidden size 32). Used by the TRL tests and
``examples/trl_grpo.py`` in place of a real model.

``build(out_dir, corpus=...)`` saves both; ``load(out_dir)`` reads them back
(with ``PreTrainedTokenizerFast``: ``AutoTokenizer`` would rebuild a
``Qwen2Tokenizer`` from the config and tokenize differently).
"""

from __future__ import annotations

from typing import Iterable, Optional

CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]

CORPUS = [
    "<think>Start simple.</think>\n<tool_call>\npython\n<code>\nimport pandas as pd\n</code>\n</tool_call>",
    '<tool_call>{"name": "Score", "arguments": {}}</tool_call> <answer>submission.csv</answer>',
    "0 1 2 3 4 5 6 7 8 9 train.csv test.csv sample_submission.csv submission.csv",
    "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ .,:;!?()[]{}<>\"'-_=+*/\\|@#$%^&~`",
]


def build_tokenizer(corpus: Optional[Iterable[str]] = None, vocab_size: int = 1000):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),  # all 256 bytes: no unknown token
    )
    tok.train_from_iterator(list(CORPUS) + list(corpus or []), trainer=trainer)
    hf = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token=None,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        padding_side="left",
    )
    hf.chat_template = CHAT_TEMPLATE
    return hf


def build(out_dir: str, corpus: Optional[Iterable[str]] = None, seed: int = 0) -> str:
    """Saves a tiny Qwen2 model and its tokenizer (BPE trained on ``corpus``
    and a few lines of sandmle's format) to ``out_dir``."""
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(seed)
    tok = build_tokenizer(corpus)
    cfg = Qwen2Config(
        vocab_size=len(tok),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=32768,
        tie_word_embeddings=True,
        eos_token_id=tok.eos_token_id,
        pad_token_id=tok.pad_token_id,
        bos_token_id=None,
    )
    model = Qwen2ForCausalLM(cfg)
    model.generation_config.eos_token_id = tok.eos_token_id
    model.generation_config.pad_token_id = tok.pad_token_id
    model.save_pretrained(out_dir)
    tok.save_pretrained(out_dir)
    return out_dir


def load(out_dir: str):
    """``(model, tokenizer)`` saved by :func:`build`."""
    from transformers import AutoModelForCausalLM, PreTrainedTokenizerFast

    return AutoModelForCausalLM.from_pretrained(out_dir), PreTrainedTokenizerFast.from_pretrained(out_dir)


if __name__ == "__main__":
    import sys

    print(build(sys.argv[1] if len(sys.argv) > 1 else "tiny-qwen2"))
