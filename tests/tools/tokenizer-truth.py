#!/usr/bin/env python3
"""tokenizer-truth.py OUTDIR - the truth for latscope's tokenizer.json reader (t518).

Trains small byte-level BPE tokenizers (and writes one with random merges) with Hugging Face `tokenizers` on generated multilingual
text (nothing is downloaded), saves each as OUTDIR/<name>.json, writes OUTDIR/strings.jsonl (one
JSON string per line) and OUTDIR/<name>.expected (tokenizers' encode(s, add_special_tokens=False)
ids per line: "COUNT ID ID ...") and OUTDIR/<name>.pieces (its pre-tokenizer's pieces of each
string, as hex bytes). Seeded: the same files every run.
"""
import json
import os
import random
import sys

from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

LLAMA3 = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
          r"|\s*[\r\n]+|\s+(?!\S)|\s+")
GPT2 = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"

WORDS = {
    "en": "the of and to in is you that it he was for on are as with his they at be this have "
          "from or one had by word but not what all were we when your can said there use an each "
          "which she do how their if will up other about out many then them these so some her "
          "would make like him into time has look two more write go see number no way could people "
          "don't it's we're they've I'm you'll he'd latency token prompt server".split(),
    "fr": "été déjà où garçon français naïve crème brûlée à côté œuvre".split(),
    "de": "Größe über schön Straße Mädchen Fußball".split(),
    "ru": "привет мир время человек работа Москва".split(),
    "el": "καλημέρα κόσμε λόγος".split(),
    "zh": "你好 世界 中文 分词 模型 推理 延迟".split(),
    "ja": "こんにちは カタカナ 東京 ラーメン".split(),
    "ko": "안녕하세요 세계 한국어".split(),
    "ar": "مرحبا بالعالم".split(),
    "hi": "नमस्ते दुनिया हिन्दी".split(),
    "emoji": "🙂 🚀 👍🏽 ❤️ 🇫🇷 ✨".split(),
    "num": "0 7 42 123 2026 3.14 1,000,000 ١٢٣ ² ½ Ⅻ ４２".split(),
    "punct": ". , ; : ! ? ... -- ( ) [ ] { } \" ' ` ~ @ # $ % ^ & * _ + = < > / \\ | — « » ¿ ¡ © ®".split(),
}
SPACES = [" ", " ", " ", " ", "  ", "   ", "\t", "\n", "\n\n", " \n", "\r\n", "\u00a0", "\u3000"]


def sentence(rng, n):
    keys = list(WORDS)
    out = []
    for _ in range(n):
        k = rng.choice(keys) if rng.random() < 0.5 else "en"
        out.append(rng.choice(WORDS[k]))
        out.append(rng.choice(SPACES) if rng.random() < 0.3 else " ")
    return "".join(out)


def train(name, pre, outdir, corpus, ignore_merges=False):
    model = models.BPE(ignore_merges=ignore_merges) if ignore_merges else models.BPE()
    tok = Tokenizer(model)
    tok.pre_tokenizer = pre
    tok.decoder = decoders.ByteLevel()
    tr = trainers.BpeTrainer(vocab_size=800, min_frequency=2, show_progress=False,
                             initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                             special_tokens=["<|endoftext|>", "<|user|>"])
    tok.train_from_iterator(corpus, trainer=tr)
    path = os.path.join(outdir, name + ".json")
    tok.save(path)
    return Tokenizer.from_file(path)


