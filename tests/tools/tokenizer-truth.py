#!/usr/bin/env python3
"""tokenizer-truth.py OUTDIR - the truth for latscope's tokenizer.json reader (t518).

Trains small byte-level BPE tokenizers with Hugging Face `tokenizers` on generated multilingual
text (nothing is downloaded), saves each as OUTDIR/<name>.json, writes OUTDIR/strings.jsonl (one
JSON string per line) and OUTDIR/<name>.expected (tokenizers' encode(s, add_special_tokens=False)
ids per line: "COUNT ID ID ..."). Seeded: the same files every run.
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
    }
    rng = random.Random(18)
    strings = ["", " ", "a", "hello world", "  leading", "trailing  ", "tab\tsep", "line\nbreak",
               "crlf\r\nline", "\n\n\n", "   \n  x", "don't DON'T we'RE", "x<|endoftext|>y",
               "<|user|>hi<|user|>", "123456789", "a1b22c333", "é", "e\u0301", "🙂🙂🙂",
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
    for name, tok in toks.items():
        with open(os.path.join(outdir, name + ".expected"), "w") as f:
            for s in strings:
                ids = tok.encode(s, add_special_tokens=False).ids
                f.write(" ".join([str(len(ids))] + [str(i) for i in ids]) + "\n")
    print(len(strings), "strings,", ", ".join(toks), file=sys.stderr)


if __name__ == "__main__":
    main()
