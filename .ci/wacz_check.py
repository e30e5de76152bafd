#!/usr/bin/env python3
"""Check a WACZ file against the WACZ 1.1.1 specification, independently of
politecrawl's Go code (Python's standard zipfile, hashlib, gzip and json only).

Usage: wacz_check.py FILE.wacz

Checks: the required files are there; archive/ entries are STORED; every
file but datapackage.json and datapackage-digest.json is listed in
datapackage.json's resources with its size and sha256; datapackage-digest.json
holds the sha256 of datapackage.json; pages/pages.jsonl starts with its
header and each page has url and ts; indexes/index.cdxj is sorted and each of
its lines points (filename, offset, length) at one whole gzip member of
archive/FILENAME holding a WARC record of that URL. Exits 1 on the first
class of problem found, printing every instance of it.
"""
import gzip
import hashlib
import json
import sys
import zipfile


def fail(problems):
    for p in problems:
        print("FAIL:", p)
    sys.exit(1)


def main(path):
    z = zipfile.ZipFile(path)
    names = {i.filename: i for i in z.infolist()}
    problems = [f"missing {n}" for n in ("datapackage.json", "datapackage-digest.json",
                                         "pages/pages.jsonl", "indexes/index.cdxj") if n not in names]
    problems += [f"{n} is not STORED" for n, i in names.items()
                 if n.startswith("archive/") and i.compress_type != zipfile.ZIP_STORED]
    if problems:
        fail(problems)

    dp_bytes = z.read("datapackage.json")
    dp = json.loads(dp_bytes)
    if dp.get("profile") != "data-package" or dp.get("wacz_version") != "1.1.1":
        problems.append(f"datapackage.json profile/wacz_version: {dp.get('profile')} {dp.get('wacz_version')}")
    listed = set()
    for r in dp.get("resources", []):
        listed.add(r["path"])
        h = hashlib.sha256()
        size = 0
        with z.open(r["path"]) as f:  # checks the CRC-32 at the end
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
                size += len(chunk)
        if r["hash"] != "sha256:" + h.hexdigest() or r["bytes"] != size:
            problems.append(f"resource {r['path']}: listed {r['hash']} {r['bytes']}, is sha256:{h.hexdigest()} {size}")
    for n in names:
        if n not in listed and n not in ("datapackage.json", "datapackage-digest.json") and not n.endswith("/"):
            problems.append(f"{n} not listed in datapackage.json")
    dg = json.loads(z.read("datapackage-digest.json"))
    if dg.get("path") != "datapackage.json" or dg.get("hash") != "sha256:" + hashlib.sha256(dp_bytes).hexdigest():
        problems.append(f"datapackage-digest.json {dg}")
    if problems:
        fail(problems)

    pages = z.read("pages/pages.jsonl").decode("utf-8").splitlines()
    header = json.loads(pages[0])
    if header.get("format") != "json-pages-1.0":
        problems.append(f"pages.jsonl header {pages[0]}")
    for line in pages[1:]:
        p = json.loads(line)
        if not p.get("url") or not p.get("ts"):
            problems.append(f"page without url or ts: {line}")

    index = z.read("indexes/index.cdxj").decode("utf-8").splitlines()
    if [l.encode() for l in index] != sorted(l.encode() for l in index):
        problems.append("indexes/index.cdxj is not sorted")
    warcs = {}
    for line in index:
        key, ts, js = line.split(" ", 2)
        f = json.loads(js)
        name = "archive/" + f["filename"]
        if name not in names:
            problems.append(f"index line points at missing {name}: {line}")
            continue
        if name not in warcs:
            warcs[name] = z.read(name)
        off, n = int(f["offset"]), int(f["length"])
        member = warcs[name][off:off + n]
        try:
            d = gzip.decompress(member)  # exactly one whole member, or it fails
        except Exception as e:
            problems.append(f"{f['url']}: {name}:{off}+{n} is not a gzip member: {e}")
            continue
        head = d.split(b"\r\n\r\n", 1)[0].decode("utf-8", "replace").split("\r\n")
        fields = dict(h.split(": ", 1) for h in head[1:] if ": " in h)
        if not head[0].startswith("WARC/") or fields.get("WARC-Target-URI") != f["url"] or \
                fields.get("WARC-Type") not in ("response", "revisit"):
            problems.append(f"{f['url']}: record at {name}:{off} is {fields.get('WARC-Type')} of {fields.get('WARC-Target-URI')}")
    if problems:
        fail(problems)
    print(f"OK {path}: {len(names)} entries, {len(listed)} resources, {len(index)} index lines "
          f"checked against their records, {len(pages) - 1} pages")


if __name__ == "__main__":
    main(sys.argv[1])