def random_merges(outdir, nmerges=20000):
    """A byte-level BPE whose merges are random pairs (written as JSON, loaded by tokenizers):
    many overlapping candidates of close ranks, ignore_merges, 64 added tokens."""
    rng = random.Random(5)
    bs = list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    chars = [chr(c) for c in cs]
    vocab = {c: i for i, c in enumerate(chars)}
    toks, merges = list(chars), []
    while len(merges) < nmerges:
        a = rng.choice(toks[-2000:] if len(toks) > 2000 and rng.random() < 0.5 else toks)
        b = rng.choice(chars if rng.random() < 0.7 else toks)
        if a + b in vocab or len(a + b) > 16:
            continue
        vocab[a + b] = len(vocab)
        toks.append(a + b)
        merges.append([a, b])
    added = [{"id": len(vocab) + i, "content": "<|reserved_%d|>" % i, "single_word": False,
              "lstrip": False, "rstrip": False, "normalized": False, "special": True}
             for i in range(64)]
    doc = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
           "normalizer": None,
           "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
               {"type": "Split", "pattern": {"Regex": LLAMA3}, "behavior": "Isolated",
                "invert": False},
               {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                "use_regex": False}]},
           "post_processor": None, "decoder": None,
           "model": {"type": "BPE", "dropout": None, "unk_token": None,
                     "continuing_subword_prefix": None, "end_of_word_suffix": None,
                     "fuse_unk": False, "byte_fallback": False, "ignore_merges": True,
                     "vocab": vocab, "merges": merges}}
    path = os.path.join(outdir, "random-merges.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False)
    return Tokenizer.from_file(path)


def main():
    outdir = sys.argv[1]
    rng = random.Random(17)
    corpus = [sentence(rng, rng.randint(3, 40)) for _ in range(3000)]
    toks = {
        "gpt2": train("gpt2", pre_tokenizers.ByteLevel(add_prefix_space=False), outdir, corpus),
        "gpt2-prefix": train("gpt2-prefix", pre_tokenizers.ByteLevel(add_prefix_space=True),
                             outdir, corpus),
        "llama3": train("llama3", pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(LLAMA3), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)]), outdir, corpus,
            ignore_merges=True),
        "split-gpt2": train("split-gpt2", pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(GPT2), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)]), outdir, corpus),
        "random-merges": random_merges(outdir),
    }
    rng = random.Random(18)
    strings = ["", " ", "a", "hello world", "  leading", "trailing  ", "tab\tsep", "line\nbreak",
               "crlf\r\nline", "\n\n\n", "   \n  x", "don't DON'T we'RE", "IT'SOK we'REady x'Dy 'll'LL'Ve", "it'sx I'mnot", "x<|endoftext|>y",
               "<|user|>hi<|user|>", "x<|reserved_3|>y <|reserved_12|>", "123456789", "a1b22c333", "é", "e\u0301", "🙂🙂🙂",
               "👍🏽👍🏽", "中文分词", "  中文  ", "ﬁ", "\u00a0x", "x\u3000y", "١٢٣٤", "²³", "Ⅻ"]
    for _ in range(600):
        strings.append(sentence(rng, rng.randint(1, 25)))
    for _ in range(100):  # random code points of many blocks
        s = "".join(chr(rng.choice([rng.randint(0x20, 0x7e), rng.randint(0xa0, 0x2ff),
                                    rng.randint(0x370, 0x52f), rng.randint(0x3040, 0x30ff),
                                    rng.randint(0x4e00, 0x4fff), rng.randint(0x1f300, 0x1f64f),
                                    0x20, 0x20, 0x0a]))
                    for _ in range(rng.randint(1, 30)))
        strings.append(s)
    with open(os.path.join(outdir, "strings.jsonl"), "w", encoding="utf-8") as f:
        for s in strings:
            f.write(json.dumps(s) + "\n")
    # the byte-level alphabet, inverted: pieces back to the text's bytes
    bs = list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    unmap = {chr(c): b for b, c in zip(bs, cs)}
    for name, tok in toks.items():
        with open(os.path.join(outdir, name + ".pieces"), "w") as f:
            for s in strings:
                pieces = tok.pre_tokenizer.pre_tokenize_str(s)
                f.write(" ".join(bytes(unmap[ch] for ch in p).hex() for p, _ in pieces) + "\n")
        with open(os.path.join(outdir, name + ".expected"), "w") as f:
            for s in strings:
                ids = tok.encode(s, add_special_tokens=False).ids
                f.write(" ".join([str(len(ids))] + [str(i) for i in ids]) + "\n")
    print(len(strings), "strings,", ", ".join(toks), file=sys.stderr)


if __name__ == "__main__":
    main()
