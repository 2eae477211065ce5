#!/usr/bin/env python3
"""make-models.py OUTDIR: the interop run's models, made here (no network, nothing from a hub).

- OUTDIR/tiny-llama.gguf: a random-weight 2-layer llama (GGUF, f32) with a byte-level BPE
  vocabulary trained below, loadable by llama.cpp.
- OUTDIR/tokenizer/: the same vocabulary as a Hugging Face tokenizer (tokenizer.json and
  tokenizer_config.json), so aiperf's and latscope's --tokenizer counts are the server's.
- OUTDIR/mlp.onnx: a small MLP (input "input" FP32 [-1, 256] -> output "output" FP32 [-1, 16]).

Every value is seeded: the same files each run.
"""
import json
import os
import sys

import numpy as np

OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
rng = np.random.default_rng(17)


# ---- byte-level BPE vocabulary (GPT-2's byte-to-unicode map) ----
def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, [chr(c) for c in cs]))


B2U = bytes_to_unicode()
# A small training text: half of latscope's synthetic prompt words and some more English, so that
# some prompt words are one token and others several (words are not tokens).
corpus = ("the of and to in is you that it he was for on are as with his they at be this have "
          "from or one had by word but not what all were we when your can said there use an each "
          "which she do how their if will up other about out many then them these so some her "
          "latency token server request model stream first time people water number write").split()
words = {}
for w in corpus:
    for form in (w, " " + w):
        pieces = tuple(B2U[b] for b in form.encode())
        words[pieces] = words.get(pieces, 0) + 1
merges = []
NMERGES = 320
for _ in range(NMERGES):
    pairs = {}
    for pieces, n in words.items():
        for a, b in zip(pieces, pieces[1:]):
            pairs[(a, b)] = pairs.get((a, b), 0) + n
    if not pairs:
        break
    best = max(sorted(pairs), key=lambda p: pairs[p])
    merges.append(best)
    new = {}
    for pieces, n in words.items():
        out, i = [], 0
        while i < len(pieces):
            if i + 1 < len(pieces) and (pieces[i], pieces[i + 1]) == best:
                out.append(pieces[i] + pieces[i + 1])
                i += 2
            else:
                out.append(pieces[i])
                i += 1
        new[tuple(out)] = new.get(tuple(out), 0) + n
    words = new

tokens = [B2U[b] for b in range(256)]
for a, b in merges:
    if a + b not in tokens:
        tokens.append(a + b)
BOS, EOS = "<|bos|>", "<|eos|>"
tokens += [BOS, EOS]
bos_id, eos_id = len(tokens) - 2, len(tokens) - 1
# pad the vocabulary to a multiple of 32 with unused control tokens
while len(tokens) % 32:
    tokens.append("<|unused%d|>" % len(tokens))
n_vocab = len(tokens)
special = set(range(bos_id, n_vocab))
rank = {m: i for i, m in enumerate(merges)}


def bpe(piece):
    """GPT-2 BPE of one pre-tokenized piece (a string of byte-to-unicode characters)."""
    parts = list(piece)
    while len(parts) > 1:
        pairs = [(rank.get((a, b), 1 << 30), i) for i, (a, b) in enumerate(zip(parts, parts[1:]))]
        r, i = min(pairs)
        if r == 1 << 30:
            break
        parts[i:i + 2] = [parts[i] + parts[i + 1]]
    return parts


# The tokens the model may emit: a space and a whole word that BPE encodes as that one token, so
# the output text re-tokenizes to exactly the tokens generated (one per SSE event): any counter
# (llama.cpp's /tokenize, the HF tokenizer aiperf loads, latscope's --tokenizer) must find
# max_tokens tokens in every complete answer.
SPACE = B2U[ord(" ")]
emit = [i for i, t in enumerate(tokens) if i not in special and t.startswith(SPACE) and len(t) > 2
        and t[1:].isalpha() and t[1:].isascii() and bpe(t) == [t]]
assert len(emit) >= 20, emit

# ---- Hugging Face tokenizer files ----
tokdir = os.path.join(OUT, "tokenizer")
os.makedirs(tokdir, exist_ok=True)
tj = {
    "version": "1.0",
    "truncation": None,
    "padding": None,
    "added_tokens": [{"id": i, "content": tokens[i], "single_word": False, "lstrip": False,
                      "rstrip": False, "normalized": False, "special": True}
                     for i in sorted(special)],
    "normalizer": None,
    "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                      "use_regex": True},
    "post_processor": None,
    "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                "use_regex": True},
    "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
              "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
              "ignore_merges": False,
              "vocab": {t: i for i, t in enumerate(tokens)},
              "merges": [[a, b] for a, b in merges]},
}
with open(os.path.join(tokdir, "tokenizer.json"), "w") as f:
    json.dump(tj, f, ensure_ascii=False)
with open(os.path.join(tokdir, "tokenizer_config.json"), "w") as f:
    json.dump({"tokenizer_class": "PreTrainedTokenizerFast", "bos_token": BOS, "eos_token": EOS,
               "model_max_length": 256, "add_bos_token": False, "clean_up_tokenization_spaces": False},
              f)

# ---- GGUF llama ----
import gguf  # noqa: E402

