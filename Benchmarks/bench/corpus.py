"""The corpora, generated once and reused: deterministic bytes (write_random), the fixed-size
corpus (make_corpus), the mixed sizes (make_mixed) and the folder tree (make_tree), with the
digests the manifests carry."""

import json
import os
import random
import shutil
import subprocess

from .common import KIB, MIB, WORK, log, sh


def write_random(path, size, seed):
    """Deterministic bytes: Python's seeded generator for small files, AES-CTR over zeros
    (openssl, fast) for big ones. The same seed gives the same bytes on every machine."""
    if size <= 8 * MIB:
        with open(path, "wb") as file:
            file.write(random.Random(seed).randbytes(size))
        return
    key = f"{seed:032x}"
    with open(path, "wb") as file:
        zeros = subprocess.Popen(["head", "-c", str(size), "/dev/zero"], stdout=subprocess.PIPE)
        sh(["openssl", "enc", "-aes-128-ctr", "-nosalt", "-K", key, "-iv", "0" * 32],
           stdin=zeros.stdout, stdout=file)
        zeros.wait()


def sha256_of(path):
    return digest_of(path, "sha256")


def digest_of(path, algorithm):
    """The hex digest of the file at `path` by `sha256sum`, `sha512sum` or `md5sum`."""
    out = subprocess.run([f"{algorithm}sum", path], check=True, capture_output=True,
                         text=True).stdout
    return out.split()[0]


def make_corpus(sizes, name):
    """Generates the corpus once; a stamp file records what it holds so reruns reuse it."""
    corpus = os.path.join(WORK, f"corpus-{name}")
    stamp = os.path.join(corpus, "stamp.json")
    if os.path.exists(stamp):
        with open(stamp) as file:
            saved = json.load(file)
        if saved.get("sizes") == {k: list(v) for k, v in sizes.items()}:
            return corpus, saved["files"]
    log(f"generating the {name} corpus in {corpus} (once)")
    shutil.rmtree(corpus, ignore_errors=True)
    files = {}
    for kind, (count, size) in sizes.items():
        folder = os.path.join(corpus, "up" if kind.startswith("up-") else "www", kind)
        os.makedirs(folder)
        entries = []
        for index in range(count):
            leaf = f"{kind}-{index:05d}.bin"
            path = os.path.join(folder, leaf)
            write_random(path, size, seed=hash_seed(kind, index))
            digest = sha256_of(path) if size > 8 * MIB else None
            entries.append({"name": leaf, "size": size, "sha256": digest})
        files[kind] = entries
    with open(stamp, "w") as file:
        json.dump({"sizes": {k: list(v) for k, v in sizes.items()}, "files": files}, file)
    return corpus, files


def hash_seed(kind, index):
    return sum(ord(c) * 31 ** i for i, c in enumerate(kind)) % 1_000_003 * 100_000 + index


def make_mixed(corpus, count):
    """The mixed corpus in `corpus`/www/mixed, once: `count` files whose sizes spread
    log-uniformly from 1 KiB to 8 MiB (seeded, so the same on every machine), as real data
    sets spread; a stamp records what it holds."""
    folder = os.path.join(corpus, "www", "mixed")
    stamp = os.path.join(folder, "stamp.json")
    if os.path.exists(stamp):
        with open(stamp) as file:
            saved = json.load(file)
        if saved.get("count") == count:
            return saved["files"]
    log(f"generating the mixed corpus in {folder} (once)")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    spread = random.Random("mixed sizes")
    entries = []
    for index in range(count):
        size = int(round(KIB * (8 * MIB / KIB) ** spread.random()))
        leaf = f"mixed-{index:05d}.bin"
        write_random(os.path.join(folder, leaf), size, seed=hash_seed("mixed", index))
        entries.append({"name": leaf, "size": size, "sha256": None})
    with open(stamp, "w") as file:
        json.dump({"count": count, "files": entries}, file)
    return entries


def make_tree(corpus, shape):
    """www/tree/dNNN/fNNNNN.bin: `shape` = (folders, files per folder, bytes), made once
    (a stamp records the shape). Returns the tree's folder."""
    folders, per, size = shape
    tree = os.path.join(corpus, "www", "tree")
    stamp = os.path.join(corpus, "tree-stamp.json")
    if os.path.exists(stamp):
        with open(stamp) as file:
            if json.load(file) == list(shape):
                return tree
    log(f"generating the tree: {folders} folders x {per} files x {size // KIB} KiB (once)")
    shutil.rmtree(tree, ignore_errors=True)
    for folder in range(folders):
        path = os.path.join(tree, f"d{folder:03d}")
        os.makedirs(path)
        for index in range(per):
            write_random(os.path.join(path, f"f{index:05d}.bin"), size,
                         seed=hash_seed("tree", folder * per + index))
    with open(stamp, "w") as file:
        json.dump(list(shape), file)
    return tree