N_EMBD, N_HEAD, N_HEAD_KV, N_FF, N_LAYER, N_CTX = 64, 4, 4, 128, 2, 256
w = gguf.GGUFWriter(os.path.join(OUT, "tiny-llama.gguf"), "llama")
w.add_name("latscope-interop-tiny-llama")
w.add_context_length(N_CTX)
w.add_embedding_length(N_EMBD)
w.add_block_count(N_LAYER)
w.add_feed_forward_length(N_FF)
w.add_head_count(N_HEAD)
w.add_head_count_kv(N_HEAD_KV)
w.add_layer_norm_rms_eps(1e-5)
w.add_rope_dimension_count(N_EMBD // N_HEAD)
w.add_rope_freq_base(10000.0)
w.add_vocab_size(n_vocab)
w.add_file_type(0)  # ALL_F32
w.add_tokenizer_model("gpt2")
w.add_tokenizer_pre("gpt-2")
w.add_token_list(tokens)
w.add_token_types([gguf.TokenType.CONTROL if i in special else gguf.TokenType.NORMAL
                   for i in range(n_vocab)])
w.add_token_merges(["%s %s" % m for m in merges])
w.add_bos_token_id(bos_id)
w.add_eos_token_id(eos_id)
w.add_add_bos_token(False)
w.add_add_eos_token(False)
# A plain chat template (no special tokens), so the chat API works without a guess.
w.add_chat_template("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
                    "{% if add_generation_prompt %}assistant:{% endif %}")


def rnd(*shape, scale=0.2):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


# Residual dimension 0 is a constant 4.0 that no layer writes (row 0 of attn_output and ffn_down
# is zero), so after the final RMS norm it is large and positive; the output rows of every token
# outside `emit` (EOS and the control tokens included) weigh it by -50: their logits are far below
# the others', so the model never emits EOS and every request generates exactly max_tokens words.
emb = rnd(n_vocab, N_EMBD, scale=0.5)
emb[:, 0] = 4.0
w.add_tensor("token_embd.weight", emb)
w.add_tensor("output_norm.weight", np.ones(N_EMBD, dtype=np.float32))
out = rnd(n_vocab, N_EMBD, scale=1.0)
out[:, 0] = 0.0
for i in set(range(n_vocab)) - set(emit):
    out[i, 0] = -50.0
w.add_tensor("output.weight", out)
for L in range(N_LAYER):
    p = "blk.%d." % L
    w.add_tensor(p + "attn_norm.weight", np.ones(N_EMBD, dtype=np.float32))
    w.add_tensor(p + "attn_q.weight", rnd(N_EMBD, N_EMBD))
    w.add_tensor(p + "attn_k.weight", rnd(N_EMBD * N_HEAD_KV // N_HEAD, N_EMBD))
    w.add_tensor(p + "attn_v.weight", rnd(N_EMBD * N_HEAD_KV // N_HEAD, N_EMBD))
    o = rnd(N_EMBD, N_EMBD)
    o[0, :] = 0.0
    w.add_tensor(p + "attn_output.weight", o)
    w.add_tensor(p + "ffn_norm.weight", np.ones(N_EMBD, dtype=np.float32))
    w.add_tensor(p + "ffn_gate.weight", rnd(N_FF, N_EMBD))
    w.add_tensor(p + "ffn_up.weight", rnd(N_FF, N_EMBD))
    d = rnd(N_EMBD, N_FF)
    d[0, :] = 0.0
    w.add_tensor(p + "ffn_down.weight", d)
w.write_header_to_file()
w.write_kv_data_to_file()
w.write_tensors_to_file()
w.close()

# ---- ONNX MLP ----
import onnx  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

D_IN, D_H, D_OUT = 256, 512, 16
W1, B1 = rnd(D_IN, D_H, scale=0.05), rnd(D_H, scale=0.05)
W2, B2 = rnd(D_H, D_H, scale=0.05), rnd(D_H, scale=0.05)
W3, B3 = rnd(D_H, D_OUT, scale=0.05), rnd(D_OUT, scale=0.05)
inits = [numpy_helper.from_array(a, n) for a, n in
         ((W1, "W1"), (B1, "B1"), (W2, "W2"), (B2, "B2"), (W3, "W3"), (B3, "B3"))]
nodes = [
    helper.make_node("Gemm", ["input", "W1", "B1"], ["h1"]),
    helper.make_node("Relu", ["h1"], ["r1"]),
    helper.make_node("Gemm", ["r1", "W2", "B2"], ["h2"]),
    helper.make_node("Relu", ["h2"], ["r2"]),
    helper.make_node("Gemm", ["r2", "W3", "B3"], ["output"]),
]
g = helper.make_graph(nodes, "latscope_interop_mlp",
                      [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", D_IN])],
                      [helper.make_tensor_value_info("output", TensorProto.FLOAT, ["batch", D_OUT])],
                      inits)
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="latscope-interop")
m.ir_version = 8
onnx.checker.check_model(m)
onnx.save(m, os.path.join(OUT, "mlp.onnx"))
print("models: n_vocab %d, %d merges, bos %d eos %d, %d word tokens emitted -> %s"
      % (n_vocab, len(merges), bos_id, eos_id, len(emit), OUT))
